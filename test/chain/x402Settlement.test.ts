/**
 * Money that moves, end to end with real components: a real node with the token, the example seller on
 * the official x402 packages, its facilitator on @x402/evm. Holon, through a real MCP client against its
 * server with a wallet, signs with `atr_transact` on the exact pairing; the seller verifies and settles
 * through the facilitator; this test reads the chain itself — the receipt, the logs, both balances and
 * the authorization's state. A payment changed after signing (amount, payee, nonce), one the seller did
 * not offer, and a replay are refused and move nothing: no balance, no nonce, no block.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { PaymentPayload } from '@x402/core/types';
import type { Address, Hex } from 'viem';
import { getAddress, parseEventLogs } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { setFx } from '../../src/core/money/fx.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import { publicFetch } from '../../src/server/net/publicFetch.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { TEST_USDC_ABI } from '../../examples/chain/testUsdcArtifact.ts';
import type { Seller } from '../../examples/sellers/x402Seller.ts';
import { SELLER, startSeller, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { connect, demoRuntime, TestClock } from '../helpers.ts';
import { callTool } from '../server/support.ts';
import { chainOf } from './support.ts';

const PAYS = 'demo/buyer';
const wallet = walletFromKey(generatePrivateKey());
let chain: LocalChain;
let client: Client;
let cleanup: () => Promise<void>;
const sellers: Seller[] = [];

before(async () => {
  chain = await localChain();
  await chain.fund(wallet.address, { usdc: 2_000_000n });
  // Real time: the facilitator checks the authorization's window against its own clock and the chain's.
  const world = await demoRuntime({
    clock: new TestClock(Date.now()),
    fetch: publicFetch({ allowPrivate: true, maxBytes: 64 * 1024 }),
    wallet,
    chain: chainOf(chain),
  });
  cleanup = world.cleanup;
  await setFx(world.runtime.store, 'USDC', 'EUR', '0.92');
  await createMandate(world.runtime.store, world.clock, PAYS, {
    toolsets: ['terms'],
    approval_threshold: '1.00',
    budget: { total: '3.00', per_day: null, per_call: null },
    capabilities: [{ name: 'pay', params: { payees: [`${TEST_NETWORK}:${SELLER}`] } }],
  });
  client = await connect(world.runtime, { mandate: PAYS });
});
after(async () => {
  await client.close();
  await cleanup();
  for (const s of sellers) await s.close();
});

const seller = async (amount: string): Promise<Seller> => {
  const s = await startSeller('honest', { amount });
  sellers.push(s);
  return s;
};
/** What Holon signs for the seller's document: `atr_transact` through the MCP client. */
const signed = async (s: Seller): Promise<PaymentPayload> => {
  const r = (await callTool(client, 'atr_transact', { pairing: 'x402/exact/eip155', document: s.document })) as CallToolResult;
  assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent));
  return (r.structuredContent as { signed: PaymentPayload }).signed;
};
const pay = (s: Seller, payment: PaymentPayload): Promise<Response> =>
  fetch(`${s.url}/resource`, { headers: { 'payment-signature': encodePaymentSignatureHeader(payment) } });
type Authorization = { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex };
const authorizationOf = (p: PaymentPayload): Authorization => (p.payload as { authorization: Authorization }).authorization;
const withAuthorization = (p: PaymentPayload, change: Partial<Authorization>): PaymentPayload => ({
  ...p,
  payload: { ...p.payload, authorization: { ...authorizationOf(p), ...change } },
});
const used = (nonce: Hex): Promise<boolean> =>
  chain.client.readContract({
    address: chain.token,
    abi: TEST_USDC_ABI,
    functionName: 'authorizationState',
    args: [wallet.address, nonce],
  });
/**
 * What moving money would change: both balances and the chain's height (every transaction is a block here).
 * The height is read afresh each time: viem keeps a block number for its client's polling interval, so a
 * cached one could say a block was mined between two reads a few seconds apart on a busy machine.
 */
const ledger = async (): Promise<[bigint, bigint, bigint]> => [
  await chain.usdcOf(wallet.address),
  await chain.usdcOf(SELLER),
  await chain.client.getBlockNumber({ cacheTime: 0 }),
];

