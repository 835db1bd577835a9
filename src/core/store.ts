/**
 * The journal's data format and the narrow store interface every process uses. The events and their
 * hashes are the same whatever holds them: a file in workspace storage (journal.ts) today, a database
 * table for a team later.
 */
import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';
import type { Logger } from './deps.ts';
import { HolonError } from './errors.ts';
import type { ProcessRef } from './owner.ts';

/** One event of the journal: a fact, hash-linked to the one before it. */
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

/** An event before the store gives it a place in the chain. */
export interface NewEvent {
  type: string;
  data: unknown;
}

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

/** Why an event read back cannot be trusted, or nothing when it follows `prev` at `seq` and is what its hash says. */
export function eventProblem(e: JournalEvent, seq: number, prev: string): string | undefined {
  if (e.seq !== seq) return `sequence ${String(e.seq)} where ${seq} was expected`;
  if (e.prev !== prev) return 'does not link to the previous event (prev hash differs)';
  if (eventHash(e) !== e.hash) return 'content does not match its hash (the event was altered)';
  return undefined;
}

/** How a store folds its events into the in-memory state every process keeps. */
export interface Reducer<S> {
  initial(): S;
  apply(state: S, event: JournalEvent): void;
  /** The state as JSON text for a snapshot, and back. */
  serialize(state: S): string;
  deserialize(text: string): S;
  /**
   * The keys under which an event can be found again without folding (a receipt's id, say): what is
   * read on demand rather than kept in memory. Called with the state before the event is applied.
   * `first` marks the first event under a key, so a reader knows nothing came before it.
   */
  keys?(state: S, event: JournalEvent): FiledKey[];
}

/** A key an event is filed under; `first` when the event is the first under that key (nothing before it). */
export interface FiledKey {
  key: string;
  first?: boolean;
}

/** Signs checkpoints and snapshots with the installation key. */
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

/** Options of one transaction. */
export interface TxOptions {
  /**
   * False lets a later flush make the append durable (group commit): for an event whose loss in a crash
   * can only leave money over-reserved, never overspent (a settlement after a durable hold).
   */
  durable?: boolean;
}

/**
 * The narrow store interface every process uses: transactions decided against the latest state, events
 * read back by key, and the events other processes append. A file in workspace storage implements it
 * (journal.ts); a shared deployment implements the same with a database transaction and LISTEN/NOTIFY.
 */
export interface EventStore<S> {
  /** The latest folded state this process has seen. */
  readonly state: S;
  /** Sequence number of the last event seen. */
  readonly seq: number;
  /**
   * Runs `fn` on the latest state, alone among every process of this store; its events are appended
   * before anyone else decides, so a decision and the events it implies can never interleave with another's.
   */
  transact<T>(fn: (state: S) => TxResult<T>, options?: TxOptions): Promise<T>;
  /**
   * The events filed under `key` (see Reducer.keys), oldest first, each checked before it is returned;
   * with `newest`, only that many of the latest.
   */
  readKey(key: string, options?: { newest?: number }): Promise<JournalEvent[]>;
  /** Reads events appended by other processes since the last look. */
  refresh(): JournalEvent[];
  /** Calls `listener` with every batch of new events, from any process. Returns an unsubscribe. */
  subscribe(listener: (events: JournalEvent[]) => void): () => void;
  /** Calls `listener` once if the store stops because what it read does not verify. */
  onBroken(listener: (err: Error) => void): () => void;
  /** Appends a signed checkpoint if any event is unsigned. */
  checkpoint(): Promise<void>;
  /** Makes every append so far durable (group-committed ones included). */
  flush(): Promise<void>;
  /**
   * For a store shared by many machines: which of `owners` (processes, on any machine) are no longer
   * connected to it, one flag each; null when that cannot be told right now (the store itself just
   * restarted, and its clients are still reconnecting). A store without it judges only this machine's.
   */
  ownersAbsent?(owners: ProcessRef[]): Promise<boolean[] | null>;
  close(): void;
}

/**
 * Who listens to a store: the batches of events it folds, and the one moment it stops because what it
 * read does not verify. Every store keeps its listeners here, so each is told the same way.
 */
export class StoreListeners {
  private readonly batches = new Set<(events: JournalEvent[]) => void>();
  private readonly breaks = new Set<(err: Error) => void>();
  /** Why the store stopped, once it has. */
  broken: HolonError | undefined;

  constructor(
    private readonly logger: Logger,
    /** What the store is, in a failing listener's log line. */
    private readonly what: string,
  ) {}

  subscribe(listener: (events: JournalEvent[]) => void): () => void {
    this.batches.add(listener);
    return () => this.batches.delete(listener);
  }

  onBroken(listener: (err: Error) => void): () => void {
    if (this.broken) {
      listener(this.broken);
      return () => {};
    }
    this.breaks.add(listener);
    return () => this.breaks.delete(listener);
  }

  /** Tells every subscriber about events just folded; one failing does not keep them from the others. */
  notify(events: JournalEvent[]): void {
    for (const l of this.batches) {
      try {
        l(events);
      } catch (err) {
        this.logger.error(`${this.what} listener failed: ${String(err)}`);
      }
    }
  }

  /** Stops the store (the first time): logs why and tells whoever listens. Returns the error to throw. */
  breakWith(message: string, details: Record<string, unknown>): HolonError {
    const err = new HolonError('corrupt_journal', message, details);
    if (!this.broken) {
      this.broken = err;
      this.logger.error(message);
      for (const l of this.breaks) {
        try {
          l(err);
        } catch {
          // A listener's failure must not hide the break from the others.
        }
      }
    }
    return err;
  }

  clear(): void {
    this.batches.clear();
    this.breaks.clear();
  }
}
