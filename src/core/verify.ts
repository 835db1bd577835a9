import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkpointMessage, eventHash, JOURNAL_FILE } from './journal.ts';
import { installationPublicKey, verifySignature } from './keys.ts';

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
}

/**
 * Checks the whole journal offline: every line parses, sequence numbers follow, each hash is the
 * canonical hash of its event and links to the one before, and every checkpoint is signed by the
 * installation key over the head it names. Stops at the first bad event.
 */
export function verifyJournal(stateDir: string): VerifyReport {
  const text = fs.readFileSync(path.join(stateDir, JOURNAL_FILE), 'utf8');
  const expectedKey = installationPublicKey(stateDir);
  let prev = '';
  let seq = 0;
  let checkpoints = 0;
  let signedThrough = 0;
  let line = 0;
  const fail = (problem: string): VerifyReport => ({
    ok: false,
    events: seq,
    checkpoints,
    signed_through: signedThrough,
    unsigned: seq - signedThrough,
    head: prev,
    first_bad: { line, seq: seq + 1, problem },
  });
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let key = expectedKey;
  for (const raw of lines) {
    line += 1;
    let e: { seq?: unknown; time?: unknown; type?: unknown; data?: unknown; prev?: unknown; hash?: unknown };
    try {
      e = JSON.parse(raw);
    } catch {
      return fail('not valid JSON (the line was altered or torn)');
    }
    if (typeof e !== 'object' || e === null || Array.isArray(e)) return fail('not an event object');
    if (e.seq !== seq + 1) return fail(`sequence ${String(e.seq)} where ${seq + 1} was expected`);
    if (e.prev !== prev) return fail('does not link to the previous event (prev hash differs)');
    if (typeof e.time !== 'string' || typeof e.type !== 'string') return fail('missing time or type');
    const hash = eventHash({ seq: e.seq, time: e.time, type: e.type, data: e.data, prev: e.prev });
    if (hash !== e.hash) return fail('content does not match its hash (the event was altered)');
    if (e.type === 'checkpoint') {
      const d = e.data as { up_to?: number; head?: string; key?: string; sig?: string };
      if (d.up_to !== seq || d.head !== prev || typeof d.key !== 'string' || typeof d.sig !== 'string') return fail('checkpoint does not name the event before it');
      key ??= d.key;
      if (d.key !== key) return fail('checkpoint signed by a key that is not this installation\'s');
      if (!verifySignature(d.key, checkpointMessage(d.up_to, d.head), d.sig)) return fail('checkpoint signature is invalid');
      checkpoints += 1;
      signedThrough = e.seq;
    }
    seq = e.seq;
    prev = hash;
  }
  return { ok: true, events: seq, checkpoints, signed_through: signedThrough, unsigned: seq - signedThrough, head: prev };
}