describe('x402 exact, settled on the local chain', () => {
  test('Holon signs, the facilitator settles, the chain shows it: status, Transfer, nonce H, both balances by exactly the amount', async (t) => {
    const s = await seller('250000');
    const payment = await signed(s);
    assert.equal(authorizationOf(payment).nonce, s.hash, 'the nonce Holon signed is H');
    const [payerBefore, payeeBefore] = await ledger();

    const started = performance.now();
    const res = await pay(s, payment);
    t.diagnostic(`paid and settled in ${Math.round(performance.now() - started)} ms (verify, submit, mined, served)`);
    assert.equal(res.status, 200, s.refused.join());
    assert.deepEqual(await res.json(), { table: [['total', '125.00 EUR']] });
    const response = decodePaymentResponseHeader(res.headers.get('payment-response') ?? '');
    assert.equal(response.success, true);
    assert.equal(response.network, TEST_NETWORK);
    assert.equal(getAddress(response.payer ?? ''), wallet.address);
    const hash = response.transaction as Hex;
    assert.match(hash, /^0x[0-9a-f]{64}$/);
    assert.equal(s.settled[0]?.transaction, hash);

    // The chain, read by this test: nothing here is taken from the seller's word.
    const receipt = await chain.client.getTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(getAddress(receipt.to ?? ''), chain.token);
    assert.equal(receipt.from, chain.facilitator.address.toLowerCase(), 'submitted (and its gas paid) by the facilitator');
    const logs = parseEventLogs({ abi: TEST_USDC_ABI, logs: receipt.logs });
    assert.ok(logs.every((l) => getAddress(l.address) === chain.token));
    assert.deepEqual(
      logs.map((l) => [l.eventName, l.args]),
      [
        ['AuthorizationUsed', { authorizer: wallet.address, nonce: s.hash }],
        ['Transfer', { from: wallet.address, to: SELLER, value: 250_000n }],
      ],
    );
    assert.equal(await used(s.hash as Hex), true, 'the token spent the nonce H');
    assert.equal(await chain.usdcOf(wallet.address), payerBefore - 250_000n);
    assert.equal(await chain.usdcOf(SELLER), payeeBefore + 250_000n);
  });

  test('changed after signing, not offered, or replayed: refused, and nothing moves on the chain', async () => {
    const s = await seller('500000');
    const payment = await signed(s);
    const a = authorizationOf(payment);
    const before = await ledger();
    const facilitator = new HTTPFacilitatorClient({ url: chain.facilitator.url });
    const requirements = s.document.accepts[0];
    assert.ok(requirements);

    // Another amount or payee than signed: the facilitator's own check of the signature refuses it.
    for (const change of [{ value: '1' }, { value: '5000000' }, { to: chain.facilitator.address }]) {
      const res = await pay(s, withAuthorization(payment, change));
      assert.equal(res.status, 402, JSON.stringify(change));
      assert.equal(s.refused.at(-1), 'invalid_exact_evm_signature', JSON.stringify(change));
    }
    // Another nonce than H: the seller's terms refuse it before it reaches the facilitator, and the
    // facilitator, asked directly to settle it, refuses it too (the signature is over H).
    const otherNonce = withAuthorization(payment, { nonce: `0x${'11'.repeat(32)}` });
    assert.equal((await pay(s, otherNonce)).status, 402);
    assert.equal(s.refused.at(-1), 'atr_nonce_is_not_h');
    const settled = await facilitator.settle(otherNonce, requirements);
    assert.deepEqual([settled.success, settled.errorReason, settled.transaction], [false, 'invalid_exact_evm_signature', '']);
    // An option the seller did not offer (its own payee swapped in `accepted`): nothing matches it.
    const elsewhere = { ...payment, accepted: { ...payment.accepted, payTo: chain.facilitator.address } };
    assert.equal((await pay(s, elsewhere)).status, 402);
    assert.equal(s.refused.at(-1), 'No matching payment requirements');

    assert.deepEqual(await ledger(), before, 'no balance changed, no transaction was mined');
    assert.equal(await used(a.nonce), false, 'the nonce H is unspent');
    assert.equal(s.accepted.length, 0);

    // The payment as Holon signed it still settles, once.
    assert.equal((await pay(s, payment)).status, 200, s.refused.join());
    const after = await ledger();
    assert.deepEqual(after.slice(0, 2), [before[0] - 500_000n, before[1] + 500_000n]);
    const replay = await pay(s, payment);
    assert.equal(replay.status, 402);
    assert.deepEqual(await ledger(), after, 'a replay moves nothing');
    assert.equal(s.accepted.length, 1);
  });
});
