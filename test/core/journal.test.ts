import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { fund } from '../../src/core/money/spend.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { openFileJournal } from '../../src/core/holon.ts';
import type { JournalEvent } from '../../src/core/store/store.ts';
import { checkpointMessage, eventHash, parseEventLine, seal, txMessage } from '../../src/core/store/store.ts';
import type { FileJournal } from '../../src/core/store/file/journal.ts';
import { JOURNAL_FILE, SNAPSHOT_FILE } from '../../src/core/store/file/journal.ts';
import { INDEX_FILE } from '../../src/core/store/file/journalIndex.ts';
import { readReceipt, receiptTree, recentRootReceipts } from '../../src/core/market/receiptTree.ts';
import type { Receipt } from '../../src/core/kernel/model.ts';
import { readSections, resign } from '../store/snapshotFiles.ts';
import { JournalLock } from '../../src/core/store/file/lock.ts';
import { loadOrCreateSigner, verifySignature } from '../../src/core/store/keys.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { verifyJournal } from '../../src/core/verify.ts';
import { verifyText } from '../../src/core/store/verify.ts';
import { HANG_MS, ROOT, tempDir, TestClock, until } from '../helpers.ts';
import { runningReceipt, stateText } from './fixtures.ts';

const clock = new TestClock();
const cleanups: (() => void)[] = [];
const journals: FileJournal<HolonState>[] = [];
after(() => {
  for (const j of journals) j.close();
  for (const c of cleanups) c();
});

function newDir(): string {
  const t = tempDir('holon-journal-');
  cleanups.push(t.cleanup);
  return t.dir;
}

/** How many wait in the queue of the coordinator `lock` runs: only the coordinator knows who waits, and in what order. */
function waitingAt(lock: JournalLock): number {
  const queued = lock.queued;
  assert.ok(queued !== undefined, 'this lock coordinates');
  return queued;
}

function open(dir: string, extra: { watch?: boolean; snapshotEvery?: number } = {}): FileJournal<HolonState> {
  const j = openFileJournal(dir, { clock, logger: silentLogger, durable: false, watch: false, ...extra });
  journals.push(j);
  return j;
}


const journalFile = (dir: string): string => path.join(dir, JOURNAL_FILE);
const lines = (dir: string): JournalEvent[] =>
  fs
    .readFileSync(journalFile(dir), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as JournalEvent);
const append = (j: FileJournal<HolonState>, type: string, data: unknown): Promise<void> => j.transact(() => ({ events: [{ type, data }], result: undefined }));

