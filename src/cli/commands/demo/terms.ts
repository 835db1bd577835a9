/**
 * Buying under terms (seed 002), and paying a chain account: the money moves on a chain. The local chain
 * (a node, the token, a facilitator) and the example seller run as their own processes; the buyer
 * mandate's own server, told the chain (`--rpc-url`, `--chain-id`, `--token`, `--facilitator`), confirms
 * H and pays with the demo's wallet; the seller's facilitator settles the payment, and Holon reads it
 * back from the chain (its settlement: landed in block N). Then `pay` sends the seller's account a
 * payment of its own through the facilitator, and `call_agent` calls a seller priced `upto` (by the page):
 * the worst case authorized, the pages done paid, what landed read from the chain; and a paid MCP tool
 * (x402's MCP transport), paid when it asks and called again with the payment. The demo shows the wallet's
 * balance before and after and the seller's after, as `holon wallet` and the chain itself say.
 */
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { Client } from '@modelcontextprotocol/client';
import type { Address, Hex } from 'viem';
import { createPublicClient, erc20Abi, http } from 'viem';
import { formatUnits } from '../../../core/kernel/amount.ts';
import { setFx } from '../../../core/money/fx.ts';
import { createMandate } from '../../../core/accounts/mandates.ts';
import { systemClock } from '../../../core/kernel/deps.ts';
import { addAgent } from '../../../core/market/catalog.ts';
import { createWallet } from '../../../core/local/wallet.ts';
import type { Settlement } from '../../../core/rails/settlement.ts';
import { settlementWords } from '../../../core/rails/settlementView.ts';
import type { Demo, DemoStore, Scenario } from './play.ts';
import { bundledExample, indent, section, shq, startExample, withAgent, withState } from './play.ts';

/** The mandate that buys from sellers under terms, with the demo's wallet. */
const BUYER = 'demo/buyer';
/** The example seller's payee on the local chain (examples/sellers/x402Seller.ts). */
const SELLER: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const EXAMPLE_PAYEE = `eip155:31337:${SELLER}`;
/** The seller priced `upto` the demo calls: at most 0.30 USDC a call, 0.05 a page (examples/sellers/x402Seller.ts). */
const PAGES = { id: 'sellers/pages', capability: 'extraction.table', max: '300000', worst: '0.30' } as const;
/** The paid MCP tool the demo calls (examples/sellers/paidTool.ts): $0.002 a call, paid to the same seller. */
const PAID = { id: 'sellers/paid-sum', capability: 'math.sum', price: '0.002' } as const;
/** The wallet each demo created in its set-up, for its play to fund. */
const wallets = new WeakMap<Demo, Address>();

async function setUp(store: DemoStore, demo: Demo): Promise<void> {
  const { out, stateDir } = demo;
  await setFx(store, 'USDC', 'EUR', '0.92');
  out('$ holon fx USDC EUR 0.92                 → 1 USDC = 0.92 EUR');
  const address = createWallet(stateDir);
  wallets.set(demo, address);
  out(`$ holon wallet create                    → ${address} (the demo's wallet; the local chain funds it)`);
  await createMandate(store, systemClock, BUYER, {
    toolsets: ['terms', 'money', 'market'],
    approval_threshold: '0.50',
    budget: { total: '2.00', per_day: null, per_call: null },
    capabilities: [
      { name: 'pay', params: { payees: [EXAMPLE_PAYEE] } },
      { name: 'market.call', params: { capabilities: [PAGES.capability, PAID.capability] } },
    ],
    grantee: { slug: 'buyer', name: 'Buying agent', role: 'buyer', manager: 'demo' },
  });
  out(
    `$ holon mandate create ${BUYER} --toolsets terms,money,market --threshold 0.50 --total 2 --payees ${EXAMPLE_PAYEE} ` +
      `--capabilities ${PAGES.capability},${PAID.capability}`,
  );
}

/** Waits until Holon's own reading of the chain decided a settlement (the server writes it), and returns it. */
async function settlementOf(demo: Demo, id: string): Promise<Settlement> {
  // One reader of the journal, which follows what the server appends.
  return withState(demo.stateDir, async (store) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = store.state.settlements[id];
      if (r && r.status !== 'signed') return structuredClone(r);
      if (Date.now() > deadline) throw new Error(`Holon did not read payment ${id} on the chain`);
      await new Promise((done) => setTimeout(done, 100));
    }
  });
}

