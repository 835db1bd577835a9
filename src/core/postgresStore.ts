/**
 * The team store: the same hash-linked events as the file journal, in one PostgreSQL table shared by
 * every process on every machine. A transaction takes a transaction-level advisory lock, reads what
 * others appended since this process last looked, decides on that latest state and inserts its events
 * in the same SQL transaction, so two processes can never decide on the same state. Other processes'
 * events arrive by LISTEN/NOTIFY (sent in the inserting transaction, so only once it commits), with a
 * short poll as the fallback after a lost connection. Every row read is checked against the one before
 * it before it is folded, exactly like a journal line. `pg` is loaded only when a store is opened.
 *
 * Each process also holds a session advisory lock named after it (its presence) on its own connection.
 * PostgreSQL drops the lock when that connection ends, a process killed on any machine included, which is
 * how another machine tells that the money a dead process held can be given back.
 */
import type * as PG from 'pg';
import type { Pool, PoolClient, Client } from 'pg';
import { createHash } from 'node:crypto';
import type { Clock, Logger } from './deps.ts';
import { HolonError } from './errors.ts';
import type { ProcessRef } from './owner.ts';
import { processKey, thisProcess } from './owner.ts';
import type { EventStore, JournalEvent, NewEvent, Reducer, Signer, TxResult } from './store.ts';
import { checkpointMessage, eventHash, eventProblem, StoreListeners } from './store.ts';
import { redactUrl } from './storeUrl.ts';

// Where the URL check lived first; its home is storeUrl.ts, which loads no client.
export { isPostgresUrl } from './storeUrl.ts';

/** The table every event is in, and the channel that announces new ones. */
export const TABLE = 'holon_events';
const CHANNEL = 'holon_events';
/** Key of the advisory lock that serialises appends (and the schema's creation). */
const APPEND_LOCK = 0x686f6c6f; // "holo"
const POLL_MS = 1000;
const RECONNECT_MS = 500;
/** First key of every presence lock ("holp"); the second is the process's own. */
const PRESENCE_CLASS = 0x686f6c70;
/**
 * For this long after the database started, nobody's absence counts: every client lost its connection
 * in the restart and reconnects within a few RECONNECT_MS, its presence with it.
 */
const RESTART_GRACE_S = 10;

/** The second key of a process's presence lock: 31 bits of a hash of the process (positive, as an oid reads it). */
function presenceKey(p: ProcessRef): number {
  return createHash('sha256').update(processKey(p)).digest().readUInt32BE(0) & 0x7fffffff;
}

/** How long a transaction whose connection was lost mid-commit waits for the database to say whether it landed. */
const LANDED_WAIT_MS = 15_000;

/**
 * How long a connection may take to be ready. Without it, a host that drops packets keeps a command (or
 * the editor's "connecting…") waiting until TCP gives up, minutes later.
 */
export const CONNECT_TIMEOUT_MS = 10_000;

/**
 * True when `err` lost the connection rather than being refused by the database: no SQLSTATE (a socket
 * error), or one of the connection (08) or operator-intervention (57: a shutdown) classes.
 */
function connectionLost(err: unknown): boolean {
  if (err instanceof HolonError) return false;
  const code = (err as { code?: unknown }).code;
  return typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('08') || code.startsWith('57');
}

/** The socket under a pg client (not part of its typed API). */
function streamOf(client: Client | undefined): { ref?: () => void; unref?: () => void } | undefined {
  return (client as unknown as { connection?: { stream?: { ref?: () => void; unref?: () => void } } } | undefined)?.connection?.stream;
}

/** Options of a PostgreSQL store. */
export interface PostgresStoreOptions<S> {
  /** A `postgres://user:password@host:port/database` URL. */
  url: string;
  reducer: Reducer<S>;
  clock: Clock;
  logger: Logger;
  signer: Signer;
  /** Sign a checkpoint inside a transaction once this many events are unsigned (default 100). */
  checkpointEvery?: number;
  /** Listen for other processes' appends (default true). */
  watch?: boolean;
  /** Who this process is, for its presence (default: thisProcess()). */
  owner?: ProcessRef;
  /**
   * What this process appends ahead of its first own event (its installation's registration), asked
   * in every transaction that appends or signs: a process that only reads never writes.
   */
  introduce?(state: S): NewEvent[];
}

