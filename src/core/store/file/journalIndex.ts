/**
 * What the journal keeps out of memory, and how it is found again: the offsets of the events a reducer
 * files under keys (a receipt's id, say), in `<state>/journal.idx`, beside the snapshot that covers them.
 * Both are written by one job — fold the journal from the last snapshot to a position, file the keys,
 * sign — which runs in a worker thread, never on a process's event loop. What each job files is one
 * segment, ended by a line "#"; the snapshot's signed header names the index's length and the head of
 * a hash chain over its segments (each link the SHA-256 of the one before and the segment), so a job
 * never reads back what earlier ones wrote, and nothing read through the index is trusted before the
 * chain up to it is checked. Each entry also carries the start of its event's hash.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HolonError } from '../../kernel/errors.ts';
import { acquireFileLock } from './lock.ts';
import { codecOf, openState } from './lazy.ts';
import type { IndexCover, Position, SectionBody } from './snapshot.ts';
import { writeSnapshot } from './snapshot.ts';
import type { JournalEvent, Reducer, Signer } from '../store.ts';
import { foldRange, foldTx } from './foldRange.ts';

export const INDEX_FILE = 'journal.idx';
/** How much of an event's hash an index entry keeps: enough that no edit can match it. */
const HASH_CHARS = 16;

/** A keyed event's place, and the start of its hash. */
export interface Entry {
  offset: number;
  hash: string;
}

/**
 * The index file as the verified snapshot describes it, loaded on the first read that needs it and then
 * only as far as each newer snapshot extends it. Every byte is checked against the SHA-256 the snapshot
 * signed before it is used. A million keyed events take about 30 MB here, in typed arrays: each entry
 * keeps its offset, the start of its event's hash, and a 64-bit hash of its key (two keys that share
 * one are told apart by what the caller reads, never trusted as the same).
 */
export class IndexFile {
  private cover: IndexCover | null = null;
  private readonly table = new KeyTable();
  /** The hash chain's link at what was loaded. */
  private chain = '';
  private loaded = 0;

  constructor(private readonly dir: string) {}

  /** Takes the index the (verified) snapshot covers. */
  adopt(cover: IndexCover | null): void {
    // A snapshot that does not extend what was loaded (another history) starts the index over.
    if (!cover || cover.bytes < this.loaded) this.reset();
    this.cover = cover;
  }

  /** The journal offset before which keyed events are in the index file. */
  get end(): number {
    return this.cover?.end ?? 0;
  }

  /** The entries filed under `key` before the snapshot, oldest first; with `newest`, only that many of the latest. */
  entries(key: string, newest?: number): Entry[] {
    const cover = this.cover;
    if (!cover || cover.bytes === 0) return [];
    if (this.loaded < cover.bytes) this.extend(cover);
    return this.table.lookup(key, newest);
  }

  private reset(): void {
    this.table.clear();
    this.chain = '';
    this.loaded = 0;
  }

  /** Reads what the index file holds past what was loaded, up to what the snapshot signed, and checks it all. */
  private extend(cover: IndexCover): void {
    const file = path.join(this.dir, INDEX_FILE);
    const buf = Buffer.alloc(cover.bytes - this.loaded);
    const fd = fs.openSync(file, 'r');
    try {
      let read = 0;
      while (read < buf.length) {
        const n = fs.readSync(fd, buf, read, buf.length - read, this.loaded + read);
        if (n === 0) break;
        read += n;
      }
      const chain = read === buf.length ? chainOver(this.chain, buf) : undefined;
      if (chain !== cover.sha256)
        throw new HolonError('corrupt_journal', `${file} is not the index the snapshot signed; run \`holon verify\``, { file });
    } finally {
      fs.closeSync(fd);
    }
    this.chain = cover.sha256;
    this.loaded = cover.bytes;
    this.table.addLines(buf);
  }
}

/**
 * Two 32-bit hashes of the bytes of a key (FNV-1a, and a multiplicative mix), as one 64-bit identity;
 * left in KEY_A and KEY_B (no allocation per line).
 */
let KEY_A = 0;
let KEY_B = 0;
function keyHashes(bytes: Uint8Array, from: number, to: number): void {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = from; i < to; i++) {
    const c = bytes[i] as number;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  KEY_A = a >>> 0;
  KEY_B = b >>> 0;
}

/** The index's entries in typed arrays, chained per bucket of their key's hash. */
class KeyTable {
  private size = 0;
  private offsets = new Float64Array(1024);
  private hashHi = new Uint32Array(1024);
  private hashLo = new Uint32Array(1024);
  private keyA = new Uint32Array(1024);
  private keyB = new Uint32Array(1024);
  private next = new Int32Array(1024);
  private buckets = new Int32Array(2048).fill(-1);