describe('FileJournal: append, fold, tail', () => {
  test('appends are folded into the state, numbered from 1 and hash-linked', async () => {
    const dir = newDir();
    const j = open(dir);
    assert.equal(j.seq, 0);
    await fund(j, 'demo', '2');
    await fund(j, 'demo', '0.5');
    await setFx(j, 'USD', 'EUR', '0.92');
    const result = await j.transact(() => ({ events: [{ type: 'test.a', data: 1 }, { type: 'test.b', data: { x: 'é' } }], result: 'value' }));
    assert.equal(result, 'value');
    assert.equal(j.seq, 5);
    assert.equal(j.state.accounts['demo']?.funded['EUR'], 2_500_000n);
    assert.equal(j.state.fx['USD/EUR'], '0.92');
    const events = lines(dir);
    assert.deepEqual(events.map((e) => e.seq), [1, 2, 3, 4, 5]);
    assert.deepEqual(events.map((e) => e.type), ['account.funded', 'account.funded', 'fx.set', 'test.a', 'test.b']);
    let prev = '';
    for (const e of events) {
      assert.equal(e.prev, prev, `event ${e.seq} links to the one before`);
      assert.equal(e.hash, eventHash(e), `event ${e.seq} carries its own hash`);
      assert.equal(e.time, new Date(clock.now()).toISOString());
      prev = e.hash;
    }
    // Each transaction's last event carries its seal, by this installation's key, over the whole transaction.
    const key = loadOrCreateSigner(dir).publicKey;
    assert.deepEqual(events.map((e) => e.tx?.from ?? null), [1, 2, 3, null, 4]);
    for (const e of events.filter((x) => x.tx)) {
      assert.equal(e.tx?.key, key);
      assert.ok(verifySignature(key, txMessage(e.tx!.from, e.seq, e.hash), e.tx!.sig), `the seal of event ${e.seq} verifies`);
    }
    assert.deepEqual(verifyJournal(dir), { ok: true, events: 5, transactions: 4, signed_through: 5, unsigned: 0, head: prev, refused: [], refused_count: 0 });
  });

  test('a reopened journal folds to the same state', async () => {
    const dir = newDir();
    const j = open(dir);
    await fund(j, 'demo', '5');
    await createMandate(j, clock, 'demo/sandbox', {});
    await setFx(j, 'USD', 'EUR', '0.92');
    j.close();
    const k = open(dir);
    assert.equal(k.seq, 3);
    assert.equal(stateText(k.state), stateText(j.state));
  });

  test('refresh() reads what another journal appended, once', async () => {
    const dir = newDir();
    const a = open(dir);
    const b = open(dir);
    assert.deepEqual(b.refresh(), []);
    await fund(a, 'demo', '1');
    await fund(a, 'demo', '1');
    const got: number[] = [];
    b.subscribe((events) => got.push(...events.map((e) => e.seq)));
    const events = b.refresh();
    assert.deepEqual(events.map((e) => e.seq), [1, 2]);
    assert.deepEqual(got, [1, 2]);
    assert.equal(b.seq, 2);
    assert.deepEqual(b.refresh(), []);
    b.close();
    await fund(a, 'demo', '1');
    assert.deepEqual(b.refresh(), [], 'a closed journal reads nothing');
  });

  test('two processes append concurrently under the lock without losing or tearing events', async () => {
    const dir = newDir();
    const j = open(dir);
    await fund(j, 'demo', '1');
    const script = `
      const { openState } = require(${JSON.stringify(path.join(ROOT, 'src/core/holon.ts'))});
      const j = openState(process.argv[1], { clock: { now: () => Date.now() }, logger: { info() {}, warn() {}, error() {} }, durable: false, watch: false });
      process.stdout.write('ready\\n');
      (async () => {
        for (let i = 0; i < 150; i++) await j.transact(() => ({ events: [{ type: 'test.append', data: { by: 'child', i } }], result: undefined }));
        j.close();
      })();
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script, dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await until(() => out.includes('ready') || child.exitCode !== null, 'the child to start');
    for (let i = 0; i < 150; i++) {
      await append(j, 'test.append', { by: 'parent', i });
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(await exited, 0, err);
    j.refresh();
    const events = lines(dir);
    for (const by of ['parent', 'child']) {
      const mine = events.filter((e) => e.type === 'test.append' && (e.data as { by: string }).by === by).map((e) => (e.data as { i: number }).i);
      assert.deepEqual(mine, Array.from({ length: 150 }, (_, i) => i), by);
    }
    assert.equal(j.seq, events.length);
    const report = verifyJournal(dir);
    assert.equal(report.ok, true, JSON.stringify(report.first_bad));
  });
});

describe('FileJournal: a transaction is on disk whole or not at all', () => {
  test('a journal cut at every byte of its last transaction (several events) opens without any of it, and the first writer removes all of it', async () => {
    const dir = newDir();
    const j = open(dir);
    await fund(j, 'demo', '1');
    await fund(j, 'demo', '1');
    await fund(j, 'demo', '1');
    // The last transaction: three events, with multi-byte characters, so some cuts fall inside a character.
    await j.transact(() => ({
      events: [
        { type: 'account.funded', data: { account: 'demo', amount: '7', currency: 'EUR' } },
        { type: 'test.note', data: { text: 'café-€-東京'.repeat(4) } },
        { type: 'fx.set', data: { from: 'USD', to: 'EUR', rate: '0.9' } },
      ],
      result: undefined,
    }));
    j.close();
    const N = j.seq;
    assert.equal(N, 6);
    const full = fs.readFileSync(journalFile(dir));
    const complete = full.subarray(0, full.indexOf(Buffer.from('{"seq":4,')));
    const txStart = complete.length;
    const lineEnds = [...full.subarray(txStart)].flatMap((b, i) => (b === 10 ? [txStart + i + 1] : []));
    assert.equal(lineEnds.length, 3);

    for (let cut = txStart; cut < full.length; cut++) {
      fs.writeFileSync(journalFile(dir), full.subarray(0, cut));
      const k = open(dir);
      const where = `cut at ${cut} (${cut - txStart} bytes into the last transaction)`;
      // Opening only reads: the cut bytes may be another process's append in flight. None of it is folded.
      assert.equal(k.seq, N - 3, where);
      assert.equal(k.state.accounts['demo']?.funded['EUR'], 3_000_000n, where);
      assert.equal(k.state.fx['USD/EUR'], undefined, where);
      assert.deepEqual(fs.readFileSync(journalFile(dir)), full.subarray(0, cut), `${where}: opening changes nothing`);
      // The first writer, holding the lock, repairs it.
      await fund(k, 'demo', '1');
      const after = fs.readFileSync(journalFile(dir));
      assert.deepEqual(after.subarray(0, txStart), complete, `${where}: complete transactions are kept byte for byte`);
      assert.equal(after[after.length - 1], 10, `${where}: the file ends with a newline`);
      const afterLines = after.toString('utf8').split('\n').filter((l) => l.length > 0);
      if (cut === txStart) {
        // Nothing torn: the new transaction follows the first three.
        assert.equal(k.seq, N - 2, where);
        assert.equal(k.state.accounts['demo']?.funded['EUR'], 4_000_000n, where);
      } else if (cut === full.length - 1) {
        // Only the last newline was lost: the whole transaction is completed, not thrown away.
        assert.equal(k.seq, N + 1, where);
        assert.deepEqual(after.subarray(0, full.length), full);
        assert.equal(k.state.fx['USD/EUR'], '0.9', where);
        assert.equal(k.state.accounts['demo']?.funded['EUR'], 11_000_000n, where);
      } else {
        // All of it is cut off — the whole lines of it too — and the repair is itself recorded.
        assert.equal(k.seq, N - 1, where);
        assert.equal(k.state.fx['USD/EUR'], undefined, where);
        assert.equal(k.state.accounts['demo']?.funded['EUR'], 4_000_000n, where);
        const repairedAs = parseEventLine(afterLines[N - 3] ?? '');
        assert.equal(repairedAs?.type, 'journal.repaired', where);
        assert.deepEqual(repairedAs?.data, { after_seq: N - 3, removed_bytes: cut - txStart, removed_events: lineEnds.filter((e) => e <= cut).length }, where);
      }
      const seqAfter: number = k.seq;
      k.close();
      const report = verifyJournal(dir);
      assert.equal(report.ok, true, `${where}: ${verifyText(report)}`);
      assert.equal(report.events, seqAfter);
    }
  });

  test('a reader that is not writing leaves a torn tail alone until it holds the lock', async () => {
    const dir = newDir();
    const j = open(dir);
    await fund(j, 'demo', '1');
    const reader = open(dir);
    // A writer is half-way through its line (it holds the lock; the reader does not).
    fs.appendFileSync(journalFile(dir), '{"seq":2,"time":"2026-');
    const torn = fs.readFileSync(journalFile(dir));
    assert.deepEqual(reader.refresh(), []);
    assert.deepEqual(fs.readFileSync(journalFile(dir)), torn, 'refresh never cuts a line another process may be writing');
    assert.equal(reader.seq, 1);
  });

  test('a broken line in the middle is refused as corrupt_journal, not skipped', async () => {
    const dir = newDir();
    const j = open(dir);
    await fund(j, 'demo', '1');
    await fund(j, 'demo', '1');
    await fund(j, 'demo', '1');
    j.close();
    const text = fs.readFileSync(journalFile(dir), 'utf8').split('\n');
    text[1] = '{"seq":2,"broken"';
    fs.writeFileSync(journalFile(dir), text.join('\n'));
    const before = fs.readFileSync(journalFile(dir));
    assert.throws(() => open(dir), (err: unknown) => HolonError.is(err, 'corrupt_journal') && (err.details as { after_seq: number }).after_seq === 1);
    assert.deepEqual(fs.readFileSync(journalFile(dir)), before, 'a corrupt journal is never rewritten');
  });
});

describe('FileJournal: snapshots', () => {
  async function build(dir: string, n: number, snapshotEvery = 5): Promise<FileJournal<HolonState>> {
    const j = open(dir, { snapshotEvery });
    await createMandate(j, clock, 'demo/sandbox', {});
    for (let i = 0; i < n; i++) await fund(j, 'demo', '1');
    // Snapshots are written in a worker, off the caller's path.
    await j.snapshotWritten();
    return j;
  }

  const snapshotParts = (dir: string): { header: string; body: string } => {
    const text = fs.readFileSync(path.join(dir, SNAPSHOT_FILE), 'utf8');
    const nl = text.indexOf('\n');
    return { header: text.slice(0, nl), body: text.slice(nl + 1) };
  };
  const header = (dir: string): { seq: number; offset: number; hash: string } => JSON.parse(snapshotParts(dir).header) as { seq: number; offset: number; hash: string };

  /** A journal that remembers what it warned about. */
  function openWarned(dir: string): { j: FileJournal<HolonState>; warnings: string[] } {
    const warnings: string[] = [];
    const j = openFileJournal(dir, { clock, logger: { ...silentLogger, warn: (m: string) => warnings.push(m) }, durable: false, watch: false, snapshotEvery: 0 });
    journals.push(j);
    return { j, warnings };
  }

  test('with a small snapshotEvery a snapshot is written, and a reopened journal has the same state', async () => {
    const dir = newDir();
    const j = await build(dir, 11);
    j.close();
    assert.ok(fs.existsSync(path.join(dir, SNAPSHOT_FILE)));
    const h = header(dir);
    assert.ok(h.seq >= 5 && h.seq <= 12, `snapshot at seq ${h.seq}`);
    const events = lines(dir);
    assert.equal(h.hash, events[h.seq - 1]?.hash);
    assert.equal(h.offset, Buffer.byteLength(fs.readFileSync(journalFile(dir), 'utf8').split('\n').slice(0, h.seq).join('\n')) + 1);
    const k = open(dir, { snapshotEvery: 5 });
    assert.equal(k.seq, 12);
    assert.equal(stateText(k.state), stateText(j.state));
    // The chain continues from the snapshot's position.
    await fund(k, 'demo', '1');
    assert.equal(verifyJournal(dir).ok, true);
    assert.equal(verifyJournal(dir).snapshot?.ok, true);
    assert.equal(k.state.accounts['demo']?.funded['EUR'], 12_000_000n);
  });

  test('a snapshot written by a build without a slice is used: that slice alone is folded from the journal, and verify passes', async () => {
    const dir = newDir();
    const j = await build(dir, 9);
    j.close();
    const { header: h, sections } = readSections(dir);
    sections.delete('office');
    // Signed by this installation, bound to this journal: only the missing section says an older build wrote it.
    resign(dir, h, sections, loadOrCreateSigner(dir));
    const { j: k, warnings } = openWarned(dir);
    assert.deepEqual(warnings, []);
    assert.ok(k.state.office, 'the new slice is folded from the journal');
    assert.equal(stateText(k.state), stateText(j.state));
    assert.equal(k.seq, 10);
    k.close();
    const report = verifyJournal(dir);
    assert.equal(report.ok, true);
  });

  test('a snapshot signed with the installation key is used instead of folding from the start', async () => {
    const dir = newDir();
    const j = await build(dir, 9);
    j.close();
    // Mark the snapshot's state and sign it as Holon would: only a journal that loaded it knows the marker.
    const { header: h, sections } = readSections(dir);
    const fx = JSON.parse(sections.get('fx')!) as { fx: Record<string, string> };
    fx.fx['TST/EUR'] = '7.00';
    sections.set('fx', JSON.stringify(fx));
    resign(dir, h, sections, loadOrCreateSigner(dir));
    const { j: k, warnings } = openWarned(dir);
    assert.deepEqual(warnings, []);
    assert.equal(k.state.fx['TST/EUR'], '7.00');
    assert.equal(k.seq, 10);
    // The offline check folds the journal, and sees the state is not the history's.
    const report = verifyJournal(dir);
    assert.equal(report.ok, false);
    assert.equal(report.snapshot?.ok, false);
  });

  test('an edited snapshot section is not used, with a warning: that slice is folded from the journal', async () => {
    const dir = newDir();
    const j = await build(dir, 9);
    j.close();
    const { header: h, sections, bodyAt } = readSections(dir);
    const place = h.sections.find((s) => s.name === 'fx')!;
    const edited = sections.get('fx')!.replace('{"fx":{', '{"fx":{"TST/EUR":"7.00",');
    const file = fs.readFileSync(path.join(dir, SNAPSHOT_FILE));
    // Same length, so every other section stays where the header says.
    const patch = Buffer.from(edited).subarray(0, place.length);
    fs.writeFileSync(path.join(dir, SNAPSHOT_FILE), Buffer.concat([file.subarray(0, bodyAt + place.offset), patch, file.subarray(bodyAt + place.offset + place.length)]));
    const { j: k, warnings } = openWarned(dir);
    assert.equal(k.state.fx['TST/EUR'], undefined);
    assert.equal(stateText(k.state), stateText(j.state));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /snapshot/);
    const report = verifyJournal(dir);
    assert.deepEqual({ ok: report.ok, chain: report.first_bad, snapshot: report.snapshot?.ok }, { ok: false, chain: undefined, snapshot: false });
  });

  test('a snapshot that does not match the journal is ignored', async () => {
    const dir = newDir();
    const j = await build(dir, 9);
    j.close();
    const snapshot = fs.readFileSync(path.join(dir, SNAPSHOT_FILE));
    // Another journal of this installation, as long or longer, with other events: same offsets, different hashes.
    const other = newDir();
    fs.cpSync(path.join(dir, 'keys'), path.join(other, 'keys'), { recursive: true });
    const o = open(other, { snapshotEvery: 0 });
    await createMandate(o, clock, 'demo/other', {});
    for (let i = 0; i < 12; i++) await fund(o, 'demo', '2');
    o.close();
    fs.copyFileSync(journalFile(other), journalFile(dir));
    const k = open(dir, { snapshotEvery: 0 });
    assert.equal(k.seq, 13);
    assert.equal(k.state.mandates['demo/sandbox'], undefined);
    assert.equal(k.state.accounts['demo']?.funded['EUR'], 24_000_000n);
    assert.equal(stateText(k.state), stateText(o.state));
    k.close();

    // A journal shorter than the snapshot's offset.
    fs.writeFileSync(path.join(dir, SNAPSHOT_FILE), snapshot);
    const firstTwo = fs.readFileSync(journalFile(other), 'utf8').split('\n').slice(0, 2).join('\n') + '\n';
    fs.writeFileSync(journalFile(dir), firstTwo);
    const s = open(dir, { snapshotEvery: 0 });
    assert.equal(s.seq, 2);
    assert.equal(s.state.accounts['demo']?.funded['EUR'], 2_000_000n);
    s.close();

    // A snapshot that is not even JSON.
    fs.writeFileSync(path.join(dir, SNAPSHOT_FILE), 'garbage');
    const g = open(dir, { snapshotEvery: 0 });
    assert.equal(g.seq, 2);
    assert.equal(g.state.accounts['demo']?.funded['EUR'], 2_000_000n);
  });
});

describe('FileJournal: every line read is checked before it is folded', () => {
  test('a line edited in place (re-hashed or not) stops the store, naming the line; nothing is acted on', async () => {
    for (const rehash of [false, true]) {
      const dir = newDir();
      const j = open(dir);
      await fund(j, 'demo', '1');
      await fund(j, 'demo', '1');
      const reader = open(dir);
      await fund(j, 'demo', '1');
      await fund(j, 'demo', '1');
      j.close();
      // The third event, which the reader has not read yet, now funds 1000. Re-hashed, it no longer
      // links to the fourth; otherwise it does not match its own hash.
      const ls = fs.readFileSync(journalFile(dir), 'utf8').split('\n');
      const e = JSON.parse(ls[2] ?? '') as JournalEvent;
      (e.data as { amount: string }).amount = '1000';
      if (rehash) e.hash = eventHash(e);
      ls[2] = JSON.stringify(e);
      fs.writeFileSync(journalFile(dir), ls.join('\n'));
      const line = rehash ? 4 : 3;
      const broken: Error[] = [];
      reader.onBroken((err) => broken.push(err));
      assert.throws(() => reader.refresh(), (err: unknown) => HolonError.is(err, 'corrupt_journal') && (err.details as { line: number }).line === line);
      assert.equal(broken.length, 1);
      assert.equal(reader.seq, 2, 'nothing after the last good event was folded');
      assert.equal(reader.state.accounts['demo']?.funded['EUR'], 2_000_000n, 'the edit was not folded');
      await assert.rejects(fund(reader, 'demo', '1'), (err: unknown) => HolonError.is(err, 'corrupt_journal'));
      // A new process refuses the journal at open.
      assert.throws(() => open(dir), (err: unknown) => HolonError.is(err, 'corrupt_journal') && (err.details as { line: number }).line === line);
      // Offline, an event that is not what its hash says is reported and the check goes on (its transaction
      // refused); a link that breaks stops it there.
      const report = verifyJournal(dir);
      assert.equal(report.ok, false);
      assert.equal(rehash ? report.first_bad?.line : report.refused[0]?.from, line);
    }
  });
});

describe('holon verify and a torn last line', () => {
  test('a torn last line is reported as an interrupted append the next writer repairs, not as tampering', async () => {
    const dir = newDir();
    const j = open(dir);
    await fund(j, 'demo', '1');
    await fund(j, 'demo', '1');
    j.close();
    const full = fs.readFileSync(journalFile(dir));
    const lastStart = full.lastIndexOf(10, full.length - 2) + 1;
    fs.writeFileSync(journalFile(dir), full.subarray(0, lastStart + 20));
    const torn = verifyJournal(dir);
    assert.deepEqual({ ok: torn.ok, events: torn.events, bad: torn.first_bad, tail: torn.torn_tail }, { ok: true, events: 1, bad: undefined, tail: { bytes: 20, events: 0, whole_event: false } });
    fs.writeFileSync(journalFile(dir), full.subarray(0, full.length - 1));
    assert.deepEqual(verifyJournal(dir).torn_tail, { bytes: full.length - 1 - lastStart, events: 0, whole_event: true });
    // An altered last line that still ends in a newline is tampering.
    fs.writeFileSync(journalFile(dir), Buffer.concat([full.subarray(0, lastStart + 20), Buffer.from('\n')]));
    const altered = verifyJournal(dir);
    assert.equal(altered.ok, false);
    assert.equal(altered.first_bad?.line, 2);
    assert.equal(altered.torn_tail, undefined);
  });
});

describe('FileJournal: only what this installation sealed is acted on', () => {
  /** A journal of `n` funds and a widening edit of its second event, re-hashed to the end as an agent with file access (no key) could. */
  async function rewritten(dir: string, keepSeals: boolean): Promise<string> {
    const j = open(dir);
    await createMandate(j, clock, 'demo/sandbox', { budget: { total: '1.00' } });
    for (let i = 0; i < 4; i++) {
      clock.advance(1000);
      await fund(j, 'demo', '1');
    }
    j.close();
    let prev = '';
    const out = lines(dir).map((e) => {
      if (e.type === 'mandate.created') (e.data as { mandate: { budget: { total: string } } }).mandate.budget.total = '500.00';
      const base = { seq: e.seq, time: e.time, type: e.type, data: e.data, prev };
      const next = { ...base, hash: eventHash(base), ...(keepSeals && e.tx ? { tx: e.tx } : {}) };
      prev = next.hash;
      return JSON.stringify(next);
    });
    fs.writeFileSync(journalFile(dir), out.join('\n') + '\n');
    return dir;
  }

  test('a journal edited and re-hashed, its seals dropped, is refused by every process as corrupt_journal, and by verify', async () => {
    const dir = await rewritten(newDir(), false);
    const before = fs.readFileSync(journalFile(dir));
    assert.throws(() => open(dir), (err: unknown) => HolonError.is(err, 'corrupt_journal') && /rewritten/.test((err as Error).message));
    assert.deepEqual(fs.readFileSync(journalFile(dir)), before, 'a rewritten journal is never repaired away');
    const report = verifyJournal(dir);
    assert.equal(report.ok, false);
    assert.equal(report.refused[0]?.code, 'unsealed');
  });

  test('a journal edited and re-hashed with its seals kept is refused: the seals sign the old hashes', async () => {
    const dir = await rewritten(newDir(), true);
    assert.throws(() => open(dir), (err: unknown) => HolonError.is(err, 'corrupt_journal') && /seal/.test((err as Error).message));
    const report = verifyJournal(dir);
    assert.equal(report.ok, false);
    assert.ok(report.refused.every((r) => r.code === 'bad_seal'), JSON.stringify(report.refused));
    assert.equal(report.refused_count, 5, 'every transaction is reported');
  });

  test('transactions sealed by another key (re-signed without this installation\'s key) are refused', async () => {
    const dir = newDir();
    const j = open(dir);
    await fund(j, 'demo', '1');
    j.close();
    // Someone with another key appends money, correctly linked and sealed by their key.
    const last = lines(dir).at(-1)!;
    const base = { seq: 2, time: last.time, type: 'account.funded', data: { account: 'demo', amount: '1000', currency: 'EUR' }, prev: last.hash };
    const [forged] = seal([{ ...base, hash: eventHash(base) }], loadOrCreateSigner(newDir()));
    fs.appendFileSync(journalFile(dir), JSON.stringify(forged) + '\n');
    assert.throws(() => open(dir), (err: unknown) => HolonError.is(err, 'corrupt_journal') && /not this installation/.test((err as Error).message));
    const report = verifyJournal(dir);
    assert.deepEqual(report.refused.map((r) => r.code), ['foreign_key']);
    assert.equal(report.ok, false);
  });

  test('events appended with no seal (a forged tail) are never folded; the next writer removes them as a cut transaction', async () => {
    const dir = newDir();
    const j = open(dir);
    await fund(j, 'demo', '1');
    const last = lines(dir).at(-1)!;
    const base = { seq: 2, time: last.time, type: 'account.funded', data: { account: 'demo', amount: '1000', currency: 'EUR' }, prev: last.hash };
    fs.appendFileSync(journalFile(dir), JSON.stringify({ ...base, hash: eventHash(base) }) + '\n');
    const k = open(dir);
    assert.equal(k.state.accounts['demo']?.funded['EUR'], 1_000_000n, 'the unsealed event is not folded');
    await fund(k, 'demo', '1');
    assert.equal(k.state.accounts['demo']?.funded['EUR'], 2_000_000n);
    assert.equal(lines(dir).some((e) => (e.data as { amount?: string }).amount === '1000'), false);
  });

  test('a journal written before every transaction was sealed (checkpoints now and then) still opens and verifies', async () => {
    const dir = newDir();
    const signer = loadOrCreateSigner(dir);
    const time = new Date(clock.now()).toISOString();
    const out: JournalEvent[] = [];
    const push = (type: string, data: unknown): void => {
      const base = { seq: out.length + 1, time, type, data, prev: out.at(-1)?.hash ?? '' };
      out.push({ ...base, hash: eventHash(base) });
    };
    push('account.funded', { account: 'demo', amount: '1', currency: 'EUR' });
    push('account.funded', { account: 'demo', amount: '2', currency: 'EUR' });
    push('checkpoint', { up_to: 2, head: out[1]!.hash, key: signer.publicKey, sig: signer.sign(checkpointMessage(2, out[1]!.hash)) });
    fs.writeFileSync(journalFile(dir), out.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const j = open(dir);
    assert.equal(j.state.accounts['demo']?.funded['EUR'], 3_000_000n);
    await fund(j, 'demo', '1');
    assert.equal(j.state.accounts['demo']?.funded['EUR'], 4_000_000n);
    const report = verifyJournal(dir);
    assert.deepEqual({ ok: report.ok, transactions: report.transactions, signed_through: report.signed_through }, { ok: true, transactions: 2, signed_through: 4 });
  });

  test('such a journal whose last process was killed: what it left unsigned is removed like a cut transaction, unless it is more than that process could leave', async () => {
    /** A journal of the checkpointed format: a signed checkpoint after one fund, then `unsigned` funds minutes apart. */
    const legacy = (dir: string, unsigned: number): void => {
      const signer = loadOrCreateSigner(dir);
      const out: JournalEvent[] = [];
      const push = (type: string, data: unknown, minute: number): void => {
        const base = { seq: out.length + 1, time: new Date(Date.parse('2026-11-01T10:00:00Z') + minute * 60_000).toISOString(), type, data, prev: out.at(-1)?.hash ?? '' };
        out.push({ ...base, hash: eventHash(base) });
      };
      push('account.funded', { account: 'demo', amount: '1', currency: 'EUR' }, 0);
      push('checkpoint', { up_to: 1, head: out[0]!.hash, key: signer.publicKey, sig: signer.sign(checkpointMessage(1, out[0]!.hash)) }, 0);
      for (let i = 0; i < unsigned; i++) push('account.funded', { account: 'demo', amount: '1', currency: 'EUR' }, i + 1);
      fs.writeFileSync(journalFile(dir), out.map((e) => JSON.stringify(e)).join('\n') + '\n');
    };
    const dir = newDir();
    legacy(dir, 3);
    const j = open(dir);
    assert.equal(j.state.accounts['demo']?.funded['EUR'], 1_000_000n, 'only what a checkpoint signed is folded');
    assert.equal(verifyJournal(dir).torn_tail?.events, 3);
    await fund(j, 'demo', '1');
    assert.equal(j.state.accounts['demo']?.funded['EUR'], 2_000_000n);
    assert.equal(verifyJournal(dir).ok, true);
    const many = newDir();
    legacy(many, 150);
    assert.throws(() => open(many), (err: unknown) => HolonError.is(err, 'corrupt_journal') && /rewritten/.test((err as Error).message));
  });
});

describe('FileJournal: the lock', () => {
  const lockFile = (dir: string): string => path.join(dir, 'journal.lock');

  /**
   * A child process running `body` (CommonJS, with `dir` and `journal`, `lock` modules in scope); it says
   * what it does on stdout, and waits for what the test tells it on stdin (`heard`) or until it is killed
   * (`holdOn`): never for a time, which a busy machine could outlast.
   */
  function child(dir: string, body: string): { proc: ReturnType<typeof spawn>; said: (line: string) => Promise<void>; has: (line: string) => boolean; tell: (line: string) => void; exited: Promise<number | null> } {
    const script = `
      const dir = process.argv[1];
      const { openState } = require(${JSON.stringify(path.join(ROOT, 'src/core/holon.ts'))});
      const { JournalLock, acquireFileLock } = require(${JSON.stringify(path.join(ROOT, 'src/core/store/file/lock.ts'))});
      const say = (w) => process.stdout.write(w + '\\n');
      let told;
      const waiters = [];
      const heard = (w) => {
        if (told === undefined) {
          told = '';
          process.stdin.setEncoding('utf8');
          process.stdin.on('data', (d) => { told += d; for (const wake of waiters.splice(0)) wake(); });
        }
        return new Promise((resolve) => { const check = () => (told.split('\\n').includes(w) ? resolve() : waiters.push(check)); check(); });
      };
      const holdOn = () => new Promise(() => setInterval(() => {}, 60_000));
      (async () => { ${body} })().catch((e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });
    `;
    const proc = spawn(process.execPath, ['--import', 'tsx', '-e', script, dir], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    cleanups.push(() => proc.kill('SIGKILL'));
    const has = (line: string): boolean => out.split('\n').includes(line);
    const said = async (line: string): Promise<void> => {
      await until(() => {
        if (!has(line) && proc.exitCode !== null) throw new Error(`the child exited before saying ${line}: ${err}`);
        return has(line);
      }, `the child to say ${line}`);
    };
    const tell = (line: string): void => void proc.stdin?.write(`${line}\n`);
    return { proc, said, has, tell, exited };
  }

  test('an election lock naming a dead process is broken', async () => {
    const dir = newDir();
    const j = open(dir);
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    assert.ok(dead && dead > 0);
    fs.writeFileSync(lockFile(dir), `${dead} ${Date.now()}`);
    await fund(j, 'demo', '1');
    assert.equal(j.seq, 1);
    assert.equal(fs.existsSync(lockFile(dir)), false, 'the election lock is released once a coordinator is elected');
  });

  test('an election lock older than any election is broken, whoever holds it', async () => {
    const dir = newDir();
    const j = open(dir);
    fs.writeFileSync(lockFile(dir), `${process.pid} ${Date.now() - 10 * 60_000}`);
    await fund(j, 'demo', '1');
    assert.equal(j.seq, 1);
    assert.equal(fs.existsSync(lockFile(dir)), false);
  });

  test('an empty election lock left by a process that died before writing its pid is broken', async () => {
    const dir = newDir();
    fs.writeFileSync(lockFile(dir), '');
    const old = new Date(Date.now() - 10 * 60_000);
    fs.utimesSync(lockFile(dir), old, old);
    const c = child(dir, `(await acquireFileLock(require('node:path').join(dir, 'journal.lock'), ${HANG_MS / 2}))(); say('acquired');`);
    await c.said('acquired');
    assert.equal(await c.exited, 0);
  });

  test('waiting for a lock another process holds never blocks the event loop, and the wait ends when it releases', async () => {
    const dir = newDir();
    const j = open(dir);
    await fund(j, 'demo', '1');
    // The child holds the lock until told to release it (or, should this process be stuck, for long enough to show it).
    const c = child(dir, `const release = await new JournalLock(dir).acquire(); say('held'); await Promise.race([heard('release'), new Promise((r) => setTimeout(r, ${HANG_MS / 2}))]); release(); process.exit(0);`);
    await c.said('held');
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 5);
    let done = false;
    const waiting = fund(j, 'demo', '1').finally(() => (done = true));
    try {
      await until(() => ticks >= 3, 'timers to run while this process waits for the lock');
      assert.equal(done, false, 'the transaction waits for the other process to release');
      c.tell('release');
      await waiting;
    } finally {
      clearInterval(timer);
    }
    assert.equal(j.seq, 2);
    assert.equal(await c.exited, 0);
  });

  for (const who of ['the coordinator', 'a client'] as const) {
    test(`${who} killed with -9 while holding the lock does not stop the others`, async () => {
      const dir = newDir();
      const j = open(dir);
      // Whoever elects first coordinates: the child, or this process.
      if (who === 'a client') await fund(j, 'demo', '1');
      const c = child(dir, `const j = openState(dir, { clock: { now: () => Date.now() }, logger: { info() {}, warn() {}, error() {} }, durable: false, watch: false });
        const release = await new JournalLock(dir).acquire(); say('held'); await holdOn();`);
      await c.said('held');
      const waiting = fund(j, 'demo', '1');
      c.proc.kill('SIGKILL');
      await c.exited;
      await waiting;
      await fund(j, 'demo', '1');
      assert.equal(j.state.accounts['demo']?.funded['EUR'], (who === 'a client' ? 3n : 2n) * 1_000_000n);
      assert.equal(verifyJournal(dir).ok, true);
    });
  }

  for (const rerunnable of [true, false]) {
    test(`a transaction decided while its lock was handed on never writes over the next holder's events: ${rerunnable ? 'it is decided again' : 'it is refused, with nothing written'}`, async () => {
      const dir = newDir();
      const go = path.join(dir, 'go');
      const quiet = `{ clock: { now: () => Date.now() }, logger: { info() {}, warn() {}, error() {} }, durable: false, watch: false }`;
      const funding = `const { fund } = require(${JSON.stringify(path.join(ROOT, 'src/core/money/spend.ts'))});`;
      // The coordinator: elected by its first transaction, then it only grants, until it is killed.
      const coordinator = child(dir, `${funding} const j = openState(dir, ${quiet}); await fund(j, 'demo', '1'); say('coordinating'); await holdOn();`);
      await coordinator.said('coordinating');
      // A client granted the lock by it, deciding (synchronously, as every transaction decides) until told to go on.
      const client = child(
        dir,
        `${funding} const fs = require('node:fs'); const j = openState(dir, ${quiet});
        const transact = j.transact.bind(j);
        let decided = 0;
        j.transact = (fn, o) => transact((s) => {
          decided += 1;
          if (decided === 1) { say('deciding'); while (!fs.existsSync(${JSON.stringify(go)})) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); }
          return fn(s);
        }, { ...o, rerunnable: ${rerunnable} });
        try { await fund(j, 'demo', '1'); say('funded, decided ' + decided + ' times'); } catch (e) { say('refused: ' + e.reason); }
        j.close(); process.exit(0);`,
      );
      await client.said('deciding');
      // Its coordinator dies; this process coordinates next and, after its grace, appends while the client still decides.
      coordinator.proc.kill('SIGKILL');
      await coordinator.exited;
      const j = open(dir);
      await fund(j, 'demo', '1');
      fs.writeFileSync(go, '');
      await client.said(rerunnable ? 'funded, decided 2 times' : 'refused: conflict');
      assert.equal(await client.exited, 0);
      const verified = verifyJournal(dir);
      assert.equal(verified.ok, true, JSON.stringify(verified));
      const seqs = lines(dir).map((e) => e.seq);
      assert.deepEqual(seqs, seqs.map((_, i) => i + 1), 'every seq once, in order');
      const after = open(dir);
      assert.equal(after.state.accounts['demo']?.funded['EUR'], (rerunnable ? 3n : 2n) * 1_000_000n);
    });
  }

  test('the lock is granted in the order it was asked for, across processes: first come, first served', async () => {
    const dir = newDir();
    // The first to ask coordinates; the others ask it over the socket, as other processes do.
    const locks = [0, 1, 2, 3].map(() => new JournalLock(dir));
    const order: number[] = [];
    const releases: (() => void)[] = [];
    const ask = (i: number): void => void (locks[i] as JournalLock).acquire().then((release) => (order.push(i), releases.push(release)));
    // Each asks once the one before waits in the coordinator's queue, and each lets go once granted: the
    // order they asked in is then known, however slow the machine, and a wrong order fails rather than hangs.
    const queued = (n: number): Promise<true> => until(() => waitingAt(locks[0] as JournalLock) === n, `${n} to wait in the coordinator's queue`);
    const granted = (n: number): Promise<true> => until(() => order.length === n, `grant ${n}`);
    const releaseLast = (): void => (releases[releases.length - 1] ?? assert.fail('nobody holds the lock'))();
    try {
      ask(0);
      await granted(1);
      ask(1);
      await queued(1);
      ask(2);
      await queued(2);
      ask(3);
      await queued(3);
      releaseLast();
      await granted(2);
      // The coordinator asks again while 1 holds the lock: it waits behind 2 and 3, who asked first.
      ask(0);
      await queued(3);
      for (let n = 3; n <= 5; n++) {
        releaseLast();
        await granted(n);
      }
      releaseLast();
      assert.deepEqual(order, [0, 1, 2, 3, 0]);
    } finally {
      for (const l of locks) l.close();
    }
  });
});

