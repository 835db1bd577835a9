/**
 * Paid MCP tools (x402's MCP transport), on the local chain with real components: the node with its token,
 * the official facilitator, the example paid tool (examples/sellers/paidTool.ts) built on x402's resource
 * server, and a real MCP client calling `call_agent` on Holon's server. Balances are read from the chain by
 * this test, never taken from Holon, and the wallet's signatures are counted: "nothing was signed" is
 * measured.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as SdkClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/client';
import { x402Client } from '@x402/core/client';
import type { PaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import type { Address } from 'viem';
import { erc20Abi } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { addAgent } from '../../src/core/market/catalog.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { setFx } from '../../src/core/money/fx.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { NETWORK } from '../../examples/chain/network.ts';
import type { PaidTool, PaidToolOptions } from '../../examples/sellers/paidTool.ts';
import { PAID_TOOL, startPaidTool } from '../../examples/sellers/paidTool.ts';
import { SELLER } from '../../examples/sellers/x402Seller.ts';
import { manifest } from '../core/fixtures.ts';
import type { TestClock } from '../helpers.ts';
import { connect, until } from '../helpers.ts';
import { callTool } from '../server/support.ts';
import { startFacilitatorProxy } from './facilitatorProxy.ts';
import { chainWorld, countingWallet, onChain, SELLER_PAYEE } from './support.ts';

const BUYER = 'demo/tools';
/** Pays only on terms a seller advertises (its pay grant's `require_terms`). */
const STRICT = 'demo/strict';
/** An address the tool may ask to be paid to, which no catalog entry declares. */
const OTHER = privateKeyToAccount(generatePrivateKey()).address;

/** What the wallet signed, by primary type: counted, so "nothing was signed" is measured. */
const { wallet, signatures } = countingWallet();

let chain: LocalChain;
let runtime: Runtime;
let clock: TestClock;
let buyer: Client;
let strict: Client;
let cleanup: () => Promise<void>;
const tools: PaidTool[] = [];

before(async () => {
  chain = await localChain();
  const world = await chainWorld(chain, wallet, 5_000_000n);
  ({ runtime, clock, cleanup } = world);
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  for (const [id, pay] of [
    [BUYER, { payees: [SELLER_PAYEE] }],
    [STRICT, { payees: [SELLER_PAYEE], require_terms: true }],
  ] as const) {
    await createMandate(runtime.store, clock, id, {
      toolsets: ['market'],
      approval_threshold: '1.00',
      budget: { total: '5.00', per_day: null, per_call: null },
      capabilities: [
        { name: 'pay', params: pay },
        { name: 'market.call', params: { capabilities: ['math.*'] } },
      ],
    });
  }
  buyer = await connect(runtime, { mandate: BUYER });
  strict = await connect(runtime, { mandate: STRICT });
});
after(async () => {
  await buyer.close();
  await strict.close();
  await cleanup();
  for (const t of tools) await t.close();
});

const paidTool = async (options: Omit<PaidToolOptions, 'facilitator'> = {}): Promise<PaidTool> => {
  const t = await startPaidTool({ facilitator: chain.facilitator.url, ...options });
  tools.push(t);
  return t;
};
/** A catalog agent at paid tool `t`, priced `usdc` a call, declaring the example seller's payee. */
async function agentAt(id: string, t: PaidTool, usdc = '0.002'): Promise<void> {
  const m = manifest(id, ['math.sum'], {
    price: { currency: 'USDC', per_call: usdc },
    input_schema: { type: 'object', required: ['amounts'], properties: { amounts: { type: 'array', items: { type: 'string' } } } },
    output_schema: { type: 'object', required: ['total', 'count'], properties: { total: { type: 'string' }, count: { type: 'integer' } } },
  });
  await addAgent(runtime.store, clock, m, { type: 'http', url: t.url, tool: PAID_TOOL, payee: SELLER_PAYEE }, 'test');
}

type Amount = { amount: string; currency: string };
type Call = {
  status: string;
  receipt: string;
  cost: Amount | null;
  output: unknown;
  error: { code: string; charged: boolean } | null;
  reasons: string[];
  denials: { code: string; params: Record<string, unknown> }[];
};
type Stl = { id: string; status: string; amount: Amount; transaction: string | null; claimed_transaction: string | null };

