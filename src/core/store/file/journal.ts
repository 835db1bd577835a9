/**
 * The embedded store: `<state>/journal.jsonl`, append-only and hash-linked, folded into memory and
 * tailed by every process. Every event read back is checked against the one before it, and folded only
 * as part of a whole transaction sealed by this installation's key (see TxChain): anything else — a
 * line that does not verify, a seal by another key or that does not verify, events no seal covers — is
 * what verify would refuse, and stops the store naming the line. The lines after the last seal are a
 * transaction a crash cut short: never folded, and removed by the next process that writes, so a
 * transaction is on disk whole or not at all. Appends go through one descriptor kept open, made durable
 * with fdatasync; a transaction may leave its durability to the next one (group commit). Events a
 * reducer files under keys (receipts) are found again through an index of their offsets, so the folded
 * state keeps only what decisions need. Snapshots are written by a worker, off the event loop.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock, Logger } from '../../kernel/deps.ts';
import { HolonError } from '../../kernel/errors.ts';
import { JournalLock } from './lock.ts';
import type { Entry } from './journalIndex.ts';
import { buildSnapshot, entryOf, IndexFile } from './journalIndex.ts';
import { openState } from './lazy.ts';
import type { IndexCover, Position, SnapshotFile } from './snapshot.ts';
import { SNAPSHOT_FILE } from './snapshot.ts';
import type { EventStore, JournalEvent, NewEvent, Reducer, Refusal, Signer, TxOptions, TxResult } from '../store.ts';
import { describeRefusal, eventLine, linkEvents, ListenedStore, parseEventLine, seal, wouldAdmit } from '../store.ts';
import type { SealedTx } from '../txChain.ts';
import { isRefused, TxChain } from '../txChain.ts';
import type { Located, ReadFrom } from './read.ts';
import { nothingRead, readAt, readFrom } from './read.ts';
import type { WorkerSpec } from './worker.ts';
import { runWorker } from './worker.ts';

export { SNAPSHOT_FILE };
export const JOURNAL_FILE = 'journal.jsonl';
const POLL_MS = 200;
/** A group-committed append is made durable within this long, if no durable one comes first. */
const GROUP_COMMIT_MS = 50;

/** Options of a file journal. */
export interface FileJournalOptions<S> {
  dir: string;
  reducer: Reducer<S>;
  clock: Clock;
  logger: Logger;
  signer: Signer;
  /**
   * The one key that may seal this journal's transactions: the installation's, read from its state
   * folder (undefined while it has none). Default: the signer's.
   */
  sealKey?: () => string | undefined;
  /** fsync appends (default true). */
  durable?: boolean;
  /** Write a snapshot once this many events were folded since the last (default 5000; 0 disables). */
  snapshotEvery?: number;
  /** Tail the file for other processes' appends (default true). */
  watch?: boolean;
  /** The worker that folds and writes snapshots off the event loop; without one they are written here. */
  worker?: WorkerSpec;
}

/** How many times a transaction that may be decided again is tried while the journal keeps growing under it. */
const HANDED_ON_RERUNS = 5;

/** The journal grew while a transaction was decided (see appendLocked): nothing of it was written. */
class HandedOn extends Error {}

/** The append-only journal in `<dir>/journal.jsonl`, folded into memory and tailed. */
export class FileJournal<S> extends ListenedStore implements EventStore<S> {
  readonly dir: string;
  readonly file: string;
  private readonly opts: Required<Omit<FileJournalOptions<S>, 'dir' | 'worker' | 'sealKey'>> & Pick<FileJournalOptions<S>, 'worker'>;
  private readonly sealKey: () => string | undefined;
  private current: S;
  /** Just after the last transaction folded: what follows it is a transaction not sealed yet, if anything. */
  private pos: Position = { offset: 0, seq: 0, hash: '', legacy: true };
  private foldedSinceSnapshot = 0;
  private watcher: fs.FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inTransaction = false;
  private closed = false;
  private readonly lock: JournalLock;
  /** The descriptor appends go through, opened on the first one. */
  private fd: number | undefined;
  /** Appends not yet made durable, and the timer that will. */
  private unsynced = false;
  private syncTimer: NodeJS.Timeout | undefined;
  /** Keyed events folded in this process (those before its snapshot are in the index file), and the keys that began here. */
  private readonly tailKeys = new Map<string, Entry[]>();
  /** Keys whose first event this process folded, at that event's offset: the index file has nothing older. */
  private readonly begunHere = new Map<string, number>();
  private readonly index: IndexFile;
  /** The snapshot the state was opened from: its sections not read yet are read from it. */
  private snapshot: SnapshotFile | undefined;
  /** The snapshot being written, if one is. */
  private snapshotting: Promise<void> | undefined;

