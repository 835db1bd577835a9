/**
 * Every payment can be found: a payment Holon signed on the local chain — through atr_transact (answered
 * "not landed yet"), an x402 agent's call, a `pay` intent — is found later by the settlement id the answer
 * gave, with where it landed as this test reads it on the chain itself: get_receipt and the terms
 * toolset's atr_settlement take the id, get_audit lists its events, `holon receipts` and `holon audit` (the
 * built CLI) show it, and so do the editor's Holon view and receipts panel. A payment of another mandate is
 * not found, exactly as a missing id is not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { addAgent } from '../../src/core/market/catalog.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import { holonViewState, receiptsState } from '../../src/editor/views.ts';
import { publicFetch } from '../../src/server/net/publicFetch.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import { ChainPaymentRow } from '../../src/webview/protocol/holonView.ts';
import { SpendRow } from '../../src/webview/protocol/receipts.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import type { Seller } from '../../examples/sellers/x402Seller.ts';
import { SELLER, startSeller, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { manifest } from '../core/fixtures.ts';
import { ensureBuilt, holonIn, json, ok } from '../cli/cliHarness.ts';
import type { TestClock } from '../helpers.ts';
import { connect, demoRuntime, TestClock as Clock, until } from '../helpers.ts';
import { callTool, problemOf, structured } from '../server/support.ts';
import { chainOf, onChain, SELLER_PAYEE, x402Endpoint } from './support.ts';

const FINDER = 'demo/finder';
const NOSY = 'demo/nosy';
const PAIRING = 'x402/exact/eip155';
/** A second payee `pay` may pay (an address with no key: being paid needs none). */
const OTHER_PAYEE = `${TEST_NETWORK}:${privateKeyToAccount(generatePrivateKey()).address}`;
const wallet = walletFromKey(generatePrivateKey());

type Money = { amount: string; currency: string };
/** A payment as get_receipt and atr_settlement return it. */
type Detail = {
  id: string;
  status: string;
  summary: string;
  payee: string;
  amount: Money;
  transaction: string | null;
  block: string | null;
  mandate: string;
  for: { kind: string; id: string; idempotency_key: string | null };
  held: Money;
};

let chain: LocalChain;
let runtime: Runtime;
let clock: TestClock;
let state: string;
let finder: Client;
let nosy: Client;
let cleanup: () => Promise<void>;
const sellers: Seller[] = [];

before(async () => {
  await ensureBuilt();
  chain = await localChain();
  await chain.fund(wallet.address, { usdc: 5_000_000n });
  const world = await demoRuntime({
    clock: new Clock(Date.now()),
    fetch: publicFetch({ allowPrivate: true, maxBytes: 64 * 1024 }),
    wallet,
    chain: chainOf(chain),
  });
  ({ runtime, clock, cleanup } = world);
  state = world.dir;
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  for (const [id, payees] of [
    [FINDER, [SELLER_PAYEE, OTHER_PAYEE]],
    [NOSY, [SELLER_PAYEE]],
  ] as const)
    await createMandate(runtime.store, clock, id, {
      toolsets: ['terms', 'market', 'money', 'records'],
      approval_threshold: '2.00',
      budget: { total: '4.00', per_day: null, per_call: null },
      capabilities: [
        { name: 'pay', params: { payees: [...payees] } },
        { name: 'market.call', params: { capabilities: ['extraction.*'] } },
      ],
    });
  finder = await connect(runtime, { mandate: FINDER });
  nosy = await connect(runtime, { mandate: NOSY });
});
after(async () => {
  await finder.close();
  await nosy.close();
  await cleanup();
  for (const s of sellers) await s.close();
});

const seller = async (amount: string): Promise<Seller> => {
  const s = await startSeller('honest', { amount });
  sellers.push(s);
  return s;
};
const receipt = async (client: Client, id: string): Promise<Detail> =>
  structured<{ settlement: Detail; tree?: unknown }>(await callTool(client, 'get_receipt', { receipt: id })).settlement;
const landedBy = (client: Client, id: string): Promise<Detail> =>
  until(async () => {
    const d = await receipt(client, id);
    return d.status === 'landed' ? d : undefined;
  }, `get_receipt ${id} to say it landed`);