/** What atr_transact returns, as far as the demo reads it. */
type Paid = { atrHash?: string; atr?: { utf8: string | null }; signed?: unknown; decline?: { code: string }; settlement?: { id: string } };
/** What pay returns, as far as the demo reads it. */
type Intent = {
  receipt?: { reference: string; charged: { amount: string; currency: string } };
  intent?: { settlement?: { summary: string } };
};
/** What the local chain prints when it is ready (examples/chain/run.ts). */
type ChainReady = { rpcUrl: string; network: string; token: Address; facilitator: string };

async function play(demo: Demo): Promise<string[]> {
  const { out } = demo;
  const wallet = wallets.get(demo);
  if (!wallet) throw new Error('the terms scenario plays only after its set-up');
  section(out, `7. Terms: confirm the seller's ATR hash, then pay on a chain (holon mcp --mandate ${BUYER})`);
  const chain = await startExample<ChainReady>(demo, 'chain/chain.cjs', ['--fund', wallet]);
  try {
    const { rpcUrl, network, token, facilitator } = chain.ready;
    const client = createPublicClient({ transport: http(rpcUrl) });
    const usdc = async (address: Address): Promise<string> =>
      `${formatUnits(await client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address] }))} USDC`;
    out(`   a local chain (${network}) at ${rpcUrl}: the token at ${token}, a facilitator at ${facilitator}`);
    const chainFlags = ['--rpc-url', rpcUrl, '--chain-id', network.slice('eip155:'.length), '--token', token, '--facilitator', facilitator];
    out(`$ holon wallet --rpc-url ${rpcUrl} --chain-id 31337 --token ${token}`);
    out(`   the wallet holds ${await usdc(wallet)} (before); the seller ${SELLER} holds ${await usdc(SELLER)}`);
    const seller = await startExample<{ resource: string; atrHash: string; document: unknown }>(demo, 'sellers/seller.mjs', [
      '--facilitator',
      facilitator,
    ]);
    try {
      const offer = seller.ready;
      out(`   a seller at ${offer.resource} answers 402, advertising H = ${offer.atrHash}`);
      const buyer = { mandate: BUYER, client: 'holon-demo-buyer', args: ['--allow-private-sellers', ...chainFlags] };
      await withAgent(demo, buyer, async (agent) => {
        out(`→ atr_transact {"pairing":"x402/exact/eip155","document":…}`);
        const r = await agent.callTool({ name: 'atr_transact', arguments: { pairing: 'x402/exact/eip155', document: offer.document } });
        const paid = (r.structuredContent ?? {}) as Paid;
        if (r.isError || !paid.signed) throw new Error(`atr_transact declined: ${paid.decline?.code ?? 'unknown'}`);
        out(indent(`H confirmed: ${paid.atrHash ?? ''}\nterms: ${(paid.atr?.utf8 ?? '').trim()}\nsigned by the wallet, its nonce H`));
        const signature = encodePaymentSignatureHeader(paid.signed as Parameters<typeof encodePaymentSignatureHeader>[0]);
        const res = await fetch(offer.resource, { headers: { 'payment-signature': signature } });
        out(`   the seller's facilitator settles it; the seller answers ${res.status}: ${(await res.text()).slice(0, 80)}`);
        const header = res.headers.get('payment-response');
        if (res.status !== 200 || !header) throw new Error(`the seller did not take the payment (${res.status})`);
        const hash = decodePaymentResponseHeader(header).transaction as Hex;
        const receipt = await client.getTransactionReceipt({ hash });
        out(`   transaction ${hash}: ${receipt.status} in block ${receipt.blockNumber} (read from the chain)`);
        if (paid.settlement) {
          const landed = await settlementOf(demo, paid.settlement.id);
          out(`   Holon's own reading of the chain: ${settlementWords(landed)} (${landed.landed?.transaction ?? 'no transaction'})`);
        }
        out(`→ pay {"payee":"${EXAMPLE_PAYEE}","amount":"0.10","currency":"USDC",…}`);
        const intent = {
          payee: EXAMPLE_PAYEE,
          amount: '0.10',
          currency: 'USDC',
          purpose: 'a tip to the seller',
          idempotency_key: 'demo-tip',
        };
        const p = await agent.callTool({ name: 'pay', arguments: { intent } });
        const tip = (p.structuredContent ?? {}) as Intent;
        if (p.isError || !tip.receipt) throw new Error(`pay failed: ${JSON.stringify(p.structuredContent)}`);
        out(
          indent(`signed, settled through the facilitator: ${tip.intent?.settlement?.summary ?? ''}
transaction ${tip.receipt.reference}`),
        );
        await callUpto(demo, agent, facilitator);
        await callPaidTool(demo, agent, facilitator);
      });
      out(`   the wallet now holds ${await usdc(wallet)} (after); the seller holds ${await usdc(SELLER)} (after)`);
    } finally {
      await seller.stop();
    }
  } finally {
    await chain.stop();
  }
  return [
    `   Terms: node ${shq(bundledExample(demo, 'chain', 'chain.cjs'))} --fund ${wallet} starts a chain and funds the wallet`,
    `          (it prints its rpcUrl, token and facilitator: RPC, TOKEN and FACILITATOR below);`,
    `          node ${shq(bundledExample(demo, 'sellers', 'seller.mjs'))} --facilitator FACILITATOR starts a seller; then`,
    `          holon mcp --mandate ${BUYER} ${demo.at} --allow-private-sellers --rpc-url RPC --chain-id 31337 --token TOKEN ` +
      `--facilitator FACILITATOR`,
    `          pays it (atr_transact) and its account (pay ${EXAMPLE_PAYEE}); holon wallet ${demo.at} --rpc-url RPC --chain-id ` +
      `31337 --token TOKEN shows what the wallet holds;`,
    `          a seller priced upto: the same seller with --scheme upto --amount ${PAGES.max}, added to the catalog as an x402 ` +
      'agent, then call_agent {"agent":…,"input":{"pages":2}}',
    `          a paid MCP tool: node ${shq(bundledExample(demo, 'sellers', 'paidTool.mjs'))} --facilitator FACILITATOR, added ` +
      'with an http endpoint, its tool and its payee, then call_agent',
  ];
}