  constructor(options: FileJournalOptions<S>) {
    super(options.logger, 'journal');
    this.dir = options.dir;
    this.file = path.join(options.dir, JOURNAL_FILE);
    this.opts = { durable: true, snapshotEvery: 5000, watch: true, ...options };
    // Read once it exists: the key file is written once, and reading and parsing it costs more than a seal's check.
    const key = options.sealKey ?? (() => options.signer.publicKey);
    let known: string | undefined;
    this.sealKey = () => (known ??= key());
    this.lock = new JournalLock(options.dir);
    this.index = new IndexFile(options.dir);
    // Nothing is created until the first append: a command refused for bad input leaves no trace.
    this.current = this.opts.reducer.initial();
    this.loadSnapshot();
    const { txs, end } = this.readFrom(this.pos.offset);
    this.foldRead(txs, end);
    this.maybeSnapshot();
    if (this.opts.watch) this.startWatching();
  }

  get state(): S {
    return this.current;
  }

  get seq(): number {
    return this.pos.seq;
  }

  /** Where in the journal the folded state is. */
  get position(): Position {
    return { ...this.pos };
  }

  private get broken(): HolonError | undefined {
    return this.listening.broken;
  }

  mayWrite(events: NewEvent[]): Refusal | undefined {
    return wouldAdmit(this.opts.reducer, this.current, this.pos.seq, this.opts.signer.publicKey, events);
  }

  refresh(): JournalEvent[] {
    if (this.closed || this.broken) return [];
    const { txs, end } = this.readFrom(this.pos.offset);
    if (txs.length === 0) return [];
    const plain = this.foldRead(txs, end).map((x) => x.e);
    this.notify(plain);
    this.maybeSnapshot();
    return plain;
  }

