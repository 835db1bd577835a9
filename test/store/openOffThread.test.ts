/**
 * The editor's thread never folds a long journal: opening one that would take more than a moment to fold
 * (no snapshot yet, one of the format before an upgrade) has the journal's worker fold it to its end and
 * write the snapshot there first, so the open on the caller's thread reads a header and nothing past it.
 * The state it opens is the fold's, and what a crash left at the end (a torn line) stays where it was.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { TempDirs } from '../../bench/world.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holonReducer } from '../../src/core/fold/state.ts';
import { openFileJournal, openStoreOffThread, unfoldedBytes } from '../../src/core/holon.ts';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import { fund } from '../../src/core/money/spend.ts';
import { JOURNAL_FILE } from '../../src/core/store/file/journal.ts';
import { SNAPSHOT_FILE, SNAPSHOT_VERSION } from '../../src/core/store/file/snapshot.ts';
import { loadOrCreateSigner } from '../../src/core/store/keys.ts';
import type { EventStore } from '../../src/core/store/store.ts';
import { TestClock } from '../helpers.ts';
import { readSections, writeMonolithic } from './snapshotFiles.ts';

const dirs = new TempDirs();
const clock = new TestClock();
const opened: EventStore<HolonState>[] = [];
after(() => {
  for (const s of opened) s.close();
  dirs.removeAll();
});

/** What a process opening the journal may fold itself (openStoreOffThread's FOLD_HERE_BYTES). */
const FOLD_HERE_BYTES = 1 << 20;

/** A journal of `count` fundings, one transaction each, with no snapshot; and the state they fold to. */
async function journalOf(label: string, count: number): Promise<{ dir: string; state: string }> {
  const dir = dirs.make(label);
  const j = openFileJournal(dir, { clock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
  for (let i = 0; i < count; i++) await fund(j, `acct-${i % 50}`, '1.25');
  const state = holonReducer.serialize(j.state);
  j.close();
  return { dir, state };
}

async function openHere(dir: string): Promise<EventStore<HolonState>> {
  const store = await openStoreOffThread(dir, { clock, logger: silentLogger, watch: false });
  opened.push(store);
  return store;
}

describe('a long journal is folded off the opening thread', () => {
  test('with no snapshot: the worker folds it to its last whole transaction, and the open folds nothing past it', async () => {
    const { dir, state } = await journalOf('no-snapshot', 4_000);
    // A crash cut the last append short: a torn line, which no open folds.
    const torn = '{"seq":4001,"time":"2026-';
    fs.appendFileSync(path.join(dir, JOURNAL_FILE), torn);
    assert.ok(unfoldedBytes(dir) > FOLD_HERE_BYTES, 'the journal is longer than an open folds on its own thread');
    const store = await openHere(dir);
    const { header } = readSections(dir);
    assert.equal(header.seq, store.seq, 'the snapshot is at the last transaction the open folded');
    assert.equal(unfoldedBytes(dir), Buffer.byteLength(torn), 'only the torn line lies past the snapshot');
    assert.equal(holonReducer.serialize(store.state), state);
  });

  test('with a snapshot of the format before an upgrade: the worker migrates it and folds what follows', async () => {
    const { dir } = await journalOf('v4', 3_000);
    // The snapshot an older build wrote at the end of its journal: the monolithic format (v4).
    const j = openFileJournal(dir, { clock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
    const signer = loadOrCreateSigner(dir);
    writeMonolithic(dir, holonReducer, j.state, j.position, null, signer);
    for (let i = 0; i < 3_000; i++) await fund(j, 'later', '0.50');
    const state = holonReducer.serialize(j.state);
    j.close();
    assert.ok(unfoldedBytes(dir) > FOLD_HERE_BYTES);
    const store = await openHere(dir);
    const { header } = readSections(dir);
    assert.equal(header.version, SNAPSHOT_VERSION, 'the snapshot on disk is of this build');
    assert.equal(header.seq, store.seq);
    assert.equal(holonReducer.serialize(store.state), state);
  });

  test('a short journal is opened as it always was, with no worker and no snapshot written', async () => {
    const { dir, state } = await journalOf('short', 200);
    assert.ok(unfoldedBytes(dir) > 0 && unfoldedBytes(dir) <= FOLD_HERE_BYTES);
    const store = await openHere(dir);
    assert.equal(fs.existsSync(path.join(dir, SNAPSHOT_FILE)), false);
    assert.equal(holonReducer.serialize(store.state), state);
  });
});