/** What the chain itself says moved in a transaction, and in which block. */
async function chainSays(tx: string): Promise<{ block: string; transfers: { from: string; to: string; value: bigint }[] }> {
  const c = await onChain(chain, tx);
  return { block: c.block.toString(), transfers: c.transfers };
}

/** What each test leaves for the next: the payments found, by what they pay for. */
const found: { terms?: Detail; call?: Detail; intent?: Detail; callReceipt?: string } = {};

describe('a payment is found by the settlement id its answer gave', () => {
  test('atr_transact answered "not landed yet": get_receipt and atr_settlement find it, and later where it landed', async () => {
    const s = await seller('210000');
    const answer = structured<{ signed: PaymentPayload; settlement: { id: string; status: string; summary: string } }>(
      await callTool(finder, 'atr_transact', { pairing: PAIRING, document: s.document }),
    );
    assert.equal(answer.settlement.status, 'signed');
    assert.match(answer.settlement.summary, /^not landed yet \(it can land until /);
    const id = answer.settlement.id;
    // Found at once, by that id, as not landed yet; and what it pays for: a payment under terms, 0.21 USDC held as 0.1932 EUR.
    const early = await receipt(finder, id);
    assert.deepEqual([early.status, early.summary, early.transaction], ['signed', answer.settlement.summary, null]);
    assert.equal(early.for.kind, 'payment');
    assert.match(early.for.id, /^pay_/);
    assert.deepEqual([early.mandate, early.payee, early.amount, early.held], [FINDER, SELLER_PAYEE, { amount: '0.21', currency: 'USDC' }, { amount: '0.1932', currency: 'EUR' }]);
    // The Holon view says so too, by the same id, with what it pays for.
    const before = holonViewState(runtime.store.state, FINDER, clock.now(), true).payments.find((p) => p.id === id);
    assert.ok(before);
    assert.equal(before.summary, answer.settlement.summary);
    assert.equal(before.paysFor, `payment ${early.for.id}`);

    // The agent sends it; the seller's facilitator settles it on the chain.
    const res = await fetch(`${s.url}/resource`, { headers: { 'payment-signature': encodePaymentSignatureHeader(answer.signed) } });
    assert.equal(res.status, 200, s.refused.join());
    const tx = s.settled[0]?.transaction ?? '';
    const chainRead = await chainSays(tx);
    assert.deepEqual(chainRead.transfers, [{ from: wallet.address, to: SELLER, value: 210_000n }]);

    // Nothing told the agent; the id finds where it landed, as the chain shows it.
    const landed = await landedBy(finder, id);
    assert.deepEqual([landed.transaction, landed.block], [tx, chainRead.block]);
    assert.equal(landed.summary, `landed in block ${chainRead.block} (${TEST_NETWORK})`);
    const viaTerms = structured<{ settlement: Detail }>(await callTool(finder, 'atr_settlement', { settlement: id })).settlement;
    assert.deepEqual(viaTerms, landed, 'atr_settlement answers what get_receipt does');
    found.terms = landed;
  });

  test("another mandate's payment is not found, exactly as a missing one; atr_settlement reads only", async () => {
    const id = found.terms?.id ?? '';
    const missing = 'stl_missing';
    const other = problemOf(await callTool(nosy, 'get_receipt', { receipt: id }));
    const none = problemOf(await callTool(nosy, 'get_receipt', { receipt: missing }));
    assert.deepEqual([other.reason, none.reason], ['not_found', 'not_found']);
    assert.equal(other.message, none.message.replace(missing, id));
    const declined = await callTool(nosy, 'atr_settlement', { settlement: id });
    const declinedMissing = await callTool(nosy, 'atr_settlement', { settlement: missing });
    for (const name of ['__proto__', 'constructor']) {
      const r = await callTool(finder, 'atr_settlement', { settlement: name });
      assert.equal((r.structuredContent as { decline: { code: string } }).decline.code, 'not-found', name);
    }
    assert.equal(declined.isError, true);
    assert.deepEqual(declined.structuredContent, {
      decline: { code: 'not-found', detail: (declinedMissing.structuredContent as { decline: { detail: string } }).decline.detail.replace(missing, id) },
    });
    // Nothing of it in the other mandate's audit trail.
    const trail = structured<{ entries: { settlement?: { id: string } }[] }>(await callTool(nosy, 'get_audit', { limit: 200 }));
    assert.equal(trail.entries.filter((e) => e.settlement?.id === id).length, 0);
    const tool = (await finder.listTools()).tools.find((t) => t.name === 'atr_settlement');
    assert.equal(tool?.annotations?.readOnlyHint, true);
  });

  test("an x402 agent's call and a pay intent: each found by its settlement id, with what it pays for", async () => {
    const s = await seller('120000');
    await addAgent(runtime.store, clock, manifest('sellers/found', ['extraction.table'], { price: { currency: 'USDC', per_call: '0.12' } }), x402Endpoint(`${s.url}/resource`), 'test');
    const call = structured<{ status: string; receipt: string }>(await callTool(finder, 'call_agent', { agent: 'sellers/found', input: {} }));
    assert.equal(call.status, 'succeeded', JSON.stringify(call));
    const tree = structured<{ tree: { settlement: { id: string } } }>(await callTool(finder, 'get_receipt', { receipt: call.receipt })).tree;
    const paidCall = await landedBy(finder, tree.settlement.id);
    assert.deepEqual(paidCall.for, { kind: 'call', id: call.receipt, idempotency_key: null });
    assert.deepEqual((await chainSays(paidCall.transaction ?? '')).transfers, [{ from: wallet.address, to: SELLER, value: 120_000n }]);

    const paid = structured<{ intent: { intent: string; settlement: { id: string } } }>(
      await callTool(finder, 'pay', { intent: { payee: OTHER_PAYEE, amount: '0.05', currency: 'USDC', purpose: 'found later', idempotency_key: 'found-1' } }),
    );
    const intent = await landedBy(finder, paid.intent.settlement.id);
    assert.deepEqual(intent.for, { kind: 'intent', id: paid.intent.intent, idempotency_key: 'found-1' });
    assert.equal((await chainSays(intent.transaction ?? '')).block, intent.block);
    Object.assign(found, { call: paidCall, intent, callReceipt: call.receipt });
  });

  test('get_audit lists every payment with its events, oldest first, each with where it landed', async () => {
    type Entry = { seq: number; type: string; intent?: string; settlement?: Detail };
    const entries: Entry[] = [];
    let cursor: string | null = null;
    do {
      const page: { entries: Entry[]; next_cursor: string | null } = structured(await callTool(finder, 'get_audit', { limit: 2, ...(cursor ? { cursor } : {}) }));
      entries.push(...page.entries);
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(entries.map((e) => e.seq), [...entries.map((e) => e.seq)].sort((a, b) => a - b), 'oldest first, across pages');
    for (const d of [found.terms, found.call, found.intent]) {
      assert.ok(d);
      const mine = entries.filter((e) => e.settlement?.id === d.id);
      assert.deepEqual(mine.map((e) => e.type).filter((t) => t !== 'settlement.claimed'), ['settlement.signed', 'settlement.landed'], d.for.kind);
      for (const e of mine) assert.deepEqual(e.settlement, d, 'each entry: the payment as it stands now');
    }
    // The intent's own hash-linked events stay in the same trail.
    assert.ok(entries.some((e) => e.intent === found.intent?.for.id && e.type === 'intent.settled'));
  });
});

describe('the human finds them too', () => {
  test('holon receipts lists every spend with where its payment landed, and shows one payment by its settlement id or its spend', async () => {
    const terms = found.terms as Detail;
    const call = found.call as Detail;
    const intent = found.intent as Detail;
    type Row = { kind: string; id?: string; receipt?: string; status: string; settlement: Detail | null };
    const rows = await json<Row[]>(state, ['receipts', '--mandate', FINDER, '--limit', '50']);
    const payment = rows.find((r) => r.kind === 'payment' && r.id === terms.for.id);
    assert.ok(payment, JSON.stringify(rows.map((r) => [r.kind, r.id ?? r.receipt])));
    assert.equal(payment.status, 'settled');
    assert.deepEqual(payment.settlement, terms);
    assert.deepEqual(rows.find((r) => r.kind === 'intent')?.settlement, intent);
    const callRow = rows.find((r) => r.kind === 'call' && r.receipt === found.callReceipt) as (Row & { settlement: { id: string } }) | undefined;
    assert.equal(callRow?.settlement.id, call.id, "a call's row is its receipt tree, with the payment in it");
    const listed = await ok(state, ['receipts', '--mandate', FINDER]);
    assert.ok(listed.includes(`${terms.for.id} payment ${FINDER} → ${SELLER_PAYEE} settled 0.1932 EUR · ${terms.id}: ${terms.summary}`), listed);

    assert.deepEqual(await json<Detail>(state, ['receipts', terms.id]), terms);
    assert.deepEqual(await json<Detail>(state, ['receipts', terms.for.id]), terms, 'by the spend the list names it by');
    const one = await ok(state, ['receipts', terms.id]);
    assert.ok(one.startsWith(`Payment ${terms.id} (${FINDER}): 0.21 USDC to ${SELLER_PAYEE}, ${terms.summary}\n`), one);
    assert.ok(one.includes(`Transaction ${terms.transaction}, block ${terms.block}`), one);
    const missing = await holonIn(state, ['receipts', 'stl_missing']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /no payment "stl_missing"/);
  });

  test('holon audit shows each payment event beside the intents, with where it landed', async () => {
    const terms = found.terms as Detail;
    type Entry = { seq: number; type: string; mandate: string; settlement?: Detail };
    const audit = await json<{ entries: Entry[]; chains_ok: boolean }>(state, ['audit', '--mandate', FINDER]);
    assert.equal(audit.chains_ok, true);
    const mine = audit.entries.filter((e) => e.settlement?.id === terms.id);
    assert.deepEqual(mine.map((e) => e.type).filter((t) => t !== 'settlement.claimed'), ['settlement.signed', 'settlement.landed']);
    assert.ok(mine.every((e) => e.mandate === FINDER));
    const text = await ok(state, ['audit', '--mandate', FINDER]);
    assert.ok(text.includes(`${terms.id} ${FINDER} payment ${terms.for.id} settlement.signed\n`), text);
    assert.ok(text.includes(`${terms.id} ${FINDER} payment ${terms.for.id} settlement.landed: 0.21 USDC to ${SELLER_PAYEE}, ${terms.summary}`), text);
    assert.ok(text.includes(`intent ${found.intent?.for.id} (idempotency key found-1) settlement.landed`), text);
  });

  test("the Holon view and the receipts panel show each payment by its id, with Holon's words for where it landed", async () => {
    const terms = found.terms as Detail;
    const call = found.call as Detail;
    const intent = found.intent as Detail;
    const view = holonViewState(runtime.store.state, FINDER, clock.now(), true).payments;
    for (const p of view) ChainPaymentRow.parse(p);
    const row = (id: string) => view.find((p) => p.id === id);
    assert.deepEqual(row(terms.id), {
      id: terms.id,
      paysFor: `payment ${terms.for.id}`,
      at: row(terms.id)?.at,
      mandate: FINDER,
      payee: SELLER_PAYEE,
      amount: '0.21 USDC',
      status: 'landed',
      summary: terms.summary,
      transaction: terms.transaction,
    });
    assert.equal(row(call.id)?.paysFor, `call ${found.callReceipt}`);
    assert.equal(row(intent.id)?.paysFor, `intent ${intent.for.id} (idempotency key found-1)`);
    // Newest first, and none of another mandate's.
    assert.deepEqual(view.map((p) => p.id), [intent.id, call.id, terms.id]);
    assert.equal(holonViewState(runtime.store.state, NOSY, clock.now(), true).payments.length, 0);

    const panel = await receiptsState(runtime.store, { mandate: FINDER, status: 'all' }, null, 50, clock.now());
    for (const sp of panel.spends) SpendRow.parse(sp);
    const spend = (id: string) => panel.spends.find((sp) => sp.id === id);
    assert.deepEqual([spend(terms.for.id)?.kind, spend(terms.for.id)?.settlement, spend(terms.for.id)?.onChain], ['payment', terms.id, `${terms.summary} · ${terms.transaction}`]);
    assert.deepEqual([spend(intent.for.id)?.kind, spend(intent.for.id)?.settlement], ['intent', intent.id]);
    assert.deepEqual([spend(found.callReceipt ?? '')?.kind, spend(found.callReceipt ?? '')?.settlement], ['call', call.id]);
  });
});
