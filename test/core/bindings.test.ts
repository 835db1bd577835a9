/**
 * The rules of core/local/bindings.ts and core/local/stateFolder.ts that need no binding file: how store URLs are
 * compared, what a bound server serves given what its command line named, and what may be a state.
 * Reading and writing real binding files is tested through the CLI (test/cli/bindings.test.ts).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Binding } from '../../src/core/local/bindings.ts';
import { bindingFor, serveBound, storeWithoutPassword } from '../../src/core/local/bindings.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { refuseArtifactState } from '../../src/core/local/stateFolder.ts';
import { tempDir, TestClock } from '../helpers.ts';

const reason = (fn: () => unknown): { reason: string; details: Record<string, unknown>; message: string } => {
  try {
    fn();
  } catch (err) {
    if (HolonError.is(err)) return { reason: err.reason, details: err.details, message: err.message };
    throw err;
  }
  assert.fail('expected a HolonError');
};

test('a store is kept and compared without its password, in the URL or its query, and with its host in lower case', () => {
  assert.equal(storeWithoutPassword('postgres://dev:s3cret@DB.Example:5433/holon'), 'postgres://dev@db.example:5433/holon');
  assert.equal(storeWithoutPassword('postgresql://dev@db/holon?password=x&sslmode=require&sslpassword=y'), 'postgresql://dev@db/holon?sslmode=require');
  assert.equal(reason(() => storeWithoutPassword('http://db/holon')).reason, 'invalid_input');
  assert.equal(reason(() => storeWithoutPassword('not a url')).reason, 'invalid_input');
});

test('a bound server serves the binding; what was named must agree with it, the password aside', (t) => {
  const made = tempDir('holon-bindings-');
  t.after(made.cleanup);
  // A binding holds real paths.
  const dir = fs.realpathSync(made.dir);
  const state = path.join(dir, 'state');
  fs.mkdirSync(state);
  fs.symlinkSync(state, path.join(dir, 'link'));
  const b: Binding = { workspace: dir, state, store: 'postgres://dev@db/holon', mandate: 'demo/sandbox', bound_at: '2026-01-01T00:00:00.000Z' };

  // Nothing named: the binding, workspace included.
  assert.deepEqual(serveBound(b, {}), { mandate: 'demo/sandbox', state, store: 'postgres://dev@db/holon', workspace: dir });
  // The same state through a link, the same store with its password (which is what gets opened).
  assert.deepEqual(serveBound(b, { mandate: 'demo/sandbox', state: path.join(dir, 'link'), store: 'postgres://dev:hunter2@DB/holon', workspace: dir }).store, 'postgres://dev:hunter2@DB/holon');

  const refused = (named: Parameters<typeof serveBound>[1]): string[] => {
    const e = reason(() => serveBound(b, named));
    assert.equal(e.reason, 'denied');
    assert.equal(e.details['problem'], 'binding_mismatch');
    assert.ok(!e.message.includes('hunter2'), e.message);
    return e.details['refused'] as string[];
  };
  assert.deepEqual(refused({ mandate: 'demo/wide' }), ['the mandate demo/wide']);
  assert.deepEqual(refused({ state: dir }), [`the state ${dir}`]);
  assert.deepEqual(refused({ store: null }), ["the state folder's journal"]);
  assert.deepEqual(refused({ store: 'postgres://dev:hunter2@db/other' }), ['the store postgres://dev@db/other']);
  assert.deepEqual(refused({ store: 'nonsense' }), ['the store (not a postgres URL)']);
  assert.deepEqual(refused({ workspace: state }), [`the workspace ${state}`]);
  assert.equal(refused({ mandate: 'demo/wide', workspace: state }).length, 2);
  // A binding on the journal refuses any store.
  assert.equal(reason(() => serveBound({ ...b, store: null }, { store: 'postgres://dev@db/holon' })).reason, 'denied');
  assert.equal(serveBound({ ...b, store: null }, { store: null }).store, undefined);
});

test('a binding is of real folders, never of the root, never on an artifact folder', (t) => {
  const { dir, cleanup } = tempDir('holon-bindings-');
  t.after(cleanup);
  const clock = new TestClock();
  const ws = fs.realpathSync(dir);
  const state = path.join(ws, 'state');
  fs.mkdirSync(state);
  const req = { workspace: ws, state, store: 'postgres://dev:pw@db/holon', mandate: 'demo/sandbox' };
  assert.deepEqual(bindingFor(req, clock), { workspace: ws, state, store: 'postgres://dev@db/holon', mandate: 'demo/sandbox', bound_at: new Date(clock.now()).toISOString() });
  assert.equal(reason(() => bindingFor({ ...req, workspace: path.parse(ws).root }, clock)).reason, 'invalid_input');
  assert.equal(reason(() => bindingFor({ ...req, workspace: path.join(ws, 'missing') }, clock)).reason, 'not_found');
  assert.equal(reason(() => bindingFor({ ...req, mandate: 'demo' }, clock)).reason, 'invalid_input');
  const artifact = path.join(ws, '.holon', 'artifacts', 'report-1');
  fs.mkdirSync(artifact, { recursive: true });
  assert.equal(reason(() => bindingFor({ ...req, state: artifact }, clock)).details['problem'], 'artifact_state');
});

test('no state is an artifact folder, inside one, holding artifact.json, or a link to one', (t) => {
  const { dir, cleanup } = tempDir('holon-statefolder-');
  t.after(cleanup);
  const artifact = path.join(dir, 'ws', '.holon', 'artifacts', 'journal-1');
  fs.mkdirSync(artifact, { recursive: true });
  const loose = path.join(dir, 'loose');
  fs.mkdirSync(loose);
  fs.writeFileSync(path.join(loose, 'artifact.json'), '{}');
  fs.symlinkSync(artifact, path.join(dir, 'link'));
  for (const p of [artifact, path.join(artifact, 'inner'), path.join(dir, 'ws', '.holon', 'artifacts'), path.join(dir, 'ws', '.Holon', 'Artifacts', 'x'), loose, path.join(dir, 'link'), path.join(dir, 'link', 'deeper')]) {
    assert.equal(reason(() => refuseArtifactState(p)).details['problem'], 'artifact_state', p);
  }
  // The state the CLI defaults to, beside the workspace's artifacts, is fine.
  refuseArtifactState(path.join(dir, 'ws', '.holon'));
  refuseArtifactState(path.join(dir, 'ws', '.holon', 'artifacts-old'));
});
