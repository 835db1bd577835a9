/**
 * What the owner of a team store does besides using it: set the database up (`holon store init`: the
 * events table, a guard that refuses to rewrite it, a member role that may only read and append) and
 * fill it from a state folder's file journal (`holon migrate`). The table's definition and the append
 * lock are schema.ts's (ensureSchema); `pg` is loaded only when a command runs.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from 'pg';
import type { Logger } from '../../kernel/deps.ts';
import { systemClock } from '../../kernel/deps.ts';
import { HolonError } from '../../kernel/errors.ts';
import { JOURNAL_FILE } from '../file/journal.ts';
import { scanLines } from '../file/foldRange.ts';
import { JournalLock } from '../file/lock.ts';
import { installationPublicKey, lazySigner } from '../keys.ts';
import { CONNECT_TIMEOUT_MS } from './connection.ts';
import type { EventRow } from './rows.ts';
import { EVENT_COLUMNS, eventOfRow, rowOfEvent } from './rows.ts';
import { APPEND_LOCK, ensureSchema, GUARD_TRIGGER, schemaStatements, TABLE } from './schema.ts';
import { PostgresStore } from './store.ts';
import { isPostgresUrl, redactUrl } from '../url.ts';
import { thisProcess } from '../owner.ts';
import type { EventStore, JournalEvent, Reducer, Signer } from '../store.ts';
import { parseEventLine } from '../store.ts';
import type { VerifyReport } from '../verify.ts';
import { checkJournal, LogCheck, refuseUnsealed, verifyText } from '../verify.ts';

/** PostgreSQL's SQLSTATE for "permission denied" (insufficient_privilege). */
export const PERMISSION_DENIED = '42501';
/** A migration inserts this many events per statement at most, or fewer when their text is this long. */
const BATCH_EVENTS = 1000;
const BATCH_BYTES = 4 << 20;

/** The privileges a role holds on the events table, as PostgreSQL answers for it (memberships included). */
export interface TablePrivileges {
  select: boolean;
  insert: boolean;
  update: boolean;
  delete: boolean;
  truncate: boolean;
}

/** What `holon store init` did. */
export interface InitReport {
  table: string;
  /** True when this run created the table (false: it was there). */
  created: boolean;
  /** The trigger that refuses UPDATE, DELETE and TRUNCATE (its owner can still drop it). */
  guard: string;
  /** The store's root: the installation that owns all of it (this one's, when the store was empty). */
  root?: string | null;
  member?: {
    role: string;
    /** True when this run created the role. */
    created: boolean;
    privileges: TablePrivileges;
    /** The URL a member passes to --store, without a password (the role has none unless one is set). */
    url: string;
  };
}

/** What `holon migrate` copied. */
export interface MigrateReport {
  events: number;
  /** The hash of the last event: the same in the journal and in the database. */
  head: string;
  /** The sealed transactions copied (their seals stay verifiable), and the last event of the last. */
  transactions: number;
  signed_through: number;
  /** SHA-256 of the state the journal folds to, which the database was opened and found to fold to too. */
  state_sha256: string;
}

/** The URL `role` connects with: the admin's URL with the role's name and no password. */
export function memberUrl(adminUrl: string, role: string): string {
  const u = new URL(adminUrl);
  u.username = role;
  u.password = '';
  return u.toString();
}

function requirePostgresUrl(url: string): void {
  if (!isPostgresUrl(url)) throw new HolonError('invalid_input', 'a store is a postgres:// (or postgresql://) URL');
  try {
    new URL(url);
  } catch {
    throw new HolonError('invalid_input', 'the store URL cannot be read (postgres://user:password@host:port/database)');
  }
}

async function connect(url: string): Promise<Client> {
  const pg = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A connection the server drops mid-command fails that command; unheard, its 'error' would end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw new HolonError('not_found', `could not connect to ${redactUrl(url)} (${(err as Error).message})`);
  }
  return client;
}