  clear(): void {
    this.size = 0;
    this.buckets = new Int32Array(2048).fill(-1);
  }

  /** Parses whole lines "offset hash16 key\n" and adds them (a segment's end, "#", is skipped). */
  addLines(buf: Buffer): void {
    let i = 0;
    while (i < buf.length) {
      if (buf[i] === 35) {
        i = buf.indexOf(10, i) + 1;
        continue;
      }
      let offset = 0;
      while (buf[i] !== 32) offset = offset * 10 + ((buf[i++] as number) - 48);
      i += 1;
      const hi = hexAt(buf, i);
      const lo = hexAt(buf, i + 8);
      i += 17;
      const start = i;
      while (buf[i] !== 10) i += 1;
      keyHashes(buf, start, i);
      i += 1;
      this.add(offset, hi, lo, KEY_A, KEY_B);
    }
  }

  /** The entries of `key`, oldest first; with `newest`, only that many of the latest. */
  lookup(key: string, newest = Infinity): Entry[] {
    const bytes = Buffer.from(key, 'utf8');
    keyHashes(bytes, 0, bytes.length);
    const a = KEY_A;
    const b = KEY_B;
    const out: Entry[] = [];
    for (let j = this.buckets[a & (this.buckets.length - 1)] as number; j >= 0 && out.length < newest; j = this.next[j] as number) {
      if (this.keyA[j] === a && this.keyB[j] === b) {
        out.push({ offset: this.offsets[j] as number, hash: hex8(this.hashHi[j] as number) + hex8(this.hashLo[j] as number) });
      }
    }
    // Chains are built newest first.
    return out.reverse();
  }

  private add(offset: number, hi: number, lo: number, a: number, b: number): void {
    if (this.size === this.offsets.length) this.grow();
    const j = this.size++;
    this.offsets[j] = offset;
    this.hashHi[j] = hi;
    this.hashLo[j] = lo;
    this.keyA[j] = a;
    this.keyB[j] = b;
    if (this.size * 2 > this.buckets.length) this.rehash();
    else this.link(j);
  }

  private link(j: number): void {
    const bucket = (this.keyA[j] as number) & (this.buckets.length - 1);
    this.next[j] = this.buckets[bucket] as number;
    this.buckets[bucket] = j;
  }

  private grow(): void {
    const n = this.offsets.length * 2;
    const more = <T extends Float64Array | Uint32Array | Int32Array>(old: T, make: (n: number) => T): T => {
      const x = make(n);
      x.set(old);
      return x;
    };
    this.offsets = more(this.offsets, (k) => new Float64Array(k));
    this.hashHi = more(this.hashHi, (k) => new Uint32Array(k));
    this.hashLo = more(this.hashLo, (k) => new Uint32Array(k));
    this.keyA = more(this.keyA, (k) => new Uint32Array(k));
    this.keyB = more(this.keyB, (k) => new Uint32Array(k));
    this.next = more(this.next, (k) => new Int32Array(k));
  }

  private rehash(): void {
    this.buckets = new Int32Array(this.buckets.length * 2).fill(-1);
    for (let j = 0; j < this.size; j++) this.link(j);
  }
}

const hex8 = (n: number): string => n.toString(16).padStart(8, '0');

/** The 32-bit number written as 8 lowercase hex digits at `at`. */
function hexAt(buf: Buffer, at: number): number {
  let v = 0;
  for (let k = at; k < at + 8; k++) {
    const c = buf[k] as number;
    v = v * 16 + (c <= 57 ? c - 48 : c - 87);
  }
  return v;
}

/** True if `e` is the event an entry filed (its hash starts as the entry says). */
export function matches(entry: Entry, e: JournalEvent): boolean {
  return e.hash.startsWith(entry.hash) && entry.hash.length === HASH_CHARS;
}

/** The index file's line for an event at `offset` filed under `key`. */
export function indexLine(offset: number, e: JournalEvent, key: string): string {
  return `${offset} ${e.hash.slice(0, HASH_CHARS)} ${key}\n`;
}

/** The entry of an event at `offset`. */
export function entryOf(offset: number, e: JournalEvent): Entry {
  return { offset, hash: e.hash.slice(0, HASH_CHARS) };
}

/**
 * Folds the journal from the last verified snapshot (or its start) up to `at` (`'end'`: its last whole
 * transaction, for an open that must not fold on its caller's thread), files the keys of every
 * event on the way in the index, and signs a new snapshot of both. Only the sections of the slices the
 * fold used are written again; the others' bytes are copied from the last snapshot, checked against the
 * hashes it signed, so a snapshot costs what changed since the last one. Skips quietly when another
 * process is doing the same, or has already written one at or after `at`. Returns the index the new
 * snapshot covers, or undefined when it wrote none.
 */