describe('receipts read back from the journal, through the index', () => {
  const receipt = (id: string, parent: string | null = null): Receipt => runningReceipt(id, clock.now(), parent);
  /** A call as the gateway writes it: started, then finished; a child started and finished inside it. */
  async function call(j: FileJournal<HolonState>, id: string, withChild: boolean): Promise<void> {
    await j.transact(() => ({ events: [{ type: 'call.started', data: { receipt: receipt(id) } }], result: undefined }));
    if (withChild) {
      await j.transact(() => ({ events: [{ type: 'call.started', data: { receipt: receipt(`${id}_child`, id) } }], result: undefined }));
      await j.transact(() => ({ events: [{ type: 'call.finished', data: { receipt: `${id}_child`, status: 'succeeded', cost: { amount: '0.01', currency: 'EUR' }, price_cost: { amount: '0.01', currency: 'EUR' }, error: null, output_summary: 'x', duration_ms: 1 } }], result: undefined }));
    }
    await j.transact(() => ({ events: [{ type: 'call.finished', data: { receipt: id, status: 'succeeded', cost: { amount: '0.02', currency: 'EUR' }, price_cost: { amount: '0.02', currency: 'EUR' }, error: null, output_summary: 'x', duration_ms: 1 } }], result: undefined }));
  }
  const ids = (n: number, from = 0): string[] => Array.from({ length: n }, (_, i) => `rcpt_${String(from + i).padStart(4, '0')}`);

  test('what a snapshot filed is read through the index, what came after from the tail; newest first across both', async () => {
    const dir = newDir();
    const j = open(dir, { snapshotEvery: 50 });
    for (const [i, id] of ids(30).entries()) await call(j, id, i % 3 === 0);
    await j.snapshotWritten();
    j.close();
    const k = open(dir, { snapshotEvery: 0 });
    assert.ok(fs.statSync(path.join(dir, INDEX_FILE)).size > 0, 'the index holds the filed events');
    assert.deepEqual(Object.keys(k.state.open_receipts), [], 'memory keeps no finished receipt');
    for (const id of ids(5, 30)) await call(k, id, false);
    const recent = await recentRootReceipts(k, { limit: 10 });
    assert.deepEqual(recent.map((r) => r.id), ids(35).slice(-10).reverse());
    const all = await recentRootReceipts(k, { limit: 100 });
    assert.equal(all.length, 35, 'every root, once, children under their parents');
    const tree = await receiptTree(k, 'rcpt_0003');
    assert.equal(tree.status, 'succeeded');
    assert.deepEqual(tree.children.map((c) => c.id), ['rcpt_0003_child']);
    assert.deepEqual(tree.total_cost, { amount: '0.03', currency: 'EUR' });
    assert.equal((await readReceipt(k, 'rcpt_0031'))?.status, 'succeeded', 'a receipt begun after the snapshot is read from the tail');
    assert.equal((await readReceipt(k, 'rcpt_0001'))?.status, 'succeeded', 'one filed before it, through the index');
    assert.equal(await readReceipt(k, 'rcpt_9999'), undefined);
  });

  test('an index file that is not the one the snapshot signed is refused on read, naming the file', async () => {
    const dir = newDir();
    const j = open(dir, { snapshotEvery: 20 });
    for (const id of ids(10)) await call(j, id, false);
    await j.snapshotWritten();
    j.close();
    const file = path.join(dir, INDEX_FILE);
    const text = fs.readFileSync(file, 'utf8');
    // Point rcpt_0001's first entry at rcpt_0002's event.
    const lines = text.split('\n');
    const at = (id: string): string => lines.find((l) => l.endsWith(`rcpt:${id}`))?.split(' ')[0] ?? '';
    fs.writeFileSync(file, text.replace(`${at('rcpt_0001')} `, `${at('rcpt_0002')} `));
    const k = open(dir, { snapshotEvery: 0 });
    await assert.rejects(readReceipt(k, 'rcpt_0001'), (err: unknown) => HolonError.is(err, 'corrupt_journal'));
    const report = verifyJournal(dir);
    assert.equal(report.snapshot?.ok, false);
  });
});

describe('FileJournal: closing', () => {
  for (const coordinates of [true, false]) {
    test(`a transaction still waiting for the lock when its journal closes is refused, not left waiting (${coordinates ? 'it coordinates the lock' : 'it asks another'})`, async () => {
      const dir = newDir();
      const j = open(dir);
      // Whoever takes the lock first coordinates it.
      if (coordinates) await fund(j, 'demo', '1');
      const holder = new JournalLock(dir);
      const release = await holder.acquire();
      const before = fs.existsSync(journalFile(dir)) ? fs.readFileSync(journalFile(dir)) : Buffer.alloc(0);
      const waiting = fund(j, 'demo', '1');
      // It is closed once the transaction waits in the queue: its own journal's coordinator's, or the other's.
      const coordinator = coordinates ? (j as unknown as { lock: JournalLock }).lock : holder;
      await until(() => waitingAt(coordinator) === 1, 'the transaction to wait for the lock');
      j.close();
      await assert.rejects(waiting, /closed/);
      release();
      holder.close();
      assert.deepEqual(fs.existsSync(journalFile(dir)) ? fs.readFileSync(journalFile(dir)) : Buffer.alloc(0), before, 'nothing was appended');
    });
  }
});
