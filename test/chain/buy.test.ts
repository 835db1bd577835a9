/**
 * `buy` on the local UCP merchant pays through the payment handler it offers for the chain: an x402
 * `exact` payment of the cart's total in USDC, which the merchant settles through its facilitator
 * (`@x402/core`'s client, `@x402/evm`'s scheme) before it completes the order. The order's receipt names
 * the transaction Holon read it landed in; the test reads both balances from the chain itself. A merchant
 * that completes without being paid, or completes an order for another amount than it was paid, is
 * flagged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import type { Shop } from '../../examples/merchants/shop.ts';
import type { X402Handler } from '../../examples/merchants/ucpMerchant.ts';
import { startUcpMerchant } from '../../examples/merchants/ucpMerchant.ts';
import { connect, demoRuntime, TestClock } from '../helpers.ts';
import { callTool } from '../server/support.ts';
import { chainOf, onChain } from './support.ts';

const SHOPPER = 'demo/shopper';
const wallet = walletFromKey(generatePrivateKey());
let chain: LocalChain;
let cleanup: () => Promise<void>;
let runtime: Runtime;
let world: Awaited<ReturnType<typeof demoRuntime>>;
const shops: Shop[] = [];

before(async () => {
  chain = await localChain();
  await chain.fund(wallet.address, { usdc: 20_000_000n });
  world = await demoRuntime({ clock: new TestClock(Date.now()), wallet, chain: chainOf(chain), funds: '100' });
  ({ runtime, cleanup } = world);
  // The human's rates: the merchant's USD at par with USDC, and both in the mandate's EUR.
  await setFx(runtime.store, 'USD', 'USDC', '1');
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  await createMandate(runtime.store, world.clock, SHOPPER, {
    toolsets: ['commerce'],
    approval_threshold: '30.00',
    budget: { total: '60.00', per_day: null, per_call: '40.00' },
    capabilities: [{ name: 'commerce.buy' }],
  });
});
after(async () => {
  await cleanup();
  for (const s of shops) await s.close();
});

/** A UCP merchant that takes x402 on the local chain, paid at its own new address, configured for the server. */
async function merchant(id: string, lie?: X402Handler['lie']): Promise<{ shop: Shop; payTo: `0x${string}` }> {
  const payTo = privateKeyToAccount(generatePrivateKey()).address;
  const shop = await startUcpMerchant({
    x402: { facilitator: chain.facilitator.url, network: chain.network, asset: chain.token, payTo, ...(lie ? { lie } : {}) },
  });
  shops.push(shop);
  const merchants = [...(runtime.deps.merchants?.list ?? []), { id, protocol: 'ucp' as const, url: shop.url }];
  runtime.deps.merchants = { list: merchants, fetch: fetch as never };
  return { shop, payTo };
}

type Stl = { status: string; transaction: string | null; block: string | null; amount: { amount: string; currency: string }; flag: { reason: string } | null };
type Order = { charged: { amount: string; currency: string }; total: { amount: string; currency: string }; settlement: Stl };
const buy = async (m: string, key: string) => {
  const client = await connect(runtime, { mandate: SHOPPER });
  try {
    return await callTool(client, 'buy', { merchant: m, lines: [{ product: 'sticker-pack', quantity: 2 }], replay_key: key });
  } finally {
    await client.close();
  }
};

describe('buy pays the merchant on the chain', () => {
  test('the merchant settles before it completes: the order names the transaction that moved exactly the cart total', async () => {
    const { shop, payTo } = await merchant('hardware');
    const before = await chain.usdcOf(wallet.address);
    const r = await buy('hardware', 'stickers');
    assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent));
    const order = r.structuredContent as Order;
    // 2 × 0.50 USD + 8 % tax = 1.08 USD = 1.08 USDC; charged 0.9936 EUR.
    assert.deepEqual(order.total, { amount: '1.08', currency: 'USD' });
    assert.deepEqual(order.settlement.amount, { amount: '1.08', currency: 'USDC' });
    assert.deepEqual(order.charged, { amount: '0.9936', currency: 'EUR' });
    assert.equal(order.settlement.status, 'landed');
    assert.equal(shop.orders.length, 1);
    const mined = await onChain(chain, order.settlement.transaction ?? '');
    assert.equal(order.settlement.block, mined.block.toString());
    assert.deepEqual(mined.transfers, [{ from: wallet.address, to: payTo, value: 1_080_000n }]);
    assert.equal(await chain.usdcOf(wallet.address), before - 1_080_000n);
    assert.equal(await chain.usdcOf(payTo), 1_080_000n);
    assert.equal(runtime.store.state.spend[SHOPPER]?.held, 0n);
    // The same replay key: the same order, nothing paid again.
    const again = (await buy('hardware', 'stickers')).structuredContent as Order & { replayed: boolean };
    assert.equal(again.replayed, true);
    assert.equal(await chain.usdcOf(payTo), 1_080_000n);
  });

  test('a merchant that completes without being paid: flagged, its hold kept; nothing moved', async () => {
    const { payTo } = await merchant('unpaid', 'unpaid');
    const before = await chain.usdcOf(wallet.address);
    const heldBefore = runtime.store.state.spend[SHOPPER]?.held ?? 0n;
    const r = await buy('unpaid', 'unpaid-stickers');
    const order = r.structuredContent as Order;
    assert.equal(order.settlement.status, 'flagged');
    assert.equal(order.settlement.flag?.reason, 'not_on_chain');
    assert.equal(await chain.usdcOf(payTo), 0n);
    assert.equal(await chain.usdcOf(wallet.address), before);
    assert.equal(runtime.store.state.spend[SHOPPER]?.held, heldBefore + 993_600n, 'its money held for the human');
  });

  test('a merchant whose order says another total than it was paid: flagged', async () => {
    const { payTo } = await merchant('surcharging', 'surcharge');
    const r = await buy('surcharging', 'surcharged-stickers');
    const order = r.structuredContent as Order;
    assert.equal(order.settlement.status, 'landed');
    assert.equal(order.settlement.flag?.reason, 'other_amount');
    assert.deepEqual(order.total, { amount: '2.58', currency: 'USD' });
    assert.equal(await chain.usdcOf(payTo), 1_080_000n, 'paid the cart total, as signed');
  });
});
