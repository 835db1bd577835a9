/**
 * The agreement pairing through a real SDK Client: the agreement paid once (its payment carries H) with
 * what the agent approved, within the mandate, then the resource paid; 202 while it settles, never a
 * second payment for one agreement without `approved`; a receipt for another H refused; a client's
 * cancellation ends the agreement exchange at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { generatePrivateKey } from 'viem/accounts';
import { setFx } from '../../src/core/money/fx.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { publicFetch } from '../../src/server/net/publicFetch.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import type { TypedRequest } from '../../src/core/local/wallet.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import type { AgreementSeller } from '../fixtures/sellers/agreementSeller.ts';
import { startAgreementSeller } from '../fixtures/sellers/agreementSeller.ts';
import { SELLER, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { connect, demoRuntime, HANG_MS, TestClock, until } from '../helpers.ts';
import { chainOf } from '../chain/support.ts';
import { callTool, eventsAfter } from './support.ts';

const AGREEMENT = 'x402/agreement/eip155';
const EXACT = 'x402/exact/eip155';
const BUYER = 'demo/agreements';
const wallet = walletFromKey(generatePrivateKey());
const account = `${TEST_NETWORK}:${wallet.address}`;

let runtime: Runtime;
let client: Client;
let cleanup: () => Promise<void>;
const sellers: AgreementSeller[] = [];

before(async () => {
  // The fetch's own time limit is far beyond any wait here: only a cancellation can end a held request in time.
  const fetch = publicFetch({ allowPrivate: true, maxBytes: 64 * 1024, timeoutMs: HANG_MS });
  // Holon signs only on the chain the human configured: the local one, which the seller's 402 names.
  const world = await demoRuntime({ clock: new TestClock(Date.now()), fetch, wallet, chain: chainOf(await localChain()) });
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
type Declined = { decline: { code: string }; moved?: { atrHash: string; atr: { base64: string; utf8: string | null } } };
const declined = (r: CallToolResult): Declined => {
  assert.equal(r.isError, true, JSON.stringify(r.structuredContent));
  return r.structuredContent as Declined;
};
const spent = (): bigint => runtime.store.state.spend[BUYER]?.spent ?? 0n;
/** What the mandate holds: this seller settles nothing on the chain, so every payment signed here stays held (not landed, never spent). */
const held = (): bigint => runtime.store.state.spend[BUYER]?.held ?? 0n;

