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
 * keys changed after the snapshot, (starts ≤ V) − (ends ≤ V): two binary searches. Each key and chunk
 * also keeps the weight of its lightest version (recordWeight), so that an assembly out of room passes
 * over what cannot fit unread. Contents stay in the journal.
 *
 * A snapshot as of the past (a system time or journal position before the last write) is read the same
 * way, not key by key: each key keeps what each version added to its cover, filed by seq (`seen`), and
 * the index the seqs at which the record time rose (TimeOrder). Record times follow the journal's order
 * but where a clock went back, so a system time is a seq (upTo) and the few versions recorded out of
 * order (late) are read apart; a count as of it is two seeks among the parts filed up to that seq
 * (SeqCounts), and a page passes over a key that does not show without reading its versions.
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
import { atMost, insertSorted, removeSorted, SeqCounts, SortedCounts } from './counts.ts';

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
  /**
   * Per key: what each version added to its cover, as [seq, from, to, …] in the order they were filed —
   * the parts of its valid span no version before it covered. A key's cover as of seq S is the parts
   * filed at or before S, which never overlap: a key shows at valid time V as of S when one holds V.
   */
  seen: number[][];
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

/**
 * How the versions' record times follow the journal's order, in filing order: the seq at which the
 * latest record time so far rose, and to what (stepSeq, stepMax); and each version recorded before that
 * latest time (a clock set back, a date no clock reads), with its record time and key (lateSeq, lateRec,
 * lateKey). Every version filed before the first step past a time T was recorded by T; after it, only
 * the late ones may have been.
 */
interface TimeOrder {
  stepSeq: number[];
  stepMax: number[];
  lateSeq: number[];
  lateRec: number[];
  lateKey: string[];
}

/** The index as a snapshot holds it: the keys in order and, aligned, what a chunk keeps of each (PER_KEY); and its TimeOrder. */
export type KeyIndexJson = Pick<Chunk, PerKey> & TimeOrder;

/** What a chunk keeps per key, aligned with its keys: what a snapshot holds, and a chunk's split divides. */
const PER_KEY = ['keys', 'cover', 'rec', 'last', 'least', 'topId', 'topFrom', 'topTo', 'topBytes', 'topWeight', 'seen'] as const;
type PerKey = (typeof PER_KEY)[number];
const TIME_ORDER = ['stepSeq', 'stepMax', 'lateSeq', 'lateRec', 'lateKey'] as const;

