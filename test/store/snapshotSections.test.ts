/**
 * A snapshot in sections: a process reads a slice's section only when it first uses that slice, every
 * byte it reads is checked against the hash the header signed (even bytes changed after it opened), a
 * snapshot job rewrites only what its events touched, and a snapshot of the monolithic format before is
 * migrated to a state equal to the fold. Each on a rich journal (intents, memory versions, mail threads)
 * generated through Holon's own APIs, as the bench builds its worlds.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readsWorld } from '../../bench/reads.ts';
import { TempDirs } from '../../bench/world.ts';
import { openFileJournal } from '../../src/core/holon.ts';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import { rememberEvent } from '../../src/core/memory/memory.ts';
import { fund } from '../../src/core/money/spend.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holonReducer } from '../../src/core/fold/state.ts';
import type { FileJournal } from '../../src/core/store/file/journal.ts';
import { JOURNAL_FILE } from '../../src/core/store/file/journal.ts';
import { buildSnapshot } from '../../src/core/store/file/journalIndex.ts';
import { SNAPSHOT_FILE } from '../../src/core/store/file/snapshot.ts';
import { loadOrCreateSigner } from '../../src/core/store/keys.ts';
import { verifyJournal } from '../../src/core/verify.ts';
import { ROOT, TestClock, until } from '../helpers.ts';
import { readSections, writeMonolithic } from './snapshotFiles.ts';

const dirs = new TempDirs();
const clock = new TestClock();
const open: FileJournal<HolonState>[] = [];
after(() => {
  for (const j of open) j.close();
  dirs.removeAll();
});

/** A journal on `dir` as a process opens it, and what it warned about. */
function journal(dir: string): { j: FileJournal<HolonState>; warnings: string[] } {
  const warnings: string[] = [];
  const j = openFileJournal(dir, {
    clock,
    logger: { ...silentLogger, warn: (m: string) => warnings.push(m) },
    durable: false,
    watch: false,
    snapshotEvery: 0,
  });
  open.push(j);
  return { j, warnings };
}

/** The state the journal folds to from its start, the snapshot set aside. */
function folded(dir: string): string {
  const aside = path.join(dir, `${SNAPSHOT_FILE}.aside`);
  fs.renameSync(path.join(dir, SNAPSHOT_FILE), aside);
  try {
    const { j } = journal(dir);
    const text = holonReducer.serialize(j.state);
    j.close();
    return text;
  } finally {
    fs.renameSync(aside, path.join(dir, SNAPSHOT_FILE));
  }
}

/** A copy of the world, so each test may damage its own. */
function copyOf(world: string, label: string): string {
  const dir = dirs.make(label);
  fs.cpSync(world, dir, { recursive: true });
  return dir;
}

/** Overwrites a section's bytes in place (same file, same length): what a hand on the disk could do. */
function spoil(dir: string, name: string): void {
  const { header, bodyAt } = readSections(dir);
  const place = header.sections.find((s) => s.name === name)!;
  const fd = fs.openSync(path.join(dir, SNAPSHOT_FILE), 'r+');
  const byte = Buffer.alloc(1);
  fs.readSync(fd, byte, 0, 1, bodyAt + place.offset + place.length - 2);
  byte[0] = byte[0] === 0x30 ? 0x31 : 0x30;
  fs.writeSync(fd, byte, 0, 1, bodyAt + place.offset + place.length - 2);
  fs.closeSync(fd);
}

let world = '';
let truth = '';
before(async () => {
  world = (await readsWorld(dirs, 'sections', 120)).dir;
  truth = folded(world);
});

