/**
 * Holon checks that a payment landed: every payment it signs on the local chain gets a settlement record,
 * held until Holon's own reading of the chain (the receipt's status, the token's Transfer from the wallet
 * to the payee for the amount, AuthorizationUsed with the nonce) says where it went. This test reads the
 * chain itself too — the transaction, its block, both balances — and compares them with Holon's receipts.
 * A seller that says "settled" without settling is caught: the payment is flagged, its hold kept, and only
 * a human's decision releases it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { generatePrivateKey } from 'viem/accounts';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { addAgent } from '../../src/core/market/catalog.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { reconcileSettlements } from '../../src/core/rails/landing.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import { publicFetch } from '../../src/server/net/publicFetch.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import type { Seller } from '../../examples/sellers/x402Seller.ts';
import { SELLER, startSeller, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { manifest } from '../core/fixtures.ts';
import { connect, demoRuntime, MANDATE, TestClock, until } from '../helpers.ts';
import { callTool } from '../server/support.ts';
import { allowPaying, chainOf, onChain, settled, x402Endpoint } from './support.ts';
import { settlementWords } from '../../src/core/rails/settlementView.ts';

const PAYS = 'demo/buyer';
const wallet = walletFromKey(generatePrivateKey());
let chain: LocalChain;
let runtime: Runtime;
let clock: TestClock;
let terms: Client;
let market: Client;
let cleanup: () => Promise<void>;
const sellers: Seller[] = [];

before(async () => {
  chain = await localChain();
  await chain.fund(wallet.address, { usdc: 5_000_000n });
  // Real time: the facilitator checks the authorization's window against the chain's clock.
  const world = await demoRuntime({
    clock: new TestClock(Date.now()),
    fetch: publicFetch({ allowPrivate: true, maxBytes: 64 * 1024 }),
    wallet,
    chain: chainOf(chain),
  });
  ({ runtime, clock, cleanup } = world);
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  await createMandate(runtime.store, clock, PAYS, {
    toolsets: ['terms'],
    approval_threshold: '1.00',
    budget: { total: '3.00', per_day: null, per_call: null },
    capabilities: [{ name: 'pay', params: { payees: [`${TEST_NETWORK}:${SELLER}`] } }],
  });
  // The demo mandate hires, and may pay the example seller's address: every signature goes through pay's payees.
  await allowPaying(runtime.store, clock, MANDATE);
  terms = await connect(runtime, { mandate: PAYS });
  market = await connect(runtime);
});
after(async () => {
  await terms.close();
  await market.close();
  await cleanup();
  for (const s of sellers) await s.close();
});

const seller = async (variant: Parameters<typeof startSeller>[0], amount: string): Promise<Seller> => {
  const s = await startSeller(variant, { amount });
  sellers.push(s);
  return s;
};
const balances = async (): Promise<[bigint, bigint]> => [await chain.usdcOf(wallet.address), await chain.usdcOf(SELLER)];
const spendOf = (mandate: string): { spent: bigint; held: bigint } => {
  const sp = runtime.store.state.spend[mandate];
  return { spent: sp?.spent ?? 0n, held: sp?.held ?? 0n };
};
type Stl = { id: string; status: string; summary: string; transaction: string | null; block: string | null; amount: { amount: string; currency: string } };

describe('a payment Holon signs is read back from the chain', () => {
  test('atr_transact: held while it is not on the chain; the agent sends it; Holon reads it landed, in the block the chain says', async () => {
    const s = await seller('honest', '250000');
    const before = await balances();
    const spentBefore = spendOf(PAYS);
    const r = await callTool(terms, 'atr_transact', { pairing: 'x402/exact/eip155', document: s.document });
    assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent));
    const out = r.structuredContent as { signed: PaymentPayload; settlement: Stl };
    assert.equal(out.settlement.status, 'signed');
    assert.match(out.settlement.summary, /^not landed yet \(it can land until 20\d\d-/);
    assert.deepEqual(out.settlement.amount, { amount: '0.25', currency: 'USDC' });
    // Looked for from a block no later than the chain's head once it was signed (read by the test's own client).
    const headWhenSigned = await chain.client.getBlockNumber({ cacheTime: 0 });
    const from = BigInt(runtime.store.state.settlements[out.settlement.id]?.from_block ?? 'x');
    assert.ok(from <= headWhenSigned, `looked for from block ${from}, after the head ${headWhenSigned}`);
    // Signed, not sent: nothing moved on the chain, and its money is held, not spent.
    assert.deepEqual(await balances(), before);
    assert.deepEqual(spendOf(PAYS), { spent: spentBefore.spent, held: spentBefore.held + 230_000n });

    // The agent sends it, as the seed has it do.
    const res = await fetch(`${s.url}/resource`, { headers: { 'payment-signature': encodePaymentSignatureHeader(out.signed) } });
    assert.equal(res.status, 200, s.refused.join());
    const record = await settled(runtime.store, out.settlement.id);
    assert.equal(record.status, 'landed');
    // The chain, read by this test: the transaction Holon names is the one that moved exactly the receipt's amount.
    const tx = record.landed?.transaction ?? '';
    assert.equal(tx, s.settled[0]?.transaction);
    const mined = await onChain(chain, tx);
    assert.equal(record.landed?.block, mined.block.toString());
    assert.ok(mined.block > from, 'it landed after the block it is looked for from');
    assert.deepEqual(mined.transfers, [{ from: wallet.address, to: SELLER, value: 250_000n }]);
    const after = await balances();
    assert.deepEqual([after[0] - before[0], after[1] - before[1]], [-250_000n, 250_000n]);
    assert.deepEqual(spendOf(PAYS), { spent: spentBefore.spent + 230_000n, held: spentBefore.held });
  });

  test('call_agent: the seller settles, Holon reads its transaction on the chain; get_receipt says landed in block N', async () => {
    const s = await seller('honest', '120000');
    const tables = manifest('sellers/tables', ['extraction.table'], { price: { currency: 'USDC', per_call: '0.12' } });
    await addAgent(runtime.store, clock, tables, x402Endpoint(`${s.url}/resource`), 'test');
    const before = await balances();
    const spentBefore = spendOf(MANDATE);
    const call = (await callTool(market, 'call_agent', { agent: 'sellers/tables', input: {} })).structuredContent as {
      status: string;
      receipt: string;
      cost: { amount: string; currency: string };
    };
    assert.equal(call.status, 'succeeded', JSON.stringify(call));
    assert.deepEqual(call.cost, { amount: '0.1104', currency: 'EUR' });
    const got = (await callTool(market, 'get_receipt', { receipt: call.receipt })).structuredContent as { tree: { settlement: Stl } };
    const stl = got.tree.settlement;
    assert.equal(stl.status, 'landed');
    assert.deepEqual(stl.amount, { amount: '0.12', currency: 'USDC' }, 'what the receipt says was paid');
    assert.equal(stl.transaction, s.settled[0]?.transaction);
    const mined = await onChain(chain, stl.transaction ?? '');
    assert.equal(stl.summary, `landed in block ${mined.block} (${TEST_NETWORK})`);
    assert.deepEqual(mined.transfers, [{ from: wallet.address, to: SELLER, value: 120_000n }]);
    const after = await balances();
    assert.deepEqual([after[0] - before[0], after[1] - before[1]], [-120_000n, 120_000n]);
    assert.deepEqual(spendOf(MANDATE), { spent: spentBefore.spent + 110_400n, held: spentBefore.held });
  });

  test('get_budget says what the wallet holds, read from the chain, beside what the mandate allows', async () => {
    const budget = (await callTool(market, 'get_budget')).structuredContent as {
      remaining: { amount: string };
      wallet: { address: string; network: string; token: { amount: string; currency: string }; native: { currency: string } };
    };
    const held = await chain.usdcOf(wallet.address);
    assert.equal(budget.wallet.address, wallet.address);
    assert.equal(budget.wallet.network, TEST_NETWORK);
    const exact = `${held / 1_000_000n}.${(held % 1_000_000n).toString().padStart(6, '0')}`.replace(/\.?0+$/, '');
    assert.deepEqual(budget.wallet.token, { amount: exact, currency: 'USDC' });
    assert.equal(budget.wallet.native.currency, 'ETH');
  });

  test('a seller that says "settled" and never settles: flagged, its hold kept, until a human decides; the chain moved nothing', async () => {
    const s = await seller('claims-unpaid', '130000');
    const liar = manifest('sellers/liar', ['extraction.table'], { price: { currency: 'USDC', per_call: '0.13' } });
    await addAgent(runtime.store, clock, liar, x402Endpoint(`${s.url}/resource`), 'test');
    const before = await balances();
    const spentBefore = spendOf(MANDATE);
    const call = (await callTool(market, 'call_agent', { agent: 'sellers/liar', input: {} })).structuredContent as { receipt: string };
    const got = (await callTool(market, 'get_receipt', { receipt: call.receipt })).structuredContent as {
      tree: { settlement: Stl & { flag: { reason: string; approval: string } } };
    };
    const stl = got.tree.settlement;
    assert.equal(stl.status, 'flagged');
    assert.equal(stl.flag.reason, 'not_on_chain');
    assert.equal(stl.transaction, null);
    assert.match(stl.summary, /^not landed: flagged/);
    assert.deepEqual(await balances(), before, 'nothing moved on the chain');
    // Its money stays held (0.13 USDC at 0.92), neither spent nor given back.
    assert.deepEqual(spendOf(MANDATE), { spent: spentBefore.spent, held: spentBefore.held + 119_600n });
    const approval = runtime.store.state.approvals[stl.flag.approval];
    assert.equal(approval?.kind, 'unlanded_payment');
    assert.equal(approval?.status, 'pending');

    // Reading the chain again changes nothing: the hold stays while no human decided.
    await reconcileSettlements({ store: runtime.store, clock, chain: runtime.deps.chain });
    assert.equal(runtime.store.state.settlements[stl.id]?.status, 'flagged');
    assert.equal(spendOf(MANDATE).held, spentBefore.held + 119_600n);
    // The human releases it. The seller still holds the signed authorization, and this wallet has no gas to
    // cancel it with: its money stays held while it could land, and goes back once it can no longer.
    await decideApproval(runtime.store, clock, stl.flag.approval, 'approved', 'cli');
    assert.equal(runtime.store.state.settlements[stl.id]?.status, 'releasing');
    assert.match(runtime.store.state.settlements[stl.id] ? settlementWords(runtime.store.state.settlements[stl.id] as never) : '', /stays held/);
    assert.equal(spendOf(MANDATE).held, spentBefore.held + 119_600n);
    // The chain passes the authorization's validity (the last test here: the chain's clock runs ahead from now on).
    await chain.client.request({ method: 'evm_increaseTime', params: [3_600] } as never);
    await chain.client.request({ method: 'evm_mine', params: [] } as never);
    const released = await until(() => {
      const r = runtime.store.state.settlements[stl.id];
      return r?.status === 'released' ? r : undefined;
    }, 'the release to end once the payment can no longer land');
    assert.equal(released.never, 'expired');
    assert.deepEqual(spendOf(MANDATE), spentBefore, 'its money is back, nothing counted as spent');
    assert.deepEqual(await balances(), before, 'nothing moved on the chain');
  });
});