/** One event as the table holds it (seq as PostgreSQL's bigint text, data as JSON text). */
export interface EventRow {
  seq: string;
  time: string;
  type: string;
  data: string;
  prev: string;
  hash: string;
}

/** The table's columns, in an event's order: what every read selects. */
export const EVENT_COLUMNS = 'seq, time, type, data, prev, hash';

/** A row as an event, not yet checked; undefined when its data is not JSON (the row was altered). */
export function eventOfRow(r: EventRow): JournalEvent | undefined {
  let data: unknown;
  try {
    data = JSON.parse(r.data);
  } catch {
    return undefined;
  }
  return { seq: Number(r.seq), time: r.time, type: r.type, data, prev: r.prev, hash: r.hash };
}

/** The events of one PostgreSQL database, folded into memory and tailed. Open it with `PostgresStore.open`. */
export class PostgresStore<S> implements EventStore<S> {
  private current: S;
  private pos = { seq: 0, hash: '', lastCheckpointSeq: 0 };
  private readonly listening: StoreListeners;
  private closed = false;
  /** Events read by the tailer and not yet folded (refresh folds them). */
  private buffered: JournalEvent[] = [];
  /** The seq and hash of every event filed under a key, oldest first. */
  private readonly keyed = new Map<string, { seq: number; hash: string }[]>();
  /** Transactions of this process run one at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  private reading: Promise<void> | undefined;
  private listener: Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  private readonly checkpointEvery: number;
  private watching = true;
  /** Connections with this store's 'error' listener. */
  private readonly heard = new WeakSet<PoolClient>();
  /** Resolves once close() has ended every connection. */
  ended: Promise<void> = Promise.resolve();

  private constructor(
    private readonly opts: PostgresStoreOptions<S>,
    private readonly pool: Pool,
    private readonly pg: typeof PG,
  ) {
    this.current = opts.reducer.initial();
    this.checkpointEvery = opts.checkpointEvery ?? 100;
    this.listening = new StoreListeners(opts.logger, 'store');
  }

