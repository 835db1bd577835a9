/**
 * What the journal keeps out of memory, and how it is found again: the offsets of the events a reducer
 * files under keys (a receipt's id, say), in `<state>/journal.idx`, beside the snapshot that covers them.
 * Both are written by one job — fold the journal from the last snapshot to a position, file the keys,
 * sign — which runs in a worker thread, never on a process's event loop. The snapshot's signed header
 * names the index's length and SHA-256, and each entry the event's hash, so nothing read through the
 * index is trusted before it is checked.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { acquireFileLock } from './journalLock.ts';
import type { IndexCover, Position } from './snapshot.ts';
import { readSnapshot, writeSnapshot } from './snapshot.ts';
import type { JournalEvent, Reducer, Signer } from './store.ts';
import { eventProblem, parseEventLine } from './store.ts';

export const INDEX_FILE = 'journal.idx';
/** How much of an event's hash an index entry keeps: enough that no edit can match it. */
const HASH_CHARS = 16;

/** A keyed event's place, and the start of its hash. */
export interface Entry {
  offset: number;
  hash: string;
}

/** The index file as the verified snapshot describes it, loaded on the first read that needs it. */
export class IndexFile {
  private cover: IndexCover | null = null;
  private loaded: Map<string, Entry[]> | undefined;

  constructor(private readonly dir: string) {}

  /** Takes the index the (verified) snapshot covers. */
  adopt(cover: IndexCover | null): void {
    this.cover = cover;
    this.loaded = undefined;
  }

  /** The journal offset before which keyed events are in the index file. */
  get end(): number {
    return this.cover?.end ?? 0;
  }

  /** The entries filed under `key` before the snapshot; loads (and checks) the index file once. */
  entries(key: string): Entry[] {
    if (!this.cover || this.cover.end === 0) return [];
    this.loaded ??= this.load(this.cover);
    return this.loaded.get(key) ?? [];
  }

  private load(cover: IndexCover): Map<string, Entry[]> {
    const file = path.join(this.dir, INDEX_FILE);
    const buf = Buffer.alloc(cover.bytes);
    const fd = fs.openSync(file, 'r');
    try {
      let read = 0;
      while (read < cover.bytes) {
        const n = fs.readSync(fd, buf, read, cover.bytes - read, read);
        if (n === 0) break;
        read += n;
      }
      if (read !== cover.bytes || createHash('sha256').update(buf).digest('hex') !== cover.sha256) {
        throw new Error(`${file} is not the index the snapshot signed`);
      }
    } finally {
      fs.closeSync(fd);
    }
    return parseIndex(buf.toString('utf8'));
  }
}

function parseIndex(text: string): Map<string, Entry[]> {
  const map = new Map<string, Entry[]>();
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) break;
    const line = text.slice(start, nl);
    start = nl + 1;
    const a = line.indexOf(' ');
    const b = line.indexOf(' ', a + 1);
    const entry = { offset: Number(line.slice(0, a)), hash: line.slice(a + 1, b) };
    const key = line.slice(b + 1);
    const list = map.get(key);
    if (list) list.push(entry);
    else map.set(key, [entry]);
  }
  return map;
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
 * Folds the journal from the last verified snapshot (or its start) up to `at`, files the keys of every
 * event on the way in the index, and signs a new snapshot of both. Skips quietly when another process
 * is doing the same, or has already written one at or after `at`. Returns the index the new snapshot
 * covers, or undefined when it wrote none.
 */
