/**
 * Counts of numbers, as the memory's key index asks them: how many are at most a valid time, among every
 * key's (SortedCounts), or among those filed at or before a journal position (SeqCounts).
 */
import { firstNotBefore } from '../kernel/util.ts';

/** Numbers per run (SortedCounts) and per block (SeqCounts); a run splits past twice this. */
const RUN = 512;

/** How many of the ascending `xs` are at most `x`. */
export const atMost = (xs: ArrayLike<number>, x: number): number => firstNotBefore(xs.length, (i) => (xs[i] as number) <= x);

/** Inserts `x` into the ascending `xs`, in order. */
export function insertSorted(xs: number[], x: number): void {
  xs.splice(atMost(xs, x), 0, x);
}

/** Removes one `x` from the ascending `xs`, if it holds one. */
export function removeSorted(xs: number[], x: number): void {
  const i = atMost(xs, x) - 1;
  if (i >= 0 && xs[i] === x) xs.splice(i, 1);
}

/**
 * Numbers in ascending order, held in runs of a few hundred, with how many numbers precede each run: how
 * many are at most x is a seek among the runs' last numbers and one within a run, whatever their number;
 * an insert or a removal costs a run's length and the runs' count (both small arrays of numbers).
 */
export class SortedCounts {
  private runs: number[][] = [];
  /** Per run: its last (largest) number, and how many numbers the runs before it hold. */
  private lasts: number[] = [];
  private before: number[] = [];
  private count = 0;

  /** The numbers `xs`, in any order. */
  static of(xs: number[]): SortedCounts {
    const out = new SortedCounts();
    const sorted = Float64Array.from(xs).sort();
    for (let from = 0; from < sorted.length; from += RUN) out.runs.push(Array.from(sorted.subarray(from, from + RUN)));
    out.count = sorted.length;
    out.reindex(0);
    return out;
  }

  /** How many numbers it holds. */
  get size(): number {
    return this.count;
  }

  /** How many of its numbers are at most `x`. */
  atMost(x: number): number {
    const lasts = this.lasts;
    // The runs before the first whose last number is past x hold nothing past x.
    const r = firstNotBefore(lasts.length, (j) => (lasts[j] as number) <= x);
    return r === lasts.length ? this.count : (this.before[r] as number) + atMost(this.runs[r] as number[], x);
  }

  /** Adds `x` (numbers may repeat). */
  insert(x: number): void {
    if (this.runs.length === 0) this.runs.push([]);
    // The first run whose last number is x or past it, or the last run: x goes in order there.
    const r = Math.min(this.runs.length - 1, this.firstReaching(x));
    const run = this.runs[r] as number[];
    insertSorted(run, x);
    this.count += 1;
    if (run.length > 2 * RUN) this.runs.splice(r, 1, run.slice(0, RUN), run.slice(RUN));
    this.reindex(r);
  }

  /** Removes one `x`, if it holds one. */
  remove(x: number): void {
    // The first run whose last number is x or past it holds the first x, if there is one.
    const r = this.firstReaching(x);
    const run = this.runs[r];
    if (!run) return;
    const i = atMost(run, x) - 1;
    if (i < 0 || run[i] !== x) return;
    run.splice(i, 1);
    this.count -= 1;
    if (run.length === 0) this.runs.splice(r, 1);
    this.reindex(r);
  }

  private firstReaching(x: number): number {
    const lasts = this.lasts;
    return firstNotBefore(lasts.length, (j) => (lasts[j] as number) < x);
  }

  /** Brings the runs' last numbers and counts before up to date from run `from` on. */
  private reindex(from: number): void {
    const n = this.runs.length;
    this.lasts.length = n;
    this.before.length = n;
    let before = from === 0 ? 0 : (this.before[from - 1] as number) + (this.runs[from - 1] as number[]).length;
    for (let r = from; r < n; r++) {
      const run = this.runs[r] as number[];
      this.lasts[r] = run[run.length - 1] as number;
      this.before[r] = before;
      before += run.length;
    }
  }
}

/**
 * Numbers each filed at a journal seq, in the order of their seqs (a fold files them so): how many of
 * those filed at or before seq S are at most x. The numbers are held in blocks of RUN in filing order,
 * and a Fenwick tree over the blocks keeps, per node, its blocks' numbers sorted: the blocks before S are
 * at most log2(blocks) nodes, each counted by one binary search, and the block S falls in is scanned
 * (RUN numbers at most). So a count as of any seq costs the same at 1k numbers as at 1M. The tree costs
 * about (log2(blocks) / 2 + 1) copies of the numbers, so it is built on the first count that needs it.
 */
export class SeqCounts {
  private seqs: number[] = [];
  private xs: number[] = [];
  /** Node j (1-based) of the tree: the numbers of blocks (j − lowbit(j), j], sorted. Built up to `built` blocks. */
  private nodes: Float64Array[] = [];

  /** Files `x` at `seq`, no earlier than the seq of anything filed before. */
  push(seq: number, x: number): void {
    this.seqs.push(seq);
    this.xs.push(x);
  }

  /** How many numbers were filed at or before `seq` and are at most `x`. */
  atMost(seq: number, x: number): number {
    const seqs = this.seqs;
    const n = firstNotBefore(seqs.length, (i) => (seqs[i] as number) <= seq);
    const blocks = Math.floor(n / RUN);
    this.build(blocks);
    let total = 0;
    for (let j = blocks; j > 0; j -= j & -j) total += atMost(this.nodes[j - 1] as Float64Array, x);
    for (let i = blocks * RUN; i < n; i++) if ((this.xs[i] as number) <= x) total += 1;
    return total;
  }

  /** Builds the tree's nodes up to block `blocks`. */
  private build(blocks: number): void {
    for (let j = this.nodes.length + 1; j <= blocks; j++) {
      this.nodes.push(Float64Array.from(this.xs.slice((j - (j & -j)) * RUN, j * RUN)).sort());
    }
  }
}