describe('x402/agreement/eip155', () => {
  test('atr_transact: approve, then the agreement and the resource signed and held until they land; later calls need no agreement payment', async () => {
    const s = await seller();
    const first = ok<{ atrHash: string; approve: Record<string, unknown> }>(await callTool(client, 'atr_transact', { pairing: AGREEMENT, document: s.document }));
    assert.equal(first.atrHash, s.hash);
    assert.deepEqual(first.approve['option'], { amount: '100000', asset: s.agreementRequired.accepts[0]?.asset, payTo: SELLER, network: TEST_NETWORK });
    assert.equal(s.agreementPayments, 0, 'nothing signed without approved');
    const before = { spent: spent(), held: held() };
    const paid = ok<{ signed: unknown; agreement: { atrHash: string; agreed: boolean } }>(await callTool(client, 'atr_transact', { pairing: AGREEMENT, document: s.document, approved: first.approve }));
    assert.equal(paid.agreement.atrHash, s.hash);
    assert.equal(s.agreementPayments, 1);
    const res = await fetch(`${s.url}/resource`, { headers: { 'payment-signature': encodePaymentSignatureHeader(paid.signed as never) } });
    assert.equal(res.status, 200, s.refused.join());
    // Signed, and held until Holon reads them landed on the chain, which this seller never settles them on.
    assert.equal(held() - before.held, 92_000n + 230_000n, 'the agreement (0.10 USDC) and the table (0.25 USDC) at 0.92');
    assert.equal(spent(), before.spent, 'nothing counted as spent before the chain shows it');
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
    // What moved names the ATR as every result does: its bytes, and its text (valid UTF-8) itself.
    assert.deepEqual(pending.moved?.atr, { base64: s.atr.toString('base64'), utf8: s.atr.toString('utf8') });
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

  test('atr_agree with a verified chosen that names no agreement (an exact pairing\'s) is offer-unreadable; nothing is asked', async () => {
    const s = await seller();
    // The agreement seller's document is also an exact payment request: atr_confirm returns a verified chosen without agreement.
    const c = ok<{ atr: { base64: string }; chosen: Record<string, unknown> }>(await callTool(client, 'atr_confirm', { pairing: EXACT, document: s.document, account }));
    assert.equal(c.chosen['agreement'], undefined);
    const r = await callTool(client, 'atr_agree', { atr: c.atr.base64, chosen: c.chosen });
    assert.equal(declined(r).decline.code, 'offer-unreadable');
    assert.match((r.structuredContent as { decline: { detail: string } }).decline.detail, /x402\/no-agreement/);
    const approve = { option: { amount: '100000', asset: s.agreementRequired.accepts[0]?.asset, payTo: SELLER, network: TEST_NETWORK }, url: `${s.url}/agree`, required: s.agreementRequired };
    assert.equal(declined(await callTool(client, 'atr_agree', { atr: c.atr.base64, chosen: c.chosen, approved: approve })).decline.code, 'offer-unreadable');
    // One whose mac does not verify stays chosen-unverified.
    assert.equal(declined(await callTool(client, 'atr_agree', { atr: c.atr.base64, chosen: { ...c.chosen, agreement: `${s.url}/agree` } })).decline.code, 'chosen-unverified');
    assert.equal(s.agreementAsks, 0, 'the agreement URL was never asked');
    assert.equal(s.agreementPayments, 0);
  });

  test('atr_check: the resource payment carries no H (signed-not-bound); the agreement payment carries it', async () => {
    const s = await seller();
    const first = ok<{ atr: { base64: string }; approve: Record<string, unknown> }>(await callTool(client, 'atr_transact', { pairing: AGREEMENT, document: s.document }));
    const paid = ok<{ signed: unknown }>(await callTool(client, 'atr_transact', { pairing: AGREEMENT, document: s.document, approved: first.approve }));
    const atr = first.atr.base64;
    const resource = await callTool(client, 'atr_check', { pairing: AGREEMENT, atr, presented: paid.signed });
    assert.equal(declined(resource).decline.code, 'signed-not-bound', 'its nonce is its own, not H');
    const agreementPayment = s.agreementSigned[0];
    assert.ok(agreementPayment);
    assert.deepEqual(ok(await callTool(client, 'atr_check', { pairing: AGREEMENT, atr, presented: agreementPayment })), { atrHash: s.hash });
    // Other bytes: the agreement payment's nonce is not their H, and this pairing cannot tell it from a resource payment's own nonce.
    const other = Buffer.from('other terms').toString('base64');
    assert.equal(declined(await callTool(client, 'atr_check', { pairing: AGREEMENT, atr: other, presented: agreementPayment })).decline.code, 'signed-not-bound');
    assert.equal(declined(await callTool(client, 'atr_check', { pairing: AGREEMENT, atr, presented: { payload: {} } })).decline.code, 'signed-not-bound');
  });
});

/**
 * Calls `name` and cancels it (notifications/cancelled, as the SDK sends it for an aborted signal) once
 * `held` says the seller holds the request; returns the seq before the call, to find its ledger entries.
 */
async function cancelledWhileHeld(name: string, args: Record<string, unknown>, s: AgreementSeller): Promise<number> {
  const seq = runtime.store.seq;
  const heldBefore = s.held;
  const abort = new AbortController();
  const call = client.callTool({ name, arguments: args }, { signal: abort.signal });
  await until(() => s.held > heldBefore, 'the seller to hold the agreement request');
  abort.abort('the person stopped it');
  await assert.rejects(call, 'the client gets no result for a cancelled call');
  // The held request ends on cancellation, not at the fetch's time limit.
  await until(() => s.dropped > heldBefore, "the server to close the held request");
  // The server's handler has ended: its refusal is on the record.
  await until(async () => (await eventsAfter(runtime, seq)).some((e) => e.type === 'tool.denied' && (e.data as { tool: string }).tool === name), `${name}'s end on the record`);
  return seq;
}

describe('a client\'s cancellation ends the agreement exchange', () => {
  test('atr_transact asking the agreement URL: the held request is closed; nothing is signed', async () => {
    const s = await seller('hold');
    const before = { spent: spent(), held: held() };
    await cancelledWhileHeld('atr_transact', { pairing: AGREEMENT, document: s.document }, s);
    assert.equal(s.agreementPayments, 0);
    assert.deepEqual({ spent: spent(), held: held() }, before, 'nothing signed: nothing spent, nothing held');
  });

  test('atr_transact paying the agreement: the held payment is closed; the resource is never signed after', async () => {
    const s = await seller('hold-paid');
    const approve = { option: { amount: '100000', asset: s.agreementRequired.accepts[0]?.asset, payTo: SELLER, network: TEST_NETWORK }, url: `${s.url}/agree`, required: s.agreementRequired };
    const before = { spent: spent(), held: held() };
    await cancelledWhileHeld('atr_transact', { pairing: AGREEMENT, document: s.document, approved: approve }, s);
    assert.equal(s.agreementPayments, 1, 'the agreement payment was sent before the cancellation');
    // The agreement payment was signed, so its money stays held until the chain shows whether it lands.
    assert.equal(held() - before.held, 92_000n, 'the agreement (0.10 USDC at 0.92) only: the resource (0.25 USDC) was not signed');
    assert.equal(spent(), before.spent);
    assert.equal(s.served, 0);
  });

  test('atr_agree with approved: the held payment is closed', async () => {
    const s = await seller('hold-paid');
    const c = ok<{ atr: { base64: string }; chosen: Record<string, unknown> }>(await callTool(client, 'atr_confirm', { pairing: AGREEMENT, document: s.document, account }));
    const approve = { option: { amount: '100000', asset: s.agreementRequired.accepts[0]?.asset, payTo: SELLER, network: TEST_NETWORK }, url: `${s.url}/agree`, required: s.agreementRequired };
    await cancelledWhileHeld('atr_agree', { atr: c.atr.base64, chosen: c.chosen, approved: approve }, s);
    assert.equal(s.agreementPayments, 1);
  });
});