/** The catalog entry of the `upto` seller at `url`: its worst case is its price, what the call holds. */
function pagesAgent(url: string): { manifest: unknown; endpoint: unknown } {
  return {
    manifest: {
      id: PAGES.id,
      version: '1.0.0',
      name: 'Tables by the page',
      description: 'Extracts invoice tables, paid by the page through x402 upto: at most 0.30 USDC a call, 0.05 a page.',
      publisher: 'sellers',
      capabilities: [PAGES.capability],
      input_schema: { type: 'object', properties: { pages: { type: 'integer', minimum: 1 } } },
      output_schema: { type: 'object' },
      errors: [],
      price: { currency: 'USDC', per_call: PAGES.worst },
      data_policy: { regions: ['EU'], retention_days: 0, training: false },
      models: [],
      delegated_calls: [],
      examples: [],
    },
    // Paid only to this address, which the buyer's mandate allows (pay's payees).
    endpoint: { type: 'x402', url, payee: EXAMPLE_PAYEE },
  };
}

/** `call_agent` to a seller priced `upto`: the worst case held and authorized, the pages done paid, what landed read back. */
async function callUpto(demo: Demo, agent: Client, facilitator: string): Promise<void> {
  const { out } = demo;
  const args = ['--facilitator', facilitator, '--scheme', 'upto', '--amount', PAGES.max];
  const seller = await startExample<{ resource: string; atrHash: string }>(demo, 'sellers/seller.mjs', args);
  try {
    const entry = pagesAgent(seller.ready.resource);
    await withState(demo.stateDir, (store) => addAgent(store, systemClock, entry.manifest, entry.endpoint, 'demo'));
    out(`   a seller priced upto at ${seller.ready.resource}: at most ${PAGES.worst} USDC a call, 0.05 USDC a page`);
    out(`→ call_agent {"agent":"${PAGES.id}","input":{"pages":2}}`);
    const r = await agent.callTool({ name: 'call_agent', arguments: { agent: PAGES.id, input: { pages: 2 } } });
    const done = (r.structuredContent ?? {}) as { status?: string; receipt?: string; cost?: { amount: string; currency: string } };
    if (r.isError || done.status !== 'succeeded' || !done.receipt)
      throw new Error(`call_agent failed: ${JSON.stringify(r.structuredContent)}`);
    const g = await agent.callTool({ name: 'get_receipt', arguments: { receipt: done.receipt } });
    const tree = (g.structuredContent ?? {}) as { tree?: { settlement?: { summary: string; transaction: string | null } | null } };
    const stl = tree.tree?.settlement;
    out(
      indent(`the worst case held and authorized: a Permit2 transfer bound to H (and an EIP-2612 permit of Permit2)
the seller settled 2 pages; Holon's own reading of the chain: ${stl?.summary ?? 'no settlement'}
transaction ${stl?.transaction ?? 'none'}; the call cost ${done.cost?.amount ?? '?'} ${done.cost?.currency ?? ''}`),
    );
  } finally {
    await seller.stop();
  }
}

