/**
 * The index a mandate's memory is read through: its keys in order, and for each key the valid time its
 * versions cover, so that a snapshot (a journal position, a system time, a valid time) is a bound the
 * reads seek with, never a sorted copy of every key. Kept as the journal folds, carried in the snapshot.
 *
 * Keys are held in sorted chunks of a few hundred, so that a new key costs a chunk's length, not the
 * memory's. Each key keeps the union of its versions' valid intervals (merged, so it has one form
 * whatever order they came in), when its latest version was recorded, and the journal seq of its last
 * one; each chunk keeps the starts and ends of its keys' intervals sorted, and the latest seq and record
 * time among its keys. How many keys a snapshot shows at valid time V is then, for a chunk none of whose
 * keys changed after the snapshot, (starts ≤ V) − (ends ≤ V): two binary searches. Only the keys written
 * after the snapshot's bounds are resolved one by one. Each key and chunk also keeps the weight of its
 * lightest version (recordWeight), so that an assembly out of room passes over what cannot fit unread.
 * Contents stay in the journal.
 *
 * A read of every key must not visit every chunk either: at 100k keys that is ~200 chunks, each a few
 * objects scattered over a large heap, and the cache misses of visiting them cost a recall ~0.07 ms and an
 * assembly ~0.25 ms more than at 1k (measured; the binary searches themselves are nothing). So the index
 * also keeps every key's starts and ends in one SortedCounts (a count at V is two seeks, whatever the
 * number of keys), the latest seq and record time of all its keys (a snapshot none of whose keys changed
 * after it is counted from those alone), and each chunk's latest seq, record time and least weight in
 * flat arrays, so that finding the chunks a snapshot must resolve key by key, or the next chunk with a
 * key light enough for an assembly, reads a few cache lines of numbers, never the chunks passed over.
 * For the same reason each key keeps its latest version's id, valid span, bytes and weight beside it:
 * where a snapshot shows that version (most keys, in a read of now), a read meets the record without
 * reading its versions. An assembly lists the hundred records it leaves out, and reading their scattered
 * versions cost it ~0.1 ms more at 100k keys than at 1k (measured).
 */
import { firstNotBefore } from '../kernel/util.ts';

/**
 * What the index reads of a version: its key's place, its times and its weight. A memory version (the
 * slice's MemoryVersion) is one; the index names only what it reads, so that it does not import its slice.
 */
export interface IndexedVersion {
  id: string;
  key: string;
  valid_from: string;
  valid_to: string | null;
  system_seq: number;
  recorded_at: string;
  bytes: number;
}

/** Before any date (a date is within ±8.64e15 ms): a number JSON keeps, unlike -Infinity. */
const EARLIEST = -9e15;
/** After any date: a bound that excludes nothing, an interval that never ends. */
export const LATEST = 9e15;

/** Keys per chunk after a split (and when a snapshot is read back); a chunk splits past twice this. */
const CHUNK = 512;

/** A run of keys in order, with what each covers. */
interface Chunk {
  keys: string[];
  /** Per key: its versions' valid intervals merged, as [from, to, from, to, …] ascending (ms, half-open). */
  cover: number[][];
  /** Per key: the latest recorded_at of its versions (ms; EARLIEST for one no date reads, which no bound excludes). */
  rec: number[];
  /** Per key: the journal seq of its last version. */
  last: number[];
  /** Per key: the least weight of its versions (recordWeight). */
  least: number[];
  /** Per key, of its latest version (the last filed): id, valid span [from, to) (ms, as validSpan reads it), bytes, weight. */
  topId: string[];
  topFrom: number[];
  topTo: number[];
  topBytes: number[];
  topWeight: number[];
  /** Every interval's start, and every end before LATEST, of every key in the chunk, ascending. */
  starts: number[];
  ends: number[];
}

/** What the index keeps of a chunk in its flat arrays: its keys' latest seq and record time, and least weight. */
interface ChunkSummary {
  maxSeq: number;
  maxRec: number;
  least: number;
}

/** The index as a snapshot holds it: the keys in order and, aligned, what a chunk keeps of each (PER_KEY). */
export type KeyIndexJson = Pick<Chunk, PerKey>;