export async function buildSnapshot<S>(
  dir: string,
  journalFile: string,
  reducer: Reducer<S>,
  at: Position | 'end',
  signer: Signer,
): Promise<IndexCover | undefined> {
  let release: () => void;
  try {
    release = await acquireFileLock(path.join(dir, 'snapshot.lock'), 0);
  } catch {
    return undefined;
  }
  const indexFile = path.join(dir, INDEX_FILE);
  const opened = openState(dir, journalFile, { reducer, key: signer.publicKey, signer, warn: () => undefined });
  try {
    if (opened && at !== 'end' && opened.pos.seq >= at.seq) return undefined;
    let state = reducer.initial();
    let from: Position = { offset: 0, seq: 0, hash: '', legacy: true };
    let cover: IndexCover = { end: 0, bytes: 0, sha256: '' };
    // The index before the last snapshot is never read back here: what the next snapshot signs chains
    // from the hash the last one signed, so a prefix altered on disk fails every later read of it.
    const previous = opened && indexLongEnough(indexFile, opened.index) ? opened : undefined;
    if (previous) {
      state = previous.state;
      from = { ...previous.pos };
      cover = previous.index ?? { end: from.offset, bytes: 0, sha256: '' };
    }
    const lines: string[] = [];
    const start = from.seq;
    const reached = foldRange(journalFile, from, at, signer.publicKey, (tx) => {
      foldTx(reducer, state, tx, (offset, e, key) => lines.push(indexLine(offset, e, key)));
      const last = tx.items.at(-1)!.e;
      from.seq = last.seq;
      from.hash = last.hash;
      if (tx.items.some((x) => x.e.tx)) from.legacy = false;
    });
    // Caught up already: a snapshot at the end is the one there.
    if (at === 'end' && from.seq === start) return undefined;
    // Entries past the covered length were written by a job that died before its snapshot: dropped.
    const segment = lines.length > 0 ? Buffer.from(`${lines.join('')}${SEGMENT_END}`) : Buffer.alloc(0);
    const fd = fs.openSync(indexFile, fs.existsSync(indexFile) ? 'r+' : 'w+', 0o600);
    try {
      fs.ftruncateSync(fd, cover.bytes);
      if (segment.length > 0) fs.writeSync(fd, segment, 0, segment.length, cover.bytes);
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    const next: IndexCover = {
      end: reached.offset,
      bytes: cover.bytes + segment.length,
      sha256: segment.length > 0 ? chainNext(cover.sha256, segment) : cover.sha256,
    };
    const sections: SectionBody[] = codecOf(reducer).list.map(({ name, version }) => {
      const place = previous && !previous.loaded.has(name) ? previous.snap.place(name) : undefined;
      return place
        ? { name, version: place.version, from: previous!.snap, place }
        : { name, version, text: codecOf(reducer).write(state, name) };
    });
    const pos = { offset: reached.offset, seq: from.seq, hash: from.hash, legacy: from.legacy };
    try {
      writeSnapshot(dir, pos, sections, signer, next);
    } catch {
      // A section to copy is not what the last snapshot signed: every section is written from the state
      // instead (reading that one folds it from the journal, see lazy.ts).
      writeSnapshot(
        dir,
        pos,
        codecOf(reducer).list.map(({ name, version }) => ({ name, version, text: codecOf(reducer).write(state, name) })),
        signer,
        next,
      );
    }
    return next;
  } finally {
    opened?.snap.close();
    release();
  }
}

function indexLongEnough(indexFile: string, cover: IndexCover | null | undefined): boolean {
  if (!cover || cover.bytes === 0) return true;
  try {
    return fs.statSync(indexFile).size >= cover.bytes;
  } catch {
    return false;
  }
}

/** The line that ends what one snapshot job filed: a segment of the hash chain. */
const SEGMENT_END = '#\n';

/** The next link of the index's hash chain: SHA-256 of the last link (hex) and the segment's bytes. */
export function chainNext(previous: string, segment: Buffer): string {
  return createHash('sha256').update(previous).update(segment).digest('hex');
}

/**
 * The chain over `buf`, a run of whole segments that follows the link `previous`; undefined when it
 * does not end at a segment's end (a job that died mid-write, or bytes that were cut).
 */
export function chainOver(previous: string, buf: Buffer): string | undefined {
  let chain = previous;
  let start = 0;
  for (let i = 0; i < buf.length;) {
    const nl = buf.indexOf(10, i);
    if (nl < 0) return undefined;
    if (buf[i] === 35 && nl === i + 1) {
      chain = chainNext(chain, buf.subarray(start, nl + 1));
      start = nl + 1;
    }
    i = nl + 1;
  }
  return start === buf.length ? chain : undefined;
}
