/**
 * What a team store's process committed with `synchronous_commit` off and PostgreSQL may not have flushed
 * yet: what it writes again should the database lose it in a crash.
 */
import type { JournalEvent, NewEvent } from '../store.ts';

/**
 * One of this process's transactions committed with `synchronous_commit` off: its events as it asked for
 * them, where its last row is, and when it was committed.
 */
export interface Unflushed {
  events: NewEvent[];
  last: { seq: number; hash: string };
  at: number;
}

/**
 * How long a transaction committed without waiting for its flush is remembered: PostgreSQL's WAL writer
 * flushes it within 3 × wal_writer_delay (600 ms by default, 30 s at most), and any synchronous commit
 * after it flushes it sooner.
 */
const UNFLUSHED_KEEP_MS = 60_000;

/** This process's transactions committed without waiting for their flush, since its last synchronous commit. */
export class UnflushedLog {
  private kept: Unflushed[] = [];

  /**
   * Keeps what this process committed without waiting for its flush until a synchronous commit of its
   * own (which flushes everything before it) or the WAL writer surely has.
   */
  committed(events: NewEvent[], last: JournalEvent, durable: boolean): void {
    const now = Date.now();
    if (durable) this.kept = [];
    else {
      this.kept = this.kept.filter((u) => now - u.at < UNFLUSHED_KEEP_MS);
      this.kept.push({ events, last: { seq: last.seq, hash: last.hash }, at: now });
    }
  }

  /** Everything kept, forgotten here: the caller writes again what the database lost. */
  take(): Unflushed[] {
    const out = this.kept;
    this.kept = [];
    return out;
  }
}