export async function buildSnapshot<S>(dir: string, journalFile: string, reducer: Reducer<S>, at: Position, signer: Signer): Promise<IndexCover | undefined> {
  let release: () => void;
  try {
    release = await acquireFileLock(path.join(dir, 'snapshot.lock'), 0);
  } catch {
    return undefined;
  }
  try {
    const previous = readSnapshot(dir, journalFile);
    if (previous.ok && previous.header.seq >= at.seq) return undefined;
    const indexFile = path.join(dir, INDEX_FILE);
    let state = reducer.initial();
    let from: Position = { offset: 0, seq: 0, hash: '', lastCheckpointSeq: 0 };
    let cover: IndexCover = { end: 0, bytes: 0, sha256: '' };
    if (previous.ok && indexIntact(indexFile, previous.header.index)) {
      state = reducer.deserialize(previous.body);
      from = { offset: previous.header.offset, seq: previous.header.seq, hash: previous.header.hash, lastCheckpointSeq: previous.header.lastCheckpointSeq };
      cover = previous.header.index ?? { end: from.offset, bytes: 0, sha256: '' };
    }
    const lines: string[] = [];
    foldRange(journalFile, from, at, (e, offset) => {
      for (const k of reducer.keys?.(state, e) ?? []) lines.push(indexLine(offset, e, k.key));
      reducer.apply(state, e);
      from.seq = e.seq;
      from.hash = e.hash;
      if (e.type === 'checkpoint') from.lastCheckpointSeq = e.seq;
    });
    // Entries past the covered length were written by a job that died before its snapshot: dropped.
    const fd = fs.openSync(indexFile, fs.existsSync(indexFile) ? 'r+' : 'w+', 0o600);
    try {
      fs.ftruncateSync(fd, cover.bytes);
      if (lines.length > 0) fs.writeSync(fd, lines.join(''), cover.bytes);
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    const bytes = cover.bytes + Buffer.byteLength(lines.join(''));
    const content = fs.readFileSync(indexFile).subarray(0, bytes);
    const next: IndexCover = { end: at.offset, bytes, sha256: createHash('sha256').update(content).digest('hex') };
    writeSnapshot(dir, { offset: at.offset, seq: from.seq, hash: from.hash, lastCheckpointSeq: from.lastCheckpointSeq }, reducer.serialize(state), signer, next);
    return next;
  } finally {
    release();
  }
}

function indexIntact(indexFile: string, cover: IndexCover | null | undefined): boolean {
  if (!cover || cover.bytes === 0) return true;
  try {
    const content = fs.readFileSync(indexFile);
    return content.length >= cover.bytes && createHash('sha256').update(content.subarray(0, cover.bytes)).digest('hex') === cover.sha256;
  } catch {
    return false;
  }
}

/** Reads and checks the journal's events from `from` to `to` (offsets), one at a time. */
function foldRange(journalFile: string, from: Position, to: Position, each: (e: JournalEvent, offset: number) => void): void {
  let seq = from.seq;
  let prev = from.hash;
  const { end } = scanLines(journalFile, from.offset, to.offset, (line, offset) => {
    const e = parseEventLine(line);
    const problem = e ? eventProblem(e, seq + 1, prev) : 'not a whole event';
    if (!e || problem) throw new Error(`line ${seq + 1}: ${problem ?? 'unreadable'}`);
    each(e, offset);
    seq = e.seq;
    prev = e.hash;
    return true;
  });
  if (end !== to.offset || seq !== to.seq || prev !== to.hash) throw new Error(`the journal at byte ${to.offset} is not event ${to.seq}`);
}

/**
 * Calls `each` with every whole line of `file` from byte `from` (up to `to`), and where it starts,
 * reading a chunk at a time; stops early when `each` returns false. Returns where the last whole line
 * read ends, and the bytes after the file's last newline (a torn append) when it read to the end.
 */
export function scanLines(file: string, from: number, to: number | undefined, each: (line: string, offset: number) => boolean): { end: number; tail: Buffer } {
  const fd = fs.openSync(file, 'r');
  try {
    const limit = to ?? fs.fstatSync(fd).size;
    const chunk = 1 << 20;
    let offset = from;
    let carry = Buffer.alloc(0);
    let carryAt = from;
    while (offset < limit) {
      const buf = Buffer.allocUnsafe(Math.min(chunk, limit - offset));
      const n = fs.readSync(fd, buf, 0, buf.length, offset);
      if (n === 0) break;
      offset += n;
      const data = carry.length > 0 ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
      let start = 0;
      for (;;) {
        const nl = data.indexOf(10, start);
        if (nl < 0) break;
        if (!each(data.toString('utf8', start, nl), carryAt + start)) return { end: carryAt + start, tail: Buffer.alloc(0) };
        start = nl + 1;
      }
      carry = Buffer.from(data.subarray(start));
      carryAt += start;
    }
    return { end: carryAt, tail: carry };
  } finally {
    fs.closeSync(fd);
  }
}
