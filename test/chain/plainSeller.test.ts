/**
 * Paying the x402 world as it is: the x402 quickstart seller (official Express middleware, `GET /weather` for
 * $0.001, the official facilitator on the local chain), which advertises no terms, paid by `call_agent` through
 * a real MCP client against Holon's server. The chain, read by this test, is the judge: the wallet and the
 * seller move by exactly what the receipts say, one transfer per payment. Each refusal is said in its words,
 * and nothing is signed for it.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { encodePaymentRequiredHeader } from '@x402/core/http';
import { parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { addAgent } from '../../src/core/market/catalog.ts';
import { fund } from '../../src/core/money/spend.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { NETWORK, TOKEN } from '../../examples/chain/network.ts';
import { manifest } from '../core/fixtures.ts';
import type { TestClock } from '../helpers.ts';
import { connect, until } from '../helpers.ts';
import { callTool } from '../server/support.ts';
import type { QuickstartSeller } from '../fixtures/sellers/quickstartSeller.ts';
import { startQuickstartSeller } from '../fixtures/sellers/quickstartSeller.ts';
import { chainWorld, countingWallet, transfersOut } from './support.ts';
import { startFacilitatorProxy } from './facilitatorProxy.ts';

const PAY_TO = privateKeyToAccount(generatePrivateKey()).address;
const PAYEE = `${NETWORK}:${PAY_TO}`;
const BUYS = 'weather/buyer';
const STRICT = 'weather/strict';

/** What the wallet signed, by primary type: "nothing was signed" is counted, not assumed. */
const { wallet, signatures } = countingWallet();

let chain: LocalChain;
let runtime: Runtime;
let clock: TestClock;
let buyer: Client;
let strict: Client;
let cleanup: () => Promise<void>;
const sellers: QuickstartSeller[] = [];
const servers: http.Server[] = [];

before(async () => {
  chain = await localChain();
  const world = await chainWorld(chain, wallet, 1_000_000n);
  ({ runtime, clock, cleanup } = world);
  const mandate = (requireTerms: boolean) => ({
    currency: 'USDC',
    toolsets: ['market', 'records'] as ('market' | 'records')[],
    approval_threshold: '1.00',
    budget: { total: '0.50', per_day: null, per_call: null },
    capabilities: [
      { name: 'pay', params: { payees: [PAYEE], ...(requireTerms ? { require_terms: true } : {}) } },
      { name: 'market.call', params: { capabilities: ['weather.*'] } },
    ],
  });
  await fund(runtime.store, 'weather', '1.00', 'USDC');
  await createMandate(runtime.store, clock, BUYS, mandate(false));
  await createMandate(runtime.store, clock, STRICT, mandate(true));
  buyer = await connect(runtime, { mandate: BUYS });
  strict = await connect(runtime, { mandate: STRICT });
});
after(async () => {
  await buyer.close();
  await strict.close();
  await cleanup();
  for (const s of sellers) await s.close();
  for (const s of servers) await new Promise((r) => s.close(r));
});

/** A catalog agent for a GET resource at `url`, its input in the query, priced `usdc` a call, paid to `payee`. */
async function weatherAgent(id: string, url: string, usdc: string, payee = PAYEE): Promise<void> {
  await addAgent(
    runtime.store,
    clock,
    manifest(id, ['weather.current'], {
      price: { currency: 'USDC', per_call: usdc },
      input_schema: { type: 'object', properties: { city: { type: 'string' } } },
    }),
    { type: 'x402', url, method: 'GET', input: 'query', payee },
    'test',
  );
}
const seller = async (options: Partial<Parameters<typeof startQuickstartSeller>[0]> = {}): Promise<QuickstartSeller> => {
  const s = await startQuickstartSeller({ facilitator: chain.facilitator.url, payTo: PAY_TO, ...options });
  sellers.push(s);
  return s;
};

type Call = {
  status: string;
  receipt: string;
  cost: { amount: string; currency: string } | null;
  output: string | null;
  error: { code: string; charged: boolean } | null;
  reasons: string[];
  denials: { code: string; params: Record<string, unknown> }[];
};
const call = async (client: Client, agent: string, input: unknown = { city: 'Lyon' }): Promise<Call> =>
  (await callTool(client, 'call_agent', { agent, input })).structuredContent as Call;
const landedPayment = (receipt: string) =>
  until(() => {
    const r = runtime.store.state.settlements[runtime.store.state.settlement_of[`call:${receipt}`] ?? ''];
    return r?.status === 'landed' ? r : undefined;
  }, `the payment of ${receipt} to be read landed`);

