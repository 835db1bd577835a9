/**
 * The team store: the same hash-linked, sealed transactions as the file journal, in one PostgreSQL table
 * shared by every process on every machine. A transaction takes a transaction-level advisory lock, reads
 * what others appended since this process last looked, decides on that latest state and inserts its
 * events in the same SQL transaction, so two processes can never both write what they decided on the
 * same state. One that may run again is decided first, without the lock, and sent with it in one query
 * (append.ts): should another process have written first, nothing is inserted, and it decides again on
 * the rows it missed, which that query read. Other processes' events arrive by LISTEN/NOTIFY (sent in
 * the inserting transaction, so only once it commits), with a short poll as the fallback after a lost
 * connection. `pg` is loaded only when a store is opened.
 *
 * Anyone with the member role's password can INSERT rows, so nothing a row says is believed for
 * itself. The table's own trigger (see `schemaStatements`) keeps its shape: every row takes the append
 * lock, follows the last one (seq + 1) and links to its hash, so no one row can break the chain for
 * everyone. What the database cannot check, the fold does: each transaction's seal must verify and be
 * by a key whose role allows every event in it (authority.ts). A transaction that fails is quarantined —
 * not folded, kept in `refused`, logged once and reported by `holon verify --store` — and every process
 * reads and writes on past it. Every wait on the database is bounded: a writer that cannot get the
 * append lock says who holds it, instead of waiting behind them for ever.
 *
 * Each process also holds a session advisory lock named after it (its presence) on its own connection.
 * PostgreSQL drops the lock when that connection ends, a process killed on any machine included, which is
 * how another machine tells that the money a dead process held can be given back.
 */
import type * as PG from 'pg';
import type { Pool, PoolClient } from 'pg';
import type { Clock, Logger } from '../../kernel/deps.ts';
import { HolonError } from '../../kernel/errors.ts';
import type { ProcessRef } from '../owner.ts';
import { thisProcess } from '../owner.ts';
import type {
  EventStore,
  JournalEvent,
  LinkedEvent,
  NewEvent,
  Reducer,
  Refusal,
  RefusedTx,
  Signer,
  TxOptions,
  TxResult,
} from '../store.ts';
import { eventHash, linkEvents, ListenedStore, seal, wouldAdmit } from '../store.ts';
import { redactUrl } from '../url.ts';
import type { ChainPosition } from '../txChain.ts';
import { isRefused, TxChain } from '../txChain.ts';
import { CHECK_VIOLATION, connectionLost, connectionOptions, landed, LOCK_NOT_AVAILABLE, lockHeld } from './connection.ts';
import type { AppendCounts, Attempt } from './append.ts';
import { appendUnlessMissed } from './append.ts';
import { Listener } from './listener.ts';
import { UnflushedLog } from './unflushed.ts';
import { ownersAbsent, startedAt } from './presence.ts';
import type { EventRow } from './rows.ts';
import { EVENT_COLUMNS, eventOfRow, insertStatements, LostTail, rowsAfterHead } from './rows.ts';
import { APPEND_LOCK, ensureSchema, TABLE } from './schema.ts';

/** Options of a PostgreSQL store. */
export interface PostgresStoreOptions<S> {
  /** A `postgres://user:password@host:port/database` URL. */
  url: string;
  reducer: Reducer<S>;
  clock: Clock;
  logger: Logger;
  signer: Signer;
  /** Listen for other processes' appends (default true). */
  watch?: boolean;
  /** Who this process is, for its presence (default: thisProcess()). */
  owner?: ProcessRef;
  /**
   * What this process appends ahead of its first own event (its installation's registration), asked
   * in every transaction that appends: a process that only reads never writes.
   */
  introduce?(state: S): NewEvent[];
}

/**
 * How many times a transaction that may run again is decided anew on the rows another writer committed
 * first before it is decided holding the lock. Each miss means someone else wrote, so the team moves on.
 */