/** What a chunk keeps per key, aligned with its keys: what a snapshot holds, and a chunk's split divides. */
const PER_KEY = ['keys', 'cover', 'rec', 'last', 'least', 'topId', 'topFrom', 'topTo', 'topBytes', 'topWeight'] as const;
type PerKey = (typeof PER_KEY)[number];

/** An index with no keys, as its JSON. */
const emptyJson = (): KeyIndexJson => ({
  keys: [],
  cover: [],
  rec: [],
  last: [],
  least: [],
  topId: [],
  topFrom: [],
  topTo: [],
  topBytes: [],
  topWeight: [],
});

/**
 * A key as the index finds it in order, with its latest version as the index keeps it: enough for a read
 * to tell whether that version is the one a snapshot shows, and to list or weigh it, without reading it.
 */
export interface KeyEntry {
  key: string;
  /** The latest version's id, and its journal seq (the key's last). */
  id: string;
  seq: number;
  /** The latest record time of the key's versions (ms; EARLIEST when no date reads): never before the latest version's own. */
  rec: number;
  /** The latest version's valid span [from, to) in ms, as validSpan reads it. */
  from: number;
  to: number;
  /** The latest version's content bytes, and its weight (recordWeight). */
  bytes: number;
  weight: number;
}

/**
 * What a version weighs in an assembled context, at the least: the UTF-8 bytes of its content and of the
 * fields its block names (key, id, valid time, record time), before any escaping, which only adds. A
 * block is that and its fixed markup, so a key none of whose versions weighs less than the room left
 * cannot fit, and an assembly passes it over unread.
 */
export function recordWeight(v: Pick<IndexedVersion, 'id' | 'key' | 'valid_from' | 'valid_to' | 'recorded_at' | 'bytes'>): number {
  const b = (x: unknown): number => Buffer.byteLength(String(x ?? ''), 'utf8');
  return v.bytes + b(v.key) + b(v.id) + b(v.valid_from) + b(v.valid_to) + b(v.recorded_at);
}

/** Where a version is valid, as [from, to) in ms: an unreadable from is the earliest, a missing or unreadable to the latest. */
function validSpan(v: Pick<IndexedVersion, 'valid_from' | 'valid_to'>): [number, number] {
  const from = Date.parse(v.valid_from);
  const to = v.valid_to === null ? LATEST : Date.parse(v.valid_to);
  return [Number.isNaN(from) ? EARLIEST : from, Number.isNaN(to) ? LATEST : to];
}

/** When a version was recorded, as a system-time bound compares it: one no date reads is never excluded. */
function recordedMs(v: Pick<IndexedVersion, 'recorded_at'>): number {
  const ms = Date.parse(v.recorded_at);
  return Number.isNaN(ms) ? EARLIEST : ms;
}

/** How many of the ascending `xs` are at most `x`. */
const atMost = (xs: number[], x: number): number => firstNotBefore(xs.length, (i) => (xs[i] as number) <= x);

function insertSorted(xs: number[], x: number): void {
  xs.splice(atMost(xs, x), 0, x);
}

function removeSorted(xs: number[], x: number): void {
  const i = atMost(xs, x) - 1;
  if (i >= 0 && xs[i] === x) xs.splice(i, 1);
}

/** True when the merged intervals `cover` hold the instant `t`. */
function covers(cover: number[], t: number): boolean {
  // The last interval starting at or before t holds it if it ends after t.
  const k = firstNotBefore(cover.length / 2, (i) => (cover[2 * i] as number) <= t) - 1;
  return k >= 0 && t < (cover[2 * k + 1] as number);
}

/** A chunk's latest seq and record time, and least weight. */
function summaryOf(c: Chunk): ChunkSummary {
  let maxSeq = 0;
  let maxRec = EARLIEST;
  let least = Infinity;
  for (let i = 0; i < c.keys.length; i++) {
    maxSeq = Math.max(maxSeq, c.last[i] as number);
    maxRec = Math.max(maxRec, c.rec[i] as number);
    least = Math.min(least, c.least[i] as number);
  }
  return { maxSeq, maxRec, least };
}

