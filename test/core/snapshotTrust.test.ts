/**
 * A snapshot is derived data in a folder an agent may be able to write. Whatever it says, a process
 * acts only on what verifies: a snapshot edited, re-hashed or signed by another key is ignored and the
 * journal folded from its start, so a forged one cannot widen a mandate.
 */
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { canonicalize } from 'json-canonicalize';
import type { Logger } from '../../src/core/kernel/deps.ts';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import { openFileJournal } from '../../src/core/holon.ts';
import type { FileJournal } from '../../src/core/store/file/journal.ts';
import { buildSnapshot } from '../../src/core/store/file/journalIndex.ts';
import { loadOrCreateSigner } from '../../src/core/store/keys.ts';
import { Gateway } from '../../src/core/market/gateway.ts';
import type { CallOutcome } from '../../src/core/market/gateway.ts';
import { SNAPSHOT_FILE } from '../../src/core/store/file/snapshot.ts';
import type { SectionPlace, SnapshotHeader } from '../../src/core/store/file/snapshot.ts';
import { readSections, resign, writeMonolithic } from '../store/snapshotFiles.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holonReducer } from '../../src/core/fold/state.ts';
import { verifyJournal } from '../../src/core/verify.ts';
import { seedDemo, tempDir, TestClock } from '../helpers.ts';
import { ACME, addSynthetic, FakeRunner, LENA, MANDATE, manifest, ok, stateText } from './fixtures.ts';

const clock = new TestClock();
const cleanups: (() => void)[] = [];
const journals: FileJournal<HolonState>[] = [];
after(() => {
  for (const j of journals) j.close();
  for (const c of cleanups) c();
});

const TRANSLATOR = 'babel/translate-fr';

