/**
 * Snapshots: the folded state at one position of the journal, so a process need not fold it all to open.
 * A snapshot is derived data any process could rewrite, so it is signed with the installation key and
 * bound to the journal's hash at its offset; one that does not verify is ignored and the journal folded
 * from its start. `holon verify` goes further and folds the journal to compare.
 *
 * The state is written as one section per slice, each the JSON of that slice's fields, and the signed
 * header names each section's place and SHA-256. Opening reads the header only; a section is read when
 * its slice is first used (so a server that only lists its tools never reads the memory or the mail),
 * and checked before it is parsed. A snapshot job rewrites only the sections its events touched and
 * copies the others' bytes.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { canonicalize } from 'json-canonicalize';
import { installationPublicKey, verifySignature } from '../keys.ts';
import type { Signer } from '../store.ts';
import { parseEventLine } from '../store.ts';

export const SNAPSHOT_FILE = 'snapshot.json';
/** Today's format: a signed header line, then one section per slice. */
export const SNAPSHOT_VERSION = 5;
/** The format before: a signed header line, then the whole state as one JSON body (migrated, see migrate.ts). */
export const MONOLITHIC_VERSION = 4;

/** Where in the journal a state was taken: just after a whole transaction. */
export interface Position {
  /** Byte offset just after the event's line. */
  offset: number;
  seq: number;
  hash: string;
  /** True while the journal before it holds no sealed transaction (the checkpointed format of before). */
  legacy: boolean;
}

/** How much of the index file (journal.idx) a snapshot vouches for: every keyed event before `end`. */
export interface IndexCover {
  /** Journal offset up to which keyed events are filed. */
  end: number;
  /** Length of the index file that holds them. */
  bytes: number;
  /** The head of the hash chain over the index's segments (journalIndex.ts), "" when there is none. */
  sha256: string;
}

/** Where one slice's section lies after the header line, the version of its shape, and its SHA-256. */
export interface SectionPlace {
  name: string;
  version: number;
  offset: number;
  length: number;
  sha256: string;
}

/** The snapshot's first line: where it was taken, where each section is and what it hashes to, who signed all of it. */
export interface SnapshotHeader extends Position {
  version: number;
  sections: SectionPlace[];
  index: IndexCover | null;
  key: string;
  sig: string;
}

function message(h: Omit<SnapshotHeader, 'sig'>): string {
  const { seq, hash, offset, legacy, sections, index, key } = h;
  return `holon-snapshot:v${h.version}:${canonicalize({ seq, hash, offset, legacy, sections, index, key })}`;
}

/** The header of a v4 snapshot, as it was signed. */
export interface MonolithicHeader extends Position {
  version: number;
  fields: string;
  body_sha256: string;
  index: IndexCover | null;
  key: string;
  sig: string;
}

/** The message a v4 header's signature covers. */
export function monolithicMessage(h: Omit<MonolithicHeader, 'sig'>): string {
  const { seq, hash, offset, legacy, body_sha256, index, key, fields } = h;
  return `holon-snapshot:v${h.version}:${canonicalize({ seq, hash, offset, legacy, body_sha256, index, key, fields })}`;
}

