/**
 * atr_transact: Holon signs with the human's wallet, only after H is confirmed, and only within the
 * mandate — the pay capability and its payees, a rate to the mandate's currency, the limits, and the
 * human above the threshold. The local seller settles every payment on the local chain, the one the
 * human configured: a signed payment's money is held until Holon reads it landed there, then spent.
 * The terms name their price, so each test pays a price (an H) of its own: terms are paid once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { generatePrivateKey } from 'viem/accounts';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { publicFetch } from '../../src/server/net/publicFetch.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import type { Seller } from '../../examples/sellers/x402Seller.ts';
import { SELLER, startSeller, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { localChain } from '../../examples/chain/chain.ts';
import type { TestClock } from '../helpers.ts';
import { connect, demoRuntime, TestClock as Clock, until } from '../helpers.ts';
import { chainOf } from '../chain/support.ts';
import { callTool } from './support.ts';

const PAIRING = 'x402/exact/eip155';
const PAYS = 'demo/buyer';
const wallet = walletFromKey(generatePrivateKey());

let runtime: Runtime;
let clock: TestClock;
let client: Client;
let cleanup: () => Promise<void>;
const sellers: Seller[] = [];

before(async () => {
  // Holon signs only on the chain the human configured: the local one, where the seller settles.
  const world = await demoRuntime({ clock: new Clock(Date.now()), fetch: publicFetch({ allowPrivate: true, maxBytes: 64 * 1024 }), wallet, chain: chainOf(await localChain()) });
  ({ runtime, clock, cleanup } = world);
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  await createMandate(runtime.store, clock, PAYS, {
    toolsets: ['terms'],
    approval_threshold: '0.50',
    budget: { total: '3.00', per_day: null, per_call: null },
    capabilities: [{ name: 'pay', params: { payees: [`${TEST_NETWORK}:${SELLER}`] } }],
  });
  await createMandate(runtime.store, clock, 'demo/no-pay', { toolsets: ['terms'] });
  client = await connect(runtime, { mandate: PAYS });
  // The seller's facilitator settles on the local chain: the wallet holds the token there.
  await (await localChain()).fund(wallet.address, { usdc: 3_000_000n });
});
after(async () => {
  await client.close();
  await cleanup();
  for (const s of sellers) await s.close();
});

const seller = async (variant: Parameters<typeof startSeller>[0] = 'honest', amount?: string): Promise<Seller> => {
  const s = await startSeller(variant, amount ? { amount } : {});
  sellers.push(s);
  return s;
};
const json = <T>(r: CallToolResult): T => r.structuredContent as T;
const declineOf = (r: CallToolResult): { code: string; detail: string } => {
  assert.equal(r.isError, true, JSON.stringify(r.structuredContent));
  return json<{ decline: { code: string; detail: string } }>(r).decline;
};
const spent = (): bigint => runtime.store.state.spend[PAYS]?.spent ?? 0n;
const held = (): bigint => runtime.store.state.spend[PAYS]?.held ?? 0n;
/** Pays `s` with atr_transact and sends the payment to it: the seller's answer, and the payment's settlement. */
const pay = async (s: Seller): Promise<{ res: Response; settlement: string }> => {
  const r = json<{ signed: Parameters<typeof encodePaymentSignatureHeader>[0]; settlement: { id: string } }>(
    await callTool(client, 'atr_transact', { pairing: PAIRING, document: s.document }),
  );
  const res = await fetch(`${s.url}/resource`, { headers: { 'payment-signature': encodePaymentSignatureHeader(r.signed) } });
  return { res, settlement: r.settlement.id };
};
/** Waits until Holon reads settlement `id` landed on the chain. */
const landed = (id: string): Promise<unknown> => until(() => runtime.store.state.settlements[id]?.status === 'landed', `settlement ${id} to land`);