const AMOUNTS = ['12.50', '0.25', '-3', '1000.005'];
const call = async (client: Client, agent: string): Promise<Call> =>
  (await callTool(client, 'call_agent', { agent, input: { amounts: AMOUNTS } })).structuredContent as Call;
/** The tool's answer, as call_agent hands it over: JSON inside the wrapper that marks it as data. */
const answerOf = (r: Call): unknown =>
  JSON.parse(/^<agent_output [^>]*>\n([\s\S]*)\n<\/agent_output>/.exec(String(r.output))?.[1] ?? 'null');
const receiptSettlement = async (client: Client, receipt: string): Promise<Stl | null> =>
  ((await callTool(client, 'get_receipt', { receipt })).structuredContent as { tree: { settlement?: Stl | null } }).tree.settlement ?? null;
/** Waits until Holon has read the call's payment on the chain, and returns it as the receipt says it. */
const landedOf = (client: Client, receipt: string): Promise<Stl> =>
  until(async () => {
    const s = await receiptSettlement(client, receipt);
    return s && s.status !== 'signed' ? s : undefined;
  }, `the payment of ${receipt} to be read on the chain`);
/** A balance of the token, read from the chain. */
const balance = (of: Address): Promise<bigint> =>
  chain.client.readContract({ address: chain.token, abi: erc20Abi, functionName: 'balanceOf', args: [of] });
const balances = async (): Promise<[bigint, bigint, bigint]> => [
  await balance(wallet.address),
  await balance(SELLER),
  await balance(OTHER),
];
/** An amount of the token in its smallest units (6 decimals), from a decimal string. */
const atomic = (usdc: string): bigint => {
  const [whole = '0', fraction = ''] = usdc.split('.');
  return BigInt(whole + fraction.padEnd(6, '0'));
};

describe('call_agent pays a paid MCP tool', () => {
  test('three calls in a row: each pays, each lands in one transfer, and the balances move by exactly what the receipts say', async () => {
    const t = await paidTool();
    await agentAt('tools/sum', t);
    const [walletBefore, sellerBefore] = await balances();
    const receipts: Call[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call(buyer, 'tools/sum');
      assert.equal(r.status, 'succeeded', JSON.stringify(r));
      assert.deepEqual(answerOf(r), { total: '1009.755', count: 4 }, 'the tool did the work it was paid for');
      // 0.002 USDC at 0.92 EUR a USDC.
      assert.deepEqual(r.cost, { amount: '0.00184', currency: 'EUR' });
      receipts.push(r);
    }
    const paid = await Promise.all(receipts.map((r) => landedOf(buyer, r.receipt)));
    assert.deepEqual(
      paid.map((s) => [s.status, s.amount]),
      Array.from({ length: 3 }, () => ['landed', { amount: '0.002', currency: 'USDC' }]),
    );
    assert.equal(new Set(paid.map((s) => s.transaction)).size, 3, 'three payments, three transactions');
    // Each settlement is what the tool reported, and one transfer from the wallet to the seller on the chain.
    assert.deepEqual(
      paid.map((s) => s.claimed_transaction),
      t.settled.map((s) => s.transaction),
    );
    for (const s of paid)
      assert.deepEqual((await onChain(chain, s.transaction ?? '')).transfers, [{ from: wallet.address, to: SELLER, value: 2000n }]);
    const moved = paid.reduce((sum, s) => sum + atomic(s.amount.amount), 0n);
    assert.equal(moved, 6000n);
    const [walletAfter, sellerAfter] = await balances();
    assert.equal(walletBefore - walletAfter, moved, "the wallet's balance, read from the chain");
    assert.equal(sellerAfter - sellerBefore, moved, "the seller's balance, read from the chain");
    assert.deepEqual(signatures.slice(-3), ['TransferWithAuthorization', 'TransferWithAuthorization', 'TransferWithAuthorization']);
  });

  test('a tool that answers only with the x402/error text wrapper (no structuredContent) is paid too', async () => {
    const t = await paidTool({ variant: 'text-only' });
    await agentAt('tools/sum-text', t);
    const [walletBefore, sellerBefore] = await balances();
    const r = await call(buyer, 'tools/sum-text');
    assert.equal(r.status, 'succeeded', JSON.stringify(r));
    assert.deepEqual(answerOf(r), { total: '1009.755', count: 4 });
    const s = await landedOf(buyer, r.receipt);
    assert.equal(s.status, 'landed');
    assert.deepEqual((await onChain(chain, s.transaction ?? '')).transfers, [{ from: wallet.address, to: SELLER, value: 2000n }]);
    const [walletAfter, sellerAfter] = await balances();
    assert.deepEqual([walletBefore - walletAfter, sellerAfter - sellerBefore], [2000n, 2000n]);
  });
});