function chunkOf(json: KeyIndexJson, from: number, to: number): Chunk {
  const c: Chunk = {
    keys: json.keys.slice(from, to),
    cover: json.cover.slice(from, to).map((x) => [...x]),
    rec: json.rec.slice(from, to),
    last: json.last.slice(from, to),
    least: json.least.slice(from, to),
    topId: json.topId.slice(from, to),
    topFrom: json.topFrom.slice(from, to),
    topTo: json.topTo.slice(from, to),
    topBytes: json.topBytes.slice(from, to),
    topWeight: json.topWeight.slice(from, to),
    starts: [],
    ends: [],
  };
  for (const cov of c.cover) {
    for (let k = 0; k < cov.length; k += 2) {
      c.starts.push(cov[k] as number);
      if ((cov[k + 1] as number) < LATEST) c.ends.push(cov[k + 1] as number);
    }
  }
  c.starts.sort((a, b) => a - b);
  c.ends.sort((a, b) => a - b);
  return c;
}

/** How many keys of a chunk whose keys all fall within a snapshot's bounds show at valid time `validMs`. */
const coveredAt = (c: Chunk, validMs: number): number => atMost(c.starts, validMs) - atMost(c.ends, validMs);

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
    for (let from = 0; from < sorted.length; from += CHUNK) out.runs.push(Array.from(sorted.subarray(from, from + CHUNK)));
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
    if (run.length > 2 * CHUNK) this.runs.splice(r, 1, run.slice(0, CHUNK), run.slice(CHUNK));
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

/** A place among the keys: a chunk, and an index in it. */
interface Place {
  c: number;
  i: number;
}

/** Whether a key shows in a snapshot, when its versions must be looked at one by one. */
type Resolve = (key: string) => boolean;

/** One mandate's memory keys in order, with what they cover: see the module's comment. */
export class KeyIndex {
  private chunks: Chunk[] = [];
  /** Per chunk, aligned with `chunks`: its keys' latest seq and record time, and their least weight. */
  private chunkSeq: number[] = [];
  private chunkRec: number[] = [];
  private chunkLeast: number[] = [];
  /** The latest seq and record time of every key. */
  private maxSeq = 0;
  private maxRec = EARLIEST;
  /** Every key's starts, and ends before LATEST: the chunks' `starts` and `ends` together. */
  private starts = new SortedCounts();
  private ends = new SortedCounts();

  /** The index a snapshot held (its JSON.parse). */
  static fromJson(json: KeyIndexJson | undefined): KeyIndex {
    const x = new KeyIndex();
    const n = json?.keys?.length ?? 0;
    for (let from = 0; json && from < n; from += CHUNK) x.chunks.push(chunkOf(json, from, Math.min(n, from + CHUNK)));
    x.chunks.forEach((_, c) => x.summarize(c));
    x.starts = SortedCounts.of(x.chunks.flatMap((c) => c.starts));
    x.ends = SortedCounts.of(x.chunks.flatMap((c) => c.ends));
    return x;
  }

  /** Brings chunk `c`'s entries in the flat arrays, and the whole index's latest seq and record time, up to date. */
  private summarize(c: number): void {
    const { maxSeq, maxRec, least } = summaryOf(this.chunks[c] as Chunk);
    this.chunkSeq[c] = maxSeq;
    this.chunkRec[c] = maxRec;
    this.chunkLeast[c] = least;
    this.maxSeq = Math.max(this.maxSeq, maxSeq);
    this.maxRec = Math.max(this.maxRec, maxRec);
  }

  /** What a snapshot keeps: the same whatever the chunks, so that a fold from the start and one from a snapshot write the same. */
  toJSON(): KeyIndexJson {
    const out = emptyJson();
    for (const c of this.chunks) for (const f of PER_KEY) (out[f] as unknown[]).push(...c[f]);
    return out;
  }

  /** The first key at or after `key` (past the end: the last chunk's length). */
  private seek(key: string): Place {
    const cs = this.chunks;
    const c = firstNotBefore(cs.length, (j) => (cs[j]?.keys.at(-1) as string) < key);
    if (c === cs.length) return { c: Math.max(0, c - 1), i: cs[c - 1]?.keys.length ?? 0 };
    const keys = (cs[c] as Chunk).keys;
    return { c, i: firstNotBefore(keys.length, (j) => (keys[j] as string) < key) };
  }