/** True if a monolithic header is signed by `key`. */
export function monolithicSigned(h: MonolithicHeader, key: string): boolean {
  const { sig, ...unsigned } = h;
  return typeof sig === 'string' && verifySignature(key, monolithicMessage(unsigned), sig);
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** A section to write: its text, or bytes to copy from the snapshot being replaced (checked as they are copied). */
export type SectionBody =
  { name: string; version: number; text: string } | { name: string; version: number; from: SnapshotFile; place: SectionPlace };

/**
 * Writes a signed snapshot of `sections` (and the index it covers) at `pos` beside the journal, replacing
 * the last one atomically (a crash leaves the old one, or a temporary file nobody reads). A section copied
 * from the old snapshot is hashed as it is copied; one that is not what the old header signed fails the
 * write. Returns the snapshot's size.
 */
export function writeSnapshot(dir: string, pos: Position, sections: SectionBody[], signer: Signer, index: IndexCover | null): number {
  let at = 0;
  const texts = sections.map((s) => ('text' in s ? Buffer.from(s.text) : undefined));
  const places: SectionPlace[] = sections.map((s, i) => {
    const t = texts[i];
    const length = t ? t.length : (s as { place: SectionPlace }).place.length;
    const sum = t ? sha256(t) : (s as { place: SectionPlace }).place.sha256;
    const place = { name: s.name, version: s.version, offset: at, length, sha256: sum };
    at += length;
    return place;
  });
  const { offset, seq, hash, legacy } = pos;
  const unsigned = { version: SNAPSHOT_VERSION, offset, seq, hash, legacy, sections: places, index, key: signer.publicKey };
  const header: SnapshotHeader = { ...unsigned, sig: signer.sign(message(unsigned)) };
  const file = path.join(dir, SNAPSHOT_FILE);
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    let size = writeAll(fd, Buffer.from(`${JSON.stringify(header)}\n`));
    sections.forEach((s, i) => {
      const t = texts[i];
      if (t) size += writeAll(fd, t);
      else if ('from' in s) size += s.from.copySection(s.place, (chunk) => writeAll(fd, chunk));
    });
    fs.fdatasyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, file);
    return size;
  } catch (err) {
    try {
      fs.closeSync(fd);
    } catch {
      // Already closed.
    }
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

function writeAll(fd: number, buf: Buffer): number {
  for (let done = 0; done < buf.length;) done += fs.writeSync(fd, buf, done, buf.length - done);
  return buf.length;
}

/** True if the journal's line ending at `offset` is event `seq` with `hash`. */
export function journalHasAt(journalFile: string, offset: number, seq: number, hash: string): boolean {
  try {
    const fd = fs.openSync(journalFile, 'r');
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

/** A snapshot that verifies (its header; sections are read from it as they are needed), or why there is none to use. */
export type SnapshotRead = { ok: true; snap: SnapshotFile } | { ok: false; problem: string; stale?: boolean; version?: number };

/**
 * The snapshot beside the journal, open, if its header is signed by this installation's key and the
 * journal still holds, at its offset, the event it names. Its sections are read later, each checked
 * against the SHA-256 the header signed; the descriptor is kept, so a snapshot that replaces this one
 * (a rename) is never mixed in. A header of the older, monolithic format is reported `stale`, with its version.
 */
export function openSnapshot(dir: string, journalFile: string): SnapshotRead {
  let fd: number;
  try {
    fd = fs.openSync(path.join(dir, SNAPSHOT_FILE), 'r');
  } catch {
    return { ok: false, problem: 'there is none' };
  }
  let keep = false;
  try {
    const first = readHeaderLine(fd);
    if (first === undefined) return { ok: false, problem: 'its header is unreadable' };
    let header: SnapshotHeader;
    try {
      header = JSON.parse(first.toString('utf8')) as SnapshotHeader;
    } catch {
      return { ok: false, problem: 'its header is unreadable' };
    }
    if (!header || typeof header !== 'object' || typeof header.version !== 'number' || header.version > SNAPSHOT_VERSION)
      return { ok: false, problem: 'it is not a signed snapshot of this version' };
    const key = installationPublicKey(dir);
    if (!key || header.key !== key) return { ok: false, problem: "it is not signed by this installation's key" };
    // Signed by this installation in an older format: not wrong, only to be migrated (or folded again).
    if (header.version !== SNAPSHOT_VERSION && !monolithicSigned(header as unknown as MonolithicHeader, key))
      return { ok: false, problem: 'its signature is invalid' };
    if (header.version !== SNAPSHOT_VERSION)
      return { ok: false, problem: 'it was written by an older build, in its format', stale: true, version: header.version };
    const { sig, ...unsigned } = header;
    if (typeof sig !== 'string' || !Array.isArray(header.sections) || !verifySignature(key, message(unsigned), sig))
      return { ok: false, problem: 'its signature is invalid' };
    if (!journalHasAt(journalFile, header.offset, header.seq, header.hash))
      return { ok: false, problem: 'the journal no longer holds the event it was taken at' };
    keep = true;
    return { ok: true, snap: new SnapshotFile(fd, header, first.length + 1) };
  } finally {
    if (!keep) fs.closeSync(fd);
  }
}

/** The bytes of a file's first line (without its newline), read a chunk at a time; undefined when it has none. */
export function readHeaderLine(fd: number): Buffer | undefined {
  const chunks: Buffer[] = [];
  let at = 0;
  for (;;) {
    const buf = Buffer.alloc(1 << 16);
    const n = fs.readSync(fd, buf, 0, buf.length, at);
    if (n === 0) return undefined;
    const nl = buf.subarray(0, n).indexOf(10);
    chunks.push(buf.subarray(0, nl < 0 ? n : nl));
    if (nl >= 0) return Buffer.concat(chunks);
    at += n;
    if (at > 1 << 24) return undefined;
  }
}

/** An open, verified snapshot: its header, and its sections read on demand, each checked before it is used. */
export class SnapshotFile {
  private closed = false;

  constructor(
    private readonly fd: number,
    readonly header: SnapshotHeader,
    /** Where the sections start: just after the header line. */
    private readonly body: number,
  ) {}

  /** The place of a section, if the snapshot has one of that name. */
  place(name: string): SectionPlace | undefined {
    return this.header.sections.find((s) => s.name === name);
  }

  /** A section's text, or undefined when it is not there or not what the header signed. */
  section(name: string): { text: string; version: number } | undefined {
    const place = this.place(name);
    if (!place || this.closed) return undefined;
    const buf = Buffer.allocUnsafe(place.length);
    let read = 0;
    while (read < buf.length) {
      const n = fs.readSync(this.fd, buf, read, buf.length - read, this.body + place.offset + read);
      if (n === 0) return undefined;
      read += n;
    }
    if (sha256(buf) !== place.sha256) return undefined;
    return { text: buf.toString('utf8'), version: place.version };
  }

  /** Copies a section's bytes a chunk at a time, hashing them; throws when they are not what the header signed. */
  copySection(place: SectionPlace, write: (chunk: Buffer) => void): number {
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(Math.min(place.length, 1 << 20));
    for (let done = 0; done < place.length;) {
      const n = fs.readSync(this.fd, chunk, 0, Math.min(chunk.length, place.length - done), this.body + place.offset + done);
      if (n === 0) break;
      hash.update(chunk.subarray(0, n));
      write(chunk.subarray(0, n));
      done += n;
    }
    if (hash.digest('hex') !== place.sha256) throw new Error(`the snapshot's section ${place.name} is not what its header signed`);
    return place.length;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }
}
