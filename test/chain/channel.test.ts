/**
 * A channel opened and closed with a refund, on the local chain: the deposit is settled to the seller's
 * escrow (Holon holds it until it reads it landed, then counts it spent); two pages are paid by voucher;
 * the close gives the rest of the deposit back, from the escrow, on the chain — and once Holon reads the
 * refund there it credits the mandate with it. The test reads every balance from the chain itself: the
 * wallet's and the seller's change by exactly what Holon's receipt says was kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { generatePrivateKey } from 'viem/accounts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import { publicFetch } from '../../src/server/net/publicFetch.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { SELLER, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import type { ChannelSeller } from '../fixtures/sellers/channelSeller.ts';
import { startChannelSeller } from '../fixtures/sellers/channelSeller.ts';
import { connect, demoRuntime, TestClock, until } from '../helpers.ts';
import { callTool } from '../server/support.ts';
import { chainOf, onChain } from './support.ts';

const CHANNEL = 'x402/channel/eip155';
const BUYER = 'demo/pages';
const wallet = walletFromKey(generatePrivateKey());
let chain: LocalChain;
let runtime: Runtime;
let client: Client;
let cleanup: () => Promise<void>;
let seller: ChannelSeller;

before(async () => {
  chain = await localChain();
  await chain.fund(wallet.address, { usdc: 1_000_000n });
  const world = await demoRuntime({
    clock: new TestClock(Date.now()),
    fetch: publicFetch({ allowPrivate: true, maxBytes: 64 * 1024 }),
    wallet,
    chain: chainOf(chain),
  });
  ({ runtime, cleanup } = world);
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  await createMandate(runtime.store, world.clock, BUYER, {
    toolsets: ['terms'],
    approval_threshold: '1.00',
    budget: { total: '5.00', per_day: null, per_call: null },
    capabilities: [{ name: 'pay', params: { payees: [`${TEST_NETWORK}:${SELLER}`] } }],
  });
  client = await connect(runtime, { mandate: BUYER });
  seller = await startChannelSeller();
});
after(async () => {
  await client.close();
  await cleanup();
  await seller.close();
});

const json = <T>(r: CallToolResult): T => {
  assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent));
  return r.structuredContent as T;
};
const send = (signed: unknown): Promise<Response> =>
  fetch(`${seller.url}/page`, { headers: { 'payment-signature': encodePaymentSignatureHeader(signed as never) } });
const spent = (): bigint => runtime.store.state.spend[BUYER]?.spent ?? 0n;
type Hold = Record<string, unknown>;
type Stl = { id: string; status: string; transaction: string | null; refund: { transaction: string | null; credited: { amount: string } | null } | null };

describe('a channel on the chain', () => {
  test('opened (the deposit lands in escrow), two pages, closed: the refund comes back on the chain and to the mandate', async () => {
    const balances = async (): Promise<bigint[]> => Promise.all([wallet.address, SELLER, seller.escrow].map((a) => chain.usdcOf(a as `0x${string}`)));
    const before = await balances();
    const spentBefore = spent();

    const t = json<{ atr: { base64: string }; signed: unknown; mac: string; settlement: Stl }>(
      await callTool(client, 'atr_transact', { pairing: CHANNEL, document: seller.document() }),
    );
    assert.equal(t.settlement.status, 'signed');
    assert.equal((await send(t.signed)).status, 200, seller.refused.join());
    // Holon reads the deposit landed in the escrow, and counts it spent: 0.20 USDC at 0.92.
    await until(() => runtime.store.state.settlements[t.settlement.id]?.status === 'landed', 'the deposit to land');
    assert.equal(runtime.store.state.settlements[t.settlement.id]?.landed?.transaction, seller.transactions.opening);
    assert.equal(spent() - spentBefore, 184_000n);

    let hold = json<{ hold: Hold }>(await callTool(client, 'atr_channel_open', { pairing: CHANNEL, atr: t.atr.base64, signed: t.signed, mac: t.mac })).hold;
    for (let page = 1; page <= 2; page++) {
      const w = json<{ signed: unknown; hold: Hold }>(await callTool(client, 'atr_channel_within', { pairing: CHANNEL, hold, document: seller.document() }));
      const res = await send(w.signed);
      assert.equal(res.status, 200, seller.refused.join());
      const { charged } = (await res.json()) as { charged: string };
      hold = json<{ hold: Hold }>(await callTool(client, 'atr_channel_record_charge', { hold: w.hold, charged })).hold;
    }
    const closed = json<{ signed: unknown; settlement: Stl }>(await callTool(client, 'atr_channel_within', { pairing: CHANNEL, hold, refund: {} }));
    assert.equal(closed.settlement.id, t.settlement.id);
    assert.equal(closed.settlement.refund?.transaction, null, 'the refund is expected, not yet read');
    assert.equal((await send(closed.signed)).status, 200, seller.refused.join());

    // The refund, read on the chain, is credited back: the mandate has spent what the seller kept, 0.10 USDC.
    await until(() => runtime.store.state.settlements[t.settlement.id]?.refund?.transaction, 'the refund to be read on the chain');
    const stl = runtime.store.state.settlements[t.settlement.id];
    assert.equal(stl?.refund?.transaction, seller.transactions.refund);
    assert.deepEqual(stl?.refund?.credited, { amount: '0.092', currency: 'EUR' });
    assert.equal(spent() - spentBefore, 92_000n);
    assert.deepEqual((await onChain(chain, seller.transactions.refund ?? '')).transfers, [{ from: seller.escrow, to: wallet.address, value: 100_000n }]);

    // The chain, read by this test: the wallet paid exactly what the seller kept; the escrow holds nothing.
    const after = await balances();
    assert.deepEqual(
      after.map((b, i) => b - (before[i] ?? 0n)),
      [-100_000n, 100_000n, 0n],
    );
  });
});