/** Runs `fn` in one transaction on a new connection: committed when it returns, rolled back when it throws. */
async function inTransaction<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = await connect(url);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (!HolonError.is(err) && (err as { code?: string }).code === PERMISSION_DENIED) {
      throw new HolonError('denied', `the database refused: ${(err as Error).message} (connect as the database's owner)`);
    }
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A role name we can put in SQL as it is: what PostgreSQL accepts unquoted, at most 63 characters. */
const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Sets up a team store, connected as the database's owner: creates the events table when there is none,
 * and a trigger that refuses UPDATE, DELETE and TRUNCATE on it for everyone (the table's owner or a
 * superuser can still drop the trigger or bypass it; no one else can). Nothing on the table is granted
 * to PUBLIC. With `member`, creates that role (LOGIN, no password) when it does not exist and leaves it
 * exactly SELECT and INSERT on the table; a role that is a superuser or owns the table (or belongs to
 * its owner) is refused, as is one that still holds more through another membership. Safe to run again.
 */
/**
 * What the store's setup needs of the state it holds, passed in so that the store imports no domain module:
 * the fold, how an installation registers itself (its first transaction in an empty store makes it the
 * root), and who the root is in a folded state.
 */
export interface StoreDomain<S> {
  reducer: Reducer<S>;
  register(store: EventStore<S>, signer: Signer, machine: string): Promise<unknown>;
  rootOf(state: S): string | null;
}

export async function initStore<S>(
  url: string,
  options: { member?: string | undefined; root?: { signer: Signer; machine: string; logger: Logger; domain: StoreDomain<S> } } = {},
): Promise<InitReport> {
  requirePostgresUrl(url);
  const member = options.member;
  if (member !== undefined && !ROLE_NAME.test(member)) {
    throw new HolonError(
      'invalid_input',
      `"${member}" is not a role name holon creates: lower-case letters, digits and _, starting with a letter or _`,
    );
  }
  const report = await inTransaction(url, async (client) => {
    const { rows: there } = await client.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [TABLE]);
    const created = !there[0]?.found;
    // The same statements a new table is made with: an older table gains the seal column and the triggers.
    await client.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK]);
    for (const statement of schemaStatements()) await client.query(statement);
    const report: InitReport = { table: TABLE, created, guard: GUARD_TRIGGER };
    if (member === undefined) return report;

    const { rows: found } = await client.query<{ rolsuper: boolean; owns: boolean; is_me: boolean }>(
      `SELECT r.rolsuper, pg_has_role(r.oid, c.relowner, 'MEMBER') AS owns, r.rolname = current_user AS is_me
         FROM pg_roles r, pg_class c WHERE r.rolname = $1 AND c.oid = to_regclass($2)`,
      [member, TABLE],
    );
    const existing = found[0];
    if (existing?.is_me) throw new HolonError('conflict', `${member} is the role this command connected as; a member role is another one`);
    if (existing?.rolsuper) throw new HolonError('conflict', `${member} is a superuser, which no grant can limit; choose another role`);
    if (existing?.owns)
      throw new HolonError(
        'conflict',
        `${member} owns ${TABLE} (or belongs to the role that does), so it may rewrite ` +
          `it; choose another role, or give the table to another owner first`,
      );
    if (!existing) await client.query(`CREATE ROLE ${member} LOGIN`);

    const { rows: where } = await client.query<{ schema: string; db: string }>(
      'SELECT n.nspname AS schema, current_database() AS db FROM pg_class c JOIN ' +
        'pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)',
      [TABLE],
    );
    const { schema, db } = where[0] ?? { schema: 'public', db: '' };
    await client.query(`REVOKE ALL ON ${TABLE} FROM ${member}`);
    await client.query(`GRANT SELECT, INSERT ON ${TABLE} TO ${member}`);
    await client.query(`GRANT USAGE ON SCHEMA ${client.escapeIdentifier(schema)} TO ${member}`);
    await client.query(`GRANT CONNECT ON DATABASE ${client.escapeIdentifier(db)} TO ${member}`);

    const { rows: held } = await client.query<TablePrivileges>(
      `SELECT has_table_privilege($1, $2, 'SELECT') AS select, has_table_privilege($1, $2, 'INSERT') AS insert,
              has_table_privilege($1, $2, 'UPDATE') AS update, has_table_privilege($1, $2, 'DELETE') AS delete,
              has_table_privilege($1, $2, 'TRUNCATE') AS truncate`,
      [member, TABLE],
    );
    const privileges = held[0] ?? { select: false, insert: false, update: false, delete: false, truncate: false };
    const extra = (['update', 'delete', 'truncate'] as const).filter((p) => privileges[p]);
    if (extra.length > 0) {
      throw new HolonError(
        'conflict',
        `${member} may still ${extra.map((p) => p.toUpperCase()).join(', ')} ${TABLE} ` +
          `through a role it belongs to; revoke that membership first`,
        { privileges },
      );
    }
    report.member = { role: member, created: !existing, privileges, url: memberUrl(url, member) };
    return report;
  });
  if (options.root) report.root = await claimRoot(url, options.root);
  return report;
}