describe('a snapshot in sections', () => {
  test('the snapshot is one section per slice, and opening it equals the fold, section by section', () => {
    const { header } = readSections(world);
    assert.equal(header.version, 5);
    assert.deepEqual(
      header.sections.map((s) => s.name),
      holonReducer.sections!.list.map((s) => s.name),
    );
    const { j, warnings } = journal(world);
    assert.equal(holonReducer.serialize(j.state), truth);
    assert.deepEqual(warnings, []);
  });

  test('a section is read only when its slice is first used: a spoiled one that is never used is never read, and one that is used is folded instead', () => {
    const dir = copyOf(world, 'spoiled');
    spoil(dir, 'memory');
    const { j, warnings } = journal(dir);
    // The mandates, money and office are read; the memory is not, so nothing is said about it yet.
    assert.ok(j.state.mandates['demo/payer']);
    assert.ok(Object.keys(j.state.office.threads).length > 0);
    assert.deepEqual(warnings, []);
    assert.equal(JSON.stringify(j.state.memory), JSON.stringify((JSON.parse(truth) as HolonState).memory));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /section "memory" is not what its header signed/);
    assert.equal(holonReducer.serialize(j.state), truth);
    assert.equal(verifyJournal(dir).snapshot?.ok, false);
  });

  test('a section altered after the process opened is refused when it is read; a snapshot renamed over the old one is not mixed in', async () => {
    const dir = copyOf(world, 'after-open');
    const { j, warnings } = journal(dir);
    assert.ok(j.state.mandates['demo/payer']);
    spoil(dir, 'memory');
    assert.equal(JSON.stringify(j.state.memory), JSON.stringify((JSON.parse(truth) as HolonState).memory));
    assert.match(warnings.join('\n'), /section "memory"/);

    // Another process writes a later snapshot (a rename): what this one has not read yet still comes
    // from the snapshot it opened, as of its own position.
    const dir2 = copyOf(world, 'renamed');
    const { j: k } = journal(dir2);
    assert.ok(k.state.mandates['demo/payer']);
    const other = journal(dir2).j;
    await fund(other, 'demo2', '3');
    await buildSnapshot(dir2, path.join(dir2, JOURNAL_FILE), holonReducer, other.position, loadOrCreateSigner(dir2));
    assert.equal(readSections(dir2).header.seq, other.seq);
    assert.equal(holonReducer.serialize(k.state), truth);
  });

  test('a snapshot job rewrites the sections its events touched and copies the rest: reopened, the state equals the fold', async () => {
    const dir = copyOf(world, 'incremental');
    const before = readSections(dir);
    const { j } = journal(dir);
    await fund(j, 'demo2', '2');
    await j.transact((s) => ({
      events: [rememberEvent(s, 'demo/payer', { key: 'customer/new/billing', content: 'by mail' }, 'mem_test_1', clock.now())],
      result: undefined,
    }));
    await buildSnapshot(dir, path.join(dir, JOURNAL_FILE), holonReducer, j.position, loadOrCreateSigner(dir));
    const expected = holonReducer.serialize(j.state);
    j.close();
    const afterSnap = readSections(dir);
    assert.equal(afterSnap.header.seq, j.seq);
    // Slices no event touched are byte for byte what they were; the ones it did changed.
    assert.equal(afterSnap.sections.get('office'), before.sections.get('office'));
    assert.notEqual(afterSnap.sections.get('memory'), before.sections.get('memory'));
    assert.notEqual(afterSnap.sections.get('accounts'), before.sections.get('accounts'));
    const { j: k, warnings } = journal(dir);
    assert.equal(holonReducer.serialize(k.state), expected);
    assert.deepEqual(warnings, []);
    k.close();
    assert.equal(folded(dir), expected);
    assert.equal(verifyJournal(dir).ok, true);
  });

  test('a snapshot of the monolithic format before is migrated to sections without a fold, and the state equals the fold', () => {
    const dir = copyOf(world, 'v4');
    const { header } = readSections(dir);
    writeMonolithic(dir, holonReducer, JSON.parse(truth) as HolonState, header, header.index, loadOrCreateSigner(dir));
    // Only the migration could give this state: the journal holds no trace of the marker.
    const marked = JSON.parse(truth) as HolonState;
    marked.fx['TST/EUR'] = '7.00';
    writeMonolithic(dir, holonReducer, holonReducer.deserialize(JSON.stringify(marked)), header, header.index, loadOrCreateSigner(dir));
    const { j, warnings } = journal(dir);
    assert.deepEqual(warnings, []);
    assert.equal(readSections(dir).header.version, 5);
    assert.equal(j.state.fx['TST/EUR'], '7.00');
    j.close();
    writeMonolithic(dir, holonReducer, holonReducer.deserialize(truth), header, header.index, loadOrCreateSigner(dir));
    const { j: k } = journal(dir);
    assert.equal(holonReducer.serialize(k.state), truth);
    k.close();
    const report = verifyJournal(dir);
    assert.equal(report.ok, true, JSON.stringify(report.snapshot));
  });

  for (const what of ['snapshot', 'migration'] as const) {
    test(`a ${what} killed (SIGKILL) while it writes leaves a state that opens to the fold`, async () => {
      const dir = copyOf(world, `kill-${what}`);
      // A process that writes the snapshot over and over (or migrates it, each time from the old format
      // again), saying each time it starts; it is killed once it has started a few times.
      const script = path.join(ROOT, 'test', 'store', 'snapshotWriter.ts');
      const child = spawn(process.execPath, ['--import', 'tsx', script, dir, what], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      let started = 0;
      child.stdout.on(
        'data',
        (d: Buffer) =>
          (started += d
            .toString()
            .split('\n')
            .filter((l) => l === 'writing').length),
      );
      await until(() => started >= 3, 'the writer started three times');
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const { j, warnings } = journal(dir);
      assert.equal(holonReducer.serialize(j.state), truth, warnings.join('\n'));
      j.close();
      assert.equal(verifyJournal(dir).ok, true);
    });
  }
});
