/**
 * The money invariant, under a random sequence on the local chain: real `holon mcp` processes (killed with
 * -9 and started again mid-sequence), the example sellers on the official x402 packages (honest, priced
 * `exact` or `upto`, and liars that say "settled" and keep the signed payment), Holon's own facilitator
 * behind a proxy that loses answers, lies and refuses; calls, calls at once to one seller, the same terms
 * asked again, answers lost and sent later or never, releases by the human, liars settling what they
 * kept, and every authorization's validity running out at the end. Afterwards, read from the chain by
 * this test (viem, never Holon's word):
 * - what Holon says landed is what left the wallet: each `Transfer` out of it lands exactly one settlement,
 *   and each landed settlement is one of them;
 * - every hold has ended (landed, released, or its payment can never land), or waits for a human's flag;
 * - every view of the budget (get_budget, get_mandate, holon budget, the Holon view) says the same.
 * The sequence is drawn from a seed the test prints (HOLON_INVARIANT_SEED replays one).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { systemClock } from '../../src/core/kernel/deps.ts';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { addAgent } from '../../src/core/market/catalog.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { awaitsChain } from '../../src/core/rails/settlement.ts';
import { fund } from '../../src/core/money/spend.ts';
import { pidAlive } from '../../src/core/store/file/lock.ts';
import type { EventStore } from '../../src/core/store/store.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { saveWallet } from '../../src/core/local/wallet.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import type { Seller, Variant } from '../../examples/sellers/x402Seller.ts';
import { startSeller, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { manifest } from '../core/fixtures.ts';
import type { McpSession } from '../cli/cliHarness.ts';
import { ensureBuilt, HANG_MS, mcpSession, openLedger, seededState, until } from '../cli/cliHarness.ts';
import { seededRandom } from '../helpers.ts';
import type { FacilitatorProxy } from './facilitatorProxy.ts';
import { startFacilitatorProxy } from './facilitatorProxy.ts';
import { budgetViews, chainFlags, SELLER_PAYEE, transfersOut, x402Endpoint } from './support.ts';

const BUYER = 'demo/buyer';
const OTHER = privateKeyToAccount(generatePrivateKey()).address;
const OTHER_PAYEE = `${TEST_NETWORK}:${OTHER}`;
const STEPS = 36;

let chain: LocalChain;
let proxy: FacilitatorProxy;
let state: string;
let done: () => void;
let ledger: EventStore<HolonState>;
let wallet: Address;
const sellers: Seller[] = [];
const sessions: McpSession[] = [];

before(async () => {
  await ensureBuilt();
  chain = await localChain();
  proxy = await startFacilitatorProxy(chain.facilitator.url);
  const seeded = await seededState();
  state = seeded.dir;
  done = seeded.cleanup;
  wallet = saveWallet(state, generatePrivateKey());
  // Token and a little gas: the wallet can cancel what the human releases (and, racing a liar, may lose).
  await chain.fund(wallet, { usdc: 40_000_000n, eth: 10n ** 17n });
  ledger = await openLedger(state);
  await fund(ledger, 'demo', '50');
  await setFx(ledger, 'USDC', 'EUR', '0.92');
  await createMandate(ledger, systemClock, BUYER, {
    toolsets: ['market', 'terms', 'money', 'records'],
    approval_threshold: '10.00',
    budget: { total: '40.00', per_day: null, per_call: null },
    capabilities: [
      { name: 'pay', params: { payees: [SELLER_PAYEE, OTHER_PAYEE] } },
      { name: 'market.call', params: { capabilities: ['extraction.*'] } },
    ],
  });
});
after(async () => {
  for (const s of sessions) await s.close().catch(() => {});
  for (const s of sellers) await s.close();
  await proxy.close();
  ledger.close();
  done();
});

const flags = (): string[] => ['--allow-private-sellers', ...chainFlags(chain, proxy.url)];

test('after a random sequence of payments, lies, losses, releases, kills and expiries, the money adds up', { timeout: HANG_MS }, async (t) => {
  const seed = Number(process.env['HOLON_INVARIANT_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  t.diagnostic(`seed ${seed} (HOLON_INVARIANT_SEED=${seed} replays it)`);
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const log: string[] = [];

  let server = await mcpSession(state, BUYER, flags());
  sessions.push(server);
  const restart = async (): Promise<void> => {
    const old = server;
    process.kill(old.pid as number, 'SIGKILL');
    await until(() => !pidAlive(old.pid as number), 'the server to die');
    await old.close().catch(() => {});
    server = await mcpSession(state, BUYER, flags());
    sessions.push(server);
  };
  // Each call ends as a result or an error; a server killed under it ends it as a lost answer.
  const tool = (name: string, args: Record<string, unknown>): Promise<unknown> =>
    server.client.callTool({ name, arguments: args }).then(
      (r) => r.structuredContent,
      () => undefined,
    );

  // Sellers: each one's terms can be paid once (their nonce is H), so there are several of each kind.
  const kinds: { variant: Variant; scheme: 'exact' | 'upto' }[] = [
    { variant: 'honest', scheme: 'exact' },
    { variant: 'honest', scheme: 'upto' },
    { variant: 'claims-unpaid', scheme: 'exact' },
  ];
  const agents: { id: string; seller: Seller }[] = [];
  for (let i = 0; i < 9; i++) {
    const k = kinds[i % kinds.length] as (typeof kinds)[number];
    const amount = String(100_000 + i * 10_000);
    const s = await startSeller(k.variant, { scheme: k.scheme, amount, ...(k.scheme === 'upto' ? { perPage: '20000' } : {}) });
    sellers.push(s);
    const id = `sellers/s${i}`;
    await addAgent(ledger, systemClock, manifest(id, ['extraction.table'], { price: { currency: 'USDC', per_call: (Number(amount) / 1e6).toFixed(2) } }), x402Endpoint(`${s.url}/resource`), 'test');
    agents.push({ id, seller: s });
  }
  /** Payments an agent was handed and has not sent yet (answers it "lost"). */
  const unsent: { seller: Seller; signed: PaymentPayload }[] = [];
  let keys = 0;

  const steps: Record<string, () => Promise<void>> = {
    call: async () => {
      const a = pick(agents);
      log.push(`call ${a.id}`);
      await tool('call_agent', { agent: a.id, input: { pages: 1 + Math.floor(random() * 3) } });
    },
    concurrent: async () => {
      const a = pick(agents);
      log.push(`two calls at once ${a.id}`);
      await Promise.all([tool('call_agent', { agent: a.id, input: {} }), tool('call_agent', { agent: a.id, input: {} })]);
    },
    transact: async () => {
      const a = pick(agents.filter((x) => x.seller.document.accepts[0]?.scheme === 'exact'));
      const out = (await tool('atr_transact', { pairing: 'x402/exact/eip155', document: a.seller.document })) as { signed?: PaymentPayload } | undefined;
      const how = pick(['send', 'lose', 'lose-then-ask-again'] as const);
      log.push(`atr_transact ${a.id} (${out?.signed ? how : 'declined'})`);
      if (!out?.signed) return;
      if (how === 'send') await fetch(`${a.seller.url}/resource`, { method: 'POST', headers: { 'payment-signature': encodePaymentSignatureHeader(out.signed) } });
      else unsent.push({ seller: a.seller, signed: out.signed });
    },
    'send-lost': async () => {
      const u = unsent.shift();
      log.push(`send a lost answer${u ? '' : ' (none)'}`);
      if (u) await fetch(`${u.seller.url}/resource`, { method: 'POST', headers: { 'payment-signature': encodePaymentSignatureHeader(u.signed) } });
    },
    pay: async () => {
      const fault = pick([undefined, 'drop', 'lie', 'refuse', 'lose'] as const);
      if (fault) proxy.faults.push(fault);
      const key = `k${(keys += 1)}`;
      const intent = { payee: OTHER_PAYEE, amount: (0.01 * (1 + Math.floor(random() * 9))).toFixed(2), currency: 'USDC', purpose: 'invariant', idempotency_key: key };
      log.push(`pay ${key} ${intent.amount} (${fault ?? 'honest'})`);
      await tool('pay', { intent });
      if (fault === 'lose') proxy.release();
      // An agent sends the same key again (the answer was lost, or it failed): never a second authorization.
      if (random() < 0.5) await tool('pay', { intent });
    },
    release: async () => {
      ledger.refresh();
      const flagged = Object.values(ledger.state.settlements).filter((r) => r.status === 'flagged' && r.flag?.approval);
      const r = flagged.length > 0 ? pick(flagged) : undefined;
      log.push(`the human releases ${r?.id ?? '(nothing flagged)'}`);
      const a = r?.flag?.approval ? ledger.state.approvals[r.flag.approval] : undefined;
      if (a?.status === 'pending') await decideApproval(ledger, systemClock, a.id, random() < 0.8 ? 'approved' : 'rejected', 'panel').catch(() => {});
    },
    'liar-settles': async () => {
      // A liar submits what it kept, late: a seller's kept payment, or what the lying facilitator kept.
      const kept: { payload: PaymentPayload; requirements: PaymentRequirements }[] = [
        ...agents.filter((a) => a.seller.received.length > 0 && a.seller.settled.length === 0).map((a) => ({
          payload: a.seller.received[0] as PaymentPayload,
          requirements: (a.seller.received[0] as PaymentPayload).accepted as PaymentRequirements,
        })),
        ...proxy.kept.map((k) => ({ payload: k.paymentPayload as PaymentPayload, requirements: k.paymentRequirements as PaymentRequirements })),
      ];
      const k = kept.length > 0 ? pick(kept) : undefined;
      log.push(`a liar settles what it kept${k ? '' : ' (nothing kept)'}`);
      if (k) await new HTTPFacilitatorClient({ url: chain.facilitator.url }).settle(k.payload, k.requirements).catch(() => undefined);
    },
    kill: async () => {
      const a = pick(agents);
      const when = pick(['at once', 'once the seller has the payment'] as const);
      log.push(`kill -9 the server calling ${a.id} ${when}, start another`);
      const had = a.seller.received.length;
      let answered = false;
      const pending = tool('call_agent', { agent: a.id, input: {} }).then(() => (answered = true));
      // Killed while the call may be anywhere: deciding, signing, sent and settling, or reading the chain.
      if (when !== 'at once') await until(() => answered || a.seller.received.length > had, 'the seller to have the payment');
      await restart();
      await pending;
    },
  };
  const names = Object.keys(steps);
  try {
    for (let i = 0; i < STEPS; i++) await (steps[pick(names)] as () => Promise<void>)();
    // Whatever the lying facilitator still holds goes through now (or fails): nothing is left in flight.
    proxy.release();
    t.diagnostic(log.join('\n'));

    // Every authorization signed above lapses on the chain: the chain's clock passes them all.
    await chain.client.request({ method: 'evm_increaseTime', params: [7_200] } as never);
    await chain.client.request({ method: 'evm_mine', params: [] } as never);
    const s = await until(() => {
      ledger.refresh();
      // Flagged and kept ones too: a liar may have settled one a moment ago, and the chain shows it landed.
      const open = Object.values(ledger.state.settlements).filter(awaitsChain);
      return open.length === 0 ? ledger.state : undefined;
    }, 'every payment to be decided by the chain');

    // What landed is what left the wallet, transfer by transfer.
    const out = await transfersOut(chain, wallet);
    const landed = Object.values(s.settlements).filter((r) => r.status === 'landed' && r.landed);
    const landedKeys = landed.map((r) => `${r.landed?.transaction.toLowerCase()}:${r.landed?.log_index}`);
    assert.equal(new Set(landedKeys).size, landedKeys.length, 'one transfer lands at most one settlement');
    assert.deepEqual([...landedKeys].sort(), out.map((o) => o.key).sort(), 'each transfer out of the wallet is one landed settlement');
    const sum = (xs: bigint[]): bigint => xs.reduce((n, x) => n + x, 0n);
    assert.equal(sum(landed.map((r) => BigInt(r.landed?.value ?? r.authorization.value))), sum(out.map((o) => o.value)));
    t.diagnostic(`${out.length} transfers out of the wallet, ${Object.keys(s.settlements).length} settlements: ${JSON.stringify(
      Object.values(s.settlements).reduce<Record<string, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {}),
    )}`);

    // Every hold has ended: none is left waiting for the chain, and a flagged payment that can never land gave its money back.
    await until(() => {
      ledger.refresh();
      return Object.keys(ledger.state.holds).length === 0;
    }, 'every hold to end');

    // Every view agrees.
    ledger.refresh();
    const views = await budgetViews(server.client, state, BUYER, ledger.state, Date.now());
    for (const [name, v] of Object.entries(views)) assert.deepEqual(v, views['get_budget'], `${name} agrees with get_budget`);
  } catch (err) {
    t.diagnostic(log.join('\n'));
    throw err;
  }

});