/**
 * Makes `signer` the store's root when the store holds no event yet: its first transaction (its own
 * registration) is the store's first, so the installation that set the store up owns it, and nobody who
 * reaches the empty table later can claim it. Returns the root's key, whoever it is.
 */
async function claimRoot<S>(
  url: string,
  root: { signer: Signer; machine: string; logger: Logger; domain: StoreDomain<S> },
): Promise<string | null> {
  const { reducer, register, rootOf } = root.domain;
  const store = await PostgresStore.open({ url, reducer, clock: systemClock, logger: root.logger, signer: root.signer, watch: false });
  try {
    if (store.seq === 0) await register(store, root.signer, root.machine);
    return rootOf(store.state);
  } finally {
    store.close();
    await store.ended;
  }
}

/**
 * Copies a state folder's journal into an empty team store, all or nothing. The journal is verified
 * first as `holon verify` does it (hash chain, checkpoint signatures, snapshot) and a torn or altered one
 * is refused; a database that holds any event is refused. The journal's lock is held throughout, so no
 * process appends to it meanwhile. The events are inserted as they are (same seq, time, type, data, prev
 * and hash: the chain and the journal's signed checkpoints stay verifiable) in one SQL transaction, a
 * batch per statement; then the database is opened with PostgresStore and must fold to the same state.
 * The journal is left as it was.
 */
export async function migrateJournal<S extends object>(
  stateDir: string,
  url: string,
  deps: { logger: Logger; domain: StoreDomain<S> },
): Promise<MigrateReport> {
  const { reducer } = deps.domain;
  requirePostgresUrl(url);
  const dir = path.resolve(stateDir);
  const file = path.join(dir, JOURNAL_FILE);
  if (!fs.existsSync(file)) throw new HolonError('not_found', `no journal in ${dir}`);

  const lock = new JournalLock(dir);
  const release = await lock.acquire();
  try {
    const checked = checkJournal(dir, reducer);
    if (!checked.ok)
      throw new HolonError('corrupt_journal', `the journal does not verify, so nothing was copied: ${verifyText(checked)}`, {
        verify: checked,
      });
    if (checked.torn_tail)
      throw new HolonError('corrupt_journal', `the journal ends in a torn append, so nothing was copied: ${verifyText(checked)}`, {
        verify: checked,
      });
    if (checked.events === 0) throw new HolonError('not_found', `the journal in ${dir} holds no events`);

    // Folded again as it is copied, since the copy reads the file anew: the same check as verify's.
    const key = checked.head ? installationPublicKey(dir) : undefined;
    const copy = new LogCheck(reducer, (k) => (k === key ? undefined : `sealed by a key that is not this installation's (${k})`));
    await inTransaction(url, async (client) => {
      await ensureSchema(client);
      const { rows } = await client.query<{ last: string | null }>(`SELECT max(seq) AS last FROM ${TABLE}`);
      const last = rows[0]?.last;
      if (last !== null && last !== undefined)
        throw new HolonError('conflict', `the database already holds events (through seq ${last}); holon migrate fills only an empty one`, {
          seq: Number(last),
        });

      await copyEvents(client, file, checked, copy);
    });
    const state = copy.state;

    const expected = createHash('sha256').update(reducer.serialize(state)).digest('hex');
    await checkFolded(url, dir, deps.domain, deps.logger, checked, expected);
    return {
      events: checked.events,
      head: checked.head,
      transactions: checked.transactions,
      signed_through: checked.signed_through,
      state_sha256: expected,
    };
  } finally {
    release();
    lock.close();
  }
}

/**
 * Copies the journal's events into the table, a batch per statement, folding them again as they are read
 * (`copy`): the journal must still be the one `checked` verified, and the table must end where it ends.
 */
