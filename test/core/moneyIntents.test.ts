/**
 * The money core without a server: payee references, call limits and usage windows, an approval that
 * lands after the mandate was suspended, and intents folded the same from the journal by another process.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { createMandate, patchMandate } from '../../src/core/accounts/mandates.ts';
import { journalRail, payIntent } from '../../src/core/money/pay.ts';
import { parsePayee } from '../../src/core/money/intents.ts';
import { meterCall, parseCallLimit, setCallLimits, usageOf } from '../../src/core/money/metering.ts';
import { fund } from '../../src/core/money/spend.ts';
import { loadOrCreateSigner } from '../../src/core/store/keys.ts';
import { demoRuntime, openAgain } from '../helpers.ts';

test('payee references: acct:<account> or CAIP-10, nothing else', () => {
  assert.deepEqual(parsePayee('acct:demo2'), { kind: 'account', ref: 'acct:demo2', account: 'demo2' });
  assert.equal(parsePayee('eip155:8453:0xabc').kind, 'chain');
  for (const bad of ['demo2', 'acct:', 'acct:Demo', 'https://x.example', 'eip155:8453']) assert.throws(() => parsePayee(bad), (e) => HolonError.is(e, 'invalid_input'), bad);
});

test('call limits read as N/min or N/day, and none', () => {
  assert.deepEqual(parseCallLimit('60/min'), { count: 60, per: 'minute' });
  assert.deepEqual(parseCallLimit('1000/day'), { count: 1000, per: 'day' });
  assert.equal(parseCallLimit('none'), null);
  for (const bad of ['0/min', '5/hour', 'ten/min', '']) assert.throws(() => parseCallLimit(bad), (e) => HolonError.is(e, 'invalid_input'), bad);
});

test('usage windows count whole buckets; calls older than the window are left out', async () => {
  const env = await demoRuntime();
  try {
    const { runtime, clock } = env;
    const m = 'demo/sandbox';
    await meterCall(runtime.store, clock, m, 'get_job');
    clock.advance(2 * 3600_000);
    await meterCall(runtime.store, clock, m, 'pay');
    await meterCall(runtime.store, clock, m, 'pay');
    assert.deepEqual(usageOf(runtime.store.state, m, '1h', clock.now()).by_tool, { pay: 2 });
    assert.deepEqual(usageOf(runtime.store.state, m, '24h', clock.now()).by_tool, { get_job: 1, pay: 2 });
    await setCallLimits(runtime.store, m, { quota: { count: 3, per: 'day' } });
    assert.deepEqual(usageOf(runtime.store.state, m, '24h', clock.now()).quota, { limit: 3, per: 'day', used: 3, resets_at: '2026-11-30T00:00:00.000Z' });
    await assert.rejects(meterCall(runtime.store, clock, m, 'pay'), (e) => HolonError.is(e, 'denied') && e.denials[0]?.code === 'quota_exceeded');
  } finally {
    await env.cleanup();
  }
});

test('an approval that lands after the mandate was suspended gives the money back instead of paying', async () => {
  const env = await demoRuntime();
  try {
    const { runtime, clock, dir } = env;
    await fund(runtime.store, 'demo2', '1');
    await createMandate(runtime.store, clock, 'demo/p', { toolsets: ['money'], approval_threshold: '0.50', capabilities: [{ name: 'pay', params: { payees: ['acct:demo2'] } }] });
    const deps = { store: runtime.store, clock, signer: loadOrCreateSigner(dir), rail: journalRail };
    const ask = { payee: 'acct:demo2', amount: '2', currency: 'EUR', purpose: 'p', idempotency_key: 'x' };
    const err = await payIntent(deps, 'demo/p', ask).catch((e: unknown) => e);
    assert.ok(HolonError.is(err, 'denied'));
    const approval = err.details['approval'] as string;
    await patchMandate(runtime.store, clock, 'demo/p', { status: 'suspended' });
    await decideApproval(runtime.store, clock, approval, 'approved', 'panel');
    const s = runtime.store.state;
    const r = Object.values(s.intents).find((i) => i.idempotency_key === 'x');
    assert.equal(r?.status, 'denied');
    assert.equal(s.holds[r?.id ?? ''], undefined);
    assert.equal(s.accounts['demo2']?.funded['EUR'], 1_000_000n, 'nothing was paid');

    // Another process folds the same journal into the same intents, job-event hashes included.
    await runtime.store.flush();
    const other = await openAgain(dir, clock);
    try {
      assert.deepEqual(other.state.intents, s.intents);
    } finally {
      other.close();
    }
  } finally {
    await env.cleanup();
  }
});