export const terms: Scenario = { setUp, play };

/** The catalog entry of the paid MCP tool at `url`: its price is what a call asks, paid to `payee` only. */
function paidToolAgent(url: string, tool: string, payee: string): { manifest: unknown; endpoint: unknown } {
  return {
    manifest: {
      id: PAID.id,
      version: '1.0.0',
      name: 'Exact sums',
      description: `Adds decimal amounts exactly. A paid MCP tool: ${PAID.price} USDC a call, through x402's MCP transport.`,
      publisher: 'sellers',
      capabilities: [PAID.capability],
      input_schema: { type: 'object', required: ['amounts'], properties: { amounts: { type: 'array', items: { type: 'string' } } } },
      output_schema: {
        type: 'object',
        required: ['total', 'count'],
        properties: { total: { type: 'string' }, count: { type: 'integer' } },
      },
      errors: [],
      price: { currency: 'USDC', per_call: PAID.price },
      data_policy: { regions: ['EU'], retention_days: 0, training: false },
      models: [],
      delegated_calls: [],
      examples: [],
    },
    endpoint: { type: 'http', url, tool, payee },
  };
}

/** `call_agent` to a paid MCP tool: it asks, Holon pays through the gate and calls again, and reads where it landed. */
async function callPaidTool(demo: Demo, agent: Client, facilitator: string): Promise<void> {
  const { out } = demo;
  const tool = await startExample<{ url: string; tool: string; payee: string }>(demo, 'sellers/paidTool.mjs', [
    '--facilitator',
    facilitator,
  ]);
  try {
    const { url, payee } = tool.ready;
    if (payee !== EXAMPLE_PAYEE) throw new Error(`the paid tool asks to be paid to ${payee}, not to the demo's seller`);
    const entry = paidToolAgent(url, tool.ready.tool, payee);
    await withState(demo.stateDir, (store) => addAgent(store, systemClock, entry.manifest, entry.endpoint, 'demo'));
    out(`   a paid MCP tool at ${url} (${tool.ready.tool}): ${PAID.price} USDC a call, asked for in x402's PaymentRequired`);
    const input = { amounts: ['216.96', '2131.18', '443.85', '4358.64'] };
    out(`→ call_agent {"agent":"${PAID.id}","input":${JSON.stringify(input)}}`);
    const r = await agent.callTool({ name: 'call_agent', arguments: { agent: PAID.id, input } });
    const done = (r.structuredContent ?? {}) as { status?: string; receipt?: string; cost?: { amount: string; currency: string } };
    if (r.isError || done.status !== 'succeeded' || !done.receipt)
      throw new Error(`call_agent failed: ${JSON.stringify(r.structuredContent)}`);
    const g = await agent.callTool({ name: 'get_receipt', arguments: { receipt: done.receipt } });
    const tree = (g.structuredContent ?? {}) as { tree?: { settlement?: { id: string } | null } };
    const id = tree.tree?.settlement?.id;
    // The tool says where it settled; Holon's own reading of the chain is what the demo shows.
    const landed = id ? await settlementOf(demo, id) : undefined;
    const paid = landed ? `${landed.amount.amount} ${landed.amount.currency}` : 'nothing';
    out(`   it asked to be paid; Holon paid ${paid} and called it again, the payment in _meta["x402/payment"]`);
    out(`   Holon's own reading of the chain: ${landed ? settlementWords(landed) : 'no settlement'}`);
    out(`   the call cost ${done.cost?.amount ?? '?'} ${done.cost?.currency ?? ''}`);
  } finally {
    await tool.stop();
  }
}