const OPTIMISTIC_TRIES = 8;

/** The events of one PostgreSQL database, folded into memory and tailed. Open it with `PostgresStore.open`. */
export class PostgresStore<S> extends ListenedStore implements EventStore<S> {
  private current: S;
  /** Every row read so far, in order: where the next one must link, and the transaction still open. */
  private chain = new TxChain<{ e: JournalEvent }>(undefined, true);
  private closed = false;
  /** Events read by the tailer and not yet folded (refresh folds them). */
  private buffered: JournalEvent[] = [];
  /** The seq and hash of every event filed under a key, oldest first. */
  private readonly keyed = new Map<string, { seq: number; hash: string }[]>();
  /** Transactions of this process run one at a time. */
  private queue: Promise<unknown> = Promise.resolve();
  /** The last seq of this process's own rows, committed or being committed: their announcement needs no read. */
  private ownThrough = 0;
  /** This process's transactions committed without waiting for their flush (group commit): written again if lost. */
  private readonly unflushed = new UnflushedLog();
  /** The transactions refused so far (first and last seq): a reload reads them again without reporting them twice. */
  private readonly reported = new Set<string>();
  private reading: Promise<void> | undefined;
  /** A look was asked for while a read was on its way: the rows it announced may be after that read's. */
  private lookAgain = false;
  private listener: Listener | undefined;
  /** Connections with this store's 'error' listener. */
  private readonly heard = new WeakSet<PoolClient>();
  /** Resolves once close() has ended every connection. */
  ended: Promise<void> = Promise.resolve();
  /** How this process's transactions that may run again were appended (see appendAhead). */
  readonly counts: AppendCounts = { optimistic: 0, missed: 0, locked: 0 };

  private constructor(
    private readonly opts: PostgresStoreOptions<S>,
    private readonly pool: Pool,
    private readonly pg: typeof PG,
  ) {
    super(opts.logger, 'store');
    this.current = opts.reducer.initial();
  }

