/**
 * Calls paid by what they cost: an agent whose 402 offers x402's `upto` (the example seller on the official
 * packages, priced by the page) is paid by `call_agent` through a real MCP client. Holon holds the worst
 * case, its wallet signs a Permit2 witness transfer of at most that bound to H (and, Permit2 not yet
 * approved, an EIP-2612 permit the facilitator submits with it), the seller settles what the work cost
 * through the official facilitator on the local chain, and Holon reads what the chain moved: the hold
 * settles at that, the rest goes back. This test reads the chain itself — the transaction, its Transfer,
 * both balances, Permit2's nonce — and compares them with Holon's receipt. Refused before anything is
 * signed: a worst case above what the call holds. Not settled: a facilitator the witness does not name
 * (nor anyone but the one it names, calling the proxy directly). Believed over the seller: the chain's amount.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { PERMIT2_ADDRESS, x402UptoPermit2ProxyABI, x402UptoPermit2ProxyAddress } from '@x402/evm';
import type { PaymentPayload } from '@x402/core/types';
import type { Hex } from 'viem';
import { createWalletClient, getAddress, parseAbi } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { addAgent } from '../../src/core/market/catalog.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { reconcileSettlements } from '../../src/core/rails/landing.ts';
import type { UptoAuthorization } from '../../src/core/rails/schemes/upto.ts';
import { publicFetch } from '../../src/server/net/publicFetch.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { localChainDefinition, localTransport } from '../../examples/chain/network.ts';
import type { Seller, Variant } from '../../examples/sellers/x402Seller.ts';
import { SELLER, startSeller, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { manifest } from '../core/fixtures.ts';
import { connect, demoRuntime, MANDATE, TestClock } from '../helpers.ts';
import { callTool } from '../server/support.ts';
import { allowPaying, chainOf, countingWallet, onChain, x402Endpoint } from './support.ts';

/** What the wallet signed, by primary type: the real wallet's signatures, counted. */
const { wallet, signatures } = countingWallet();
let chain: LocalChain;
let runtime: Runtime;
let clock: TestClock;
let market: Client;
let cleanup: () => Promise<void>;
const sellers: Seller[] = [];

before(async () => {
  chain = await localChain();
  // Token only, no gas: the wallet never sends a transaction, and has not approved Permit2.
  await chain.fund(wallet.address, { usdc: 5_000_000n });
  // Real time: the facilitator checks the permit's deadline against its own clock and the chain's.
  const world = await demoRuntime({
    clock: new TestClock(Date.now()),
    fetch: publicFetch({ allowPrivate: true, maxBytes: 64 * 1024 }),
    wallet,
    chain: chainOf(chain),
  });
  ({ runtime, clock, cleanup } = world);
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  await allowPaying(runtime.store, clock, MANDATE);
  market = await connect(runtime);
});
after(async () => {
  await market.close();
  await cleanup();
  for (const s of sellers) await s.close();
});

/** An `upto` seller (at most `max`, 0.05 USDC a page) in the catalog, its worst case priced at `listed` USDC a call. */
async function listed(id: string, max: string, listed: string, variant: Variant = 'honest'): Promise<Seller> {
  const s = await startSeller(variant, { scheme: 'upto', amount: max, perPage: '50000' });
  sellers.push(s);
  const m = manifest(id, ['extraction.table'], { price: { currency: 'USDC', per_call: listed } });
  await addAgent(runtime.store, clock, m, x402Endpoint(`${s.url}/resource`), 'test');
  return s;
}
type Money = { amount: string; currency: string };
type Call = {
  status: string;
  receipt: string;
  cost: Money | null;
  error: { code: string; charged: boolean } | null;
  reasons: string[];
  denials: { code: string; params: Record<string, unknown> }[];
};
type Stl = {
  id: string;
  status: string;
  summary: string;
  amount: Money;
  authorized: Money | null;
  transaction: string | null;
  block: string | null;
  flag: { reason: string; detail: string; approval: string | null } | null;
};
const call = async (agent: string, input: unknown): Promise<Call> =>
  (await callTool(market, 'call_agent', { agent, input })).structuredContent as Call;
const settlementOf = async (receipt: string): Promise<Stl> =>
  ((await callTool(market, 'get_receipt', { receipt })).structuredContent as { tree: { settlement: Stl } }).tree.settlement;
