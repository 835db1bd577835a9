/**
 * Money, commerce, memory and records (seed 003): a mandate with those four toolsets talks to its own
 * `holon mcp`, with the two local merchants and a local chain as their own processes. It reads its
 * authority, simulates then pays the studio (one key), parks a payment above the threshold and finds it
 * again, buys at the ACP merchant's price, buys at the UCP business with AP2's mandates (which the business
 * verifies) paid on the chain by x402, and remembers what it paid. The parked payment is left for the human.
 */
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { openTermsText, signMandateConsent } from '../../../core/commerce/ap2.ts';
import { CAP } from '../../../core/kernel/capabilities.ts';
import { systemClock } from '../../../core/kernel/deps.ts';
import { createMandate } from '../../../core/accounts/mandates.ts';
import { setFx } from '../../../core/money/fx.ts';
import { fund } from '../../../core/money/spend.ts';
import { stateWalletAddress } from '../../../core/local/wallet.ts';
import type { Demo, MoneyOut, Scenario } from './play.ts';
import { bundledExample, fmtMoney, indent, section, shq, startExample, textOf, withAgent, withState } from './play.ts';

/** The mandate that pays another Holon account, buys from the local merchants and remembers. */
const SHOPPER = 'demo/shopper';
/** The second Holon account the shopper pays: a design studio. */
const STUDIO = 'studio';
/** The UCP business, as the merchants' flag and the mandate's grant name it: it prices in USD and negotiates AP2. */
const HARDWARE = 'hardware';

/** What the shopper leaves for the human: the parked payment's approval, and until when it can be given. */
interface ParkedPayment {
  approval: string;
  expires_at: string;
}

// What the tools return, as far as the shopper reads it.
type Cap = { cap: string; limit: MoneyOut; remaining?: MoneyOut };
type Authority = { approval_threshold: MoneyOut; caps: Cap[]; capabilities: { name: string }[] };
type Paid = { intent: { status: string }; receipt: { id: string; rail: string; charged: MoneyOut } };
type Parked = { code: string; action: string; data: { intent?: string; approval: string; expires_at: string } };
type Pending = { intents: { intent: string; idempotency_key: string; amount: MoneyOut; pending: { approval: string } | null }[] };
type Cart = { status: string; lines: { title: string | null; quantity: number; unit_price: MoneyOut }[]; total: MoneyOut | null };
type Order = {
  id: string;
  total: MoneyOut;
  charged: MoneyOut;
  settlement: { summary: string; transaction: string | null } | null;
  consent: { holds: boolean; steps: { link: string; ok: boolean | null; detail: string }[] } | null;
};
type Recalled = { snapshot: { system_seq: number }; records: { key: string; content: string }[] };