describe('a paid tool that does not take the payment', () => {
  test('its settlement fails: the call fails saying so, not as a refusal to sign; nothing moved, and the payment keeps its hold', async () => {
    const proxy = await startFacilitatorProxy(chain.facilitator.url);
    const t = await startPaidTool({ facilitator: proxy.url });
    try {
      await agentAt('tools/not-taken', t);
      proxy.reason = 'insufficient_funds';
      proxy.faults.push('refuse');
      const before = await balances();
      const r = await call(buyer, 'tools/not-taken');
      assert.deepEqual([r.status, r.error?.code, r.error?.charged], ['failed', 'payment_not_taken', false], JSON.stringify(r));
      // Holon signed it and the tool was sent it; the tool settled nothing, so nothing moved.
      assert.equal(t.received.length, 1);
      assert.deepEqual(t.settled, []);
      assert.deepEqual(await balances(), before);
      // The tool still holds a valid authorization until it expires: its money stays held until the chain says.
      const s = await receiptSettlement(buyer, r.receipt);
      assert.equal(s?.status, 'signed');
    } finally {
      await t.close();
      await proxy.close();
    }
  });
});

describe('refusals: nothing signed, nothing sent, no balance moved', () => {
  /** Calls `agent` through `client`, expecting a refusal to pay; checks nothing moved, and gives its denials. */
  async function refused(client: Client, agent: string, t: PaidTool): Promise<Call['denials']> {
    const signed = signatures.length;
    const before = await balances();
    const r = await call(client, agent);
    assert.deepEqual([r.status, r.error?.code, r.error?.charged], ['failed', 'payment_refused', false], JSON.stringify(r));
    assert.equal(signatures.length, signed, 'the wallet signed nothing');
    assert.deepEqual(t.received, [], 'the tool was sent no payment');
    assert.deepEqual(await balances(), before, 'no balance moved');
    assert.equal(await receiptSettlement(client, r.receipt), null, 'no settlement');
    assert.equal(r.reasons.length, r.denials.length);
    return r.denials;
  }

  test('a tool asking to be paid to another payee than its catalog entry declares: payee_undeclared', async () => {
    const t = await paidTool({ payTo: OTHER });
    await agentAt('tools/elsewhere', t);
    assert.deepEqual(await refused(buyer, 'tools/elsewhere', t), [
      { code: 'payee_undeclared', params: { agent: 'tools/elsewhere', payee: `${NETWORK}:${OTHER}`, declared: SELLER_PAYEE } },
    ]);
  });

  test('a price above what the call holds (its catalog price): offer_above_hold', async () => {
    const t = await paidTool({ price: '$0.50' });
    await agentAt('tools/dear', t, '0.002');
    assert.deepEqual(await refused(buyer, 'tools/dear', t), [
      {
        code: 'offer_above_hold',
        params: { agent: 'tools/dear', amount: { amount: '0.46', currency: 'EUR' }, limit: { amount: '0.00184', currency: 'EUR' } },
      },
    ]);
  });

  test('a mandate whose pay grant requires terms, and a tool that offers none: terms_required', async () => {
    const t = await paidTool();
    await agentAt('tools/no-terms', t);
    assert.deepEqual(await refused(strict, 'tools/no-terms', t), [{ code: 'terms_required', params: { agent: 'tools/no-terms' } }]);
  });

  test('exact by a Permit2 transfer, which the wallet does not pay plainly: offer_unpayable', async () => {
    const t = await paidTool({ variant: 'permit2' });
    await agentAt('tools/permit2', t);
    assert.deepEqual(await refused(buyer, 'tools/permit2', t), [
      { code: 'offer_unpayable', params: { agent: 'tools/permit2', offered: [{ scheme: 'exact', network: NETWORK, asset: chain.token }] } },
    ]);
  });
});