const balances = async (): Promise<[bigint, bigint]> => [await chain.usdcOf(wallet.address), await chain.usdcOf(SELLER)];
const spend = (): { spent: bigint; held: bigint } => {
  const sp = runtime.store.state.spend[MANDATE];
  return { spent: sp?.spent ?? 0n, held: sp?.held ?? 0n };
};
const PERMIT2 = parseAbi([
  'function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
]);
/** Whether Permit2 spent the wallet's nonce for H, read by the test. */
const nonceSpent = async (h: string): Promise<boolean> => {
  const nonce = BigInt(h);
  const word = await chain.client.readContract({
    address: PERMIT2_ADDRESS,
    abi: PERMIT2,
    functionName: 'nonceBitmap',
    args: [wallet.address, nonce >> 8n],
  });
  return ((word >> (nonce & 0xffn)) & 1n) === 1n;
};
const ERC20_ALLOWANCE = parseAbi(['function allowance(address owner, address spender) view returns (uint256)']);
type Permit2Payload = { signature: Hex; permit2Authorization: UptoAuthorization };

describe('call_agent and an agent priced upto', () => {
  test('the worst case is held and authorized, the pages done are paid: the chain, the receipt and the mandate agree', async () => {
    const s = await listed('sellers/pages', '300000', '0.30');
    const before = await balances();
    const spentBefore = spend();
    const r = await call('sellers/pages', { pages: 2 });
    assert.equal(r.status, 'succeeded', JSON.stringify(r));
    assert.deepEqual(signatures, ['PermitWitnessTransferFrom', 'Permit'], 'the Permit2 transfer, and the EIP-2612 permit of Permit2');
    // What it cost is what the chain moved (2 pages, 0.10 USDC at 0.92), not the 0.30 authorized.
    assert.deepEqual(r.cost, { amount: '0.092', currency: 'EUR' });

    // What Holon's wallet signed: at most 0.30 to the seller's payee, spent through x402's proxy, Permit2's nonce H,
    // and (Permit2 not yet approved) an EIP-2612 permit of exactly that for Permit2.
    const sent = s.received[0] as PaymentPayload & { payload: Permit2Payload };
    const a = sent.payload.permit2Authorization;
    assert.equal(sent.accepted.scheme, 'upto');
    assert.deepEqual(
      [a.from, a.permitted.amount, getAddress(a.spender), getAddress(a.witness.to), getAddress(a.witness.facilitator), a.nonce],
      [wallet.address, '300000', x402UptoPermit2ProxyAddress, SELLER, chain.facilitator.address, BigInt(s.hash).toString()],
    );
    const permit = (sent.extensions?.['eip2612GasSponsoring'] as { info: Record<string, string> } | undefined)?.info;
    assert.deepEqual([permit?.['spender'], permit?.['amount']], [PERMIT2_ADDRESS, '300000']);

    const stl = await settlementOf(r.receipt);
    assert.equal(stl.status, 'landed');
    assert.deepEqual(stl.authorized, { amount: '0.30', currency: 'USDC' });
    assert.deepEqual(stl.amount, { amount: '0.10', currency: 'USDC' });
    assert.equal(stl.transaction, s.settled[0]?.transaction);
    // The chain, read by this test: the transaction Holon names moved exactly the receipt's amount, through the proxy.
    const mined = await onChain(chain, stl.transaction ?? '');
    assert.equal(stl.block, mined.block.toString());
    assert.equal(stl.summary, `authorized up to 0.30 USDC, paid 0.10 USDC, landed in block ${mined.block} (${TEST_NETWORK})`);
    assert.deepEqual(mined.transfers, [{ from: wallet.address, to: SELLER, value: 100_000n }]);
    const tx = await chain.client.getTransaction({ hash: stl.transaction as Hex });
    assert.equal(getAddress(tx.to ?? ''), x402UptoPermit2ProxyAddress);
    assert.equal(tx.from, chain.facilitator.address.toLowerCase(), 'submitted, and its gas paid, by the facilitator');
    assert.equal(await nonceSpent(s.hash), true, "Permit2 spent the wallet's nonce H");
    const after = await balances();
    assert.deepEqual([after[0] - before[0], after[1] - before[1]], [-100_000n, 100_000n]);
    // The mandate spent what was paid, and nothing stays held: the other 0.184 EUR went back.
    assert.deepEqual(spend(), { spent: spentBefore.spent + 92_000n, held: spentBefore.held });
    assert.equal(runtime.store.state.settlements[stl.id]?.landed?.value, '100000');
  });

  test("the same terms again: Permit2 spent the wallet's nonce H already, so nothing is signed that could never land", async () => {
    const before = [...(await balances()), await chain.client.getBlockNumber({ cacheTime: 0 })];
    const spentBefore = spend();
    const signed = signatures.length;
    const r = await call('sellers/pages', { pages: 1 });
    assert.deepEqual([r.status, r.error?.code, r.error?.charged], ['failed', 'payment_refused', false]);
    // Said in Holon's words, naming where the terms were paid (Holon's own record of the first payment).
    const first = Object.values(runtime.store.state.settlements).find((x) => x.status === 'landed' && x.scheme === 'upto');
    assert.ok(first?.landed);
    assert.deepEqual(r.denials, [{ code: 'terms_paid', params: { transaction: first.landed.transaction } }]);
    assert.match(r.reasons[0] ?? '', new RegExp(`^these terms were already paid in transaction ${first.landed.transaction}`));
    assert.equal(signatures.length, signed, 'the wallet signed nothing');
    assert.deepEqual([...(await balances()), await chain.client.getBlockNumber({ cacheTime: 0 })], before);
    assert.deepEqual(spend(), spentBefore);
  });

  test('a seller that takes no EIP-2612 permit, where Permit2 may not move the worst case: refused before anything is signed', async () => {
    const s = await listed('sellers/no-permit', '300000', '0.30', 'no-permit');
    assert.equal(s.document.accepts[0]?.scheme, 'upto');
    // What the wallet let Permit2 move so far (the first call's permit, less what it paid) is below this worst case.
    const allowance = await chain.client.readContract({
      address: chain.token,
      abi: ERC20_ALLOWANCE,
      functionName: 'allowance',
      args: [wallet.address, PERMIT2_ADDRESS],
    });
    assert.ok(allowance < 300_000n, `Permit2 may move ${allowance}`);
    const before = [...(await balances()), await chain.client.getBlockNumber({ cacheTime: 0 })];
    const spentBefore = spend();
    const settlements = Object.keys(runtime.store.state.settlements).length;
    const signed = signatures.length;
    const r = await call('sellers/no-permit', { pages: 1 });
    assert.deepEqual([r.status, r.error?.code, r.error?.charged], ['failed', 'payment_refused', false]);
    assert.equal(signatures.length, signed, 'the wallet signed nothing');
    assert.equal(s.received.length, 0, 'no payment reached the seller');
    assert.deepEqual([...(await balances()), await chain.client.getBlockNumber({ cacheTime: 0 })], before);
    assert.equal(Object.keys(runtime.store.state.settlements).length, settlements);
    assert.deepEqual(spend(), spentBefore);
  });

  test('a worst case above what the call may hold: refused, nothing signed, nothing moved, nothing recorded', async () => {
    // Listed at 0.30 a call (what the call holds), asking to authorize up to 1.00.
    const s = await listed('sellers/greedy-pages', '1000000', '0.30');
    const before = [...(await balances()), await chain.client.getBlockNumber({ cacheTime: 0 })];
    const spentBefore = spend();
    const settlements = Object.keys(runtime.store.state.settlements).length;
    const signed = signatures.length;
    const r = await call('sellers/greedy-pages', { pages: 1 });
    assert.equal(r.status, 'failed');
    assert.deepEqual([r.error?.code, r.error?.charged], ['payment_refused', false]);
    assert.equal(signatures.length, signed, 'the wallet signed nothing');
    assert.equal(s.received.length, 0, 'no payment reached the seller');
    assert.deepEqual([...(await balances()), await chain.client.getBlockNumber({ cacheTime: 0 })], before);
    assert.equal(Object.keys(runtime.store.state.settlements).length, settlements);
    assert.deepEqual(spend(), spentBefore);
    assert.equal(await nonceSpent(s.hash), false);
  });

  test("a seller that says it settled the whole maximum: Holon records what the chain moved, and flags the seller's word", async () => {
    // Permit2 still has 0.20 of the first call's permit: enough here, so no EIP-2612 permit is signed.
    const s = await listed('sellers/boastful', '150000', '0.15', 'claims-more');
    const before = await balances();
    const spentBefore = spend();
    const r = await call('sellers/boastful', { pages: 1 });
    assert.equal(r.status, 'succeeded', JSON.stringify(r));
    assert.equal(s.received[0]?.extensions, undefined, 'Permit2 was allowed already: no permit signed');
    const stl = await settlementOf(r.receipt);
    assert.equal(stl.status, 'landed');
    assert.deepEqual(stl.amount, { amount: '0.05', currency: 'USDC' });
    assert.equal(stl.flag?.reason, 'other_amount');
    assert.match(stl.flag?.detail ?? '', /the seller said it settled 0\.15 USDC, and the chain moved 0\.05 USDC/);
    assert.match(stl.summary, /^authorized up to 0\.15 USDC, paid 0\.05 USDC, landed in block \d+ .*; flagged: /);
    const mined = await onChain(chain, stl.transaction ?? '');
    assert.deepEqual(mined.transfers, [{ from: wallet.address, to: SELLER, value: 50_000n }]);
    const after = await balances();
    assert.deepEqual([after[0] - before[0], after[1] - before[1]], [-50_000n, 50_000n]);
    assert.deepEqual(spend(), { spent: spentBefore.spent + 46_000n, held: spentBefore.held });
  });

  test("a facilitator the witness does not name cannot settle, nor can anyone calling the proxy; the hold waits for the permit's deadline, then goes back", async () => {
    const s = await listed('sellers/elsewhere', '200000', '0.20', 'other-facilitator');
    const before = await balances();
    const spentBefore = spend();
    const r = await call('sellers/elsewhere', { pages: 1 });
    assert.equal(r.status, 'failed');
    // Signed and sent, and not taken: the seller asked again (its facilitator could not settle it).
    assert.deepEqual([r.error?.code, r.error?.charged], ['payment_not_taken', false]);
    assert.deepEqual(s.refused, ['upto_facilitator_mismatch']);
    const signed = s.received[0] as PaymentPayload & { payload: Permit2Payload };
    assert.ok(signed, 'Holon signed and sent the payment');

    // Calling the proxy directly, from a key with gas that is not the witness's facilitator: the chain refuses it.
    const key = generatePrivateKey();
    await chain.fund(privateKeyToAccount(key).address, { eth: 10n ** 18n });
    const intruder = createWalletClient({
      account: privateKeyToAccount(key),
      chain: localChainDefinition(chain.rpcUrl),
      transport: localTransport(chain.rpcUrl),
    });
    const a = signed.payload.permit2Authorization;
    const args = [
      { permitted: { token: a.permitted.token, amount: BigInt(a.permitted.amount) }, nonce: BigInt(a.nonce), deadline: BigInt(a.deadline) },
      50_000n,
      a.from,
      { to: a.witness.to, facilitator: a.witness.facilitator, validAfter: BigInt(a.witness.validAfter) },
      signed.payload.signature,
    ] as const;
    await assert.rejects(
      intruder.writeContract({ address: x402UptoPermit2ProxyAddress, abi: x402UptoPermit2ProxyABI, functionName: 'settle', args }),
      /UnauthorizedFacilitator/,
    );
    // Nor with the witness rewritten to name it: the payer's signature is over the witness.
    const renamed = [args[0], args[1], args[2], { ...args[3], facilitator: intruder.account.address }, args[4]] as const;
    await assert.rejects(
      intruder.writeContract({ address: x402UptoPermit2ProxyAddress, abi: x402UptoPermit2ProxyABI, functionName: 'settle', args: renamed }),
    );
    assert.deepEqual(await balances(), before, 'nothing moved');
    assert.equal(await nonceSpent(s.hash), false);

    // Holon's record: signed, its 0.20 USDC (0.184 EUR) held, nothing spent, until the chain says it can never land.
    const id = runtime.store.state.settlement_of[`call:${r.receipt}`] ?? '';
    assert.equal(runtime.store.state.settlements[id]?.status, 'signed');
    assert.deepEqual(spend(), { spent: spentBefore.spent, held: spentBefore.held + 184_000n });
    // The chain passes the permit's deadline (the last test here: the chain's clock runs ahead from now on).
    await chain.client.request({ method: 'evm_increaseTime', params: [400] } as never);
    await chain.client.request({ method: 'evm_mine', params: [] } as never);
    await reconcileSettlements({ store: runtime.store, clock, chain: runtime.deps.chain });
    assert.equal(runtime.store.state.settlements[id]?.status, 'expired');
    assert.deepEqual(spend(), spentBefore, 'its money went back to the mandate');
  });
});
