/**
 * Memory in the core, on the in-memory store: the bi-temporal fold and snapshot resolution, contents read
 * back by key (the index holds none), cursors that refuse any change, and artifacts whose every byte is
 * covered — each single-character change of an artifact's JSON text fails verification.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, test } from 'node:test';
import { canonicalize } from 'json-canonicalize';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { assembleContext, verifyArtifact } from '../../src/core/memory/artifact.ts';
import { decodeCursor, encodeCursor } from '../../src/core/memory/cursor.ts';
import type { SnapshotQuery } from '../../src/core/memory/memory.ts';
import { readContents, remember, resolveSnapshot } from '../../src/core/memory/memory.ts';
import { InMemoryStore } from '../../src/core/store/inMemory.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holonReducer } from '../../src/core/fold/state.ts';
import type { Signer } from '../../src/core/store/store.ts';
import { TestClock } from '../helpers.ts';

const M = 'acme/agent';

function testSigner(): Signer {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ type: 'spki', format: 'der' }).subarray(12).toString('base64');
  return { publicKey: raw, sign: (m) => sign(null, Buffer.from(m), privateKey).toString('base64') };
}

async function world(): Promise<{ store: InMemoryStore<HolonState>; clock: TestClock }> {
  const clock = new TestClock(Date.parse('2026-05-01T00:00:00Z'));
  const store = new InMemoryStore<HolonState>(holonReducer, clock);
  await createMandate(store, clock, M, { toolsets: ['memory'] });
  return { store, clock };
}

const query = (store: InMemoryStore<HolonState>, over: Partial<SnapshotQuery> = {}): SnapshotQuery => ({
  mandate: M,
  system_seq: store.seq,
  system_as_of: '2100-01-01T00:00:00.000Z',
  valid_as_of: '2026-05-01T00:00:00.000Z',
  keys: null,
  prefix: null,
  ...over,
});

describe('the bi-temporal index', () => {
  test('holds no content, and what a snapshot shows is read back by key', async () => {
    const { store, clock } = await world();
    await remember(store, M, { key: 'a', content: 'alpha body' }, clock.now());
    assert.ok(!holonReducer.serialize(store.state).includes('alpha body'), 'the folded state keeps no content');
    const [v] = resolveSnapshot(store.state, query(store));
    assert.ok(v);
    assert.deepEqual([...(await readContents(store, M, [v]))], [[v.id, 'alpha body']]);
    // The snapshot's round trip keeps the index.
    assert.deepEqual(holonReducer.deserialize(holonReducer.serialize(store.state)).memory, store.state.memory);
  });

  test('the latest recorded version valid at the instant wins; older ones stay visible elsewhere', async () => {
    const { store, clock } = await world();
    const v1 = await remember(store, M, { key: 'k', content: '1', valid_from: '2026-01-01T00:00:00Z' }, clock.now());
    const seqAfterV1 = store.seq;
    clock.advance(1000);
    const v2 = await remember(store, M, { key: 'k', content: '2', valid_from: '2026-03-01T00:00:00Z', valid_to: '2026-04-01T00:00:00Z' }, clock.now());
    assert.deepEqual(v2.supersedes, [v1.id]);
    const at = (valid: string, seq = store.seq): string | undefined => resolveSnapshot(store.state, query(store, { valid_as_of: valid, system_seq: seq }))[0]?.id;
    assert.equal(at('2026-02-01T00:00:00.000Z'), v1.id);
    assert.equal(at('2026-03-15T00:00:00.000Z'), v2.id);
    assert.equal(at('2026-04-01T00:00:00.000Z'), v1.id, 'valid_to is exclusive: the first version holds again');
    assert.equal(at('2026-03-15T00:00:00.000Z', seqAfterV1), v1.id, 'sealed before the correction');
    assert.equal(at('2025-12-31T00:00:00.000Z'), undefined);
  });

  test('the core refuses what the schemas refuse, and an inactive mandate', async () => {
    const { store, clock } = await world();
    const seq = store.seq;
    await assert.rejects(remember(store, M, { key: 'k', content: 'x'.repeat(65537) }, clock.now()), (e) => HolonError.is(e, 'invalid_input'));
    await assert.rejects(remember(store, M, { key: 'k', content: 'x', valid_to: '2026-04-01T00:00:00Z' }, clock.now()), (e) => HolonError.is(e, 'invalid_input'), 'valid_to before the default valid_from (now)');
    await assert.rejects(remember(store, M, { key: 'a\u0007b', content: 'x' }, clock.now()), (e) => HolonError.is(e, 'invalid_input'));
    await assert.rejects(remember(store, 'acme/none', { key: 'k', content: 'x' }, clock.now()), (e) => HolonError.is(e, 'not_found'));
    assert.equal(store.seq, seq);
  });
});

describe('cursors', () => {
  test('a cursor decodes only as issued, by its key, for its mandate', async () => {
    const { store } = await world();
    const signer = testSigner();
    const q = query(store);
    const c = encodeCursor({ ...q, offset: 3 }, signer);
    assert.deepEqual(decodeCursor(c, signer.publicKey, M), { ...q, offset: 3, type: 'holon.memory.cursor/v1' });
    assert.throws(() => decodeCursor(c, testSigner().publicKey, M), (e) => HolonError.is(e, 'invalid_input'), 'another key');
    assert.throws(() => decodeCursor(c, signer.publicKey, 'acme/other'), (e) => HolonError.is(e, 'invalid_input'), 'another mandate');
    for (let i = 0; i < c.length; i++) {
      const ch = c[i] === 'A' ? 'B' : 'A';
      const changed = c.slice(0, i) + ch + c.slice(i + 1);
      assert.throws(() => decodeCursor(changed, signer.publicKey, M), (e) => HolonError.is(e, 'invalid_input'), `changed at ${i}`);
    }
  });
});

describe('artifacts', () => {
  test('every single-character change of an artifact fails verification', async () => {
    const { store, clock } = await world();
    const signer = testSigner();
    await remember(store, M, { key: 'contact', content: 'bob@acme.example <b>&amp;</b>' }, clock.now());
    await remember(store, M, { key: 'note', content: 'multi\nline ✓' }, clock.now());
    const { artifact } = await assembleContext(store, signer, query(store), { unit: 'tokens', limit: 1000 }, clock.now());
    assert.equal(artifact.records.length, 2);
    assert.deepEqual(verifyArtifact(artifact).reasons, []);
    const text = canonicalize(artifact);
    assert.equal(verifyArtifact(text).valid, true);
    let checked = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      // Flip the lowest bit; a surrogate half is replaced whole so the text stays a string of characters.
      const ch = code >= 0xd800 && code <= 0xdfff ? 'x' : String.fromCharCode(code ^ 1);
      const changed = text.slice(0, i) + ch + text.slice(i + 1);
      const check = verifyArtifact(changed);
      assert.equal(check.valid, false, `a change at ${i} (${JSON.stringify(text.slice(Math.max(0, i - 10), i + 10))}) must fail`);
      checked++;
    }
    assert.equal(checked, text.length);
  });

  test('a context signed honestly but not matching its records fails', async () => {
    const { store, clock } = await world();
    const signer = testSigner();
    await remember(store, M, { key: 'k', content: 'true' }, clock.now());
    const { artifact } = await assembleContext(store, signer, query(store), { unit: 'bytes', limit: 1000 }, clock.now());
    // Re-signed by the same key after the content changed: the signature checks, the hashes do not.
    const { signature: _s, ...rest } = artifact;
    const lied = { ...rest, context: artifact.context.replace('true', 'fals'), used_bytes: artifact.used_bytes, used: artifact.used };
    const resigned = { ...lied, signature: signer.sign(canonicalize(lied)) };
    const check = verifyArtifact(resigned);
    assert.equal(check.valid, false);
    assert.match(check.reasons.join('; '), /does not hash/);
  });

  test('the budget is never exceeded, and nothing that cannot fit is read back', async () => {
    const { store, clock } = await world();
    const signer = testSigner();
    for (let i = 0; i < 20; i++) await remember(store, M, { key: `k${String(i).padStart(2, '0')}`, content: 'x'.repeat(i * 50) }, clock.now());
    const reads: string[] = [];
    const spy = { ...store, state: store.state, seq: store.seq, transact: store.transact.bind(store), readKey: async (k: string) => (reads.push(k), store.readKey(k)) };
    for (const limit of [1, 150, 400, 1000, 5000]) {
      reads.length = 0;
      const { artifact, omitted } = await assembleContext(spy, signer, query(store), { unit: 'bytes', limit }, clock.now());
      assert.ok(artifact.used <= limit, `${artifact.used} ≤ ${limit}`);
      assert.equal(artifact.records.length + omitted.length, 20);
      assert.ok(reads.length <= artifact.records.length + 1, 'only records that may fit are read');
      assert.equal(verifyArtifact(artifact).valid, true);
    }
  });
});
