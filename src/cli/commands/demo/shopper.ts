/**
 * Money, commerce, memory and records (seed 003): a mandate with those four toolsets talks to its own
 * `holon mcp`, with the two local merchants as their own process. It reads its authority, simulates then
 * pays the studio (one key), parks a payment above the threshold and finds it again, buys at the ACP
 * merchant's price, and remembers what it paid. The parked payment is left for the human.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CAP } from '../../../core/capabilities.ts';
import { systemClock } from '../../../core/deps.ts';
import { createMandate } from '../../../core/mandates.ts';
import { fund } from '../../../core/money/spend.ts';
import type { Demo, MoneyOut, Scenario } from './play.ts';
import { bundledExample, fmtMoney, indent, section, shq, startExample, textOf, withAgent, withState } from './play.ts';

/** The mandate that pays another Holon account, buys from the local merchants and remembers. */
const SHOPPER = 'demo/shopper';
/** The second Holon account the shopper pays: a design studio. */
const STUDIO = 'studio';

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
type Order = { id: string; total: MoneyOut; charged: MoneyOut };
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
  // Two payments to the studio, each with its own replay key (the members in the order the agent sends them).
  const eur = (amount: string, purpose: string, key: string) => ({ payee: studio, amount, currency: 'EUR', purpose, idempotency_key: key });
  const sketch = eur('0.40', 'Logo sketches, first round', 'studio-sketches-1');
  const sim = await call<{ decision: string; authorizes: boolean }>('simulate', { intent: sketch });
  const authorizes = String(sim.authorizes);
  out(indent(`${sim.decision} (authorizes: ${authorizes}): an answer, not a grant — nothing settled, the key still unused`));
  const paid = await call<Paid>('pay', { intent: sketch });
  const receipt = paid.receipt;
  const charged = fmtMoney(receipt.charged);
  out(indent(`${paid.intent.status} with the same key: ${receipt.id}, ${charged} on the ${receipt.rail} rail to ${studio}`));

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
  out(indent(`order ${order.id} completed at ${fmtMoney(order.total)}; the mandate paid ${fmtMoney(order.charged)}`));

  const note = `Ink refills at the stationery shop: ${fmtMoney(order.total)} for 2, VAT included (order ${order.id}).`;
  const noted = await call<{ id: string; system_seq: number }>('memory_remember', { key: 'suppliers/stationery', content: note });
  out(indent(`${noted.id} recorded at journal #${noted.system_seq}`));
  const recalled = await call<Recalled>('memory_recall', { prefix: 'suppliers/' });
  const records = recalled.records.map((r) => `${r.key} — ${r.content}`).join('; ');
  out(indent(`snapshot at #${recalled.snapshot.system_seq}: ${records}`));
  out(`   the studio's final payment waits for you: holon approve ${approval} ${demo.at}`);
  return { approval, expires_at: parked.data.expires_at };
}

async function play(demo: Demo): Promise<string[]> {
  const { out } = demo;
  section(out, `9. Money, commerce, memory and records (holon mcp --mandate ${SHOPPER})`);
  await withState(demo.stateDir, async (store) => {
    // Room for what the shopper does here and for what you try with it afterwards.
    await fund(store, 'demo', '5', 'EUR');
    await fund(store, STUDIO, '1', 'EUR');
    await createMandate(store, systemClock, SHOPPER, {
      toolsets: ['money', 'commerce', 'memory', 'records'],
      approval_threshold: '1.50',
      budget: { total: '8.00', per_day: null, per_call: '2.50' },
      capabilities: [
        { name: CAP.pay, params: { payees: [`acct:${STUDIO}`] } },
        { name: CAP.commerceBuy, params: { merchants: ['stationery', 'hardware'] } },
      ],
      grantee: { slug: 'shopper', name: 'Purchasing agent', role: 'purchasing agent', manager: 'demo' },
    });
  });
  out('$ holon fund demo 5                      → 5.00 EUR more on demo, for the shopper');
  out(`$ holon fund ${STUDIO} 1                    → ${STUDIO} holds 1.00 EUR: a second Holon account, a design studio`);
  out(
    `$ holon mandate create ${SHOPPER} --toolsets money,commerce,memory,records --threshold 1.50 --total 8 --per-call 2.50 \\\n` +
      `    --payees acct:${STUDIO} --grant '{"commerce.buy":{"merchants":["stationery","hardware"]}}'`,
  );
  const merchants = await startExample<{ flag: string; acp: { url: string }; ucp: { url: string } }>(demo, 'merchants/merchants.mjs');
  let parked: ParkedPayment;
  try {
    const { flag, acp, ucp } = merchants.ready;
    const shops = `an ACP stationery shop on ${acp.url} (EUR), a UCP hardware business on ${ucp.url} (USD)`;
    out(`$ node dist/examples/merchants/merchants.mjs → ${shops}`);
    const shopper = { mandate: SHOPPER, client: 'holon-demo-shopper', args: flag.split(' ') };
    parked = await withAgent(demo, shopper, (agent) => shop(demo, agent), `${SHOPPER} server log`);
  } finally {
    await merchants.stop();
  }
  const merchantsMjs = bundledExample(demo, 'merchants', 'merchants.mjs');
  return [
    `   Money: node ${shq(merchantsMjs)} starts the merchants and prints their --merchant flag; then`,
    `          holon mcp --mandate ${SHOPPER} ${demo.at} --merchant stationery=acp:URL,hardware=ucp:URL`,
    `          holon approve ${parked.approval} ${demo.at}   releases the studio's final payment (until ${parked.expires_at})`,
  ];
}

export const shopper: Scenario = { play };