async function shop(demo: Demo, agent: Client): Promise<ParkedPayment> {
  const { out } = demo;
  const call = async <T = Record<string, unknown>>(name: string, args: Record<string, unknown>, expectError = false): Promise<T> => {
    out(`→ ${name} ${JSON.stringify(args)}`);
    const r = await agent.callTool({ name, arguments: args });
    if ((r.isError === true) !== expectError) throw new Error(`${name} ${expectError ? 'succeeded' : 'failed'}: ${textOf(r)}`);
    return (r.structuredContent ?? {}) as T;
  };

  const authority = await call<Authority>('get_mandate', {});
  const left = (c: Cap): string => (c.cap === 'per_call' ? '' : c.remaining ? ` (${fmtMoney(c.remaining)} left)` : ' (left unknown)');
  const caps = authority.caps.map((c) => `${c.cap} ${fmtMoney(c.limit)}${left(c)}`).join(', ');
  const may = authority.capabilities.map((c) => c.name).join(', ');
  out(indent(`${caps}; above ${fmtMoney(authority.approval_threshold)} a human approves; may ${may}`));

  const studio = `acct:${STUDIO}`;
  // Two payments to the studio, which bills in EUR: the mandate (in USD) pays them at the human's rate.
  // Each has its own replay key (the members in the order the agent sends them).
  const eur = (amount: string, purpose: string, key: string) => ({ payee: studio, amount, currency: 'EUR', purpose, idempotency_key: key });
  const sketch = eur('0.40', 'Logo sketches, first round', 'studio-sketches-1');
  const sim = await call<{ decision: string; authorizes: boolean }>('simulate', { intent: sketch });
  const authorizes = String(sim.authorizes);
  out(indent(`${sim.decision} (authorizes: ${authorizes}): an answer, not a grant — nothing settled, the key still unused`));
  const paid = await call<Paid>('pay', { intent: sketch });
  const receipt = paid.receipt;
  const charged = fmtMoney(receipt.charged);
  out(
    indent(
      `${paid.intent.status} with the same key: ${receipt.id}, 0.40 EUR on the ${receipt.rail} rail to ${studio}; ` +
        `the mandate paid ${charged} at your rate`,
    ),
  );

  const final = eur('1.80', 'Logo, final files', 'studio-final-1');
  const parked = await call<Parked>('pay', { intent: final }, true);
  if (parked.code !== 'approval.pending') throw new Error(`the payment above the threshold answered ${parked.code}`);
  const { intent = '?', approval } = parked.data;
  out(indent(`${parked.code} (${parked.action}): intent ${intent} parked, its money held; approval ${approval} is the human's`));
  const pending = await call<Pending>('list_intents', { status: 'pending' });
  for (const i of pending.intents) {
    out(indent(`${i.intent} ${i.idempotency_key} ${fmtMoney(i.amount)} waits for ${i.pending?.approval ?? '?'}`));
  }

  const lines = [{ product: 'ink-refill', quantity: 2 }];
  const cart = await call<Cart>('quote', { merchant: 'stationery', lines });
  const quoted = cart.lines.map((l) => `${l.quantity} × ${l.title ?? '?'} at ${fmtMoney(l.unit_price)}`).join(', ');
  out(indent(`${cart.status}: ${quoted}; total ${fmtMoney(cart.total)}, the merchant's (VAT included)`));
  const order = await call<Order>('buy', { merchant: 'stationery', lines, replay_key: 'ink-refills-1' });
  out(indent(`order ${order.id} completed at ${fmtMoney(order.total)}; the mandate paid ${fmtMoney(order.charged)} at your rate`));

  // The UCP business negotiates AP2: it completes the checkout only with the human's signed consent, which it verifies.
  const stickers = [{ product: 'sticker-pack', quantity: 2 }];
  const bought = await call<Order>('buy', { merchant: HARDWARE, lines: stickers, replay_key: 'stickers-1' });
  out(indent(`order ${bought.id} completed at ${fmtMoney(bought.total)}; the mandate paid ${fmtMoney(bought.charged)}`));
  if (!bought.consent?.holds)
    throw new Error(`the purchase at ${HARDWARE} carries no AP2 consent that holds: ${JSON.stringify(bought.consent)}`);
  out(
    indent(
      `the business verified your open mandate and this purchase's checkout and payment mandates (signed with your key) ` +
        'before it took the payment',
    ),
  );
  out(indent(`consent holds: ${bought.consent.steps.map((x) => `${x.link} ${x.ok === false ? '✗' : x.ok ? '✓' : '—'}`).join(' → ')}`));
  if (bought.settlement) out(indent(`paid on the chain by x402: ${bought.settlement.summary} (${bought.settlement.transaction ?? '?'})`));

  const note = `Ink refills at the stationery shop: ${fmtMoney(order.total)} for 2, VAT included (order ${order.id}).`;
  const noted = await call<{ id: string; system_seq: number }>('memory_remember', { key: 'suppliers/stationery', content: note });
  out(indent(`${noted.id} recorded at journal #${noted.system_seq}`));
  const recalled = await call<Recalled>('memory_recall', { prefix: 'suppliers/' });
  const records = recalled.records.map((r) => `${r.key} — ${r.content}`).join('; ');
  out(indent(`snapshot at #${recalled.snapshot.system_seq}: ${records}`));
  out(`   the studio's final payment waits for you: holon approve ${approval} ${demo.at}`);
  return { approval, expires_at: parked.data.expires_at };
}

/** What the local chain prints when it is ready (examples/chain/run.ts). */
type ChainReady = { rpcUrl: string; network: string; token: string; facilitator: string };
/** What the merchants print when they are ready (examples/merchants/run.ts). */
type MerchantsReady = { flag: string; acp: { url: string }; ucp: { url: string } };