/** An index with no keys, as its JSON. */
const emptyJson = (): KeyIndexJson => ({
  stepSeq: [],
  stepMax: [],
  lateSeq: [],
  lateRec: [],
  lateKey: [],
  seen: [],
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
  /** What each version added to the key's cover (Chunk's `seen`). */
  seen: number[];
}

/**
 * A snapshot's system bounds as the index reads them: its journal seq and record time; the last seq up
 * to which every version is within both (`upTo`); and the keys of the versions after it that are within
 * both all the same (`late`: recorded out of the journal's time order, none where the clock only went on).
 */
export interface Bound {
  seq: number;
  rec: number;
  upTo: number;
  late: Set<string>;
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

/** The parts of [from, to) the merged intervals `cover` do not hold, as [from, to, …] ascending. */
function uncovered(cover: number[], from: number, to: number): number[] {
  const out: number[] = [];
  let at = from;
  for (let k = firstNotBefore(cover.length / 2, (j) => (cover[2 * j + 1] as number) <= from); 2 * k < cover.length; k++) {
    const [s, e] = [cover[2 * k] as number, cover[2 * k + 1] as number];
    if (s >= to) break;
    if (s > at) out.push(at, s);
    at = Math.max(at, e);
  }
  if (at < to) out.push(at, to);
  return out;
}

/** True when a part a key's versions filed at or before seq `upTo` added to its cover holds `validMs` (see Chunk's `seen`). */
function seenAt(seen: number[], upTo: number, validMs: number): boolean {
  for (let k = 0; k < seen.length && (seen[k] as number) <= upTo; k += 3) {
    if ((seen[k + 1] as number) <= validMs && validMs < (seen[k + 2] as number)) return true;
  }
  return false;
}

function chunkOf(json: Pick<Chunk, PerKey>, from: number, to: number): Chunk {
  const c: Chunk = {
    keys: json.keys.slice(from, to),
    cover: json.cover.slice(from, to).map((x) => [...x]),
    seen: json.seen.slice(from, to).map((x) => [...x]),
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
  private time: TimeOrder = { stepSeq: [], stepMax: [], lateSeq: [], lateRec: [], lateKey: [] };
  /**
   * Every part of every key's cover by the seq that added it (its start, and its end before LATEST): a
   * count as of a past seq. Built from the chunks' `seen` on the first read that needs it, kept after.
   */
  private past: { starts: SeqCounts; ends: SeqCounts } | undefined;

  /**
   * The index a snapshot held (its JSON.parse); undefined when the snapshot was written before the index
   * kept what each version added to its key's cover (`seen`), which only its versions can tell (ofVersions).
   */
  static fromJson(json: KeyIndexJson | undefined): KeyIndex | undefined {
    const x = new KeyIndex();
    const n = json?.keys?.length ?? 0;
    if (json && n > 0 && !(Array.isArray(json.seen) && TIME_ORDER.every((f) => Array.isArray(json[f])))) return undefined;
    for (let from = 0; json && from < n; from += CHUNK) x.chunks.push(chunkOf(json, from, Math.min(n, from + CHUNK)));
    x.chunks.forEach((_, c) => x.summarize(c));
    x.starts = SortedCounts.of(x.chunks.flatMap((c) => c.starts));
    x.ends = SortedCounts.of(x.chunks.flatMap((c) => c.ends));
    if (json && n > 0) for (const f of TIME_ORDER) (x.time[f] as unknown[]) = [...json[f]];
    return x;
  }

  /** The index a fold of `versions` makes, filed in journal order (under their keys as strings, as the fold files them). */
  static ofVersions(versions: readonly IndexedVersion[]): KeyIndex {
    const x = new KeyIndex();
    for (const v of [...versions].sort((a, b) => a.system_seq - b.system_seq)) x.add(String(v.key), v);
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
    for (const f of TIME_ORDER) (out[f] as unknown[]).push(...this.time[f]);
    return out;
  }

  /**
   * A snapshot's system bounds, journal seq `seq` and record time `recMs`, as the index reads them (Bound):
   * the first rise of the latest record time past `recMs` ends what is within both, but for the late
   * versions after it.
   */
  bound(seq: number, recMs: number): Bound {
    const { stepSeq, stepMax, lateSeq, lateRec, lateKey } = this.time;
    const j = firstNotBefore(stepMax.length, (i) => (stepMax[i] as number) <= recMs);
    const upTo = Math.min(seq, j === stepMax.length ? Infinity : (stepSeq[j] as number) - 1);
    const late = new Set<string>();
    const first = firstNotBefore(lateSeq.length, (k) => (lateSeq[k] as number) <= upTo);
    for (let i = first; i < lateSeq.length && (lateSeq[i] as number) <= seq; i++) {
      if ((lateRec[i] as number) <= recMs) late.add(lateKey[i] as string);
    }
    return { seq, rec: recMs, upTo, late };
  }

  /**
   * Whether the key of `e` shows at valid time `validMs` in a snapshot bounded by `b`, from what its
   * versions added to its cover; undefined for a key with a late version within the bounds, whose
   * versions must be read.
   */
  shows(e: KeyEntry, b: Bound, validMs: number): boolean | undefined {
    return b.late.has(e.key) ? undefined : seenAt(e.seen, b.upTo, validMs);
  }

  /** Every part of every key's cover by the seq that added it, built from the chunks on first use. */
  private pastCounts(): { starts: SeqCounts; ends: SeqCounts } {
    if (this.past) return this.past;
    const parts: number[] = [];
    for (const c of this.chunks) for (const seen of c.seen) parts.push(...seen);
    const order = Array.from({ length: parts.length / 3 }, (_, k) => k).sort((a, b) => (parts[3 * a] as number) - (parts[3 * b] as number));
    const past = { starts: new SeqCounts(), ends: new SeqCounts() };
    for (const k of order) this.countPart(past, parts[3 * k] as number, parts[3 * k + 1] as number, parts[3 * k + 2] as number);
    return (this.past = past);
  }

  private countPart(past: { starts: SeqCounts; ends: SeqCounts }, seq: number, from: number, to: number): void {
    past.starts.push(seq, from);
    if (to < LATEST) past.ends.push(seq, to);
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
      chunk.seen.splice(i, 0, []);
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
    this.fileTime(key, v.system_seq, rec);
    chunk.rec[i] = Math.max(chunk.rec[i] as number, rec);
    chunk.last[i] = Math.max(chunk.last[i] as number, v.system_seq);
    this.chunkLeast[c] = Math.min(this.chunkLeast[c] as number, weight);
    this.chunkRec[c] = Math.max(this.chunkRec[c] as number, rec);
    this.chunkSeq[c] = Math.max(this.chunkSeq[c] as number, v.system_seq);
    this.maxRec = Math.max(this.maxRec, rec);
    this.maxSeq = Math.max(this.maxSeq, v.system_seq);
    if (from < to) {
      const parts = uncovered(chunk.cover[i] as number[], from, to);
      for (let k = 0; k < parts.length; k += 2) {
        (chunk.seen[i] as number[]).push(v.system_seq, parts[k] as number, parts[k + 1] as number);
        if (this.past) this.countPart(this.past, v.system_seq, parts[k] as number, parts[k + 1] as number);
      }
      this.merge(chunk, chunk.cover[i] as number[], from, to);
    }
    if (chunk.keys.length > 2 * CHUNK) this.split(c);
  }

  /** Notes a version's record time in the TimeOrder, before the latest record time takes it in. */
  private fileTime(key: string, seq: number, rec: number): void {
    const t = this.time;
    if (rec > this.maxRec) {
      t.stepSeq.push(seq);
      t.stepMax.push(rec);
    } else if (rec < this.maxRec) {
      t.lateSeq.push(seq);
      t.lateRec.push(rec);
      t.lateKey.push(key);
    }
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
    const json: Pick<Chunk, PerKey> = chunk;
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
          seen: chunk.seen[i] as number[],
        };
      }
    }
  }

  /**
   * How many keys (those starting with `prefix`, or all) show at valid time `validMs` in a snapshot bounded
   * by `b` (bound). Of every key: when nothing is after the bounds, from the covers (two seeks); else from
   * the parts of the covers filed up to `b.upTo` (two seeks among SeqCounts), each late key then asked of
   * `resolve`. Of a prefix: a chunk with nothing after the bounds from its cover, any other key by key
   * from what it keeps (shows), never its versions, but for the late ones.
   */
  count(prefix: string | null, b: Bound, validMs: number, resolve: Resolve): number {
    if (this.chunks.length === 0) return 0;
    const clean = (c: number): boolean => (this.chunkSeq[c] as number) <= b.seq && (this.chunkRec[c] as number) <= b.rec;
    if (prefix === null) {
      if (this.maxSeq <= b.seq && this.maxRec <= b.rec) return this.starts.atMost(validMs) - this.ends.atMost(validMs);
      const past = this.pastCounts();
      let total = past.starts.atMost(b.upTo, validMs) - past.ends.atMost(b.upTo, validMs);
      // A late key was counted by its parts up to upTo; it counts as its versions say instead.
      for (const key of b.late) {
        const { c, i } = this.seek(key);
        const seen = (this.chunks[c] as Chunk).seen[i] as number[];
        total += Number(resolve(key)) - Number(seenAt(seen, b.upTo, validMs));
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
      else total += this.resolveIn(chunk, i0, i1, b, validMs, resolve);
    }
    return total;
  }

  /**
   * How many of a chunk's keys [i0, i1) show: from their cover if nothing of them is after the bounds,
   * else from the parts of it filed up to `b.upTo`, or by `resolve` if late.
   */
  private resolveIn(chunk: Chunk, i0: number, i1: number, b: Bound, validMs: number, resolve: Resolve): number {
    let n = 0;
    for (let i = i0; i < i1; i++) {
      const key = chunk.keys[i] as string;
      const clean = (chunk.last[i] as number) <= b.seq && (chunk.rec[i] as number) <= b.rec;
      if (clean) n += Number(covers(chunk.cover[i] as number[], validMs));
      else n += Number(b.late.has(key) ? resolve(key) : seenAt(chunk.seen[i] as number[], b.upTo, validMs));
    }
    return n;
  }
}
