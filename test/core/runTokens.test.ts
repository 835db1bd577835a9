/** Run tokens: only the hash is kept, bad input changes nothing, expiry and ending are final. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { InMemoryStore } from '../../src/core/store/inMemory.ts';
import { createRunToken, endRunToken, liveRunToken, MAX_RUN_TOKEN_TTL_MS, runTokenStatus, tokenFor } from '../../src/core/accounts/runTokens.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holonReducer } from '../../src/core/fold/state.ts';
import { MANDATE, seedDemo, TestClock } from '../helpers.ts';

async function seeded(): Promise<{ store: InMemoryStore<HolonState>; clock: TestClock }> {
  const clock = new TestClock();
  const store = new InMemoryStore<HolonState>(holonReducer, clock);
  await seedDemo(store, clock);
  return { store, clock };
}

test('a token is 32 random bytes shown once; the state keeps its SHA-256 and finds it by the token', async () => {
  const { store, clock } = await seeded();
  const t = await createRunToken(store, clock, { mandate: MANDATE, ttlMs: 3_600_000, label: 'laptop' });
  assert.equal(Buffer.from(t.token, 'base64url').length, 32);
  assert.equal(t.expires_at, new Date(clock.now() + 3_600_000).toISOString());
  const kept = store.state.run_tokens[t.id];
  assert.ok(kept);
  assert.equal(kept.sha256, createHash('sha256').update(t.token).digest('hex'));
  assert.ok(!holonReducer.serialize(store.state).includes(t.token), 'the state (as a snapshot writes it) never holds the token');
  assert.equal(tokenFor(store.state, t.token, clock.now())?.id, t.id);
  assert.equal(tokenFor(store.state, t.token.slice(0, -1) + (t.token.endsWith('A') ? 'B' : 'A'), clock.now()), undefined, 'one character off is another token');
  assert.equal(tokenFor(store.state, '', clock.now()), undefined);
  // A snapshot reads back the same tokens.
  const back = holonReducer.deserialize(holonReducer.serialize(store.state));
  assert.equal(tokenFor(back, t.token, clock.now())?.mandate, MANDATE);
});

test('expired at expires_at, ended for good; ending twice changes nothing', async () => {
  const { store, clock } = await seeded();
  const t = await createRunToken(store, clock, { mandate: MANDATE, ttlMs: 60_000 });
  const u = await createRunToken(store, clock, { mandate: MANDATE, ttlMs: 120_000 });
  clock.advance(59_999);
  assert.ok(tokenFor(store.state, t.token, clock.now()));
  clock.advance(1);
  assert.equal(tokenFor(store.state, t.token, clock.now()), undefined);
  assert.equal(runTokenStatus(store.state.run_tokens[t.id]!, clock.now()), 'expired');

  assert.ok(liveRunToken(store.state, u.id, clock.now()));
  const ended = await endRunToken(store, clock, u.id);
  assert.equal(ended.ended_at, new Date(clock.now()).toISOString());
  assert.equal(tokenFor(store.state, u.token, clock.now()), undefined);
  assert.equal(liveRunToken(store.state, u.id, clock.now()), undefined);
  const seq = store.seq;
  clock.advance(1000);
  assert.equal((await endRunToken(store, clock, u.id)).ended_at, ended.ended_at);
  assert.equal(store.seq, seq);
});

test('bad input is refused and changes nothing', async () => {
  const { store, clock } = await seeded();
  const seq = store.seq;
  const refused = async (input: Parameters<typeof createRunToken>[2], reason: 'invalid_input' | 'not_found'): Promise<void> => {
    await assert.rejects(createRunToken(store, clock, input), (e: unknown) => HolonError.is(e, reason), JSON.stringify(input));
  };
  await refused({ mandate: MANDATE, ttlMs: 0 }, 'invalid_input');
  await refused({ mandate: MANDATE, ttlMs: -1 }, 'invalid_input');
  await refused({ mandate: MANDATE, ttlMs: 1.5 }, 'invalid_input');
  await refused({ mandate: MANDATE, ttlMs: MAX_RUN_TOKEN_TTL_MS + 1 }, 'invalid_input');
  await refused({ mandate: MANDATE, ttlMs: Number.NaN }, 'invalid_input');
  await refused({ mandate: MANDATE, ttlMs: 60_000, label: '' }, 'invalid_input');
  await refused({ mandate: MANDATE, ttlMs: 60_000, label: 'x'.repeat(101) }, 'invalid_input');
  await refused({ mandate: MANDATE, ttlMs: 60_000, label: 'evil\u001b[2J' }, 'invalid_input');
  await refused({ mandate: '', ttlMs: 60_000 }, 'invalid_input');
  await refused({ mandate: 'demo/nope', ttlMs: 60_000 }, 'not_found');
  await assert.rejects(endRunToken(store, clock, 'tok_nope'), (e: unknown) => HolonError.is(e, 'not_found'));
  assert.equal(store.seq, seq);
  assert.ok(await createRunToken(store, clock, { mandate: MANDATE, ttlMs: MAX_RUN_TOKEN_TTL_MS }), 'seven days exactly is allowed');
});
