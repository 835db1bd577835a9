import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createMandate } from '../../src/core/mandates.ts';
import { fund } from '../../src/core/spend.ts';
import { setFx } from '../../src/core/fx.ts';
import { silentLogger } from '../../src/core/deps.ts';
import { openState } from '../../src/core/holon.ts';
import type { JournalEvent, Signer } from '../../src/core/store.ts';
import { checkpointMessage, eventHash } from '../../src/core/store.ts';
import { FileJournal, JOURNAL_FILE } from '../../src/core/journal.ts';
import { KEY_FILE } from '../../src/core/keys.ts';
import type { HolonState } from '../../src/core/state.ts';
import { holonReducer } from '../../src/core/state.ts';
import { verifyJournal } from '../../src/core/verify.ts';
import { tempDir, TestClock } from '../helpers.ts';

const clock = new TestClock();
let dir = '';
let cleanup = (): void => {};
let good: Buffer;
const file = (): string => path.join(dir, JOURNAL_FILE);

/** A key that is not the installation's. */
function foreignSigner(): Signer {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ type: 'spki', format: 'der' }).subarray(12).toString('base64');
  return { publicKey: raw, sign: (m) => sign(null, Buffer.from(m), privateKey).toString('base64') };
}

const splitLines = (buf: Buffer): string[] => buf.toString('utf8').split('\n').slice(0, -1);
const join = (ls: string[]): string => ls.map((l) => `${l}\n`).join('');
/** Rewrites one event and re-hashes it (and, if `rechain`, every event after it) the way a forger would. */
function forge(ls: string[], index: number, change: (e: JournalEvent) => void, rechain = false): string[] {
  const out = [...ls];
  let prev = index > 0 ? (JSON.parse(out[index - 1] ?? '') as JournalEvent).hash : '';
  for (let i = index; i < out.length; i++) {
    const e = JSON.parse(out[i] ?? '') as JournalEvent;
    if (i === index) change(e);
    else if (!rechain) break;
    e.prev = prev;
    e.hash = eventHash(e);
    prev = e.hash;
    out[i] = JSON.stringify(e);
  }
  return out;
}

before(async () => {
  ({ dir, cleanup } = tempDir('holon-verify-'));
  const j = openState(dir, { clock, logger: silentLogger, durable: false, watch: false });
  await fund(j, 'demo', '5');
  await setFx(j, 'USD', 'EUR', '0.92');
  await createMandate(j, clock, 'demo/sandbox', { grantee: { slug: 'zoe', name: 'Zoë – 東京', role: 'agent', manager: null } });
  await j.checkpoint(); // seq 4
  await fund(j, 'demo', '1.25');
  await j.transact(() => ({ events: [{ type: 'test.note', data: { list: [1, 2.5, true, null], nested: { s: 'x"y\\z' } } }], result: undefined }));
  await fund(j, 'demo', '2');
  j.close();
  good = fs.readFileSync(file());
});
after(() => cleanup());