  /** The first key that is not `prefix` or does not start with it, from `from`. */
  private endOf(prefix: string | null, from: Place): Place {
    const cs = this.chunks;
    const last = cs.length - 1;
    if (prefix === null || last < 0) return { c: Math.max(0, last), i: cs[last]?.keys.length ?? 0 };
    const inside = (k: string): boolean => k < prefix || k.startsWith(prefix);
    const c = Math.max(
      from.c,
      firstNotBefore(cs.length, (j) => inside(cs[j]?.keys.at(-1) as string)),
    );
    if (c > last) return { c: last, i: (cs[last] as Chunk).keys.length };
    const keys = (cs[c] as Chunk).keys;
    return { c, i: firstNotBefore(keys.length, (j) => inside(keys[j] as string)) };
  }

  /** Files a version of `key`: a key not seen before takes its place in order. */
  add(key: string, v: IndexedVersion): void {
    if (this.chunks.length === 0) {
      this.chunks.push(chunkOf(emptyJson(), 0, 0));
      this.summarize(0);
    }
    const { c, i } = this.seek(key);
    const chunk = this.chunks[c] as Chunk;
    const [from, to] = validSpan(v);
    const weight = recordWeight(v);
    if (chunk.keys[i] !== key) {
      chunk.keys.splice(i, 0, key);
      chunk.cover.splice(i, 0, []);
      chunk.rec.splice(i, 0, EARLIEST);
      chunk.last.splice(i, 0, 0);
      chunk.least.splice(i, 0, Infinity);
      // Numbers where numbers go (set just below): an array that ever holds anything else stops keeping them flat.
      chunk.topId.splice(i, 0, '');
      for (const f of ['topFrom', 'topTo', 'topBytes', 'topWeight'] as const) chunk[f].splice(i, 0, 0);
    }
    chunk.topId[i] = v.id;
    chunk.topFrom[i] = from;
    chunk.topTo[i] = to;
    chunk.topBytes[i] = v.bytes;
    chunk.topWeight[i] = weight;
    chunk.least[i] = Math.min(chunk.least[i] as number, weight);
    const rec = recordedMs(v);
    chunk.rec[i] = Math.max(chunk.rec[i] as number, rec);
    chunk.last[i] = Math.max(chunk.last[i] as number, v.system_seq);
    this.chunkLeast[c] = Math.min(this.chunkLeast[c] as number, weight);
    this.chunkRec[c] = Math.max(this.chunkRec[c] as number, rec);
    this.chunkSeq[c] = Math.max(this.chunkSeq[c] as number, v.system_seq);
    this.maxRec = Math.max(this.maxRec, rec);
    this.maxSeq = Math.max(this.maxSeq, v.system_seq);
    if (from < to) this.merge(chunk, chunk.cover[i] as number[], from, to);
    if (chunk.keys.length > 2 * CHUNK) this.split(c);
  }

  /** Adds [from, to) to a key's cover, merging what it overlaps or touches, and the starts and ends with it. */
  private merge(chunk: Chunk, cover: number[], from: number, to: number): void {
    const n = cover.length / 2;
    // Intervals [lo, hi) overlap or touch [from, to]; those before end before it, those after start after it.
    const lo = firstNotBefore(n, (k) => (cover[2 * k + 1] as number) < from);
    const hi = firstNotBefore(n, (k) => (cover[2 * k] as number) <= to);
    let start = from;
    let end = to;
    for (let k = lo; k < hi; k++) {
      const [s, e] = [cover[2 * k] as number, cover[2 * k + 1] as number];
      start = Math.min(start, s);
      end = Math.max(end, e);
      removeSorted(chunk.starts, s);
      this.starts.remove(s);
      if (e < LATEST) {
        removeSorted(chunk.ends, e);
        this.ends.remove(e);
      }
    }
    cover.splice(2 * lo, 2 * (hi - lo), start, end);
    insertSorted(chunk.starts, start);
    this.starts.insert(start);
    if (end < LATEST) {
      insertSorted(chunk.ends, end);
      this.ends.insert(end);
    }
  }

  private split(c: number): void {
    const chunk = this.chunks[c] as Chunk;
    const json: KeyIndexJson = chunk;
    const half = chunk.keys.length >>> 1;
    this.chunks.splice(c, 1, chunkOf(json, 0, half), chunkOf(json, half, chunk.keys.length));
    for (const flat of [this.chunkSeq, this.chunkRec, this.chunkLeast]) flat.splice(c, 0, 0);
    this.summarize(c);
    this.summarize(c + 1);
  }

