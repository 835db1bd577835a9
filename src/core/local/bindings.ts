/**
 * Workspace bindings: the mandate, state folder and store a human chose for the Holon server that starts
 * in a workspace (Connect Claude Code in the editor, or `holon mandate bind` at a terminal).
 *
 * A client's config file in the workspace (`.mcp.json`) names the server's arguments and environment, and
 * an agent that can edit files can edit it: so in a bound workspace those only have to agree with the
 * binding, and it is the binding that decides. Bindings are kept in the user's own storage, outside every
 * workspace: one file per workspace under `<home>/.config/holon/bindings/`, where `<home>` is the home
 * folder of the password database. Never $HOME, $XDG_CONFIG_HOME or a flag: the config file sets the
 * server's environment and arguments too, and could point it at a bindings folder an agent wrote.
 *
 * Every byte read back is checked before it is believed. A binding that cannot be read, is not the
 * user's own, is writable by others or is not exactly a binding of the folder it was looked up for is
 * refused, never taken for "no binding": a damaged binding must not leave its workspace unbound.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Clock } from '../kernel/deps.ts';
import { HolonError } from '../kernel/errors.ts';
import { mandateId, MANDATE_ID } from '../kernel/ids.ts';
import { refuseArtifactState } from './stateFolder.ts';
import { isPostgresUrl } from '../store/url.ts';

/** Which mandate, state and store a server started in `workspace` serves. */
export interface Binding {
  /** The bound folder, as its real path. */
  workspace: string;
  /** The state folder, as its real path. */
  state: string;
  /** The team store's URL without its password, or null for the state folder's journal. */
  store: string | null;
  mandate: string;
  /** When the human bound it (ISO 8601). */
  bound_at: string;
}

/** Why a binding file is refused (`details.problem` of the `conflict` error). */
export type BindingProblem =
  'not_a_folder' | 'not_a_file' | 'not_owned' | 'writable_by_others' | 'unreadable' | 'malformed' | 'other_workspace';

/** A binding file is a few hundred bytes; anything much larger is not one. */
const MAX_BINDING_BYTES = 64 * 1024;
const KEYS = ['bound_at', 'mandate', 'state', 'store', 'workspace'];

/** Query parameters that would carry a secret in a store's URL (`password`, `sslpassword`). */
const SECRET_PARAM = /password/i;

/**
 * The folder bindings are kept in: `<home>/.config/holon/bindings`, `<home>` from the password database
 * (`os.userInfo()`, which reads no environment variable). Undefined when this user has none there.
 */
export function bindingsFolder(): string | undefined {
  let home: string;
  try {
    home = os.userInfo().homedir;
  } catch {
    return undefined;
  }
  return path.isAbsolute(home) ? path.join(home, '.config', 'holon', 'bindings') : undefined;
}

function noHome(): HolonError {
  return new HolonError('not_found', 'this user has no home folder in the password database, so no workspace can be bound');
}

/** The real path of a folder that must exist. */
function realFolder(dir: string, what: string): string {
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(dir));
  } catch {
    throw new HolonError('not_found', `the ${what} ${path.resolve(dir)} does not exist`);
  }
  if (!fs.statSync(real).isDirectory()) throw new HolonError('invalid_input', `the ${what} ${real} is a file, not a folder`);
  return real;
}

/** The real path of `dir` when it exists, else `dir` resolved: what a named folder is compared as. */
function comparable(dir: string): string {
  const abs = path.resolve(dir);
  try {
    return fs.realpathSync(abs);
  } catch {
    return abs;
  }
}

/** The file of the binding of `workspace` (a real path): its SHA-256, so that a path's characters never make a file name. */
function fileIn(folder: string, workspace: string): string {
  return path.join(folder, `${createHash('sha256').update(workspace).digest('hex')}.json`);
}

/** Where the binding of `workspace` is (or would be) kept. */
export function bindingPath(workspace: string): string {
  const folder = bindingsFolder();
  if (!folder) throw noHome();
  return fileIn(folder, comparable(workspace));
}

function refused(file: string, problem: BindingProblem, why: string): HolonError {
  return new HolonError(
    'conflict',
    `the workspace binding ${file} ${why}, so Holon does not use it (nor treat its ` +
      `workspace as unbound): bind the workspace again (holon mandate bind ACCOUNT/NAME ` +
      `at a terminal, or Holon: Connect Claude Code), or remove the binding with holon ` +
      `mandate unbind`,
    {
      problem,
      file,
    },
  );
}

/** Refuses a folder or file that is not the user's own, or that another user may write. */
function checkPrivate(file: string, st: fs.Stats): void {
  // Windows has no owner ids or mode bits to check here; the folder is in the user's own profile.
  const uid = process.getuid?.();
  if (uid === undefined) return;
  if (st.uid !== uid) throw refused(file, 'not_owned', `belongs to the user with id ${st.uid}, not to you (${uid})`);
  if ((st.mode & 0o022) !== 0)
    throw refused(file, 'writable_by_others', `may be written by other users (mode ${(st.mode & 0o777).toString(8)})`);
}

