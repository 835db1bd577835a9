/**
 * `holon verify`: the offline check of everything a process trusts. It reads the journal line by line
 * (never the whole file at once), checks the hash chain and every checkpoint's signature, folds it, and
 * compares the fold with the snapshot and the index at the snapshot's position.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { canonicalize } from 'json-canonicalize';
import { JOURNAL_FILE } from './journal.ts';
import { chainOver, INDEX_FILE, indexLine, scanLines } from './journalIndex.ts';
import { installationPublicKey, verifySignature } from './keys.ts';
import { readSnapshot, SNAPSHOT_FILE, stateFields } from './snapshot.ts';
import type { SnapshotHeader } from './snapshot.ts';
import type { HolonState } from './state.ts';
import { holonReducer } from './state.ts';
import type { JournalEvent } from './store.ts';
import { checkpointMessage, eventProblem, parseEventLine } from './store.ts';

/** The first event that breaks the chain, and why. */
export interface BadEvent {
  /** 1-based line number in journal.jsonl. */
  line: number;
  /** The sequence number the event should have. */
  seq: number;
  problem: string;
}

/** What `holon verify` reports. */
export interface VerifyReport {
  ok: boolean;
  events: number;
  checkpoints: number;
  /** The last event covered by a valid signed checkpoint (0 if none). */
  signed_through: number;
  /** Events after the last checkpoint: hash-linked but not yet signed. */
  unsigned: number;
  head: string;
  first_bad?: BadEvent;
  /**
   * Bytes after the last newline: an append a crash cut short. Not tampering: the next process that
   * writes removes them (or, when they are a whole next event that only lost its newline, completes it).
   */
  torn_tail?: { bytes: number; whole_event: boolean };
  /** The snapshot, when there is one: whether it is what the journal folds to at its position. */
  snapshot?: { seq: number | null; ok: boolean; problem?: string };
}

/**
 * Checks the whole journal offline: every line parses, sequence numbers follow, each hash is the
 * canonical hash of its event and links to the one before, and every checkpoint is signed by the
 * installation key over the head it names; then that the snapshot and the index are what the journal
 * folds to where the snapshot was taken. Stops at the first bad event.
 */
export function verifyJournal(stateDir: string): VerifyReport {
  const file = path.join(stateDir, JOURNAL_FILE);
  const expectedKey = installationPublicKey(stateDir);
  const snap = fs.existsSync(path.join(stateDir, SNAPSHOT_FILE)) ? readSnapshot(stateDir, file, stateFields(holonReducer.initial())) : undefined;
  const header: SnapshotHeader | undefined = snap?.ok ? snap.header : undefined;
  const state = holonReducer.initial();
  /** What the index must hold, as the fold files it: its lines, hashed as they come. */
  const index = createHash('sha256');
  // A snapshot of an older build is not wrong, only unusable here: it is ignored and rebuilt, never a failure.
  let snapshot: VerifyReport['snapshot'] = snap && !snap.ok ? { seq: null, ok: snap.stale === true, problem: snap.problem } : undefined;

  const chain = new ChainCheck(state, (k) => ((key ??= k) !== k ? "checkpoint signed by a key that is not this installation's" : undefined));
  let line = 0;
  let bad: string | undefined;
  let key = expectedKey;
  const { tail } = scanLines(file, 0, undefined, (text, offset) => {
    line += 1;
    const e = parseEventLine(text);
    if (!e) {
      bad = 'not a whole event (the line was altered)';
      return false;
    }
    // Filed as the fold files it: under the keys of the state before the event.
    const filed = header && offset < (header.index?.end ?? 0) ? (holonReducer.keys?.(state, e) ?? []) : [];
    bad = chain.next(e);
    if (bad) return false;
    for (const k of filed) index.update(indexLine(offset, e, k.key));
    if (header && chain.seq === header.seq) snapshot = compareSnapshot(stateDir, header, snap?.ok ? snap.body : '', holonReducer.serialize(state), index.copy().digest('hex'));
    return true;
  });

  const report = chain.report(bad, line);
  if (bad === undefined && tail.length > 0) {
    const last = parseEventLine(tail.toString('utf8'));
    report.torn_tail = { bytes: tail.length, whole_event: last !== undefined && eventProblem(last, chain.seq + 1, chain.prev) === undefined };
  }
  if (header && !snapshot) snapshot = { seq: header.seq, ok: false, problem: `the journal has no event ${header.seq} to compare it with` };
  if (snapshot) {
    report.snapshot = snapshot;
    if (!snapshot.ok) report.ok = false;
  }
  return report;
}

/**
 * The check every event of a log goes through, in order, wherever it is kept (a journal's lines, a
 * team store's rows): it follows the one before, its hash is its content, a checkpoint names the head
 * before it and is signed over it by a key `checkpointKey` accepts; then it is folded into `state`.
 */
export class ChainCheck {
  seq = 0;
  prev = '';
  checkpoints = 0;
  signedThrough = 0;

