/**
 * Snapshots: the folded state at one position of the journal, so a process need not fold it all to open.
 * A snapshot is derived data any process could rewrite, so it is signed with the installation key and
 * bound to the journal's hash at its offset; one that does not verify is ignored and the journal folded
 * from its start. `holon verify` goes further and folds the journal to compare.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { canonicalize } from 'json-canonicalize';
import { installationPublicKey, verifySignature } from '../keys.ts';
import type { Signer } from '../store.ts';
import { parseEventLine } from '../store.ts';

export const SNAPSHOT_FILE = 'snapshot.json';
const SNAPSHOT_VERSION = 4;

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

/** The snapshot's first line: where it was taken, what its body and index hash to, and who signed all of it. */
export interface SnapshotHeader extends Position {
  version: number;
  /**
   * The state's top-level fields when it was written. A build with more slices cannot use it: the events
   * before it were never folded into the new fields (they are folded from the start instead).
   */
  fields: string;
  body_sha256: string;
  index: IndexCover | null;
  key: string;
  sig: string;
}

function message(h: Omit<SnapshotHeader, 'sig'>): string {
  const { seq, hash, offset, legacy, body_sha256, index, key, fields } = h;
  return `holon-snapshot:v${h.version}:${canonicalize({ seq, hash, offset, legacy, body_sha256, index, key, fields })}`;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Writes a signed snapshot of `body` (and the index it covers) at `pos` beside the journal, replacing the last one atomically. */
export function writeSnapshot(dir: string, pos: Position, body: string, signer: Signer, index: IndexCover | null, fields: string): number {
  const unsigned = { version: SNAPSHOT_VERSION, ...pos, body_sha256: sha256(body), index, key: signer.publicKey, fields };
  const header: SnapshotHeader = { ...unsigned, sig: signer.sign(message(unsigned)) };
  const file = path.join(dir, SNAPSHOT_FILE);
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const text = `${JSON.stringify(header)}\n${body}`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return Buffer.byteLength(text);
}

/** A snapshot that verifies, or why there is none to use. */
export type SnapshotRead = { ok: true; header: SnapshotHeader; body: string } | { ok: false; problem: string; stale?: boolean };

/** The fingerprint of a state's top-level fields, as a snapshot records it. */
export function stateFields(initial: object): string {
  return Object.keys(initial).sort().join(',');
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

/**
 * The snapshot beside the journal, if it is signed by this installation's key, its body is what it
 * signed, and the journal still holds, at its offset, the event it names.
 */
export function readSnapshot(dir: string, journalFile: string, fields: string): SnapshotRead {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, SNAPSHOT_FILE), 'utf8');
  } catch {
    return { ok: false, problem: 'there is none' };
  }
  const nl = text.indexOf('\n');
  let header: SnapshotHeader;
  try {
    header = JSON.parse(text.slice(0, nl < 0 ? undefined : nl)) as SnapshotHeader;
  } catch {
    return { ok: false, problem: 'its header is unreadable' };
  }
  if (!header || typeof header !== 'object' || typeof header.version !== 'number' || header.version > SNAPSHOT_VERSION)
    return { ok: false, problem: 'it is not a signed snapshot of this version' };
  const key = installationPublicKey(dir);
  if (!key || header.key !== key) return { ok: false, problem: "it is not signed by this installation's key" };
  const { sig, ...unsigned } = header;
  if (typeof sig !== 'string' || !verifySignature(key, message(unsigned), sig)) return { ok: false, problem: 'its signature is invalid' };
  // Signed by this installation in an older format: not wrong, only unusable here (folded from the start).
  if (header.version !== SNAPSHOT_VERSION) return { ok: false, problem: 'it was written by an older build, in its format', stale: true };
  const body = text.slice(nl + 1);
  if (sha256(body) !== header.body_sha256) return { ok: false, problem: 'its body is not the one it signed' };
  if (!journalHasAt(journalFile, header.offset, header.seq, header.hash))
    return { ok: false, problem: 'the journal no longer holds the event it was taken at' };
  if (header.fields !== fields) return { ok: false, problem: 'it was written by a build that folds fewer kinds of events', stale: true };
  return { ok: true, header, body };
}