describe('verifyJournal', () => {
  test('passes on a good journal, and reads without writing', () => {
    const report = verifyJournal(dir);
    const last = JSON.parse(splitLines(good).at(-1) ?? '') as JournalEvent;
    assert.deepEqual(report, { ok: true, events: 7, checkpoints: 1, signed_through: 4, unsigned: 3, head: last.hash });
    assert.deepEqual(fs.readFileSync(file()), good);
  });

  test('flipping any one byte inside an event’s data is caught, and names that event', () => {
    const ls = splitLines(good);
    try {
      for (const index of [2, 5]) {
        const lineStart = ls.slice(0, index).reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
        const line = Buffer.from(ls[index] ?? '');
        const from = line.indexOf('"data":') + '"data":'.length;
        const to = line.indexOf(',"prev":');
        assert.ok(from > 10 && to > from);
        for (let i = from; i < to; i++) {
          const bad = Buffer.from(good);
          bad[lineStart + i] = (bad[lineStart + i] ?? 0) ^ 0x01;
          fs.writeFileSync(file(), bad);
          const report = verifyJournal(dir);
          assert.equal(report.ok, false, `byte ${i} of line ${index + 1}`);
          assert.equal(report.first_bad?.line, index + 1, `byte ${i} of line ${index + 1}: ${JSON.stringify(report.first_bad)}`);
          assert.equal(report.first_bad?.seq, index + 1);
          assert.equal(report.events, index, 'the events before it are still counted as good');
        }
      }
    } finally {
      fs.writeFileSync(file(), good);
    }
  });

  test('an event altered and re-hashed breaks the link of the next one', () => {
    try {
      fs.writeFileSync(file(), join(forge(splitLines(good), 4, (e) => ((e.data as { amount: string }).amount = '1000'))));
      const report = verifyJournal(dir);
      assert.equal(report.ok, false);
      assert.deepEqual(report.first_bad && { line: report.first_bad.line, seq: report.first_bad.seq }, { line: 6, seq: 6 });
      assert.match(report.first_bad?.problem ?? '', /link/);
    } finally {
      fs.writeFileSync(file(), good);
    }
  });

  test('a history rewritten and re-hashed to the end is caught by the signed checkpoint', () => {
    try {
      fs.writeFileSync(file(), join(forge(splitLines(good), 0, (e) => ((e.data as { amount: string }).amount = '5000'), true)));
      const report = verifyJournal(dir);
      assert.equal(report.ok, false);
      assert.equal(report.first_bad?.line, 4, JSON.stringify(report.first_bad));
      assert.match(report.first_bad?.problem ?? '', /checkpoint/);
      // Fixing the checkpoint's head too leaves a signature that does not match it.
      const ls = forge(splitLines(good), 0, (e) => ((e.data as { amount: string }).amount = '5000'), true);
      const prevHash = (JSON.parse(ls[2] ?? '') as JournalEvent).hash;
      fs.writeFileSync(file(), join(forge(ls, 3, (e) => ((e.data as { head: string }).head = prevHash), true)));
      const again = verifyJournal(dir);
      assert.equal(again.first_bad?.line, 4);
      assert.match(again.first_bad?.problem ?? '', /signature is invalid/);
    } finally {
      fs.writeFileSync(file(), good);
    }
  });

  test('a checkpoint signed by another key is reported', async () => {
    const other = tempDir('holon-verify-key-');
    try {
      fs.cpSync(dir, other.dir, { recursive: true });
      const j = new FileJournal<HolonState>({ dir: other.dir, reducer: holonReducer, clock, logger: silentLogger, signer: foreignSigner(), durable: false, watch: false });
      await j.checkpoint();
      j.close();
      const report = verifyJournal(other.dir);
      assert.equal(report.ok, false);
      assert.deepEqual(report.first_bad && { line: report.first_bad.line, seq: report.first_bad.seq }, { line: 8, seq: 8 });
      assert.match(report.first_bad?.problem ?? '', /key/);
      assert.equal(report.signed_through, 4);
    } finally {
      other.cleanup();
    }
  });

  test('the installation key is the reference: replacing keys/ed25519.pem fails the old checkpoints', () => {
    const other = tempDir('holon-verify-key-');
    try {
      fs.cpSync(dir, other.dir, { recursive: true });
      const { privateKey } = generateKeyPairSync('ed25519');
      fs.writeFileSync(path.join(other.dir, KEY_FILE), privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
      const report = verifyJournal(other.dir);
      assert.equal(report.ok, false);
      assert.equal(report.first_bad?.line, 4);
    } finally {
      other.cleanup();
    }
  });

  test('a checkpoint whose signature was altered is reported', () => {
    try {
      const ls = forge(splitLines(good), 3, (e) => {
        const d = e.data as { sig: string; up_to: number; head: string };
        d.sig = foreignSigner().sign(checkpointMessage(d.up_to, d.head));
      });
      fs.writeFileSync(file(), join(ls));
      const report = verifyJournal(dir);
      assert.equal(report.first_bad?.line, 4);
      assert.match(report.first_bad?.problem ?? '', /signature is invalid/);
    } finally {
      fs.writeFileSync(file(), good);
    }
  });

  test('a deleted middle line is reported where it was', () => {
    try {
      const ls = splitLines(good);
      ls.splice(4, 1);
      fs.writeFileSync(file(), join(ls));
      const report = verifyJournal(dir);
      assert.equal(report.ok, false);
      assert.deepEqual(report.first_bad && { line: report.first_bad.line, seq: report.first_bad.seq }, { line: 5, seq: 5 });
      assert.match(report.first_bad?.problem ?? '', /sequence 6 where 5 was expected/);
      assert.equal(report.events, 4);
    } finally {
      fs.writeFileSync(file(), good);
    }
  });

  test('a duplicated line, a torn last line and a blank line are reported', () => {
    try {
      const ls = splitLines(good);
      fs.writeFileSync(file(), join([...ls.slice(0, 3), ls[2] ?? '', ...ls.slice(3)]));
      assert.equal(verifyJournal(dir).first_bad?.line, 4);
      fs.writeFileSync(file(), good.subarray(0, good.length - 10));
      // A torn last line is what a crash mid-append leaves, not tampering: the next writer repairs it.
      const torn = verifyJournal(dir);
      assert.equal(torn.ok, true);
      assert.equal(torn.events, 6);
      assert.deepEqual(torn.torn_tail, { bytes: (ls[6] ?? '').length + 1 - 10, whole_event: false });
      fs.writeFileSync(file(), join([...ls.slice(0, 2), '', ...ls.slice(2)]));
      assert.equal(verifyJournal(dir).first_bad?.line, 3);
    } finally {
      fs.writeFileSync(file(), good);
    }
  });

  test('a line that is valid JSON but not an object is reported, not a crash', () => {
    try {
      const ls = splitLines(good);
      for (const junk of ['null', '42', '"text"', '[]']) {
        fs.writeFileSync(file(), join([...ls.slice(0, 2), junk, ...ls.slice(3)]));
        const report = verifyJournal(dir);
        assert.equal(report.ok, false, junk);
        assert.equal(report.first_bad?.line, 3, junk);
      }
    } finally {
      fs.writeFileSync(file(), good);
    }
  });
});
