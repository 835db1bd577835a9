import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { canonicalize } from 'json-canonicalize';
import type { Clock, Logger } from './deps.ts';
import { HolonError } from './errors.ts';

/** One line of the journal: a fact, hash-linked to the one before it. */
export interface JournalEvent {
  seq: number;
  time: string;
  type: string;
  data: unknown;
  /** Hash of the previous event ("" for the first). */
  prev: string;
  /** SHA-256 (hex) of the RFC 8785 canonical JSON of {seq, time, type, data, prev}. */
  hash: string;
}

/** An event before the journal gives it a place in the chain. */
export interface NewEvent {
  type: string;
  data: unknown;
}

/** How a journal folds its events into the in-memory state every process keeps. */
export interface Reducer<S> {
  initial(): S;
  apply(state: S, event: JournalEvent): void;
  /** The state as JSON text for a snapshot, and back. */
  serialize(state: S): string;
  deserialize(text: string): S;
}

/** Signs checkpoints with the installation key. */
export interface Signer {
  /** The raw Ed25519 public key, base64. */
  readonly publicKey: string;
  sign(message: string): string;
}

/** What a transaction returns: events to append, and a value for the caller. */
export interface TxResult<T> {
  events: NewEvent[];
  result: T;
}

/**
 * The narrow store interface every process uses. A file in workspace storage implements it here; a
 * shared deployment can implement the same with a database transaction and LISTEN/NOTIFY.
 */
export interface EventStore<S> {
  /** The latest folded state this process has seen. */
  readonly state: S;
  /** Sequence number of the last event seen. */
  readonly seq: number;
  /**
   * Runs `fn` on the latest state under the cross-process lock; its events are appended before the
   * lock is released, so a decision and the events it implies can never interleave with another's.
   */
  transact<T>(fn: (state: S) => TxResult<T>): Promise<T>;
  /** Reads events appended by other processes since the last look. */
  refresh(): JournalEvent[];
  /** Calls `listener` with every batch of new events, from any process. Returns an unsubscribe. */
  subscribe(listener: (events: JournalEvent[]) => void): () => void;
  /** Appends a signed checkpoint if any event is unsigned. */
  checkpoint(): Promise<void>;
  close(): void;
}

/** Options of a file journal. */
export interface FileJournalOptions<S> {
  dir: string;
  reducer: Reducer<S>;
  clock: Clock;
  logger: Logger;
  signer: Signer;
  /** fsync every append (default true). */
  durable?: boolean;
  /** Write a snapshot once this many events were folded since the last (default 5000; 0 disables). */
  snapshotEvery?: number;
  /** Sign a checkpoint inside a transaction once this many events are unsigned (default 100). */
  checkpointEvery?: number;
  /** Tail the file for other processes' appends (default true). */
  watch?: boolean;
}

export const JOURNAL_FILE = 'journal.jsonl';
export const SNAPSHOT_FILE = 'snapshot.json';
const LOCK_FILE = 'journal.lock';
const SNAPSHOT_VERSION = 1;
const STALE_LOCK_MS = 30_000;
const LOCK_TIMEOUT_MS = 15_000;
const POLL_MS = 200;

/** The hash that links an event into the chain. */
export function eventHash(e: Omit<JournalEvent, 'hash'>): string {
  return createHash('sha256')
    .update(canonicalize({ seq: e.seq, time: e.time, type: e.type, data: e.data, prev: e.prev }))
    .digest('hex');
}

