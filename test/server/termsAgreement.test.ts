/**
 * The agreement pairing through a real SDK Client: the agreement paid once (its payment carries H) with
 * what the agent approved, within the mandate, then the resource paid; 202 while it settles, never a
 * second payment for one agreement without `approved`; a receipt for another H refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { generatePrivateKey } from 'viem/accounts';
import { setFx } from '../../src/core/money/fx.ts';
import { createMandate } from '../../src/core/mandates.ts';
import { publicFetch } from '../../src/server/net/publicFetch.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import type { TypedRequest } from '../../src/core/wallet.ts';
import { walletFromKey } from '../../src/core/wallet.ts';
import type { AgreementSeller } from '../fixtures/sellers/agreementSeller.ts';
import { startAgreementSeller } from '../fixtures/sellers/agreementSeller.ts';
import { SELLER, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { connect, demoRuntime, TestClock } from '../helpers.ts';
import { callTool } from './support.ts';

const AGREEMENT = 'x402/agreement/eip155';
const BUYER = 'demo/agreements';
const wallet = walletFromKey(generatePrivateKey());
const account = `${TEST_NETWORK}:${wallet.address}`;

let runtime: Runtime;
let client: Client;
let cleanup: () => Promise<void>;
const sellers: AgreementSeller[] = [];

before(async () => {
  const world = await demoRuntime({ clock: new TestClock(Date.now()), fetch: publicFetch({ allowPrivate: true, maxBytes: 64 * 1024 }), wallet });
  ({ runtime, cleanup } = world);
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  await createMandate(runtime.store, world.clock, BUYER, {
    toolsets: ['terms'],
    approval_threshold: '1.00',
    capabilities: [{ name: 'pay', params: { payees: [`${TEST_NETWORK}:${SELLER}`] } }],
  });
  client = await connect(runtime, { mandate: BUYER });
});
after(async () => {
  await client.close();
  await cleanup();
  for (const s of sellers) await s.close();
});

const seller = async (variant?: Parameters<typeof startAgreementSeller>[0]): Promise<AgreementSeller> => {
  const s = await startAgreementSeller(variant);
  sellers.push(s);
  return s;
};
const ok = <T>(r: CallToolResult): T => {
  assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent));
  return r.structuredContent as T;
};
const declined = (r: CallToolResult): { decline: { code: string }; moved?: { atrHash: string } } => {
  assert.equal(r.isError, true, JSON.stringify(r.structuredContent));
  return r.structuredContent as { decline: { code: string }; moved?: { atrHash: string } };
};
const spent = (): bigint => runtime.store.state.spend[BUYER]?.spent ?? 0n;

describe('x402/agreement/eip155', () => {
  test('atr_transact: approve, then the agreement and the resource paid; later calls need no agreement payment', async () => {
    const s = await seller();
    const first = ok<{ atrHash: string; approve: Record<string, unknown> }>(await callTool(client, 'atr_transact', { pairing: AGREEMENT, document: s.document }));
    assert.equal(first.atrHash, s.hash);
    assert.deepEqual(first.approve['option'], { amount: '100000', asset: s.agreementRequired.accepts[0]?.asset, payTo: SELLER, network: TEST_NETWORK });
    assert.equal(s.agreementPayments, 0, 'nothing signed without approved');
    const before = spent();
    const paid = ok<{ signed: unknown; agreement: { atrHash: string; agreed: boolean } }>(await callTool(client, 'atr_transact', { pairing: AGREEMENT, document: s.document, approved: first.approve }));
    assert.equal(paid.agreement.atrHash, s.hash);
    assert.equal(s.agreementPayments, 1);
    const res = await fetch(`${s.url}/resource`, { headers: { 'payment-signature': encodePaymentSignatureHeader(paid.signed as never) } });
    assert.equal(res.status, 200, s.refused.join());
    assert.equal(spent() - before, 92_000n + 230_000n, 'the agreement (0.10 USDC) and the table (0.25 USDC) at 0.92');
    // Recorded: the next table needs no agreement payment.
    const again = ok<{ signed: unknown }>(await callTool(client, 'atr_transact', { pairing: AGREEMENT, document: s.document }));
    assert.equal((await fetch(`${s.url}/resource`, { headers: { 'payment-signature': encodePaymentSignatureHeader(again.signed as never) } })).status, 200);
    assert.equal(s.agreementPayments, 1);
  });

  test('atr_agree: 202 is agreement-pending with what moved; asking again without approved collects the receipt, no second payment', async () => {
    const s = await seller('pending');
    const c = ok<{ atr: { base64: string }; chosen: Record<string, unknown>; request: null }>(await callTool(client, 'atr_confirm', { pairing: AGREEMENT, document: s.document, account }));
    assert.equal(c.request, null, 'no request before the agreement has a receipt');
    const approve = ok<{ approve: Record<string, unknown> }>(await callTool(client, 'atr_agree', { atr: c.atr.base64, chosen: c.chosen })).approve;
    const pending = declined(await callTool(client, 'atr_agree', { atr: c.atr.base64, chosen: c.chosen, approved: approve }));
    assert.equal(pending.decline.code, 'agreement-pending');
    assert.equal(pending.moved?.atrHash, s.hash);
    assert.equal(s.agreementPayments, 1);
    assert.equal(declined(await callTool(client, 'atr_agree', { atr: c.atr.base64, chosen: c.chosen })).decline.code, 'agreement-pending', 'it still settles');
    const got = ok<{ receipt: { atrHash: string; agreed: boolean; network: string; transaction: string } }>(await callTool(client, 'atr_agree', { atr: c.atr.base64, chosen: c.chosen }));
    assert.equal(got.receipt.atrHash, s.hash);
    assert.equal(s.agreementPayments, 1, 'collected without a second payment');
    // With the receipt, atr_confirm builds the resource's payment; the agent's own wallet signs it.
    const withReceipt = ok<{ chosen: Record<string, unknown>; request: TypedRequest; atr: { base64: string } }>(await callTool(client, 'atr_confirm', { pairing: AGREEMENT, document: s.document, account, receipt: got.receipt }));
    const f = ok<{ signed: unknown }>(await callTool(client, 'atr_finish', { pairing: AGREEMENT, atr: withReceipt.atr.base64, chosen: withReceipt.chosen, signature: await wallet.signTypedData(withReceipt.request) }));
    assert.equal((await fetch(`${s.url}/resource`, { headers: { 'payment-signature': encodePaymentSignatureHeader(f.signed as never) } })).status, 200, s.refused.join());
  });

  test('refused before anything is fetched or signed: a changed chosen, an approved for another URL or option; a receipt for another H', async () => {
    const s = await seller();
    const c = ok<{ atr: { base64: string }; chosen: Record<string, unknown> }>(await callTool(client, 'atr_confirm', { pairing: AGREEMENT, document: s.document, account }));
    const approve = ok<{ approve: Record<string, unknown> & { option: Record<string, unknown> } }>(await callTool(client, 'atr_agree', { atr: c.atr.base64, chosen: c.chosen })).approve;
    assert.equal(declined(await callTool(client, 'atr_agree', { atr: c.atr.base64, chosen: { ...c.chosen, agreement: 'https://evil.example/agree' } })).decline.code, 'chosen-unverified');
    assert.equal(declined(await callTool(client, 'atr_agree', { atr: c.atr.base64, chosen: c.chosen, approved: { ...approve, url: 'https://evil.example/agree' } })).decline.code, 'offer-unreadable');
    assert.equal(declined(await callTool(client, 'atr_agree', { atr: c.atr.base64, chosen: c.chosen, approved: { ...approve, option: { ...approve.option, amount: '1' } } })).decline.code, 'offer-unreadable');
    assert.equal(s.agreementPayments, 0);
    assert.equal(declined(await callTool(client, 'atr_confirm', { pairing: AGREEMENT, document: s.document, account, receipt: { atrHash: `0x${'ee'.repeat(32)}`, agreed: true, network: TEST_NETWORK, transaction: '0x1' } })).decline.code, 'agreement-failed');
    const lying = await seller('other-hash-receipt');
    const l = ok<{ atr: { base64: string }; chosen: Record<string, unknown> }>(await callTool(client, 'atr_confirm', { pairing: AGREEMENT, document: lying.document, account }));
    const la = ok<{ approve: Record<string, unknown> }>(await callTool(client, 'atr_agree', { atr: l.atr.base64, chosen: l.chosen })).approve;
    const failed = declined(await callTool(client, 'atr_agree', { atr: l.atr.base64, chosen: l.chosen, approved: la }));
    assert.equal(failed.decline.code, 'agreement-failed');
    assert.equal(failed.moved?.atrHash, lying.hash, 'the payment that was sent is reported');
  });
});