describe('a plain x402 seller, paid by call_agent', () => {
  test('the quickstart seller paid three times in a row: both balances move by exactly the three receipts, one transfer each', async () => {
    const s = await seller();
    await weatherAgent('weather/quickstart', `${s.url}/weather`, '0.001');
    const [payerBefore, payeeBefore] = [await chain.usdcOf(wallet.address), await chain.usdcOf(PAY_TO)];
    const calls: Call[] = [];
    for (const city of ['Lyon', 'Porto', 'Oslo']) calls.push(await call(buyer, 'weather/quickstart', { city }));
    for (const [i, c] of calls.entries()) {
      assert.equal(c.status, 'succeeded', JSON.stringify(c));
      // The input went as the query of a GET: the seller answers for the city asked.
      assert.match(c.output ?? '', new RegExp(`"city":\\s*"${['Lyon', 'Porto', 'Oslo'][i]}"`));
    }
    const payments = await Promise.all(calls.map((c) => landedPayment(c.receipt)));
    // Three fresh nonces: a plain seller is paid again and again, never refused as "paid already".
    assert.equal(new Set(payments.map((p) => p.authorization.nonce)).size, 3);
    const charged = calls.reduce((sum, c) => sum + parseUnits(c.cost?.amount ?? 'x', 6), 0n);
    assert.deepEqual(
      calls.map((c) => c.cost),
      calls.map(() => ({ amount: '0.001', currency: 'USDC' })),
    );
    assert.equal(await chain.usdcOf(wallet.address), payerBefore - charged);
    assert.equal(await chain.usdcOf(PAY_TO), payeeBefore + charged);
    const transfers = (await transfersOut(chain, wallet.address)).filter((t) => t.to === PAY_TO);
    assert.deepEqual(
      transfers.map((t) => t.value),
      [1000n, 1000n, 1000n],
    );
    assert.deepEqual(
      new Set(payments.map((p) => `${p.landed?.transaction.toLowerCase()}:${p.landed?.log_index}`)),
      new Set(transfers.map((t) => t.key)),
      'each payment landed on its own transfer',
    );
    assert.equal(s.served, 3);
  });

  test('a metered seller (upto): the worst case authorized, the pages read paid, what the chain moved charged', async () => {
    const s = await seller();
    await addAgent(
      runtime.store,
      clock,
      manifest('weather/pages', ['weather.pages'], { price: { currency: 'USDC', per_call: '0.01' } }),
      { type: 'x402', url: `${s.url}/pages`, method: 'GET', payee: PAYEE },
      'test',
    );
    const before = await chain.usdcOf(wallet.address);
    const c = await call(buyer, 'weather/pages', { pages: 3 });
    assert.equal(c.status, 'succeeded', JSON.stringify(c));
    const paid = await landedPayment(c.receipt);
    assert.equal(paid.scheme, 'upto');
    assert.equal(paid.landed?.value, '6000', 'three pages, as the chain moved them');
    assert.deepEqual(c.cost, { amount: '0.006', currency: 'USDC' });
    assert.equal(await chain.usdcOf(wallet.address), before - 6000n);
  });

  test('a seller that cannot settle asks again once paid: the call fails as payment_not_taken, nothing moved, the payment held until the chain says', async () => {
    const proxy = await startFacilitatorProxy(chain.facilitator.url);
    try {
      const s = await seller({ facilitator: proxy.url });
      await weatherAgent('weather/unsettled', `${s.url}/weather`, '0.001');
      proxy.reason = 'insufficient_funds';
      proxy.faults.push('refuse');
      const before = await chain.usdcOf(wallet.address);
      const c = await call(buyer, 'weather/unsettled');
      assert.deepEqual([c.status, c.error?.code, c.error?.charged], ['failed', 'payment_not_taken', false], JSON.stringify(c));
      assert.equal(await chain.usdcOf(wallet.address), before);
      const payment = runtime.store.state.settlements[runtime.store.state.settlement_of[`call:${c.receipt}`] ?? ''];
      assert.equal(payment?.status, 'signed', 'the authorization may still be settled: its money stays held');
    } finally {
      await proxy.close();
    }
  });

  test('a paid answer lost on the way: sent again with the same payment, never a second signature; the seller answers it by its payment id', async () => {
    const s = await seller({ identified: true, loseFirstPaidAnswer: true });
    await weatherAgent('weather/lossy', `${s.url}/weather`, '0.001');
    const signed = signatures.length;
    const before = (await transfersOut(chain, wallet.address)).length;
    const c = await call(buyer, 'weather/lossy');
    assert.equal(c.status, 'succeeded', JSON.stringify(c));
    assert.equal(signatures.length - signed, 1, 'one signature for the call');
    assert.deepEqual([s.served, s.replayed], [1, 1], 'served once, the retry answered by its payment id');
    await landedPayment(c.receipt);
    assert.equal((await transfersOut(chain, wallet.address)).length - before, 1, 'one transfer');
  });
});