async function play(demo: Demo): Promise<string[]> {
  const { out, stateDir } = demo;
  section(out, `9. Money, commerce, memory and records (holon mcp --mandate ${SHOPPER})`);
  const wallet = stateWalletAddress(stateDir);
  if (!wallet) throw new Error("the shopper pays on the chain with the demo's wallet, which the terms scenario creates");
  const open = await withState(stateDir, async (store) => {
    // Room for what the shopper does here and for what you try with it afterwards.
    await fund(store, 'demo', '8', 'USD');
    await fund(store, STUDIO, '1', 'EUR');
    await setFx(store, 'USD', 'USDC', '1');
    // In USD, the currency of the business that asks for AP2: the cap merchants see is the human's own number, in the
    // merchant's currency, which is the only one a merchant can check. What the shopper pays in EUR (the studio, the
    // stationery shop) Holon converts at the human's rate, at the time of each payment.
    const mandate = await createMandate(store, systemClock, SHOPPER, {
      currency: 'USD',
      toolsets: ['money', 'commerce', 'memory', 'records'],
      approval_threshold: '1.50',
      budget: { total: '8.00', per_day: null, per_call: '2.50' },
      capabilities: [
        { name: CAP.pay, params: { payees: [`acct:${STUDIO}`] } },
        { name: CAP.commerceBuy, params: { merchants: ['stationery', HARDWARE] } },
      ],
      grantee: { slug: 'shopper', name: 'Purchasing agent', role: 'purchasing agent', manager: 'demo' },
    });
    // The human's key signs the open mandate as the mandate is made, as `holon mandate create` does: an AP2 merchant
    // refuses a purchase without it.
    return signMandateConsent(stateDir, mandate, systemClock.now());
  });
  if (!open) throw new Error(`${SHOPPER} can buy, yet no open AP2 mandate was signed for it`);
  out('$ holon fund demo 8 --currency USD       → 8.00 USD on demo, for the shopper');
  out(`$ holon fund ${STUDIO} 1                    → ${STUDIO} holds 1.00 EUR: a second Holon account, a design studio`);
  out('$ holon fx USD USDC 1                    → 1 USD = 1 USDC: the hardware business takes USDC at par with its USD');
  out(
    `$ holon mandate create ${SHOPPER} --currency USD --toolsets money,commerce,memory,records --threshold 1.50 --total 8 ` +
      `--per-call 2.50 \\\n    --payees acct:${STUDIO} --grant '{"commerce.buy":{"merchants":["stationery","${HARDWARE}"]}}'`,
  );
  out(indent(`Merchants will see this (its AP2 open mandate, signed with your key ${open.key}): ${openTermsText(open.terms)}`));
  out(
    indent(
      "in USD, the currency of the AP2 business, which checks the cap; the studio's and the stationery shop's EUR convert at your rate",
    ),
  );
  const chain = await startExample<ChainReady>(demo, 'chain/chain.cjs', ['--fund', wallet]);
  let parked: ParkedPayment;
  try {
    const { rpcUrl, network, token, facilitator } = chain.ready;
    out(`   a local chain (${network}) at ${rpcUrl}; the wallet ${wallet} holds 10 USDC on it`);
    const chainFlags = ['--rpc-url', rpcUrl, '--chain-id', network.slice('eip155:'.length), '--token', token, '--facilitator', facilitator];
    const merchants = await startExample<MerchantsReady>(demo, 'merchants/merchants.mjs', ['--ap2', stateDir, ...chainFlags]);
    try {
      const { flag, acp, ucp } = merchants.ready;
      const human = shq(path.join(stateDir, 'ap2', 'human.json'));
      out(`$ node dist/examples/merchants/merchants.mjs --ap2 ${shq(stateDir)} ${chainFlags.slice(0, 6).join(' ')} …`);
      out(indent(`an ACP stationery shop on ${acp.url} (EUR); a UCP hardware business on ${ucp.url} (USD) that takes x402`));
      out(indent(`on the chain and negotiates AP2: it verifies the mandates against ${human}, what your key publishes`));
      const shopper = { mandate: SHOPPER, client: 'holon-demo-shopper', args: flag.split(' ') };
      parked = await withAgent(demo, shopper, (agent) => shop(demo, agent), `${SHOPPER} server log`);
    } finally {
      await merchants.stop();
    }
  } finally {
    await chain.stop();
  }
  const merchantsMjs = bundledExample(demo, 'merchants', 'merchants.mjs');
  const stickers = JSON.stringify({ merchant: HARDWARE, lines: [{ product: 'sticker-pack', quantity: 1 }], replay_key: 'stickers-2' });
  return [
    `   Money: node ${shq(merchantsMjs)} --ap2 ${shq(stateDir)} starts the merchants, the hardware business verifying`,
    '          your AP2 mandates, and prints their flag (FLAG); given the chain flags too (as for Terms: --rpc-url RPC',
    '          --chain-id 31337 --token TOKEN --facilitator FACILITATOR), it takes x402 on that chain and FLAG carries them; then',
    `          holon mcp --mandate ${SHOPPER} ${demo.at} FLAG`,
    `          buys with AP2 end to end: buy ${stickers}`,
    `          holon approve ${parked.approval} ${demo.at}   releases the studio's final payment (until ${parked.expires_at})`,
  ];
}

export const shopper: Scenario = { play };
