/**
 * `pay` to a CAIP-10 `eip155:` account settles on the local chain: `resolve` names the x402 rail (for the
 * account, and for an agent whose card advertises one); `pay`, through the same gate as ever, signs an
 * EIP-3009 authorization, settles it through the configured facilitator and reads it back from the chain;
 * the intent's receipt names the transaction. A facilitator that submits and then never answers does
 * not make a retry pay twice: the same authorization is sent again. This test reads the chain itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { connect, demoRuntime, TestClock, until } from '../helpers.ts';
import { callTool } from '../server/support.ts';
import type { FacilitatorProxy } from './facilitatorProxy.ts';
import { startFacilitatorProxy } from './facilitatorProxy.ts';
import { chainOf, onChain } from './support.ts';

const PAYS = 'demo/payer';
const wallet = walletFromKey(generatePrivateKey());
const payee = privateKeyToAccount(generatePrivateKey()).address;
const PAYEE = `eip155:31337:${payee}`;
let chain: LocalChain;
let proxy: FacilitatorProxy;
let runtime: Runtime;
let client: Client;
let cleanup: () => Promise<void>;

before(async () => {
  chain = await localChain();
  await chain.fund(wallet.address, { usdc: 3_000_000n });
  proxy = await startFacilitatorProxy(chain.facilitator.url);
  const world = await demoRuntime({ clock: new TestClock(Date.now()), wallet, chain: chainOf(chain, proxy.url) });
  ({ runtime, cleanup } = world);
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  await createMandate(runtime.store, world.clock, PAYS, {
    toolsets: ['money'],
    approval_threshold: '2.00',
    budget: { total: '4.00', per_day: null, per_call: null },
    capabilities: [{ name: 'pay', params: { payees: [PAYEE, 'eip155:1:0x0000000000000000000000000000000000000001'] } }],
  });
  client = await connect(runtime, { mandate: PAYS });
});
after(async () => {
  await client.close();
  await cleanup();
  await proxy.close();
});

type Receipt = { rail: string; reference: string; charged: { amount: string; currency: string }; amount: { amount: string; currency: string } };
type Paid = { receipt: Receipt; intent: { status: string; settlement: { status: string; transaction: string; block: string; summary: string } } };
const pay = async (amount: string, key: string, to = PAYEE, currency = 'USDC') =>
  callTool(client, 'pay', { intent: { payee: to, amount, currency, purpose: 'a test payment', idempotency_key: key } });
const balances = async (): Promise<[bigint, bigint]> => [await chain.usdcOf(wallet.address), await chain.usdcOf(payee)];

describe('pay to an eip155: account', () => {
  test('resolve names the x402 rail: for the account, and for an agent whose card advertises one', async () => {
    const account = (await callTool(client, 'resolve', { reference: PAYEE })).structuredContent as { rails: string[]; payee: string };
    assert.deepEqual([account.rails, account.payee], [['x402'], PAYEE]);
    const card = {
      name: 'Tables',
      supportedInterfaces: [{ url: 'https://tables.example/a2a', protocolBinding: 'JSONRPC' }],
      capabilities: { extensions: [{ uri: 'https://github.com/google-a2a/a2a-x402/v0.1', params: { payTo: PAYEE } }] },
    };
    const agent = (await callTool(client, 'resolve', { reference: card })).structuredContent as { rails: string[]; payee: string };
    assert.deepEqual([agent.rails, agent.payee], [['x402'], PAYEE]);
  });

  test('signed, settled through the facilitator, read back: the receipt names the transaction that moved exactly its amount', async () => {
    const before = await balances();
    const r = await pay('0.40', 'first');
    assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent));
    const out = r.structuredContent as Paid;
    assert.equal(out.receipt.rail, 'x402');
    assert.deepEqual(out.receipt.amount, { amount: '0.40', currency: 'USDC' });
    assert.deepEqual(out.receipt.charged, { amount: '0.368', currency: 'EUR' });
    assert.equal(out.intent.status, 'settled');
    assert.equal(out.intent.settlement.status, 'landed');
    assert.equal(out.receipt.reference, out.intent.settlement.transaction);
    const mined = await onChain(chain, out.receipt.reference);
    assert.equal(out.intent.settlement.block, mined.block.toString());
    assert.deepEqual(mined.transfers, [{ from: wallet.address, to: payee, value: 400_000n }]);
    const after = await balances();
    assert.deepEqual([after[0] - before[0], after[1] - before[1]], [-400_000n, 400_000n]);
    // The same key and body: the same receipt, nothing sent.
    const settles = proxy.settles;
    const again = (await pay('0.40', 'first')).structuredContent as { replayed: boolean; receipt: Receipt };
    assert.deepEqual([again.replayed, again.receipt.reference], [true, out.receipt.reference]);
    assert.equal(proxy.settles, settles);
    assert.deepEqual(await balances(), after);
  });

  test('a facilitator whose answer is lost after it settled: Holon reads the chain, and the payment stands as landed', async () => {
    const before = await balances();
    proxy.faults.push('drop');
    const r = await pay('0.20', 'answer-lost');
    assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent));
    const out = r.structuredContent as Paid;
    assert.equal(out.intent.settlement.status, 'landed');
    assert.deepEqual((await onChain(chain, out.receipt.reference)).transfers, [{ from: wallet.address, to: payee, value: 200_000n }]);
    const after = await balances();
    assert.deepEqual([after[0] - before[0], after[1] - before[1]], [-200_000n, 200_000n]);
  });

  test('a facilitator that times out and submits after, then a retry: the same authorization again, the money moved once', async () => {
    const before = await balances();
    proxy.faults.push('lose');
    const first = await pay('0.30', 'timed-out');
    assert.equal(first.isError, true, JSON.stringify(first.structuredContent));
    const problem = first.structuredContent as { code: string; action: string; data: { settlement: string } };
    assert.deepEqual([problem.code, problem.action], ['busy', 'retry-as-is']);
    const held = runtime.store.state.settlements[problem.data.settlement];
    assert.equal(held?.status, 'signed', 'recorded before it was sent, and held');
    // The facilitator goes on and settles it after Holon stopped waiting.
    proxy.release();
    await until(async () => (await balances())[1] !== before[1], 'the late settlement to be mined');
    const moved = await balances();
    assert.deepEqual([moved[0] - before[0], moved[1] - before[1]], [-300_000n, 300_000n]);

    const retry = await pay('0.30', 'timed-out');
    assert.notEqual(retry.isError, true, JSON.stringify(retry.structuredContent));
    const out = retry.structuredContent as Paid;
    assert.equal(out.intent.settlement.status, 'landed');
    assert.deepEqual((await onChain(chain, out.receipt.reference)).transfers, [{ from: wallet.address, to: payee, value: 300_000n }]);
    assert.deepEqual(await balances(), moved, 'the retry moved nothing more');
    const s = runtime.store.state;
    const mine = Object.values(s.settlements).filter((x) => x.for.kind === 'intent' && s.intents[x.for.id]?.idempotency_key === 'timed-out');
    assert.deepEqual(
      mine.map((x) => x.id),
      [problem.data.settlement],
      'one authorization was ever signed for the intent',
    );
  });

  test('what the rail cannot pay is refused and moves nothing: another chain, another currency', async () => {
    const before = await balances();
    const settlements = Object.keys(runtime.store.state.settlements).length;
    const elsewhere = await pay('0.10', 'elsewhere', 'eip155:1:0x0000000000000000000000000000000000000001');
    assert.equal(elsewhere.isError, true);
    assert.match(JSON.stringify(elsewhere.structuredContent), /not an account on the chain Holon pays on with x402/);
    const euros = await pay('0.10', 'euros', PAYEE, 'EUR');
    assert.equal(euros.isError, true);
    assert.match(JSON.stringify(euros.structuredContent), /must be in its currency/);
    assert.deepEqual(await balances(), before);
    assert.equal(Object.keys(runtime.store.state.settlements).length, settlements, 'nothing was signed');
  });
});