describe('atr_transact', () => {
  test('offered only with a wallet, and it spends: not read-only', async () => {
    const tools = (await client.listTools()).tools;
    const t = tools.find((x) => x.name === 'atr_transact');
    assert.ok(t);
    assert.equal(t.annotations?.readOnlyHint, false);
    const plain = await demoRuntime();
    try {
      await createMandate(plain.runtime.store, plain.clock, 'demo/terms', { toolsets: ['terms'] });
      const c = await connect(plain.runtime, { mandate: 'demo/terms' });
      assert.equal((await c.listTools()).tools.some((x) => x.name === 'atr_transact'), false, 'no wallet: not offered');
      await c.close();
    } finally {
      await plain.cleanup();
    }
  });

  test('under the threshold: H confirmed, signed by the wallet, accepted by the seller, held until read landed, then spent in the mandate', async () => {
    const s = await seller('honest', '250000');
    const { res, settlement } = await pay(s);
    assert.equal(res.status, 200, s.refused.join());
    assert.equal(s.accepted.length, 1);
    assert.equal((s.accepted[0] as { payload: { authorization: { from: string; nonce: string } } }).payload.authorization.from, wallet.address);
    await landed(settlement);
    assert.equal(spent(), 230_000n, '0.25 USDC at 0.92 = 0.23 EUR');
    assert.equal(held(), 0n);
  });

  test('above the threshold it waits for the human; after they approve, the same call pays; the paid terms are never paid again', async () => {
    const s = await seller('honest', '1000000');
    const before = spent();
    const first = declineOf(await callTool(client, 'atr_transact', { pairing: PAIRING, document: s.document }));
    assert.equal(first.code, 'approval-pending');
    const approval = Object.values(runtime.store.state.approvals).find((a) => a.mandate === PAYS && a.status === 'pending');
    assert.ok(approval);
    assert.equal(approval.kind, 'payment');
    assert.deepEqual(approval.subject, { kind: 'payment', payee: `${TEST_NETWORK}:${SELLER}`, amount: { amount: '1.00', currency: 'USDC' }, terms_hash: s.hash, purpose: 'one invoice table' });
    assert.equal(spent(), before, 'nothing spent while it waits');
    assert.equal(s.accepted.length, 0);
    await decideApproval(runtime.store, clock, approval.id, 'approved', 'panel');
    const { res, settlement } = await pay(s);
    assert.equal(res.status, 200, s.refused.join());
    await landed(settlement);
    assert.equal(spent(), before + 920_000n);
    assert.equal(runtime.store.state.approvals[approval.id]?.status, 'used');
    // The approval is used, and the terms are paid: the same payment again is declined before anything is
    // signed or asked (its nonce is H, which the chain shows spent), never paid a second time.
    const pending = Object.values(runtime.store.state.approvals).filter((a) => a.status === 'pending').length;
    assert.equal(declineOf(await callTool(client, 'atr_transact', { pairing: PAIRING, document: s.document })).code, 'terms-paid');
    assert.equal(Object.values(runtime.store.state.approvals).filter((a) => a.status === 'pending').length, pending, 'no approval asked for it');
    assert.equal(spent(), before + 920_000n);
  });

  test('nothing is signed or spent for a lying seller, a payee outside the mandate, no rate, or over the budget', async () => {
    const before = spent();
    const wrong = await seller('wrong-bytes');
    assert.equal(declineOf(await callTool(client, 'atr_transact', { pairing: PAIRING, document: wrong.document })).code, 'hash-mismatch');
    // Terms of their own (a price no other test pays): terms already paid would be declined terms-paid first.
    const s = await seller('honest', '240000');
    const elsewhere = { ...s.document, accepts: [{ ...s.document.accepts[0], payTo: '0x000000000000000000000000000000000000dEaD' }] };
    assert.equal(declineOf(await callTool(client, 'atr_transact', { pairing: PAIRING, document: elsewhere })).code, 'capability-scope');
    const big = await seller('honest', '5000000');
    assert.equal(declineOf(await callTool(client, 'atr_transact', { pairing: PAIRING, document: big.document })).code, 'over-budget');
    const noPay = await connect(runtime, { mandate: 'demo/no-pay' });
    assert.equal(declineOf(await callTool(noPay, 'atr_transact', { pairing: PAIRING, document: s.document })).code, 'capability-missing');
    await noPay.close();
    assert.equal(spent(), before);
    assert.equal(held(), 0n);
    for (const x of [wrong, s, big]) assert.equal(x.accepted.length, 0);
  });
});
