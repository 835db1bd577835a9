import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { fund } from '../../src/core/money/spend.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import { openState } from '../../src/core/holon.ts';
import type { JournalEvent, Signer } from '../../src/core/store/store.ts';
import { eventHash, seal, txMessage } from '../../src/core/store/store.ts';
import { JOURNAL_FILE } from '../../src/core/store/file/journal.ts';
import { KEY_FILE } from '../../src/core/store/keys.ts';
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
  await fund(j, 'demo', '1.25');
  // One transaction of two events (seq 5 and 6): its seal is on the second.
  await j.transact(() => ({ events: [{ type: 'test.note', data: { list: [1, 2.5, true, null], nested: { s: 'x"y\\z' } } }, { type: 'test.note', data: { n: 2 } }], result: undefined }));
  await fund(j, 'demo', '2');
  j.close();
  good = fs.readFileSync(file());
});
after(() => cleanup());

/** The report's refused transactions as [from, to, code]. */
const refusedOf = (r: ReturnType<typeof verifyJournal>): [number, number, string][] => r.refused.map((t) => [t.from, t.to, t.code]);

describe('verifyJournal', () => {
  test('flipping any one byte inside an event’s data is caught, and names that event', () => {
    const ls = splitLines(good);
    try {
      for (const index of [2, 4]) {
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
          const where = `byte ${i} of line ${index + 1}: ${JSON.stringify(report)}`;
          assert.equal(report.ok, false, where);
          // A line that no longer parses stops the check there; one that parses is not what its hash says:
          // its transaction is refused, and the check goes on past it.
          if (report.first_bad) assert.deepEqual([report.first_bad.line, report.first_bad.seq, report.events], [index + 1, index + 1, index], where);
          else assert.deepEqual(refusedOf(report), [[index + 1, index === 4 ? 6 : index + 1, 'altered']], where);
        }
      }
    } finally {
      fs.writeFileSync(file(), good);
    }
  });

  test('an event altered and re-hashed breaks the link of the next one', () => {
    try {
      fs.writeFileSync(file(), join(forge(splitLines(good), 3, (e) => ((e.data as { amount: string }).amount = '1000'))));
      const report = verifyJournal(dir);
      assert.equal(report.ok, false);
      assert.deepEqual(report.first_bad && { line: report.first_bad.line, seq: report.first_bad.seq }, { line: 5, seq: 5 });
      assert.match(report.first_bad?.problem ?? '', /link/);
    } finally {
      fs.writeFileSync(file(), good);
    }
  });

  test('a history rewritten and re-hashed to the end is caught: every seal from the edit on signs other hashes', () => {
    try {
      fs.writeFileSync(file(), join(forge(splitLines(good), 0, (e) => ((e.data as { amount: string }).amount = '5000'), true)));
      const report = verifyJournal(dir);
      assert.equal(report.ok, false);
      assert.equal(report.first_bad, undefined);
      assert.deepEqual(refusedOf(report), [[1, 1, 'bad_seal'], [2, 2, 'bad_seal'], [3, 3, 'bad_seal'], [4, 4, 'bad_seal'], [5, 6, 'bad_seal'], [7, 7, 'bad_seal']]);
      assert.equal(report.transactions, 0, 'nothing is folded');
    } finally {
      fs.writeFileSync(file(), good);
    }
  });

  test('a transaction sealed by another key is reported', async () => {
    const other = tempDir('holon-verify-key-');
    try {
      fs.cpSync(dir, other.dir, { recursive: true });
      const ls = splitLines(good);
      const last = JSON.parse(ls.at(-1) ?? '') as JournalEvent;
      const base = { seq: 8, time: last.time, type: 'account.funded', data: { account: 'demo', amount: '9', currency: 'EUR' }, prev: last.hash };
      const [forged] = seal([{ ...base, hash: eventHash(base) }], foreignSigner());
      fs.writeFileSync(path.join(other.dir, JOURNAL_FILE), join([...ls, JSON.stringify(forged)]));
      const report = verifyJournal(other.dir);
      assert.equal(report.ok, false);
      assert.deepEqual(refusedOf(report), [[8, 8, 'foreign_key']]);
      assert.equal(report.signed_through, 7);
    } finally {
      other.cleanup();
    }
  });

  test('the installation key is the reference: replacing keys/ed25519.pem fails every seal', () => {
    const other = tempDir('holon-verify-key-');
    try {
      fs.cpSync(dir, other.dir, { recursive: true });
      const { privateKey } = generateKeyPairSync('ed25519');
      fs.writeFileSync(path.join(other.dir, KEY_FILE), privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
      const report = verifyJournal(other.dir);
      assert.equal(report.ok, false);
      assert.equal(report.refused_count, 6);
      assert.ok(report.refused.every((r) => r.code === 'foreign_key'));
    } finally {
      other.cleanup();
    }
  });

  test('a seal whose signature was replaced is reported', () => {
    try {
      const ls = splitLines(good);
      const e = JSON.parse(ls[3] ?? '') as JournalEvent;
      e.tx = { ...e.tx!, sig: foreignSigner().sign(txMessage(e.tx!.from, e.seq, e.hash)) };
      ls[3] = JSON.stringify(e);
      fs.writeFileSync(file(), join(ls));
      const report = verifyJournal(dir);
      assert.deepEqual(refusedOf(report), [[4, 4, 'bad_seal']]);
    } finally {
      fs.writeFileSync(file(), good);
    }
  });

  test('a deleted middle line is reported where it was', () => {
    try {
      const ls = splitLines(good);
      ls.splice(3, 1);
      fs.writeFileSync(file(), join(ls));
      const report = verifyJournal(dir);
      assert.equal(report.ok, false);
      assert.deepEqual(report.first_bad && { line: report.first_bad.line, seq: report.first_bad.seq }, { line: 4, seq: 4 });
      assert.match(report.first_bad?.problem ?? '', /sequence 5 where 4 was expected/);
      assert.equal(report.events, 3);
    } finally {
      fs.writeFileSync(file(), good);
    }
  });

  test('a duplicated line, a torn last transaction and a blank line are reported', () => {
    try {
      const ls = splitLines(good);
      fs.writeFileSync(file(), join([...ls.slice(0, 3), ls[2] ?? '', ...ls.slice(3)]));
      assert.equal(verifyJournal(dir).first_bad?.line, 4);
      // A transaction cut short is what a crash mid-append leaves, not tampering: the next writer removes it.
      const sixth = join(ls.slice(0, 6)).length;
      fs.writeFileSync(file(), Buffer.concat([Buffer.from(join(ls.slice(0, 5))), Buffer.from(ls[5] ?? '').subarray(0, 10)]));
      const torn = verifyJournal(dir);
      assert.equal(torn.ok, true);
      assert.equal(torn.events, 5);
      assert.equal(torn.signed_through, 4);
      assert.deepEqual(torn.torn_tail, { bytes: 10, events: 1, whole_event: false });
      assert.ok(sixth > 0);
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