describe('the paid tool, as a seller', () => {
  test('settles nothing when the payment is invalid, and answers as the spec says', async () => {
    const t = await paidTool();
    const client = new SdkClient({ name: 'a-buyer', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(t.url)));
    try {
      const ask = await client.callTool({ name: PAID_TOOL, arguments: { amounts: ['1'] } });
      assert.equal(ask.isError, true);
      const required = ask.structuredContent as unknown as PaymentRequired;
      const first = (ask.content as { type: string; text: string }[])[0];
      assert.deepEqual(JSON.parse(first?.text ?? ''), { 'x402/error': { code: 402, message: 'Payment required', data: required } });
      // A payment signed by a payer with no money: well formed, and the facilitator's verification refuses it.
      const broke = privateKeyToAccount(generatePrivateKey());
      const payer = new x402Client().setSpendControls(false).register(NETWORK, new ExactEvmScheme(broke));
      const payment = await payer.createPaymentPayload(required);
      const before = await balance(SELLER);
      const r = await client.callTool({ name: PAID_TOOL, arguments: { amounts: ['1'] }, _meta: { 'x402/payment': payment } });
      assert.equal(r.isError, true);
      const again = r.structuredContent as unknown as PaymentRequired;
      assert.deepEqual([again.x402Version, again.accepts], [2, required.accepts], 'asked to pay again');
      assert.ok(again.error && again.error !== 'Payment required', `the reason is given: ${again.error ?? ''}`);
      assert.equal(r._meta?.['x402/payment-response'], undefined, 'no settlement response');
      assert.deepEqual([t.received.length, t.settled, t.refused], [1, [], [again.error]]);
      assert.equal(await balance(SELLER), before);
    } finally {
      await client.close();
    }
  });

  test('a settlement that fails: the PaymentRequired again, carrying the failed x402/payment-response, and no work', async () => {
    // The real facilitator verifies; the one in front of it refuses to settle, as a facilitator can.
    const proxy = await startFacilitatorProxy(chain.facilitator.url);
    const t = await startPaidTool({ facilitator: proxy.url });
    const client = new SdkClient({ name: 'a-buyer', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(t.url)));
    try {
      const ask = await client.callTool({ name: PAID_TOOL, arguments: { amounts: ['1', '2'] } });
      const required = ask.structuredContent as unknown as PaymentRequired;
      const funded = privateKeyToAccount(generatePrivateKey());
      await chain.fund(funded.address, { usdc: 10_000n });
      const payer = new x402Client().setSpendControls(false).register(NETWORK, new ExactEvmScheme(funded));
      const payment = await payer.createPaymentPayload(required);
      const before = [await balance(funded.address), await balance(SELLER)];
      proxy.reason = 'insufficient_funds';
      proxy.faults.push('refuse');
      const r = await client.callTool({ name: PAID_TOOL, arguments: { amounts: ['1', '2'] }, _meta: { 'x402/payment': payment } });
      assert.equal(r.isError, true);
      const failed = r.structuredContent as unknown as PaymentRequired & { 'x402/payment-response'?: Record<string, unknown> };
      assert.deepEqual([failed.x402Version, failed.accepts], [2, required.accepts]);
      assert.deepEqual(
        [failed['x402/payment-response']?.['success'], failed['x402/payment-response']?.['errorReason']],
        [false, 'insufficient_funds'],
      );
      assert.doesNotMatch(JSON.stringify(r), /"total"/, 'the work is not given');
      const text = JSON.parse((r.content as { text: string }[])[0]?.text ?? '') as { 'x402/error': { code: number; data: unknown } };
      assert.deepEqual([text['x402/error'].code, text['x402/error'].data], [402, failed]);
      assert.deepEqual([t.settled, t.refused, proxy.settles], [[], ['insufficient_funds'], 1]);
      assert.deepEqual([await balance(funded.address), await balance(SELLER)], before);
    } finally {
      await client.close();
      await t.close();
      await proxy.close();
    }
  });
});
