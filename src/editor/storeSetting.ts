/**
 * The `holon.store` setting: which team store the editor and its servers open, and where its password
 * is kept. Pure (no vscode), so its rules are tested in plain Node.
 *
 * The setting holds the URL without a password: settings.json is synced between machines by Settings
 * Sync and read by every extension, so a password there would be neither private nor local. A URL that
 * carries one is refused, not used, and the human is sent to Holon: Set Team Store Password, which keeps
 * it in SecretStorage (the OS keychain) under a key naming the URL.
 */
import { HolonError } from '../core/kernel/errors.ts';
import { isPostgresUrl, STORE_ENV } from '../core/store/url.ts';

/** The setting's key, under `holon`. */
export const STORE_SETTING = 'store';

/** Which store the editor's ledger is in: this workspace's journal, or the team store `holon.store` names. */
export type StoreInUse = { kind: 'journal' } | { kind: 'team'; url: string; label: string };

/** Why a `holon.store` value is not used. */
export type StoreSettingProblem = 'not_a_url' | 'not_postgres' | 'password_in_url';

/** A team store the human named in their settings. */
export interface TeamStore {
  /** The URL as Holon uses it, without a password. */
  url: string;
  /** What the human sees: `host/database` (with `:port` when it is not PostgreSQL's 5432). */
  label: string;
  /** Where its password is kept in SecretStorage. */
  secretKey: string;
}

/** Query parameters that would carry a secret in the URL (`password`, `sslpassword`). */
const SECRET_PARAM = /password/i;

function refuse(problem: StoreSettingProblem, message: string): HolonError {
  return new HolonError('invalid_input', message, { setting: `holon.${STORE_SETTING}`, problem });
}

/**
 * The team store `holon.store` names, or undefined when it names none (empty: this workspace's journal).
 * Throws `invalid_input` with `details.problem` when the value cannot be used; the message never repeats
 * a password the value held.
 */
export function teamStoreFromSetting(raw: unknown): TeamStore | undefined {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return undefined;
  if (typeof raw !== 'string') throw refuse('not_a_url', 'holon.store is a postgres://user@host:port/database URL');
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw refuse('not_a_url', 'holon.store is not a URL: write postgres://user@host:port/database');
  }
  if (!isPostgresUrl(u.href))
    throw refuse('not_postgres', `holon.store must be a postgres:// (or postgresql://) URL, not ${u.protocol}//…`);
  if (u.password !== '' || [...u.searchParams.keys()].some((k) => SECRET_PARAM.test(k))) {
    throw refuse(
      'password_in_url',
      'holon.store holds a password, so Holon does not use it: settings are synced and ' +
        'readable by every extension. Remove the password from the URL and run Holon: Set ' +
        'Team Store Password.',
    );
  }
  // Host names are case-insensitive; PostgreSQL's URL is not a "special" scheme, so URL keeps their case.
  u.hostname = u.hostname.toLowerCase();
  const url = u.href;
  return { url, label: storeLabel(u), secretKey: storeSecretKey(url) };
}

function storeLabel(u: URL): string {
  // PostgreSQL's client lets the query override the URL's parts (`?host=` a socket folder or another
  // server): the label names what it will connect to.
  const q = (name: string): string | undefined => u.searchParams.get(name) ?? undefined;
  const host = q('host') ?? (u.hostname || 'localhost');
  const port = q('port') ?? u.port;
  const db = q('database') ?? (decodeURIComponent(u.pathname.replace(/^\//, '')) || decodeURIComponent(u.username) || 'postgres');
  return `${host}${port && port !== '5432' ? `:${port}` : ''}/${db}`;
}

/**
 * The SecretStorage key of the password of the store at `url` (without a password). The whole URL is in
 * it, query included, so pointing the setting at another server, user or database (or the same host by
 * `?host=`) never hands that one a password the human gave for another.
 */
export function storeSecretKey(url: string): string {
  return `holon.store.password:${url}`;
}

/** The URL with its password, as PostgreSQL's client reads it (percent-encoded; no password: the URL as it is). */
export function withPassword(url: string, password: string | undefined): string {
  if (password === undefined || password === '') return url;
  const u = new URL(url);
  // The setter leaves `%` as it is, and the client percent-decodes: encode the password fully first.
  u.password = encodeURIComponent(password);
  return u.href;
}

/**
 * What the editor's server gets in its environment about the store: the URL it opens, password included
 * (the server drops the variable once read). With no team store, an empty value, so a HOLON_STORE that
 * VS Code inherited from a shell never puts the server on another store than the editor's.
 */
export function serverStoreEnv(urlWithPassword: string | undefined): Record<string, string> {
  return { [STORE_ENV]: urlWithPassword ?? '' };
}

/**
 * The store a process started beside the editor names: an integrated terminal's `holon`, and the server
 * Connect Claude Code writes into .mcp.json. It is the editor's, so the human and Claude Code see the same
 * ledger, but never with its password: a terminal's environment and .mcp.json are where an agent reads.
 * Such a process takes the password as PostgreSQL's client does, from PGPASSWORD or ~/.pgpass. '' stands
 * for the journal, so that a HOLON_STORE a terminal inherited from a shell names no other store.
 */
export function storeBeside(where: StoreInUse): string {
  return where.kind === 'team' ? where.url : '';
}
