/**
 * call_agent pays an agent that answers 402 the way the terms tools pay: H confirmed, never more than the
 * call holds, the human's wallet signing; the receipt carries H. A seller that lies is not paid and the
 * call is not charged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { generatePrivateKey } from 'viem/accounts';
import { setFx } from '../../src/core/money/fx.ts';
import { addAgent } from '../../src/core/market/catalog.ts';
import { publicFetch } from '../../src/server/net/publicFetch.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import { manifest } from '../core/fixtures.ts';
import type { Seller } from '../../examples/sellers/x402Seller.ts';
import { startSeller } from '../../examples/sellers/x402Seller.ts';
import { localChain } from '../../examples/chain/chain.ts';
import type { TestClock } from '../helpers.ts';
import { connect, demoRuntime, MANDATE, TestClock as Clock } from '../helpers.ts';
import { allowPaying, chainOf, x402Endpoint } from '../chain/support.ts';
import { callTool } from './support.ts';

const wallet = walletFromKey(generatePrivateKey());
let runtime: Runtime;
let clock: TestClock;
let client: Client;
let cleanup: () => Promise<void>;
const sellers: Seller[] = [];

before(async () => {
  // Holon pays only on the chain the human configured (the local one, which the sellers ask to be paid on),
  // and only to a payee the mandate's `pay` grant names (the sellers').
  const world = await demoRuntime({ clock: new Clock(Date.now()), fetch: publicFetch({ allowPrivate: true, maxBytes: 64 * 1024 }), wallet, chain: chainOf(await localChain()) });
  ({ runtime, clock, cleanup } = world);
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  await allowPaying(runtime.store, clock, MANDATE);
  client = await connect(runtime);
  // The seller's facilitator settles on the local chain: the wallet holds the token there.
  await (await localChain()).fund(wallet.address, { usdc: 1_000_000n });
});
after(async () => {
  await client.close();
  await cleanup();
  for (const s of sellers) await s.close();
});

/** A seller in the catalog as an x402 agent offering extraction.table at 0.25 USDC, declaring the seller's payee. */
async function listed(id: string, variant: Parameters<typeof startSeller>[0] = 'honest', amount = '250000'): Promise<Seller> {
  const s = await startSeller(variant, { amount });
  sellers.push(s);
  await addAgent(runtime.store, clock, manifest(id, ['extraction.table'], { price: { currency: 'USDC', per_call: '0.25' } }), x402Endpoint(`${s.url}/resource`), 'test');
  return s;
}
type Call = { status: string; cost: { amount: string; currency: string } | null; receipt: string; error: { code: string; charged: boolean } | null };

describe('call_agent and a 402 agent', () => {
  test('paid through the terms pairing: H confirmed, the seller takes the payment, the receipt carries H', async () => {
    const s = await listed('sellers/tables');
    const r = (await callTool(client, 'call_agent', { agent: 'sellers/tables', input: { file: 'holon://files/examples/facture.pdf' } })).structuredContent as Call;
    assert.equal(r.status, 'succeeded', JSON.stringify(r));
    assert.deepEqual(r.cost, { amount: '0.23', currency: 'EUR' });
    assert.equal(s.accepted.length, 1);
    const tree = (await callTool(client, 'get_receipt', { receipt: r.receipt })).structuredContent as { tree: { terms_hash: string } };
    assert.equal(tree.tree.terms_hash, s.hash);
  });

  test('a seller whose ATR does not confirm, or who asks more than is held, is not paid; the call is not charged', async () => {
    const spent = runtime.store.state.spend[MANDATE]?.spent ?? 0n;
    const liar = await listed('sellers/liar', 'wrong-bytes');
    const greedy = await listed('sellers/greedy', 'honest', '1000000');
    for (const agent of ['sellers/liar', 'sellers/greedy']) {
      const r = (await callTool(client, 'call_agent', { agent, input: {} })).structuredContent as Call;
      assert.equal(r.status, 'failed', agent);
      assert.equal(r.error?.code, 'payment_refused');
      assert.equal(r.error?.charged, false);
    }
    assert.equal(liar.accepted.length + greedy.accepted.length, 0, 'nothing was signed for them');
    assert.equal(runtime.store.state.spend[MANDATE]?.spent ?? 0n, spent);
    assert.equal(runtime.store.state.spend[MANDATE]?.held ?? 0n, 0n);
  });
});