  /** Connects, creates the table if there is none, folds every event (each verified) and starts tailing. */
  static async open<S>(options: PostgresStoreOptions<S>): Promise<PostgresStore<S>> {
    const pg = await import('pg');
    const pool = new pg.Pool({ ...connectionOptions(options.url), max: 4 });
    // An idle connection that dies (a database restart) must not bring the process down; the next query reconnects.
    pool.on('error', (err) => options.logger.warn(`store: a database connection was lost (${err.message})`));
    const store = new PostgresStore(options, pool, pg);
    try {
      // The first contact: a store that cannot be reached is said so, naming it (never its password).
      await store.createSchema().catch((err: unknown) => {
        if (!connectionLost(err)) throw err;
        throw new HolonError('not_found', `could not reach the team store at ${redactUrl(options.url)} (${(err as Error).message})`, {
          store: redactUrl(options.url),
        });
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
    return this.chain.seq;
  }

  /** Where the rows read so far end (what the next row must follow). */
  get position(): ChainPosition {
    return this.chain.position;
  }

  mayWrite(events: NewEvent[]): Refusal | undefined {
    return wouldAdmit(this.opts.reducer, this.current, this.chain.seq, this.opts.signer.publicKey, events);
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

  /**
   * One transaction (see transactNow). With `durable: false` its commit does not wait for PostgreSQL to
   * flush it (`synchronous_commit` off for that transaction): the WAL writer or the next synchronous commit
   * does, soon after. Should the database crash first and lose it, this process reads the table again and
   * writes it again (see reload).
   */
  transact<T>(fn: (state: S) => TxResult<T>, options: TxOptions = {}): Promise<T> {
    return this.serially(async () => {
      try {
        if (options.rerunnable) {
          const ahead = await this.appendAhead(fn, options.durable ?? true);
          if (ahead) return ahead.result;
        }
        return await this.transactNow(fn, options.durable ?? true);
      } catch (err) {
        if (!(err instanceof LostTail)) throw err;
        // Nothing was decided yet: read the table again, and decide on what it holds.
        await this.reload();
        return this.transactNow(fn, options.durable ?? true);
      }
    });
  }

  async flush(): Promise<void> {
    // Every append is committed before transact resolves; one committed without waiting for its flush is
    // flushed by the WAL writer within moments, and is written again should the database lose it first.
  }

  /** The events filed under `key`, read back by seq and checked against the hash folded for each. */
  async readKey(key: string, options: { newest?: number } = {}): Promise<JournalEvent[]> {
    if (this.broken) throw this.broken;
    const all = this.keyed.get(key) ?? [];
    const wanted = options.newest === undefined ? all : all.slice(Math.max(0, all.length - options.newest));
    if (wanted.length === 0) return [];
    const { rows } = await this.pool.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM ${TABLE} WHERE seq = ANY($1::bigint[]) ORDER BY seq`, [
      wanted.map((x) => x.seq),
    ]);
    const bySeq = new Map(rows.map((r) => [Number(r.seq), r]));
    return wanted.map((w) => {
      const row = bySeq.get(w.seq);
      const e = row ? eventOfRow(row) : undefined;
      // A row rewritten after it was folded (only the table's owner can, past its guard): this read fails;
      // the store goes on, since one bad row must not stop the team.
      if (!e || e.hash !== w.hash || eventHash(e) !== e.hash)
        throw new HolonError(
          'corrupt_journal',
          `store: the event with seq ${w.seq} is not the one folded (altered or removed); run \`holon verify --store\``,
          { seq: w.seq },
        );
      return e;
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    // The pool ends once the transaction under way, if any, has ended, however it ends.
    const drained = this.queue.catch(() => undefined).then(() => this.pool.end());
    this.ended = Promise.allSettled([this.listener?.close(), drained]).then(() => undefined);
    this.listening.clear();
  }

  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * One SQL transaction: the append lock, the rows since the last look (folded), `fn` on the latest
   * state, its events sealed (once the fold admits them from this installation) inserted and announced,
   * commit; then they are folded. Two round trips: begin, lock and read; insert, announce and commit.
   * The read starts at the last row this process folded, which must still be there as it was: otherwise
   * the database lost it in a crash (LostTail), and nothing is decided on a state it no longer holds.
   */
  private async transactNow<T>(fn: (state: S) => TxResult<T>, durable: boolean): Promise<T> {
    if (this.closed) throw new Error('store is closed');
    if (this.broken) throw this.broken;
    const client = await this.connect();
    let fresh: JournalEvent[] = [];
    let appended: JournalEvent[] = [];
    let failed: Error | undefined;
    let outcome: { result: T } | undefined;
    try {
      // One round trip to begin, lock and read (numbers of our own, no input, in the text).
      // Where this process's rows end, as it is now: the tailer may fold more while the read is on its way.
      const head = Math.trunc(this.chain.seq);
      const headHash = this.chain.prev;
      const opened = (await client.query<EventRow>(
        `BEGIN; ${durable ? '' : 'SET LOCAL synchronous_commit = off; '}SELECT pg_advisory_xact_lock(${APPEND_LOCK}); ` +
          `SELECT ${EVENT_COLUMNS} FROM ${TABLE} WHERE seq >= ${head} ORDER BY seq`,
      )) as unknown as PG.QueryResult<EventRow>[];
      fresh = this.absorb(rowsAfterHead(opened.at(-1)?.rows ?? [], head, headHash));
      const { events: own, result } = fn(this.current);
      outcome = { result };
      const events = this.opts.introduce && own.length > 0 ? [...this.opts.introduce(this.current), ...own] : own;
      const linked = this.chained(events);
      appended = linked.map((x) => x.e);
      if (appended.length > 0) {
        const last = appended.at(-1) as JournalEvent;
        // Its announcement may arrive before the commit's answer: it is ours, and needs no read.
        this.ownThrough = last.seq;
        // The rows, their announcement (it leaves at COMMIT) and the commit in one round trip.
        await client.query(`${insertStatements(client, linked)}; COMMIT`);
        this.unflushed.committed(own, last, durable);
      } else {
        await client.query('COMMIT');
      }
      return result;
    } catch (err) {
      failed = err as Error;
      await client.query('ROLLBACK').catch(() => undefined);
      this.ownThrough = this.chain.seq;
      // The connection went with the commit on its way (a database restart, a network cut): the rows
      // may be in. Said to have failed, a caller might do it again; so look, once the database answers.
      const last = appended.at(-1);
      if (outcome && last && connectionLost(err) && (await landed(this.pool, last, () => this.closed))) return outcome.result;
      appended = [];
      if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) throw await lockHeld(this.pool, this.opts.url);
      throw err;
    } finally {
      // A connection that failed mid-transaction is not given back to the pool.
      client.release(failed && !(failed instanceof HolonError) && !(failed instanceof LostTail) ? failed : undefined);
      const seen = [...fresh, ...this.foldOwn(appended)];
      if (seen.length > 0) this.notify(seen);
      // Rows another process announced while this transaction held the lock were read by it; any other
      // announcement it let by is read now.
      if (failed && !(failed instanceof LostTail)) this.look();
    }
  }

  /**
   * A transaction for a `fn` that may run again, without holding the lock across a round trip: its
   * events, decided on the state this process has, are sent with the lock and the commit in one query
   * (appendUnlessMissed). Should another writer have committed first, the answer carries the rows it
   * missed: they are folded and `fn` decides again on the new state, up to OPTIMISTIC_TRIES times;
   * undefined then says to decide under the lock. So is a `fn` that writes nothing: what it returns was
   * read without the lock.
   */
  private async appendAhead<T>(fn: (state: S) => TxResult<T>, durable: boolean): Promise<{ result: T } | undefined> {
    for (let attempt = 1; attempt <= OPTIMISTIC_TRIES; attempt++) {
      if (this.closed) throw new Error('store is closed');
      if (this.broken) throw this.broken;
      const { events: own, result } = fn(this.current);
      if (own.length === 0) return undefined;
      if (await this.appendOnce(own, durable)) {
        this.counts.optimistic += 1;
        return { result };
      }
      this.counts.missed += 1;
    }
    this.counts.locked += 1;
    return undefined;
  }

  /** One optimistic append of `own` (see appendAhead): true once committed, false when it missed rows (now folded). */
  private async appendOnce(own: NewEvent[], durable: boolean): Promise<boolean> {
    const events = this.opts.introduce ? [...this.opts.introduce(this.current), ...own] : own;
    const head = Math.trunc(this.chain.seq);
    const headHash = this.chain.prev;
    const linked = this.chained(events);
    const last = linked.at(-1)?.e as JournalEvent;
    const client = await this.connect();
    let failed: Error | undefined;
    let attempt: Attempt | undefined;
    try {
      this.ownThrough = last.seq;
      attempt = await appendUnlessMissed(client, linked, head, durable);
    } catch (err) {
      failed = err as Error;
      await client.query('ROLLBACK').catch(() => undefined);
      if (connectionLost(err) && (await landed(this.pool, last, () => this.closed))) attempt = { kind: 'committed' };
      // The link trigger refused a row that follows the head under the lock: the head is not there as read.
      else if ((err as { code?: string }).code === CHECK_VIOLATION) attempt = { kind: 'missed', rows: [] };
    } finally {
      // A connection that failed otherwise than by a row refused is not given back to the pool.
      client.release(attempt || !failed ? undefined : failed);
    }
    if (attempt?.kind === 'committed') {
      this.unflushed.committed(own, last, durable);
      const seen = this.foldOwn(linked.map((x) => x.e));
      if (seen.length > 0) this.notify(seen);
      return true;
    }
    this.ownThrough = this.chain.seq;
    if (!attempt) {
      // Announcements this process let by, taking them for its own, are read now.
      this.look();
      if ((failed as { code?: string }).code === LOCK_NOT_AVAILABLE) throw await lockHeld(this.pool, this.opts.url);
      throw failed;
    }
    // Read under the lock: every row committed before this attempt (a head no longer there is LostTail).
    const fresh = this.absorb(rowsAfterHead(attempt.rows, head, headHash));
    if (fresh.length > 0) this.notify(fresh);
    return false;
  }

  /** True when the last row this process folded is no longer in the table as it was. */
  private async headLost(): Promise<boolean> {
    if (this.chain.seq === 0) return false;
    const { rows } = await this.pool.query<{ hash: string }>(`SELECT hash FROM ${TABLE} WHERE seq = $1`, [this.chain.seq]);
    return rows[0]?.hash !== this.chain.prev;
  }

  /**
   * The database lost rows this process had folded (it crashed before flushing transactions committed
   * without waiting): every process that folded them reads the table again from its first row, and the
   * one that wrote them writes them again, this time waiting for their flush. Runs in the queue of
   * transactions.
   */
  private async reload(): Promise<void> {
    const lost = this.unflushed.take();
    this.opts.logger.warn(
      `store: the team store no longer holds the rows this process read last (seq ${this.chain.seq}); the database ` +
        `lost them in a crash. Reading it again`,
    );
    const { rows } = await this.pool.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM ${TABLE} ORDER BY seq`);
    this.current = this.opts.reducer.initial();
    this.chain = new TxChain<{ e: JournalEvent }>(undefined, true);
    this.keyed.clear();
    this.buffered = [];
    this.ownThrough = 0;
    const folded = this.absorb(rows.map(eventOfRow));
    this.ownThrough = this.chain.seq;
    if (folded.length > 0) this.notify(folded);
    const held = new Map(rows.map((r) => [Number(r.seq), r.hash]));
    for (const tx of lost) {
      // Still there: it was flushed before the crash.
      if (held.get(tx.last.seq) === tx.last.hash) continue;
      this.opts.logger.warn(`store: writing again a transaction the database lost (it ended at seq ${tx.last.seq})`);
      await this.transactNow(() => ({ events: tx.events, result: undefined }), true);
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

  /**
   * New events linked after the last row read and sealed with the installation's key, once the fold
   * admits them from it (otherwise they are refused here, as every reader would refuse them, and
   * nothing is written).
   */
  private chained(events: NewEvent[]): LinkedEvent[] {
    const linked = linkEvents(events, { seq: this.chain.seq, hash: this.chain.prev }, new Date(this.opts.clock.now()).toISOString());
    if (linked.length === 0) return linked;
    const out = linked.map((x) => x.e);
    const refused = this.opts.reducer.admit?.(this.current, out, this.opts.signer.publicKey);
    if (refused) throw new HolonError('denied', `not written: ${refused.message}`, { reason: refused.code });
    seal(out, this.opts.signer);
    return linked;
  }

  /** Quarantines a transaction read, reporting it once (a reload reads it again). */
  private refuse(tx: RefusedTx): void {
    const key = `${tx.from}:${tx.to}:${tx.signer ?? ''}:${tx.code}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.listening.refuse(tx);
  }

  /** This process's own transaction, committed: folded without checking again what it just sealed. */
  private foldOwn(events: JournalEvent[]): JournalEvent[] {
    return events.length === 0 ? [] : this.absorb(events, true);
  }

  /**
   * Takes in rows that follow the last one read (those read twice, by the tailer and by a transaction,
   * are skipped): each checked against the one before it, grouped into transactions; each whole
   * transaction whose seal verifies and that the fold admits from its signer is folded, any other is
   * quarantined. Returns the events folded now.
   */
  private absorb(events: JournalEvent[], own = false): JournalEvent[] {
    const folded: JournalEvent[] = [];
    for (const e of events) {
      if (e.seq <= this.chain.seq) continue;
      const step = this.chain.push({ e }, own);
      if ('broken' in step)
        throw this.breakWith(`store: event ${e.seq}: ${step.broken}; run \`holon verify --store\``, { after_seq: this.chain.seq });
      for (const done of step.done) {
        if (isRefused(done)) {
          this.refuse(done.refused);
          continue;
        }
        const events = done.items.map((x) => x.e);
        const from = events[0]?.seq ?? e.seq;
        const refusal = own
          ? undefined
          : !done.verify()
            ? { code: 'bad_seal', message: `its seal is not ${done.signer}'s signature of it` }
            : this.opts.reducer.admit?.(this.current, events, done.signer);
        if (refusal) {
          this.refuse({ ...refusal, from, to: e.seq, signer: done.signer });
          continue;
        }
        this.opts.reducer.sealed?.(this.current, done.signer);
        for (const x of events) {
          for (const k of this.opts.reducer.keys?.(this.current, x) ?? []) {
            const list = this.keyed.get(k.key);
            if (list) list.push({ seq: x.seq, hash: x.hash });
            else this.keyed.set(k.key, [{ seq: x.seq, hash: x.hash }]);
          }
          this.opts.reducer.apply(this.current, x);
          folded.push(x);
        }
      }
    }
    return folded;
  }

  /**
   * Reads what was committed after the last event seen into the buffer (one read at a time), from that
   * event on: should it be gone (the database lost it in a crash), the store reads the table again.
   */
  private catchUp(): Promise<void> {
    if (this.reading) {
      this.lookAgain = true;
      return this.reading;
    }
    const last = this.buffered.at(-1);
    const after = last && last.seq > this.chain.seq ? { seq: last.seq, hash: last.hash } : { seq: this.chain.seq, hash: this.chain.prev };
    this.reading = this.pool
      .query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM ${TABLE} WHERE seq >= $1 ORDER BY seq`, [after.seq])
      .then(({ rows }) => {
        const events = rowsAfterHead(rows, after.seq, after.hash);
        if (events.length > 0) this.buffered.push(...events);
      })
      .catch((err: unknown) => {
        if (!(err instanceof LostTail)) throw err;
        // In the queue, after whatever transaction is under way (which may have read the table again first).
        return this.serially(async () => {
          if (await this.headLost()) await this.reload();
        });
      })
      .finally(() => {
        this.reading = undefined;
        // What was announced during the read may have been committed after the moment it read: read once more.
        if (!this.lookAgain) return;
        this.lookAgain = false;
        this.look();
      });
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

  private async createSchema(): Promise<void> {
    const client = await this.connect();
    try {
      await client.query('BEGIN');
      await ensureSchema(client);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) throw await lockHeld(this.pool, this.opts.url);
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
    if (this.closed) return;
    this.listener = new Listener({
      pg: this.pg,
      url: this.opts.url,
      logger: this.opts.logger,
      owner: this.opts.owner ?? thisProcess(),
      watch,
      // Our own appends come back as announcements too, maybe before the commit's answer: those are ours,
      // folded already or about to be, and need no read.
      announced: (seq) => {
        if (!(seq <= Math.max(this.chain.seq, this.ownThrough))) this.look();
      },
      look: () => this.look(),
    });
    await this.listener.start();
  }

  ownersAbsent(owners: ProcessRef[]): Promise<boolean[] | null> {
    return ownersAbsent(this.pool, owners);
  }

  startedAt(): Promise<number | null> {
    return startedAt(this.pool);
  }

  private notify(events: JournalEvent[]): void {
    this.listening.notify(events);
  }

  /** Stops the store: nothing more is folded or appended, and whoever listens is told. */
  private breakWith(message: string, details: Record<string, unknown>): HolonError {
    return this.listening.breakWith(message, details);
  }
}