  /** Connects, creates the table if there is none, folds every event (each verified) and starts tailing. */
  static async open<S>(options: PostgresStoreOptions<S>): Promise<PostgresStore<S>> {
    const pg = await import('pg');
    const pool = new pg.Pool({ connectionString: options.url, max: 4, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    // An idle connection that dies (a database restart) must not bring the process down; the next query reconnects.
    pool.on('error', (err) => options.logger.warn(`store: a database connection was lost (${err.message})`));
    const store = new PostgresStore(options, pool, pg);
    try {
      // The first contact: a store that cannot be reached is said so, naming it (never its password).
      await store.createSchema().catch((err: unknown) => {
        if (!connectionLost(err)) throw err;
        throw new HolonError('not_found', `could not reach the team store at ${redactUrl(options.url)} (${(err as Error).message})`, { store: redactUrl(options.url) });
      });
      await store.catchUp();
      store.refresh();
      await store.startTailing(options.watch !== false);
    } catch (err) {
      store.close();
      throw err;
    }
    return store;
  }

  get state(): S {
    return this.current;
  }

  get seq(): number {
    return this.pos.seq;
  }

  subscribe(listener: (events: JournalEvent[]) => void): () => void {
    return this.listening.subscribe(listener);
  }

  onBroken(listener: (err: Error) => void): () => void {
    return this.listening.onBroken(listener);
  }

  private get broken(): HolonError | undefined {
    return this.listening.broken;
  }

  /** Folds what the tailer has read since the last look, and asks it to look again. */
  refresh(): JournalEvent[] {
    if (this.closed || this.broken) return [];
    const events = this.buffered;
    this.buffered = [];
    const folded = this.absorb(events);
    if (folded.length > 0) this.notify(folded);
    return folded;
  }

  transact<T>(fn: (state: S) => TxResult<T>): Promise<T> {
    return this.serially(() => this.transactNow(fn, false));
  }

  async checkpoint(): Promise<void> {
    await this.serially(() => this.transactNow(() => ({ events: [], result: undefined }), true));
  }

  async flush(): Promise<void> {
    // Every append is committed before transact resolves.
  }

  /** The events filed under `key`, read back by seq and checked against the hash folded for each. */
  async readKey(key: string, options: { newest?: number } = {}): Promise<JournalEvent[]> {
    if (this.broken) throw this.broken;
    const all = this.keyed.get(key) ?? [];
    const wanted = options.newest === undefined ? all : all.slice(Math.max(0, all.length - options.newest));
    if (wanted.length === 0) return [];
    const { rows } = await this.pool.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM ${TABLE} WHERE seq = ANY($1::bigint[]) ORDER BY seq`, [wanted.map((x) => x.seq)]);
    const bySeq = new Map(rows.map((r) => [Number(r.seq), r]));
    return wanted.map((w) => {
      const row = bySeq.get(w.seq);
      const e = row ? this.eventOf(row) : undefined;
      if (!e || e.hash !== w.hash || eventHash(e) !== e.hash) throw this.breakWith(`store: the event with seq ${w.seq} is not the one folded (altered or removed); run \`holon verify\``, { seq: w.seq });
      return e;
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.reconnect) clearTimeout(this.reconnect);
    const listener = this.listener;
    this.listener = undefined;
    // Its socket was unref'd so that it never keeps a process alive; while it closes, whoever awaits `ended` must be.
    streamOf(listener)?.ref?.();
    this.ended = Promise.allSettled([listener?.end(), this.queue.then(() => this.pool.end(), () => this.pool.end())]).then(() => undefined);
    this.listening.clear();
  }

  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * One SQL transaction: the append lock, the events since the last look (folded), `fn` on the latest
   * state, its events (and a checkpoint when due) inserted and announced, commit; then they are folded.
   */
  private async transactNow<T>(fn: (state: S) => TxResult<T>, forceCheckpoint: boolean): Promise<T> {
    if (this.closed) throw new Error('store is closed');
    if (this.broken) throw this.broken;
    const client = await this.connect();
    let fresh: JournalEvent[] = [];
    let appended: JournalEvent[] = [];
    let failed: Error | undefined;
    let outcome: { result: T } | undefined;
    try {
      // One round trip to begin, lock and read (numbers of our own, no input, in the text).
      const opened = (await client.query<EventRow>(`BEGIN; SELECT pg_advisory_xact_lock(${APPEND_LOCK}); SELECT ${EVENT_COLUMNS} FROM ${TABLE} WHERE seq > ${Math.trunc(this.pos.seq)} ORDER BY seq`)) as unknown as PG.QueryResult<EventRow>[];
      fresh = this.absorb((opened.at(-1)?.rows ?? []).map((r) => this.eventOf(r)));
      const { events: own, result } = fn(this.current);
      outcome = { result };
      const signs = (n: number): boolean => (forceCheckpoint ? this.pos.seq + n > this.pos.lastCheckpointSeq : n > 0 && this.pos.seq + n - this.pos.lastCheckpointSeq >= this.checkpointEvery);
      const events = this.opts.introduce && (own.length > 0 || signs(0)) ? [...this.opts.introduce(this.current), ...own] : own;
      appended = this.chain(events, signs(events.length));
      if (appended.length > 0) {
        // The rows, their announcement (it leaves at COMMIT) and the commit in one round trip: a simple
        // query, so the values are quoted by pg's own escapeLiteral (the seqs are our own integers).
        const lit = (v: string): string => client.escapeLiteral(v);
        const values = appended.map((e) => `(${e.seq}, ${lit(e.time)}, ${lit(e.type)}, ${lit(JSON.stringify(e.data))}, ${lit(e.prev)}, ${lit(e.hash)})`).join(', ');
        await client.query(`INSERT INTO ${TABLE} (seq, time, type, data, prev, hash) VALUES ${values}; SELECT pg_notify('${CHANNEL}', '${appended.at(-1)?.seq ?? 0}'); COMMIT`);
      } else {
        await client.query('COMMIT');
      }
      return result;
    } catch (err) {
      failed = err as Error;
      await client.query('ROLLBACK').catch(() => undefined);
      // The connection went with the commit on its way (a database restart, a network cut): the rows
      // may be in. Said to have failed, a caller might do it again; so look, once the database answers.
      const last = appended.at(-1);
      if (outcome && last && connectionLost(err) && (await this.landed(last))) return outcome.result;
      appended = [];
      throw err;
    } finally {
      // A connection that failed mid-transaction is not given back to the pool.
      client.release(failed && !(failed instanceof HolonError) ? failed : undefined);
      const seen = [...fresh, ...this.absorb(appended)];
      if (seen.length > 0) this.notify(seen);
    }
  }