  async transact<T>(fn: (state: S) => TxResult<T>, options: TxOptions = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await this.withLock(() => {
          const { events, result } = fn(this.current);
          if (events.length === 0) return { appended: [], result };
          return { appended: this.appendLocked(events, options.durable ?? true), result };
        });
        this.maybeSnapshot();
        return result;
      } catch (err) {
        if (!(err instanceof HandedOn)) throw err;
        // Decided on a state another process has since appended to: decided again on the new one, when
        // deciding twice is harmless; otherwise refused, with nothing written.
        if (!options.rerunnable || attempt >= HANDED_ON_RERUNS) {
          throw new HolonError(
            'conflict',
            'another process wrote to the journal while this was decided (the lock was handed on when its coordinator went away); ' +
              'nothing was written: try again',
            { file: this.file },
          );
        }
      }
    }
  }

  async flush(): Promise<void> {
    this.syncNow();
  }

  /** The events filed under `key`, each checked against the hash it was filed with. */
  async readKey(key: string, options: { newest?: number } = {}): Promise<JournalEvent[]> {
    if (this.broken) throw this.broken;
    // A key that began in this process has nothing in the index file; any other may have.
    // What this process folded is newer than what the index file holds: with `newest`, the index is
    // asked only for what the tail does not give.
    const tail = (this.tailKeys.get(key) ?? []).filter((x) => x.offset >= this.index.end);
    const begun = this.begunHere.get(key);
    const fromIndex = options.newest === undefined ? undefined : Math.max(0, options.newest - tail.length);
    const before = (begun !== undefined && begun >= this.index.end) || fromIndex === 0 ? [] : this.index.entries(key, fromIndex);
    const all = [...before, ...tail].sort((a, b) => a.offset - b.offset);
    const wanted = options.newest === undefined ? all : all.slice(Math.max(0, all.length - options.newest));
    return wanted.map((x) => readAt(this.file, x, (message, details) => this.breakWith(message, details)));
  }

  /**
   * Takes the lock (without blocking the event loop), catches up (repairing a torn tail), runs `fn`,
   * releases, and tells listeners every event this process had not seen, its own appends included.
   */
  private async withLock<T>(fn: () => { appended: Located[]; result: T }): Promise<T> {
    if (this.closed) throw new Error('journal is closed');
    if (this.broken) throw this.broken;
    const release = await this.lock.acquire();
    if (this.closed) {
      release();
      throw new Error('journal is closed');
    }
    this.inTransaction = true;
    const seen: JournalEvent[] = [];
    try {
      if (this.broken) throw this.broken;
      seen.push(...this.catchUpLocked().map((x) => x.e));
      const { appended, result } = fn();
      seen.push(...appended.map((x) => x.e));
      return result;
    } finally {
      this.inTransaction = false;
      release();
      if (seen.length > 0) this.notify(seen);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.watcher?.close();
    if (this.timer) clearInterval(this.timer);
    this.syncNow();
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
    this.lock.close();
    this.snapshot?.close();
    this.listening.clear();
  }

  /** Events after the last one seen, and the repair of a transaction a crash cut short. Lock held. */
  private catchUpLocked(): Located[] {
    const read = this.readFrom(this.pos.offset);
    const folded = this.foldRead(read.txs, read.end);
    if (read.open.length > 0 || read.tail.length > 0) folded.push(...this.repairLocked(read));
    return folded;
  }

  /**
   * What follows the last seal, seen with the lock held, was left by a writer that died mid-append: the
   * first lines of a transaction, maybe the start of one more. When the bytes after the last newline are
   * the whole event that seals those lines (only its newline was lost), the transaction is completed;
   * otherwise all of it is cut off, so none of it is ever folded. Returns what it folded.
   */
  private repairLocked({ open, tail, tailAt }: { open: Located[]; tail: Buffer; tailAt: number }): Located[] {
    const candidate = tail.length > 0 ? parseEventLine(tail.toString('utf8')) : undefined;
    if (candidate?.tx) {
      const chain = new TxChain<Located>({ seq: this.pos.seq, hash: this.pos.hash, legacy: this.pos.legacy });
      for (const x of open) chain.push(x);
      const step = chain.push({ e: candidate, offset: tailAt });
      const tx = 'done' in step && step.done.length === 1 ? step.done[0] : undefined;
      if (
        tx &&
        !isRefused(tx) &&
        tx.signer === this.sealKey() &&
        tx.verify() &&
        !this.opts.reducer.admit?.(
          this.current,
          tx.items.map((x) => x.e),
          tx.signer,
        )
      ) {
        fs.appendFileSync(this.file, '\n');
        this.fold([tx], tailAt + tail.length + 1);
        this.opts.logger.warn(
          `journal: completed the last transaction (through seq ${candidate.seq}), whose last event had lost its newline`,
        );
        return tx.items;
      }
    }
    const removed = fs.statSync(this.file).size - this.pos.offset;
    fs.truncateSync(this.file, this.pos.offset);
    this.opts.logger.warn(
      `journal: removed ${removed} bytes of a transaction a crash cut short after seq ${this.pos.seq} (${open.length} ` +
        `whole event(s) of it, none folded)`,
    );
    return this.appendLocked(
      [{ type: 'journal.repaired', data: { after_seq: this.pos.seq, removed_bytes: removed, removed_events: open.length } }],
      true,
    );
  }

  /**
   * Appends `events` as one transaction sealed with the installation's key, after the fold admits it
   * from this installation (otherwise it is refused here, as every reader would refuse it, and nothing is
   * written). Lock held.
   */
  private appendLocked(events: NewEvent[], durable: boolean): Located[] {
    const linked = linkEvents(events, this.pos, new Date(this.opts.clock.now()).toISOString());
    if (linked.length === 0) return [];
    const signer = this.opts.signer.publicKey;
    const out: Located[] = linked.map((x) => ({ e: x.e, offset: 0 }));
    const refused = this.opts.reducer.admit?.(
      this.current,
      out.map((x) => x.e),
      signer,
    );
    if (refused) throw new HolonError('denied', `not written: ${refused.message}`, { reason: refused.code });
    seal(
      out.map((x) => x.e),
      this.opts.signer,
    );
    let offset = this.pos.offset;
    let text = '';
    linked.forEach((x, i) => {
      const line = eventLine(x);
      (out[i] as Located).offset = offset;
      text += `${line}\n`;
      offset += Buffer.byteLength(line) + 1;
    });
    if (this.fd === undefined) {
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.fd = fs.openSync(this.file, 'a', 0o600);
    }
    // The file must end where this process last read, asked again now that the transaction is decided:
    // one whose grant outlived the coordinator that gave it (lock.ts) may have been decided while the next
    // coordinator let another process append. Nothing is written then; the next attempt reads, checks and
    // folds what was appended (a writer without the key stops the store there). A journal shorter than
    // what was read was cut by someone else.
    const size = fs.fstatSync(this.fd).size;
    if (size > this.pos.offset) throw new HandedOn();
    if (size !== this.pos.offset) {
      throw this.breakWith(`journal ${this.file}: it changed outside the lock (its end is not where the last event was read)`, {
        offset: this.pos.offset,
      });
    }
    fs.writeSync(this.fd, text);
    if (durable && this.opts.durable) this.syncNow(true);
    else this.syncLater();
    this.fold([{ items: out, signer, verify: () => true }], offset);
    return out;
  }

  /** Makes every append so far durable. */
  private syncNow(force = false): void {
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    if ((!this.unsynced && !force) || this.fd === undefined) return;
    this.unsynced = false;
    if (this.opts.durable) fs.fdatasyncSync(this.fd);
  }

  private syncLater(): void {
    this.unsynced = true;
    this.syncTimer ??= setTimeout(() => this.syncNow(), GROUP_COMMIT_MS);
    this.syncTimer.unref();
  }

  /**
   * Folds transactions read back, each once the fold admits it from its signer on the state the ones
   * before it leave; one it refuses is what verify would refuse, and stops the store. Returns what it folded.
   */
  private foldRead(txs: SealedTx<Located>[], end: number): Located[] {
    const out: Located[] = [];
    txs.forEach((tx, i) => {
      const refused = this.opts.reducer.admit?.(
        this.current,
        tx.items.map((x) => x.e),
        tx.signer,
      );
      const first = tx.items[0]?.e.seq ?? this.pos.seq + 1;
      if (refused)
        throw this.breakWith(
          `journal ${this.file}, line ${first}: ` +
            `${describeRefusal({ ...refused, from: first, to: tx.items.at(-1)?.e.seq ?? first, signer: tx.signer })}; run ` +
            `\`holon verify\``,
          { after_seq: first - 1, line: first },
        );
      const next = txs[i + 1]?.items[0]?.offset ?? end;
      this.fold([tx], next);
      out.push(...tx.items);
    });
    return out;
  }

  /** Folds admitted transactions, filing their keyed events; `end` is where the last one's last line ends. */
  private fold(txs: SealedTx<Located>[], end: number): void {
    const { keys, sealed } = this.opts.reducer;
    for (const tx of txs) {
      sealed?.(this.current, tx.signer);
      for (const { e, offset } of tx.items) {
        if (keys) {
          for (const k of keys(this.current, e)) {
            if (k.first) this.begunHere.set(k.key, offset);
            const list = this.tailKeys.get(k.key);
            if (list) list.push(entryOf(offset, e));
            else this.tailKeys.set(k.key, [entryOf(offset, e)]);
          }
        }
        this.opts.reducer.apply(this.current, e);
        this.pos.seq = e.seq;
        this.pos.hash = e.hash;
        if (e.tx) this.pos.legacy = false;
        this.foldedSinceSnapshot += 1;
      }
    }
    this.pos.offset = end;
  }

  /** Stops the store: nothing more is folded or appended, and whoever listens is told. */
  private breakWith(message: string, details: Record<string, unknown>): HolonError {
    return this.listening.breakWith(message, details);
  }

  /** The transactions after `offset` (see read.ts's readFrom). */
  private readFrom(offset: number): ReadFrom {
    // Most looks find nothing new: the descriptor appends go through says so without opening the file.
    if (this.fd !== undefined && fs.fstatSync(this.fd).size === offset) return nothingRead(offset);
    return readFrom(this.file, offset, this.pos, this.sealKey, (message, details) => this.breakWith(message, details));
  }

  private loadSnapshot(): void {
    // No key to seal with, no snapshot it signed; and asking the signer for one would create the state
    // folder, which a command refused for bad input must leave as it was.
    const key = this.sealKey();
    if (key === undefined) return;
    const opened = openState(this.dir, this.file, {
      reducer: this.opts.reducer,
      key,
      signer: this.opts.signer,
      warn: (m) => this.opts.logger.warn(m),
    });
    if (!opened) return;
    this.current = opened.state;
    this.snapshot = opened.snap;
    this.pos = opened.pos;
    this.index.adopt(opened.index);
  }

  /** Resolves once the snapshot being written, if any, is written (or failed). */
  async snapshotWritten(): Promise<void> {
    await this.snapshotting;
  }

  /** Asks for a snapshot once enough events were folded since the last; never on the caller's path. */
  private maybeSnapshot(): void {
    if (
      this.opts.snapshotEvery <= 0 ||
      this.foldedSinceSnapshot < this.opts.snapshotEvery ||
      this.snapshotting ||
      this.closed ||
      this.broken
    )
      return;
    const at = { ...this.pos };
    this.snapshotting = this.writeSnapshot(at)
      .then(
        (written) => {
          this.foldedSinceSnapshot = Math.max(0, this.pos.seq - at.seq);
          if (written && !this.closed) this.adoptIndex(written);
        },
        (err: unknown) => this.opts.logger.warn(`journal: could not write a snapshot: ${(err as Error).message}`),
      )
      .finally(() => (this.snapshotting = undefined));
  }

  /**
   * Folds and signs a snapshot at `at` in the worker (or here, after the caller's turn, without one).
   * Returns the index it covers, if it wrote.
   */
  private writeSnapshot(at: Position): Promise<IndexCover | null | undefined> {
    const spec = this.opts.worker;
    if (!spec) {
      return new Promise((resolve) => setImmediate(resolve)).then(() =>
        this.closed ? undefined : buildSnapshot(this.dir, this.file, this.opts.reducer, at, this.opts.signer),
      );
    }
    return runWorker<IndexCover | null | undefined>(spec, { job: 'snapshot', dir: this.dir, at });
  }

  /**
   * Takes the index a snapshot this process just wrote covers: keyed events before its end are read
   * from the index file from now on, and forgotten here, so memory does not grow with the journal.
   */
  private adoptIndex(cover: IndexCover | null): void {
    if (!cover || cover.end > this.pos.offset) return;
    this.index.adopt(cover);
    for (const [key, list] of this.tailKeys) {
      const kept = list.filter((x) => x.offset >= cover.end);
      if (kept.length === 0) this.tailKeys.delete(key);
      else if (kept.length < list.length) this.tailKeys.set(key, kept);
    }
    for (const [key, offset] of this.begunHere) if (offset < cover.end) this.begunHere.delete(key);
  }

  private notify(events: JournalEvent[]): void {
    this.listening.notify(events);
  }

  private startWatching(): void {
    const tick = (): void => {
      if (this.inTransaction || this.closed || this.broken) return;
      if (!this.watcher) this.watchFile(tick);
      try {
        this.refresh();
      } catch (err) {
        this.opts.logger.error(`journal: ${(err as Error).message}`);
      }
    };
    this.watchFile(tick);
    this.timer = setInterval(tick, POLL_MS);
    this.timer.unref();
  }

  private watchFile(onChange: () => void): void {
    try {
      const w = fs.watch(this.file, { persistent: false }, onChange);
      w.on('error', () => {
        w.close();
        if (this.watcher === w) this.watcher = undefined;
      });
      this.watcher = w;
    } catch {
      // Not there yet, or a file system that cannot be watched: the poll still sees every change.
    }
  }
}
