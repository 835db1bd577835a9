/**
 * How every reader of a log (the journal's lines, a team store's rows, `holon verify`, a snapshot job)
 * takes it in: event by event, each checked against the one before it, grouped into the transactions
 * their seals close. A transaction is handed on only whole, once the event that seals it is read; what
 * follows the last seal is an open transaction (still being written, or cut short by a crash) and is
 * never folded. Checking a seal's signature is left to the caller (it costs a verification per
 * transaction, and a reader of its own installation's journal need only check the last of a batch: the
 * hash chain makes it cover everything before).
 *
 * Journals written before every transaction was sealed were signed by a `checkpoint` event now and then;
 * until the first sealed transaction, a checkpoint closes the events since the one before it, signed by
 * the checkpoint's key.
 */
import { verifySignature } from './keys.ts';
import type { JournalEvent, RefusedTx } from './store.ts';
import { checkpointMessage, eventHash, txMessage } from './store.ts';

/** One transaction read whole: its events (with whatever the reader keeps beside each), who sealed it, and a check of that seal. */
export interface SealedTx<T> {
  items: T[];
  signer: string;
  /** True when the seal's signature is the signer's over exactly these events. */
  verify(): boolean;
}

/** Events read and not folded, and why: a transaction whose seal is wrong, or events no seal covers. */
export interface RefusedRun<T> {
  items: T[];
  refused: RefusedTx;
}

/**
 * What one event read did: broke the chain (nothing after it can be trusted; `at`, when the fault is an
 * earlier event's, names it), or completed nothing or some transactions.
 */
export type ChainStep<T> = { broken: string; at?: T } | { done: (SealedTx<T> | RefusedRun<T>)[] };

/** True for a refused run among what a step completed. */
export function isRefused<T>(x: SealedTx<T> | RefusedRun<T>): x is RefusedRun<T> {
  return 'refused' in x;
}

/** Where a chain stands: the last event read, and whether the log is still in the checkpointed format of before. */
export interface ChainPosition {
  seq: number;
  hash: string;
  /** True until the first sealed transaction: a checkpoint still closes a run of events. */
  legacy: boolean;
}

export class TxChain<T extends { e: JournalEvent }> {
  seq: number;
  prev: string;
  legacy: boolean;
  /** The events read since the last seal: a transaction not complete yet. */
  open: T[] = [];
  /** Events of the open run whose content is not what their hash says (kept only when `tolerant`). */
  private altered = new Set<number>();

  /**
   * `tolerant`: an event whose content does not match its hash does not break the chain (its hash field
   * still links the next one), but the transaction it is in is refused. For a log others write to,
   * where one bad row must not stop everyone; a journal only its own installation writes breaks instead.
   */
  constructor(
    from: ChainPosition = { seq: 0, hash: '', legacy: true },
    private readonly tolerant = false,
  ) {
    this.seq = from.seq;
    this.prev = from.hash;
    this.legacy = from.legacy;
  }

  /** The position after the last event read. */
  get position(): ChainPosition {
    return { seq: this.seq, hash: this.prev, legacy: this.legacy };
  }

  /** True when what is open follows a checkpoint of the format of before (and no seal was ever read). */
  get afterCheckpoint(): boolean {
    return this.legacy && this.seq - this.open.length > 0;
  }

  /**
   * Takes the next event. `own`: this process hashed it itself a moment ago (it appended it), so its hash
   * is not worked out again; how it links to the one before still is.
   */
  push(item: T, own = false): ChainStep<T> {
    const e = item.e;
    if (e.seq !== this.seq + 1) return { broken: `sequence ${String(e.seq)} where ${this.seq + 1} was expected` };
    if (e.prev !== this.prev) {
      // The event before was not what its hash said (kept only when tolerant): that is where the fault is.
      const before = this.altered.has(this.seq) ? this.open.find((x) => x.e.seq === this.seq) : undefined;
      if (before)
        return {
          broken: `its content does not match its hash (the event was altered), and event ${e.seq} does not link to it`,
          at: before,
        };
      return { broken: 'does not link to the previous event (prev hash differs)' };
    }
    if (!own && eventHash(e) !== e.hash) {
      if (!this.tolerant) return { broken: 'content does not match its hash (the event was altered)' };
      this.altered.add(e.seq);
    }
    this.seq = e.seq;
    this.prev = e.hash;
    this.open.push(item);
    if (e.tx) {
      this.legacy = false;
      return { done: this.close(e.tx.from, e.tx.key, () => verifySignature(e.tx!.key, txMessage(e.tx!.from, e.seq, e.hash), e.tx!.sig)) };
    }
    if (this.legacy && e.type === 'checkpoint') {
      const d = e.data as { up_to?: unknown; head?: unknown; key?: unknown; sig?: unknown };
      if (d.up_to !== e.seq - 1 || d.head !== e.prev || typeof d.key !== 'string' || typeof d.sig !== 'string')
        return { broken: 'checkpoint does not name the event before it' };
      const key = d.key;
      const sig = d.sig;
      return { done: this.close(this.open[0]?.e.seq ?? e.seq, key, () => verifySignature(key, checkpointMessage(e.seq - 1, e.prev), sig)) };
    }
    return { done: [] };
  }

  /** Ends the open run at the event just read: what `from` on is the transaction, what comes before it no seal covers. */
  private close(from: number, signer: string, verify: () => boolean): (SealedTx<T> | RefusedRun<T>)[] {
    const run = this.open;
    const altered = this.altered;
    this.open = [];
    this.altered = new Set();
    const first = run[0]?.e.seq ?? from;
    const last = run.at(-1)?.e.seq ?? from;
    const refusal = (items: T[], code: string, message: string, by: string | null): RefusedRun<T> => ({
      items,
      refused: { from: items[0]?.e.seq ?? from, to: items.at(-1)?.e.seq ?? from, signer: by, code, message },
    });
    if (from < first || from > last)
      return [refusal(run, 'bad_seal', `its seal says it begins at event ${from}, which is not one of its events`, signer)];
    const out: (SealedTx<T> | RefusedRun<T>)[] = [];
    const orphans = run.filter((x) => x.e.seq < from);
    if (orphans.length > 0)
      out.push(refusal(orphans, 'unsealed', "no seal covers these events: they were not written as any installation's transaction", null));
    const items = run.filter((x) => x.e.seq >= from);
    const bad = items.find((x) => altered.has(x.e.seq));
    if (bad) out.push(refusal(items, 'altered', `the content of event ${bad.e.seq} does not match its hash`, signer));
    else out.push({ items, signer, verify });
    return out;
  }
}

/** How many events a process of the checkpointed format could leave unsigned: it signed a checkpoint every 100. */
const LEGACY_UNSIGNED_MAX = 99;

/**
 * True when the events after the last seal are what a crash can leave: one transaction cut short, whose
 * events a writer stamps with one time (so events of several times there are a log rewritten — edited
 * and re-hashed, its seals dropped — not a torn append); or, after a checkpoint of the format of before
 * (no seal yet, `afterCheckpoint`), fewer events than its writers left unsigned between two checkpoints.
 */
export function crashCouldLeave(afterCheckpoint: boolean, open: readonly JournalEvent[]): boolean {
  if (afterCheckpoint && open.length <= LEGACY_UNSIGNED_MAX) return true;
  return open.every((e) => e.time === open[0]?.time);
}