/** The bindings folder's status: absent (nothing is bound), or a private folder of this user. */
function checkFolder(folder: string): boolean {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(folder);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw refused(folder, 'unreadable', `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  if (!st.isDirectory()) throw refused(folder, 'not_a_folder', 'is not a plain folder');
  checkPrivate(folder, st);
  return true;
}

/**
 * The same URL without its password (nor a query parameter that carries one), its host in lower case:
 * what a binding keeps, and what two store URLs are compared as.
 */
export function storeWithoutPassword(url: string): string {
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    throw new HolonError('invalid_input', 'a store is a postgres://user@host:port/database URL');
  }
  if (!isPostgresUrl(u.href)) throw new HolonError('invalid_input', 'a store is a postgres:// (or postgresql://) URL');
  u.password = '';
  for (const key of [...u.searchParams.keys()]) if (SECRET_PARAM.test(key)) u.searchParams.delete(key);
  // Host names are case-insensitive; PostgreSQL's URL is not a "special" scheme, so URL keeps their case.
  u.hostname = u.hostname.toLowerCase();
  return u.href;
}

/** The fields of a binding file, exactly: anything else is not a binding. */
function parseBinding(file: string, text: string, workspace: string): Binding {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw refused(file, 'malformed', 'is not JSON');
  }
  const malformed = (what: string): HolonError => refused(file, 'malformed', `is not a binding (${what})`);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw malformed('not an object');
  const o = v as Record<string, unknown>;
  if (Object.keys(o).sort().join() !== KEYS.join()) throw malformed(`its fields must be exactly ${KEYS.join(', ')}`);
  const { workspace: w, state, store, mandate, bound_at } = o;
  if (typeof w !== 'string' || !path.isAbsolute(w)) throw malformed('workspace');
  if (typeof state !== 'string' || !path.isAbsolute(state)) throw malformed('state');
  if (store !== null && (typeof store !== 'string' || !isPostgresUrl(store) || storeWithoutPassword(store) !== store))
    throw malformed('store');
  if (typeof mandate !== 'string' || !MANDATE_ID.test(mandate)) throw malformed('mandate');
  if (typeof bound_at !== 'string' || Number.isNaN(Date.parse(bound_at))) throw malformed('bound_at');
  if (w !== workspace) throw refused(file, 'other_workspace', `names the workspace ${w}, not ${workspace}`);
  return { workspace: w, state, store, mandate, bound_at };
}

/** Reads the binding of exactly `workspace` (a real path) from `folder`; undefined when there is none. */
function readIn(folder: string, workspace: string): Binding | undefined {
  const file = fileIn(folder, workspace);
  let fd: number;
  try {
    // Opened without following a link, then checked on the open descriptor: what is checked is what is read.
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw refused(file, 'not_a_file', 'is a link, not a file');
    throw refused(file, 'unreadable', `cannot be read (${code ?? String(err)})`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw refused(file, 'not_a_file', 'is not a plain file');
    checkPrivate(file, st);
    if (st.size > MAX_BINDING_BYTES) throw refused(file, 'malformed', `is ${st.size} bytes, more than a binding`);
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < st.size) {
      const n = fs.readSync(fd, buf, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    return parseBinding(file, buf.subarray(0, got).toString('utf8'), workspace);
  } finally {
    fs.closeSync(fd);
  }
}

/** The binding of exactly the folder `workspace`, or undefined when it is not bound. */
export function bindingOf(workspace: string): Binding | undefined {
  const folder = bindingsFolder();
  if (!folder || !checkFolder(folder)) return undefined;
  return readIn(folder, comparable(workspace));
}

/**
 * The binding a process in `dir` is under: that of `dir` or of its nearest bound ancestor. The file
 * system's root is never bound (bindWorkspace refuses it), so a process started there is under none.
 * Throws `conflict` for a binding file it cannot trust, which stops the search: a nearer binding that
 * is damaged must not hand the folder to a farther one.
 */
export function findBinding(dir: string): Binding | undefined {
  const folder = bindingsFolder();
  if (!folder || !checkFolder(folder)) return undefined;
  let at: string;
  try {
    at = fs.realpathSync(path.resolve(dir));
  } catch {
    throw new HolonError('not_found', `the folder ${path.resolve(dir)} does not exist, so Holon cannot tell whether it is bound`);
  }
  for (let parent = path.dirname(at); parent !== at; at = parent, parent = path.dirname(at)) {
    const b = readIn(folder, at);
    if (b) return b;
  }
  return undefined;
}

/** What a human binds: the workspace, the state folder, the store (null: its journal) and the mandate. */
export interface BindRequest {
  workspace: string;
  state: string;
  store: string | null;
  mandate: string;
}

/**
 * The binding `r` would record, checked: both folders exist (kept as real paths), the workspace is not
 * the file system's root (which would bind every folder), the state is not an artifact folder, the store
 * is a postgres URL (kept without its password). Writes nothing.
 */
export function bindingFor(r: BindRequest, clock: Clock): Binding {
  const workspace = realFolder(r.workspace, 'workspace');
  if (path.dirname(workspace) === workspace)
    throw new HolonError('invalid_input', `${workspace} is the root of the file system: binding it would bind every folder`);
  const state = realFolder(r.state, 'state folder');
  refuseArtifactState(state);
  return {
    workspace,
    state,
    store: r.store === null ? null : storeWithoutPassword(r.store),
    mandate: mandateId(r.mandate),
    bound_at: new Date(clock.now()).toISOString(),
  };
}

/**
 * Records a binding (see bindingFor), replacing the workspace's previous one. The folder is made with
 * mode 0700, the file written aside with mode 0600 and renamed into place, so that a reader sees the old
 * binding or the new one, never half of one. The caller checks that the mandate exists in that store.
 */
export function writeBinding(b: Binding): Binding {
  const folder = bindingsFolder();
  if (!folder) throw noHome();
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  checkFolder(folder);
  // A folder made before, by hand or by another tool, is this user's: nobody else needs to list it either.
  if (process.getuid?.() !== undefined) fs.chmodSync(folder, 0o700);
  const file = fileIn(folder, b.workspace);
  const tmp = path.join(folder, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, 'wx', 0o600);
  try {
    try {
      fs.writeSync(
        fd,
        JSON.stringify({ workspace: b.workspace, state: b.state, store: b.store, mandate: b.mandate, bound_at: b.bound_at }, null, 2) +
          '\n',
      );
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  return b;
}

/** What unbinding found: the binding removed (null when its file could not be trusted, `problem` says why), or nothing. */
export type Unbound = { binding: Binding | null; problem?: string } | undefined;

/**
 * Removes the binding of exactly the folder `workspace` (which may no longer exist). A binding file that
 * cannot be trusted is removed too: unbinding is how a human clears one.
 */
export function removeBinding(workspace: string): Unbound {
  const folder = bindingsFolder();
  if (!folder) throw noHome();
  if (!checkFolder(folder)) return undefined;
  const at = comparable(workspace);
  const file = fileIn(folder, at);
  let found: Unbound;
  try {
    const b = readIn(folder, at);
    if (!b) return undefined;
    found = { binding: b };
  } catch (err) {
    if (!HolonError.is(err, 'conflict')) throw err;
    found = { binding: null, problem: err.message };
  }
  fs.rmSync(file, { force: true });
  return found;
}

/** Where a binding's ledger is, in words: "the journal in S" or "the store URL (state S)". */
export function bindingWhere(b: Binding): string {
  return b.store === null ? `the journal in ${b.state}` : `the store ${b.store} (state folder ${b.state})`;
}

/** What a server's command line and environment named (each undefined when not given). */
export interface NamedServer {
  mandate?: string | undefined;
  state?: string | undefined;
  /** The store's URL (perhaps with its password), or null for the journal. */
  store?: string | null | undefined;
  workspace?: string | undefined;
}

/** What a server in a bound workspace serves. */
export interface BoundServer {
  mandate: string;
  state: string;
  /** The store to open (the URL that was named, with its password, when it is the bound one); undefined: the journal. */
  store: string | undefined;
  workspace: string;
}

/**
 * What a server started in the workspace of `b` serves: the binding's mandate, state, store and
 * workspace. Anything `named` that disagrees with it is refused (`denied`, with the refused names in
 * `details.refused`), so the human learns that the binding, not the file, decides.
 */
export function serveBound(b: Binding, named: NamedServer): BoundServer {
  const refusedNames: string[] = [];
  if (named.mandate !== undefined && named.mandate !== b.mandate) refusedNames.push(`the mandate ${named.mandate}`);
  if (named.state !== undefined && comparable(named.state) !== b.state) refusedNames.push(`the state ${path.resolve(named.state)}`);
  let store = b.store ?? undefined;
  if (named.store === null) {
    if (b.store !== null) refusedNames.push("the state folder's journal");
  } else if (named.store !== undefined) {
    let given: string | undefined;
    try {
      given = storeWithoutPassword(named.store);
    } catch {
      given = undefined;
    }
    if (given === undefined || given !== b.store) refusedNames.push(`the store ${given ?? '(not a postgres URL)'}`);
    // The same store: opened with the password it was handed, if any.
    else store = named.store;
  }
  if (named.workspace !== undefined && comparable(named.workspace) !== b.workspace)
    refusedNames.push(`the workspace ${path.resolve(named.workspace)}`);
  if (refusedNames.length > 0) {
    throw new HolonError(
      'denied',
      `${b.workspace} is bound to the mandate ${b.mandate} on ${bindingWhere(b)}, so a ` +
        `server started in it serves only that: it refuses ${refusedNames.join(' and ')}. ` +
        `To change the binding, run holon mandate bind ACCOUNT/NAME --workspace ${b.workspace} ` +
        `at a terminal, or Holon: Connect Claude Code in the editor`,
      { problem: 'binding_mismatch', workspace: b.workspace, mandate: b.mandate, refused: refusedNames },
    );
  }
  return { mandate: b.mandate, state: b.state, store, workspace: b.workspace };
}