  constructor(
    readonly state: HolonState,
    private readonly checkpointKey: (key: string, seq: number) => string | undefined,
  ) {}

  /** Checks and folds the next event; returns why it cannot be trusted (and folds nothing), or undefined. */
  next(e: JournalEvent): string | undefined {
    const bad = eventProblem(e, this.seq + 1, this.prev);
    if (bad) return bad;
    if (e.type === 'checkpoint') {
      const d = e.data as { up_to?: number; head?: string; key?: string; sig?: string };
      if (d.up_to !== this.seq || d.head !== this.prev || typeof d.key !== 'string' || typeof d.sig !== 'string') return 'checkpoint does not name the event before it';
      const refused = this.checkpointKey(d.key, e.seq);
      if (refused) return refused;
      if (!verifySignature(d.key, checkpointMessage(d.up_to, d.head), d.sig)) return 'checkpoint signature is invalid';
      this.checkpoints += 1;
      this.signedThrough = e.seq;
    }
    try {
      holonReducer.apply(this.state, e);
    } catch (err) {
      return `the event cannot be folded (${(err as Error).message})`;
    }
    this.seq = e.seq;
    this.prev = e.hash;
    return undefined;
  }

  /** The report so far; with `bad`, the event after the last good one is named as the first bad one, at `line`. */
  report(bad: string | undefined, line: number): VerifyReport {
    const r: VerifyReport = { ok: bad === undefined, events: this.seq, checkpoints: this.checkpoints, signed_through: this.signedThrough, unsigned: this.seq - this.signedThrough, head: this.prev };
    if (bad !== undefined) r.first_bad = { line, seq: this.seq + 1, problem: bad };
    return r;
  }
}

const EMPTY_SHA256 = createHash('sha256').digest('hex');

/** Whether the snapshot's body and index are what the journal folds to at its position. */
function compareSnapshot(stateDir: string, h: SnapshotHeader, body: string, folded: string, filedSha: string): NonNullable<VerifyReport['snapshot']> {
  const same = (a: string, b: string): boolean => {
    try {
      return canonicalize(JSON.parse(a)) === canonicalize(JSON.parse(b));
    } catch {
      return false;
    }
  };
  if (!same(body, folded)) return { seq: h.seq, ok: false, problem: `its state is not what the journal folds to at event ${h.seq}` };
  const cover = h.index;
  if (cover && cover.bytes > 0) {
    let onDisk: Buffer;
    try {
      onDisk = fs.readFileSync(path.join(stateDir, INDEX_FILE)).subarray(0, cover.bytes);
    } catch {
      return { seq: h.seq, ok: false, problem: `${INDEX_FILE} is missing` };
    }
    if (onDisk.length !== cover.bytes || chainOver('', onDisk) !== cover.sha256) return { seq: h.seq, ok: false, problem: `${INDEX_FILE} is not the index the snapshot signed` };
    // Signed, and also what the journal files: the same lines, in the same order (segment ends aside).
    const lines = onDisk.toString('utf8').split('\n').filter((l) => l.length > 0 && l !== '#');
    if (createHash('sha256').update(lines.map((l) => `${l}\n`).join('')).digest('hex') !== filedSha) return { seq: h.seq, ok: false, problem: 'its index is not what the journal files' };
  } else if (filedSha !== EMPTY_SHA256) return { seq: h.seq, ok: false, problem: 'its index is not what the journal files' };
  return { seq: h.seq, ok: true };
}

/** The report in a sentence or two, for a human. */
export function verifyText(r: VerifyReport, place: 'line' | 'row' = 'line'): string {
  const parts: string[] = [];
  if (r.first_bad) parts.push(`FAILED at event ${r.first_bad.seq} (${place} ${r.first_bad.line}): ${r.first_bad.problem}. ${r.events} events before it are intact.`);
  else {
    parts.push(`${r.ok ? 'OK' : 'FAILED'}: ${r.events} events, hash chain intact, ${r.checkpoints} signed checkpoint(s) through event ${r.signed_through}${r.unsigned > 0 ? ` (${r.unsigned} newer events not yet signed)` : ''}.`);
  }
  if (r.torn_tail) {
    parts.push(
      r.torn_tail.whole_event
        ? 'The last event lost its newline in a crash; the next process that writes completes it.'
        : `The last ${r.torn_tail.bytes} bytes are an append a crash cut short (not tampering); the next process that writes removes them.`,
    );
  }
  if (r.snapshot) {
    parts.push(
      r.snapshot.ok && r.snapshot.problem
        ? `The snapshot is not used: ${r.snapshot.problem}; the journal is folded from its start until a new one is written.`
        : r.snapshot.ok
        ? `The snapshot at event ${r.snapshot.seq} is what the journal folds to.`
        : `The snapshot is not to be trusted: ${r.snapshot.problem}. Delete ${SNAPSHOT_FILE} and ${INDEX_FILE} to have them rebuilt from the journal.`,
    );
  }
  return parts.join(' ');
}