  /**
   * Whether `e` is in the table as appended, asked on another connection for up to LANDED_WAIT_MS while
   * the database comes back. False when another event holds its place, or the database stays away (the
   * next transaction reads whatever is there, ours included, before it decides anything).
   */
  private async landed(e: JournalEvent): Promise<boolean> {
    const deadline = Date.now() + LANDED_WAIT_MS;
    for (;;) {
      try {
        const { rows } = await this.pool.query<{ hash: string }>(`SELECT hash FROM ${TABLE} WHERE seq = $1`, [e.seq]);
        return rows[0]?.hash === e.hash;
      } catch {
        if (this.closed || Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, RECONNECT_MS));
      }
    }
  }

  /**
   * A connection from the pool. A connection the server closes while it is checked out (a restart)
   * emits 'error' besides failing its query; unheard, that event would end the process.
   */
  private async connect(): Promise<PoolClient> {
    const client = await this.pool.connect();
    if (!this.heard.has(client)) {
      this.heard.add(client);
      client.on('error', (err) => this.opts.logger.warn(`store: a database connection was lost (${err.message})`));
    }
    return client;
  }

  /** New events linked after the last one folded (not folded yet: that waits for the commit). */
  private chain(events: NewEvent[], sign: boolean): JournalEvent[] {
    const out: JournalEvent[] = [];
    let seq = this.pos.seq;
    let prev = this.pos.hash;
    const time = new Date(this.opts.clock.now()).toISOString();
    const push = (type: string, data: unknown): void => {
      seq += 1;
      const base = { seq, time, type, data, prev };
      const e = { ...base, hash: eventHash(base) };
      out.push(e);
      prev = e.hash;
    };
    for (const e of events) push(e.type, e.data);
    if (sign && seq > 0) push('checkpoint', { up_to: seq, head: prev, key: this.opts.signer.publicKey, sig: this.opts.signer.sign(checkpointMessage(seq, prev)) });
    return out;
  }

  /**
   * Folds the events that follow the last one folded, each verified; those already folded (read twice:
   * by the tailer and by a transaction) are skipped. Returns the ones folded now.
   */
  private absorb(events: JournalEvent[]): JournalEvent[] {
    const folded: JournalEvent[] = [];
    for (const e of events) {
      if (e.seq <= this.pos.seq) continue;
      const problem = eventProblem(e, this.pos.seq + 1, this.pos.hash);
      if (problem) throw this.breakWith(`store: event ${this.pos.seq + 1}: ${problem}; run \`holon verify\``, { after_seq: this.pos.seq });
      for (const k of this.opts.reducer.keys?.(this.current, e) ?? []) {
        const list = this.keyed.get(k.key);
        if (list) list.push({ seq: e.seq, hash: e.hash });
        else this.keyed.set(k.key, [{ seq: e.seq, hash: e.hash }]);
      }
      this.opts.reducer.apply(this.current, e);
      this.pos.seq = e.seq;
      this.pos.hash = e.hash;
      if (e.type === 'checkpoint') this.pos.lastCheckpointSeq = e.seq;
      folded.push(e);
    }
    return folded;
  }

  private eventOf(r: EventRow): JournalEvent {
    const e = eventOfRow(r);
    if (!e) throw this.breakWith(`store: event ${r.seq} holds data that is not JSON (altered); run \`holon verify\``, { seq: Number(r.seq) });
    return e;
  }

  /** Reads what was committed after the last event seen into the buffer (one read at a time). */
  private catchUp(): Promise<void> {
    if (this.reading) return this.reading;
    const after = Math.max(this.pos.seq, this.buffered.at(-1)?.seq ?? 0);
    this.reading = this.pool
      .query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM ${TABLE} WHERE seq > $1 ORDER BY seq`, [after])
      .then(({ rows }) => {
        if (rows.length > 0) this.buffered.push(...rows.map((r) => this.eventOf(r)));
      })
      .finally(() => (this.reading = undefined));
    return this.reading;
  }

  /** Catches up and folds, for the tailer: a failure is logged, and the next look tries again. */
  private look(): void {
    if (this.closed || this.broken) return;
    this.catchUp().then(
      () => {
        try {
          this.refresh();
        } catch (err) {
          this.opts.logger.error((err as Error).message);
        }
      },
      (err: Error) => this.opts.logger.warn(`store: could not read new events (${err.message}); retrying`),
    );
  }

  /**
   * Creates the events table when there is none, inside the caller's transaction, and holds the append
   * lock until that transaction ends (so nothing is appended meanwhile). The table is looked for before
   * anything is created: a member role without CREATE on the schema opens a store its owner set up.
   * Returns whether it created the table.
   */
  static async ensureSchema(client: PG.ClientBase): Promise<boolean> {
    // Two processes creating the table at once would collide in the catalog: one creates, the other waits.
    await client.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK]);
    const { rows } = await client.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [TABLE]);
    if (rows[0]?.found) return false;
    try {
      await client.query(`CREATE TABLE ${TABLE} (seq bigint PRIMARY KEY CHECK (seq > 0), time text NOT NULL, type text NOT NULL, data text NOT NULL, prev text NOT NULL, hash text NOT NULL)`);
    } catch (err) {
      if ((err as { code?: string }).code !== '42501') throw err;
      throw new HolonError('denied', `the database has no ${TABLE} table and this role may not create one; its owner runs \`holon store init --url ADMIN_URL\` first`);
    }
    return true;
  }

  private async createSchema(): Promise<void> {
    const client = await this.connect();
    try {
      await client.query('BEGIN');
      await PostgresStore.ensureSchema(client);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * The process's own connection (reconnected when lost): its presence, and, when watching, LISTEN and
   * a poll in case a notification was missed.
   */
  private async startTailing(watch: boolean): Promise<void> {
    this.watching = watch;
    if (watch) {
      this.timer = setInterval(() => this.look(), POLL_MS);
      this.timer.unref();
    }
    await this.listen();
  }

  async ownersAbsent(owners: ProcessRef[]): Promise<boolean[] | null> {
    if (owners.length === 0) return [];
    const { rows } = await this.pool.query<{ young: boolean; held: string[] }>(
      `SELECT now() - pg_postmaster_start_time() < make_interval(secs => $2) AS young,
              ARRAY(SELECT objid::text FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = $1::oid
                    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS held`,
      [PRESENCE_CLASS, RESTART_GRACE_S],
    );
    const row = rows[0];
    if (!row || row.young) return null;
    const held = new Set(row.held);
    return owners.map((o) => !held.has(String(presenceKey(o))));
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new this.pg.Client({ connectionString: this.opts.url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    const retry = (): void => {
      if (this.closed || this.reconnect) return;
      if (this.listener === client) this.listener = undefined;
      client.end().catch(() => undefined);
      this.reconnect = setTimeout(() => {
        this.reconnect = undefined;
        this.listen().then(
          () => this.look(),
          () => retry(),
        );
      }, RECONNECT_MS);
      this.reconnect.unref();
    };
    client.on('error', (err) => {
      this.opts.logger.warn(`store: the listening connection was lost (${err.message}); reconnecting`);
      retry();
    });
    client.on('end', retry);
    // Our own appends come back as notifications too: those are folded already.
    client.on('notification', (n) => {
      if (!(Number(n.payload) <= this.pos.seq)) this.look();
    });
    try {
      await client.connect();
      // Not granted means this process already holds it on another store's connection: present either way.
      await client.query('SELECT pg_try_advisory_lock($1, $2)', [PRESENCE_CLASS, presenceKey(this.opts.owner ?? thisProcess())]);
      if (this.watching) await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      retry();
      throw err;
    }
    if (this.closed) {
      await client.end();
      return;
    }
    this.listener = client;
    // The listening connection must not keep a finished CLI command alive.
    streamOf(client)?.unref?.();
  }

  private notify(events: JournalEvent[]): void {
    this.listening.notify(events);
  }

  /** Stops the store: nothing more is folded or appended, and whoever listens is told. */
  private breakWith(message: string, details: Record<string, unknown>): HolonError {
    return this.listening.breakWith(message, details);
  }
}