/** A state whose mandate allows little: 0.10 EUR in all, a human above 0.03, extraction and pipelines only. A true snapshot of it. */
async function narrowState(): Promise<{ dir: string; truth: string }> {
  const t = tempDir('holon-trust-');
  cleanups.push(t.cleanup);
  const j = openFileJournal(t.dir, { clock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
  await seedDemo(j, clock, { total: '0.10', threshold: '0.03', perDay: null, perCall: null });
  await addSynthetic(j, clock, manifest(TRANSLATOR, ['translation.fr'], { data_policy: { regions: ['EU'], retention_days: 0, training: false } }));
  assert.ok(await buildSnapshot(t.dir, j.file, holonReducer, j.position, loadOrCreateSigner(t.dir)));
  const truth = stateText(j.state);
  j.close();
  return { dir: t.dir, truth };
}

/** What a forger wants the mandates' section to say: the mandate allows anything, up to 1000 EUR, without asking. */
function widened(section: string): string {
  const fields = JSON.parse(section) as HolonState;
  const m = fields.mandates[MANDATE];
  assert.ok(m);
  m.budget = { total: '1000.00', per_day: null, per_call: null };
  m.approval_threshold = '1000.00';
  m.capabilities = [{ name: 'market.call', params: { capabilities: ['*'] } }];
  return JSON.stringify(fields);
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const snapshotMessage = (h: Omit<SnapshotHeader, 'sig'>): string =>
  `holon-snapshot:v${h.version}:${canonicalize({ seq: h.seq, hash: h.hash, offset: h.offset, legacy: h.legacy, sections: h.sections, index: h.index, key: h.key })}`;

/** The snapshot's sections with the mandates' widened, and the places a header would give them. */
function forgedSections(dir: string): { header: SnapshotHeader; body: string; places: SectionPlace[] } {
  const { header, sections } = readSections(dir);
  sections.set('mandates', widened(sections.get('mandates')!));
  let at = 0;
  const places = header.sections.map((p) => {
    const text = sections.get(p.name)!;
    const place = { ...p, offset: at, length: Buffer.byteLength(text), sha256: sha256(text) };
    at += place.length;
    return place;
  });
  return { header, body: header.sections.map((p) => sections.get(p.name)!).join(''), places };
}

function writeSnapshotFile(dir: string, header: object, body: string): void {
  fs.writeFileSync(path.join(dir, SNAPSHOT_FILE), `${JSON.stringify(header)}\n${body}`);
}

/** The ways a forger can rewrite the snapshot without the installation's key. */
const FORGERIES: Record<string, (dir: string) => void> = {
  'its mandates edited, the header left as it was': (dir) => {
    const { header, body } = forgedSections(dir);
    writeSnapshotFile(dir, header, body);
  },
  "its mandates edited and the header's hashes of its sections updated": (dir) => {
    const { header, body, places } = forgedSections(dir);
    writeSnapshotFile(dir, { ...header, sections: places }, body);
  },
  'said to be of an older build, whose format is migrated': (dir) => {
    const { header } = readSections(dir);
    const state = holonReducer.deserialize(holonReducer.serialize(stateOf(dir)));
    const forged = widened(JSON.stringify({ mandates: state.mandates }));
    const body = holonReducer.serialize({ ...state, ...(JSON.parse(forged) as object) });
    const { sections: _s, ...rest } = header;
    writeSnapshotFile(dir, { ...rest, version: 4, fields: '', body_sha256: sha256(body) }, body);
  },
  'signed again with a key of its own': (dir) => {
    const { header, body, places } = forgedSections(dir);
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const key = publicKey.export({ type: 'spki', format: 'der' }).subarray(12).toString('base64');
    const { sig: _old, ...unsigned } = { ...header, sections: places, key };
    writeSnapshotFile(dir, { ...unsigned, sig: sign(null, Buffer.from(snapshotMessage(unsigned)), privateKey).toString('base64') }, body);
  },
};

/** The state the folder's journal folds to, read without its snapshot. */
function stateOf(dir: string): HolonState {
  const j = openFileJournal(dir, { clock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
  const s = j.state;
  const copy = holonReducer.deserialize(holonReducer.serialize(s));
  j.close();
  return copy;
}

/** A server's gateway on the state, opened as a new process would; and what it warned about. */
function serve(dir: string): { journal: FileJournal<HolonState>; gateway: Gateway; warnings: string[]; runner: FakeRunner } {
  const warnings: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (m: string) => warnings.push(m) };
  const journal = openFileJournal(dir, { clock, logger, durable: false, watch: false, snapshotEvery: 0 });
  journals.push(journal);
  const runner = new FakeRunner(() => journal.state);
  runner.handler = () => ok(1);
  const gateway = new Gateway({ store: journal, clock, logger, runner, filesRoot: path.join(dir, 'files') });
  return { journal, gateway, warnings, runner };
}

const codes = (o: CallOutcome): string[] => (o.kind === 'denied' ? o.receipt.denials.map((d) => d.code) : []);

/** The three calls the narrow mandate must not let through: over budget, outside its scope, over the threshold without a human. */
async function attempts(gateway: Gateway): Promise<{ overBudget: CallOutcome; outOfScope: CallOutcome; overThreshold: CallOutcome }> {
  return {
    overBudget: await gateway.call(MANDATE, { agent: ACME, input: { file: 'holon://files/examples/facture.pdf' } }),
    outOfScope: await gateway.call(MANDATE, { agent: TRANSLATOR, input: { text: 'hello' } }),
    overThreshold: await gateway.call(MANDATE, { agent: LENA, input: { file: 'holon://files/examples/facture.pdf' } }),
  };
}

describe('a forged snapshot cannot widen a mandate', () => {
  test('the control: a widened snapshot signed with the installation key would be used (so the checks below are what stops a forgery)', async () => {
    const { dir } = await narrowState();
    const { header, sections } = readSections(dir);
    sections.set('mandates', widened(sections.get('mandates')!));
    resign(dir, header, sections, loadOrCreateSigner(dir));
    const { gateway, warnings } = serve(dir);
    assert.deepEqual(warnings, []);
    const a = await attempts(gateway);
    assert.equal(a.overBudget.kind, 'done');
    assert.equal(a.outOfScope.kind, 'done');
    assert.equal(a.overThreshold.kind, 'done');
    // And the offline check, which folds the journal, tells the snapshot from the history.
    const report = verifyJournal(dir);
    assert.equal(report.ok, false);
    assert.equal(report.snapshot?.ok, false);
  });

  test('a true snapshot of the older, monolithic format is migrated, not folded again: the server opens on it, and holon verify passes', async () => {
    const { dir, truth } = await narrowState();
    const { header } = readSections(dir);
    const pos = { offset: header.offset, seq: header.seq, hash: header.hash, legacy: header.legacy };
    writeMonolithic(dir, holonReducer, stateOf(dir), pos, header.index, loadOrCreateSigner(dir));
    const { journal, warnings } = serve(dir);
    assert.deepEqual(warnings, []);
    assert.equal(stateText(journal.state), truth);
    assert.equal(readSections(dir).header.version, 5, 'the snapshot is rewritten in sections');
    const report = verifyJournal(dir);
    assert.equal(report.ok, true, JSON.stringify(report.snapshot));
    assert.equal(report.snapshot?.ok, true);
  });

  for (const [how, forge] of Object.entries(FORGERIES)) {
    test(`a snapshot ${how} is ignored, with a warning; a new server spends within the true mandate`, async () => {
      const { dir, truth } = await narrowState();
      forge(dir);
      const { journal, gateway, warnings, runner } = serve(dir);
      assert.equal(stateText(journal.state), truth, 'the state is the journal folded');
      assert.ok(warnings.length >= 1 && warnings.every((w) => /snapshot/.test(w)), warnings.join('\n'));
      const a = await attempts(gateway);
      assert.deepEqual(codes(a.overBudget), ['over_budget']);
      assert.ok(codes(a.outOfScope).length > 0 && codes(a.outOfScope).every((c) => c === 'capability_scope' || c === 'agent_out_of_scope'), codes(a.outOfScope).join());
      assert.equal(a.overThreshold.kind, 'pending');
      assert.equal(runner.calls.length, 0, 'no agent ran');
      assert.equal(journal.state.spend[MANDATE]?.spent ?? 0n, 0n);
      const report = verifyJournal(dir);
      assert.equal(report.snapshot?.ok, false, 'holon verify reports the forged snapshot');
      assert.equal(report.ok, false);
    });
  }
});