/** A seller answering every request with a 402 offering `accepts` (no terms), as a raw HTTP server. */
async function offering(accepts: unknown[]): Promise<string> {
  const header = encodePaymentRequiredHeader({
    x402Version: 2,
    error: 'Payment required',
    resource: { url: 'http://127.0.0.1/weather', description: 'weather', mimeType: 'application/json' },
    accepts,
  } as Parameters<typeof encodePaymentRequiredHeader>[0]);
  const server = http.createServer((_req, res) => res.writeHead(402, { 'payment-required': header }).end('{}'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/weather`;
}
const offer = (over: Record<string, unknown> = {}) => ({
  scheme: 'exact',
  network: NETWORK,
  asset: TOKEN,
  amount: '1000',
  payTo: PAY_TO,
  maxTimeoutSeconds: 60,
  extra: { name: 'USD Coin', version: '2' },
  ...over,
});

describe('refusals, each in its words, nothing signed', () => {
  const refused = async (client: Client, agent: string): Promise<Call> => {
    const signed = signatures.length;
    const before = await chain.usdcOf(wallet.address);
    const c = await call(client, agent);
    assert.deepEqual([c.status, c.error?.code, c.error?.charged], ['failed', 'payment_refused', false], JSON.stringify(c));
    assert.equal(signatures.length, signed, 'nothing signed');
    assert.equal(await chain.usdcOf(wallet.address), before, 'nothing moved');
    assert.equal(runtime.store.state.settlement_of[`call:${c.receipt}`], undefined, 'no payment recorded');
    return c;
  };

  test('no terms, where the mandate pays only on terms', async () => {
    const s = await seller();
    await weatherAgent('weather/no-terms', `${s.url}/weather`, '0.001');
    const c = await refused(strict, 'weather/no-terms');
    assert.deepEqual(c.denials, [{ code: 'terms_required', params: { agent: 'weather/no-terms' } }]);
    assert.match(c.reasons.join('\n'), /offers no terms .* this mandate pays only on confirmed terms/);
    assert.equal(s.served, 0);
  });

  test('a price above what the call holds', async () => {
    const s = await seller({ price: '$0.002' });
    await weatherAgent('weather/dearer', `${s.url}/weather`, '0.001');
    const c = await refused(buyer, 'weather/dearer');
    assert.deepEqual(c.denials, [
      {
        code: 'offer_above_hold',
        params: { agent: 'weather/dearer', amount: { amount: '0.002', currency: 'USDC' }, limit: { amount: '0.001', currency: 'USDC' } },
      },
    ]);
    assert.match(c.reasons.join('\n'), /asks 0\.002 USDC, more than the 0\.001 USDC this call holds/);
  });

  test('a scheme, network or asset the wallet cannot pay', async () => {
    const solana = {
      scheme: 'exact',
      network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    };
    await weatherAgent('weather/elsewhere', await offering([offer(solana), offer({ scheme: 'deferred' })]), '0.001');
    const c = await refused(buyer, 'weather/elsewhere');
    assert.deepEqual(c.denials, [
      {
        code: 'offer_unpayable',
        params: { agent: 'weather/elsewhere', offered: [solana, { scheme: 'deferred', network: NETWORK, asset: TOKEN }] },
      },
    ]);
    assert.match(c.reasons.join('\n'), /asks to be paid in a way the wallet cannot pay: exact on solana:.*; deferred on eip155:31337/);
  });

  test('another chain than the configured one', async () => {
    const base = { network: 'eip155:8453', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' };
    await weatherAgent('weather/on-base', await offering([offer(base)]), '0.001');
    const c = await refused(buyer, 'weather/on-base');
    assert.equal(c.denials[0]?.code, 'other_chain');
    assert.deepEqual(c.denials[0]?.params, { ...base, configured: { network: NETWORK, asset: TOKEN } });
  });

  test('another payee than the catalog entry declares', async () => {
    const other = privateKeyToAccount(generatePrivateKey()).address;
    await weatherAgent('weather/other-payee', await offering([offer({ payTo: other })]), '0.001');
    const c = await refused(buyer, 'weather/other-payee');
    assert.deepEqual(c.denials, [
      { code: 'payee_undeclared', params: { agent: 'weather/other-payee', payee: `${NETWORK}:${other}`, declared: PAYEE } },
    ]);
  });
});