  /**
   * Every key in order, from the first after `after` (or the first), those starting with `prefix` only;
   * with `room`, only those with a version that weighs no more than `room()` says now (a chunk none of
   * whose keys does is passed over whole).
   */
  *keysFrom(after: string | null, prefix: string | null, room?: () => number): Generator<string> {
    for (const e of this.entriesFrom(after, prefix, room)) yield e.key;
  }

  /** As keysFrom, each key with its latest version as the index keeps it (KeyEntry). */
  *entriesFrom(after: string | null, prefix: string | null, room?: () => number): Generator<KeyEntry> {
    let { c, i } = this.seek(after ?? prefix ?? '');
    const cs = this.chunks;
    if (after !== null && cs[c]?.keys[i] === after) i += 1;
    // The last chunk that may hold a key of the prefix.
    const stop = prefix === null ? cs.length - 1 : this.endOf(prefix, { c, i }).c;
    for (; c <= stop && c < cs.length; c++, i = 0) {
      if (room) {
        // Chunks none of whose keys fits are passed over by their least weight alone, never read.
        const r = room();
        if ((this.chunkLeast[c] as number) > r) {
          while (c + 1 <= stop && (this.chunkLeast[c + 1] as number) > r) c += 1;
          continue;
        }
      }
      const chunk = cs[c] as Chunk;
      const keys = chunk.keys;
      for (; i < keys.length; i++) {
        const k = keys[i] as string;
        if (prefix !== null && !k.startsWith(prefix)) {
          if (k < prefix) continue;
          return;
        }
        if (room && (chunk.least[i] as number) > room()) continue;
        yield {
          key: k,
          id: chunk.topId[i] as string,
          seq: chunk.last[i] as number,
          rec: chunk.rec[i] as number,
          from: chunk.topFrom[i] as number,
          to: chunk.topTo[i] as number,
          bytes: chunk.topBytes[i] as number,
          weight: chunk.topWeight[i] as number,
        };
      }
    }
  }

  /**
   * How many keys (those starting with `prefix`, or all) show in a snapshot bounded by journal seq `seq`
   * and record time `recMs`, at valid time `validMs`: keys with nothing after the bounds are counted from
   * their cover (a whole chunk of them by two binary searches); the others are asked of `resolve`.
   */
  count(prefix: string | null, seq: number, recMs: number, validMs: number, resolve: Resolve): number {
    if (this.chunks.length === 0) return 0;
    const clean = (c: number): boolean => (this.chunkSeq[c] as number) <= seq && (this.chunkRec[c] as number) <= recMs;
    if (prefix === null) {
      // Every key counted from its cover, then the chunks with a key written after the bounds (found in
      // the flat arrays, and none when nothing was) counted again key by key instead.
      let total = this.starts.atMost(validMs) - this.ends.atMost(validMs);
      if (this.maxSeq <= seq && this.maxRec <= recMs) return total;
      for (let c = 0; c < this.chunks.length; c++) {
        if (clean(c)) continue;
        const chunk = this.chunks[c] as Chunk;
        total += this.resolveIn(chunk, 0, chunk.keys.length, seq, recMs, validMs, resolve) - coveredAt(chunk, validMs);
      }
      return total;
    }
    const from = this.seek(prefix);
    const to = this.endOf(prefix, from);
    let total = 0;
    for (let c = from.c; c <= to.c && c < this.chunks.length; c++) {
      const chunk = this.chunks[c] as Chunk;
      const i0 = c === from.c ? from.i : 0;
      const i1 = c === to.c ? to.i : chunk.keys.length;
      if (i0 === 0 && i1 === chunk.keys.length && clean(c)) total += coveredAt(chunk, validMs);
      else total += this.resolveIn(chunk, i0, i1, seq, recMs, validMs, resolve);
    }
    return total;
  }

  /** How many of a chunk's keys [i0, i1) show: from their cover if nothing of them is after the bounds, else by `resolve`. */
  private resolveIn(chunk: Chunk, i0: number, i1: number, seq: number, recMs: number, validMs: number, resolve: Resolve): number {
    let n = 0;
    for (let i = i0; i < i1; i++) {
      const clean = (chunk.last[i] as number) <= seq && (chunk.rec[i] as number) <= recMs;
      if (clean ? covers(chunk.cover[i] as number[], validMs) : resolve(chunk.keys[i] as string)) n += 1;
    }
    return n;
  }
}