/** The message a checkpoint signs. */
export function checkpointMessage(upTo: number, head: string): string {
  return `holon-checkpoint:v1:${upTo}:${head}`;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** True while a process with this pid exists (one we may not signal counts as alive). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A cross-process lock: a file created exclusively, holding the owner's pid. Held only for the
 * milliseconds of a decision and an append, so waiters spin with short sleeps. A lock whose owner died
 * (or that is older than any real critical section) is broken.
 */
export function acquireLock(file: string): () => void {
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  const token = `${process.pid} ${Date.now()} ${randomBytes(6).toString('hex')}`;
  let pause = 1;
  for (;;) {
    // The lock appears with its content in one step (link of a written file), so no process ever sees
    // an empty lock whose owner cannot be known.
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, token, { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
      return () => {
        try {
          if (fs.readFileSync(file, 'utf8') === token) fs.unlinkSync(file);
        } catch {
          // Already broken as stale by another process: nothing to release.
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    breakIfStale(file);
    if (Date.now() > deadline) throw new HolonError('lock_timeout', `the journal lock ${file} is held by another process`);
    sleepSync(pause);
    pause = Math.min(pause * 2, 16);
  }
}

/** Removes a lock whose owner died, or that is older than any real critical section. */
function breakIfStale(file: string): void {
  try {
    const [pidText, sinceText] = fs.readFileSync(file, 'utf8').split(' ');
    const pid = Number(pidText);
    const since = Number(sinceText) || fs.statSync(file).mtimeMs;
    const dead = Number.isInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid);
    if (dead || Date.now() - since > STALE_LOCK_MS) fs.rmSync(file, { force: true });
  } catch {
    // Released between our two looks: the next attempt takes it.
  }
}

interface Position {
  offset: number;
  seq: number;
  hash: string;
  lastCheckpointSeq: number;
}

/** Parses one journal line; undefined when it is not a whole, well-formed event. */
export function parseEventLine(line: string): JournalEvent | undefined {
  try {
    const e = JSON.parse(line) as JournalEvent;
    if (typeof e !== 'object' || e === null || typeof e.seq !== 'number' || typeof e.type !== 'string' || typeof e.hash !== 'string' || typeof e.prev !== 'string' || typeof e.time !== 'string') return undefined;
    return e;
  } catch {
    return undefined;
  }
}

/** The append-only journal in `<dir>/journal.jsonl`, folded into memory and tailed. */
export class FileJournal<S> implements EventStore<S> {
  readonly dir: string;
  readonly file: string;
  private readonly lockFile: string;
  private readonly opts: Required<Omit<FileJournalOptions<S>, 'dir'>>;
  private current: S;
  private pos: Position = { offset: 0, seq: 0, hash: '', lastCheckpointSeq: 0 };
  private foldedSinceSnapshot = 0;
  private readonly listeners = new Set<(events: JournalEvent[]) => void>();
  private watcher: fs.FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inTransaction = false;
  private closed = false;

  constructor(options: FileJournalOptions<S>) {
    this.dir = options.dir;
    this.file = path.join(options.dir, JOURNAL_FILE);
    this.lockFile = path.join(options.dir, LOCK_FILE);
    this.opts = {
      durable: true,
      snapshotEvery: 5000,
      checkpointEvery: 100,
      watch: true,
      ...options,
    } as Required<Omit<FileJournalOptions<S>, 'dir'>>;
    // Nothing is created until the first append: a command refused for bad input leaves no trace.
    this.current = this.opts.reducer.initial();
    this.loadSnapshot();
    const { events, end, tail } = this.readFrom(this.pos.offset);
    if (events.length > 0) this.fold(events, end);
    // A torn last line (a writer died mid-append) is repaired now, under the lock, not left for later.
    if (tail.length > 0) this.withLock(() => ({ appended: [], result: undefined }));
    if (this.foldedSinceSnapshot >= this.opts.snapshotEvery && this.opts.snapshotEvery > 0) this.writeSnapshot();
    if (this.opts.watch) this.startWatching();
  }

  get state(): S {
    return this.current;
  }

  get seq(): number {
    return this.pos.seq;
  }

  subscribe(listener: (events: JournalEvent[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  refresh(): JournalEvent[] {
    if (this.closed) return [];
    const { events, end } = this.readFrom(this.pos.offset);
    if (events.length === 0) return [];
    this.fold(events, end);
    this.notify(events);
    return events;
  }

  async transact<T>(fn: (state: S) => TxResult<T>): Promise<T> {
    return this.transactSync(fn);
  }

  /** The synchronous core of `transact`: in one process nothing else runs while it holds the lock. */
  transactSync<T>(fn: (state: S) => TxResult<T>): T {
    try {
      return this.withLock(() => {
        const { events, result } = fn(this.current);
        if (events.length === 0) return { appended: [], result };
        const unsigned = this.pos.seq + events.length - this.pos.lastCheckpointSeq;
        return { appended: this.appendLocked(events, unsigned >= this.opts.checkpointEvery), result };
      });
    } finally {
      this.maybeSnapshot();
    }
  }

  async checkpoint(): Promise<void> {
    this.refresh();
    if (this.pos.seq === this.pos.lastCheckpointSeq) return;
    this.withLock(() => ({ appended: this.pos.seq > this.pos.lastCheckpointSeq ? this.appendLocked([], true) : [], result: undefined }));
  }

  private lock(): () => void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    return acquireLock(this.lockFile);
  }

  /**
   * Takes the lock, catches up (repairing a torn tail), runs `fn`, releases, and tells listeners every
   * event this process had not seen, its own appends included.
   */
  private withLock<T>(fn: () => { appended: JournalEvent[]; result: T }): T {
    if (this.closed) throw new Error('journal is closed');
    if (this.inTransaction) throw new Error('nested journal transaction');
    this.inTransaction = true;
    let release: () => void;
    try {
      release = this.lock();
    } catch (err) {
      this.inTransaction = false;
      throw err;
    }
    const seen: JournalEvent[] = [];
    try {
      seen.push(...this.catchUpLocked());
      const { appended, result } = fn();
      seen.push(...appended);
      return result;
    } finally {
      release();
      this.inTransaction = false;
      if (seen.length > 0) this.notify(seen);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.watcher?.close();
    if (this.timer) clearInterval(this.timer);
    this.listeners.clear();
  }

  /** Events after the last one seen, and the repair of a torn last line. Lock held. */
  private catchUpLocked(): JournalEvent[] {
    const { events, end, tail } = this.readFrom(this.pos.offset);
    if (events.length > 0) this.fold(events, end);
    if (tail.length > 0) this.repairLocked(tail);
    return events;
  }

  /**
   * Bytes after the last newline, seen with the lock held, were left by a writer that died mid-append.
   * A tail that is a whole, valid next event only lost its newline; anything else is cut off.
   */
  private repairLocked(tail: Buffer): void {
    const candidate = parseEventLine(tail.toString('utf8'));
    if (candidate && candidate.seq === this.pos.seq + 1 && candidate.prev === this.pos.hash && eventHash(candidate) === candidate.hash) {
      fs.appendFileSync(this.file, '\n');
      const end = this.pos.offset + tail.length + 1;
      this.fold([candidate], end);
      this.opts.logger.warn(`journal: completed the last event (seq ${candidate.seq}), which had lost its newline`);
      return;
    }
    fs.truncateSync(this.file, this.pos.offset);
    this.opts.logger.warn(`journal: removed ${tail.length} bytes of an event torn by a crash after seq ${this.pos.seq}`);
    this.appendLocked([{ type: 'journal.repaired', data: { after_seq: this.pos.seq, removed_bytes: tail.length } }], false);
  }

  private appendLocked(events: NewEvent[], sign: boolean): JournalEvent[] {
    const out: JournalEvent[] = [];
    let seq = this.pos.seq;
    let prev = this.pos.hash;
    const time = new Date(this.opts.clock.now()).toISOString();
    const push = (type: string, data: unknown): void => {
      seq += 1;
      const base = { seq, time, type, data, prev };
      const e: JournalEvent = { ...base, hash: eventHash(base) };
      out.push(e);
      prev = e.hash;
    };
    for (const e of events) push(e.type, e.data);
    if (sign && seq > 0) {
      push('checkpoint', { up_to: seq, head: prev, key: this.opts.signer.publicKey, sig: this.opts.signer.sign(checkpointMessage(seq, prev)) });
    }
    if (out.length === 0) return out;
    const text = out.map((e) => JSON.stringify(e)).join('\n') + '\n';
    const fd = fs.openSync(this.file, 'a', 0o600);
    try {
      fs.writeSync(fd, text);
      if (this.opts.durable) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    this.fold(out, this.pos.offset + Buffer.byteLength(text));
    return out;
  }

  private fold(events: JournalEvent[], end: number): void {
    for (const e of events) {
      this.opts.reducer.apply(this.current, e);
      this.pos.seq = e.seq;
      this.pos.hash = e.hash;
      if (e.type === 'checkpoint') this.pos.lastCheckpointSeq = e.seq;
    }
    this.pos.offset = end;
    this.foldedSinceSnapshot += events.length;
  }

  /** Whole lines from `offset`; `tail` is what follows the last newline. */
  private readFrom(offset: number): { events: JournalEvent[]; end: number; tail: Buffer } {
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch {
      return { events: [], end: offset, tail: Buffer.alloc(0) };
    }
    try {
      const size = fs.fstatSync(fd).size;
      if (size <= offset) return { events: [], end: offset, tail: Buffer.alloc(0) };
      const buf = Buffer.allocUnsafe(size - offset);
      let read = 0;
      while (read < buf.length) {
        const n = fs.readSync(fd, buf, read, buf.length - read, offset + read);
        if (n === 0) break;
        read += n;
      }
      const data = buf.subarray(0, read);
      const lastNl = data.lastIndexOf(10);
      if (lastNl < 0) return { events: [], end: offset, tail: data };
      const events: JournalEvent[] = [];
      let start = 0;
      let expectSeq = this.pos.seq;
      while (start <= lastNl) {
        const nl = data.indexOf(10, start);
        const line = data.toString('utf8', start, nl);
        start = nl + 1;
        if (line.length === 0) continue;
        const e = parseEventLine(line);
        if (!e || e.seq !== expectSeq + 1) {
          throw new HolonError('corrupt_journal', `journal ${this.file}: the event after seq ${expectSeq} is unreadable; run \`holon verify\``, { after_seq: expectSeq });
        }
        expectSeq = e.seq;
        events.push(e);
      }
      return { events, end: offset + lastNl + 1, tail: data.subarray(lastNl + 1) };
    } finally {
      fs.closeSync(fd);
    }
  }

  private loadSnapshot(): void {
    // Line one is the header (where in the journal the state was taken); the rest is the state.
    let header: { version: number; seq: number; hash: string; offset: number; lastCheckpointSeq: number };
    let body: string;
    try {
      const text = fs.readFileSync(path.join(this.dir, SNAPSHOT_FILE), 'utf8');
      const nl = text.indexOf('\n');
      header = JSON.parse(text.slice(0, nl));
      body = text.slice(nl + 1);
    } catch {
      return;
    }
    if (header.version !== SNAPSHOT_VERSION || !this.snapshotMatches(header.offset, header.seq, header.hash)) {
      this.opts.logger.warn('journal: snapshot does not match the journal; folding from the start');
      return;
    }
    try {
      this.current = this.opts.reducer.deserialize(body);
    } catch {
      this.opts.logger.warn('journal: snapshot is unreadable; folding from the start');
      this.current = this.opts.reducer.initial();
      return;
    }
    this.pos = { offset: header.offset, seq: header.seq, hash: header.hash, lastCheckpointSeq: header.lastCheckpointSeq };
  }

  /** A snapshot is only trusted if the journal's line ending at its offset is the event it names. */
  private snapshotMatches(offset: number, seq: number, hash: string): boolean {
    try {
      const fd = fs.openSync(this.file, 'r');
      try {
        if (fs.fstatSync(fd).size < offset || offset <= 0) return false;
        const len = Math.min(offset, 1 << 20);
        const buf = Buffer.alloc(len);
        fs.readSync(fd, buf, 0, len, offset - len);
        if (buf[len - 1] !== 10) return false;
        const prevNl = buf.lastIndexOf(10, len - 2);
        const e = parseEventLine(buf.toString('utf8', prevNl + 1, len - 1));
        return e !== undefined && e.seq === seq && e.hash === hash;
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return false;
    }
  }

  private snapshotScheduled = false;

  /** Writes a snapshot soon after the transaction that crossed the mark, not inside the caller's call. */
  private maybeSnapshot(): void {
    if (this.opts.snapshotEvery <= 0 || this.foldedSinceSnapshot < this.opts.snapshotEvery || this.snapshotScheduled) return;
    this.snapshotScheduled = true;
    setImmediate(() => {
      this.snapshotScheduled = false;
      if (this.closed || this.foldedSinceSnapshot < this.opts.snapshotEvery) return;
      try {
        this.writeSnapshot();
      } catch (err) {
        this.opts.logger.warn(`journal: could not write a snapshot: ${(err as Error).message}`);
      }
    }).unref();
  }

  /** Writes the folded state beside the journal; derived data, replaced atomically by rename. */
  writeSnapshot(): void {
    const file = path.join(this.dir, SNAPSHOT_FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    const header = JSON.stringify({
      version: SNAPSHOT_VERSION,
      seq: this.pos.seq,
      hash: this.pos.hash,
      offset: this.pos.offset,
      lastCheckpointSeq: this.pos.lastCheckpointSeq,
    });
    const body = `${header}\n${this.opts.reducer.serialize(this.current)}`;
    fs.writeFileSync(tmp, body, { mode: 0o600 });
    fs.renameSync(tmp, file);
    this.foldedSinceSnapshot = 0;
  }

  private notify(events: JournalEvent[]): void {
    for (const l of this.listeners) {
      try {
        l(events);
      } catch (err) {
        this.opts.logger.error(`journal listener failed: ${String(err)}`);
      }
    }
  }

  private startWatching(): void {
    const tick = (): void => {
      if (this.inTransaction || this.closed) return;
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