async function copyEvents<S>(client: Client, file: string, checked: VerifyReport, copy: LogCheck<S>): Promise<void> {
  let offset = 0;
  while (copy.seq < checked.events) {
    const batch: JournalEvent[] = [];
    let bytes = 0;
    let readable = true;
    const { end } = scanLines(file, offset, undefined, (line) => {
      if (copy.seq === checked.events || batch.length === BATCH_EVENTS || bytes >= BATCH_BYTES) return false;
      const e = parseEventLine(line);
      readable = copy.next(e, copy.seq + 1);
      if (!readable || !e) return false;
      batch.push(e);
      bytes += line.length;
      return true;
    });
    const r = copy.report();
    if (!readable || !r.ok || batch.length === 0) {
      throw new HolonError(
        'corrupt_journal',
        `the journal changed while it was copied (` +
          `${r.first_bad?.problem ?? r.refused[0]?.message ?? `event ${copy.seq + 1} is missing`}); nothing ` +
          `was copied`,
        { seq: copy.seq + 1 },
      );
    }
    offset = end;
    const rowsOf = batch.map((e) => rowOfEvent(e));
    await client.query(
      `INSERT INTO ${TABLE} (${EVENT_COLUMNS}) SELECT * FROM unnest($1::bigint[], ` +
        `$2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])`,
      [0, 1, 2, 3, 4, 5, 6].map((i) => rowsOf.map((row) => row[i])),
    );
  }
  const { rows: after } = await client.query<{ n: string; head: string | null }>(
    `SELECT count(*) AS n, (SELECT hash FROM ${TABLE} ORDER BY seq DESC LIMIT 1) AS head FROM ${TABLE}`,
  );
  if (Number(after[0]?.n) !== checked.events || after[0]?.head !== checked.head) {
    throw new Error(
      `the database holds ${after[0]?.n} events ending in ${after[0]?.head} after the copy, not ${checked.events} ` +
        `ending in ${checked.head}`,
    );
  }
}

/** Opens the copied store, which must fold to the state the journal folds to (`expected`), and registers its machine. */
async function checkFolded<S>(
  url: string,
  dir: string,
  domain: StoreDomain<S>,
  logger: Logger,
  checked: VerifyReport,
  expected: string,
): Promise<void> {
  const { reducer } = domain;
  const store = await PostgresStore.open({
    url,
    reducer,
    clock: systemClock,
    logger,
    signer: lazySigner(dir),
    watch: false,
  });
  try {
    const folded = createHash('sha256').update(reducer.serialize(store.state)).digest('hex');
    if (store.seq !== checked.events || folded !== expected) {
      throw new HolonError(
        'corrupt_journal',
        `the events were copied, but the database folds to another state than the ` +
          `journal (seq ${store.seq}, state ${folded} where ${checked.events}, ${expected} ` +
          `was expected); do not use it`,
        {
          seq: store.seq,
          state_sha256: folded,
        },
      );
    }
    // The copied transactions are sealed with this installation's key, the store's root: the store learns its machine.
    await domain.register(store, lazySigner(dir), thisProcess().host);
  } finally {
    store.close();
  }
}

/** A verification reads this many rows per query, so that a long log is never held whole. */
const VERIFY_BATCH = 10_000;

/**
 * `holon verify --store`: every row of a team store, in order, through the same check as a journal's
 * lines (each follows the one before and is what its hash says; every transaction's seal verifies, and
 * the fold admits it from its signer's role). Every refused transaction is listed with its seqs and why;
 * rows are read in batches; `line` in the report is the row's seq.
 */
export async function verifyStore<S>(url: string, reducer: Reducer<S>): Promise<VerifyReport> {
  requirePostgresUrl(url);
  const client = await connect(url);
  try {
    const { rows: table } = await client.query<{ t: string | null }>(`SELECT to_regclass('${TABLE}')::text AS t`);
    if (!table[0]?.t) throw new HolonError('not_found', `${redactUrl(url)} holds no Holon events (run \`holon store init\` first)`);
    const check = new LogCheck(reducer);
    for (;;) {
      const { rows } = await client.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM ${TABLE} WHERE seq > $1 ORDER BY seq LIMIT ${VERIFY_BATCH}`,
        [check.seq],
      );
      for (const r of rows) if (!check.next(eventOfRow(r), Number(r.seq))) return check.report();
      if (rows.length < VERIFY_BATCH) break;
    }
    const report = check.report();
    // A database commits a transaction whole: rows after the last seal were written by hand, not cut by a crash.
    const open = check.open;
    if (open.length > 0) refuseUnsealed(report, open, "no seal covers these rows: they were not written as any installation's transaction");
    return report;
  } finally {
    await client.end().catch(() => undefined);
  }
}
