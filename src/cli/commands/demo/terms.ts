/**
 * Buying under terms (seed 002): an agent buys from a seller that advertises its terms. The example
 * seller runs as its own process; the buyer mandate's own server confirms H and pays with the demo's
 * wallet; the seller checks the payment on its own and serves.
 */
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { setFx } from '../../../core/money/fx.ts';
import { createMandate } from '../../../core/mandates.ts';
import { systemClock } from '../../../core/deps.ts';
import { createWallet } from '../../../core/wallet.ts';
import type { Demo, DemoStore, Scenario } from './play.ts';
import { bundledExample, indent, section, shq, startExample, withAgent } from './play.ts';

/** The mandate that buys from sellers under terms, with the demo's wallet. */
const BUYER = 'demo/buyer';
/** The example seller's payee on the local test chain (examples/sellers/x402Seller.ts). */
const EXAMPLE_PAYEE = 'eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

async function setUp(store: DemoStore, { out, stateDir }: Demo): Promise<void> {
  await setFx(store, 'USDC', 'EUR', '0.92');
  out('$ holon fx USDC EUR 0.92                 → 1 USDC = 0.92 EUR');
  const address = createWallet(stateDir);
  out(`$ holon wallet create                    → ${address} (a demo wallet: the local seller's chain moves nothing)`);
  await createMandate(store, systemClock, BUYER, {
    toolsets: ['terms'],
    approval_threshold: '0.50',
    budget: { total: '2.00', per_day: null, per_call: null },
    capabilities: [{ name: 'pay', params: { payees: [EXAMPLE_PAYEE] } }],
    grantee: { slug: 'buyer', name: 'Buying agent', role: 'buyer', manager: 'demo' },
  });
  out(`$ holon mandate create ${BUYER} --toolsets terms --threshold 0.50 --total 2 (pay: the example seller)`);
}

/** What atr_transact returns, as far as the demo reads it. */
type Paid = { atrHash?: string; atr?: { utf8: string | null }; signed?: unknown; decline?: { code: string } };

async function play(demo: Demo): Promise<string[]> {
  const { out } = demo;
  section(out, `7. Terms: confirm the seller's ATR hash, then pay (holon mcp --mandate ${BUYER})`);
  const seller = await startExample<{ resource: string; atrHash: string; document: unknown }>(demo, 'sellers/seller.mjs');
  try {
    const offer = seller.ready;
    out(`   a seller at ${offer.resource} answers 402, advertising H = ${offer.atrHash}`);
    const buyer = { mandate: BUYER, client: 'holon-demo-buyer', args: ['--allow-private-sellers'] };
    await withAgent(demo, buyer, async (client) => {
      out(`→ atr_transact {"pairing":"x402/exact/eip155","document":…}`);
      const r = await client.callTool({ name: 'atr_transact', arguments: { pairing: 'x402/exact/eip155', document: offer.document } });
      const paid = (r.structuredContent ?? {}) as Paid;
      if (r.isError || !paid.signed) throw new Error(`atr_transact declined: ${paid.decline?.code ?? 'unknown'}`);
      out(indent(`H confirmed: ${paid.atrHash ?? ''}\nterms: ${(paid.atr?.utf8 ?? '').trim()}\nsigned by the wallet, its nonce H`));
      const signature = encodePaymentSignatureHeader(paid.signed as Parameters<typeof encodePaymentSignatureHeader>[0]);
      const res = await fetch(offer.resource, { headers: { 'payment-signature': signature } });
      out(`   the seller checks the payment itself and answers ${res.status}: ${(await res.text()).slice(0, 80)}`);
    });
  } finally {
    await seller.stop();
  }
  return [
    `   Terms: node ${shq(bundledExample(demo, 'sellers', 'seller.mjs'))} starts a seller; then`,
    `          holon mcp --mandate ${BUYER} ${demo.at} --allow-private-sellers`,
  ];
}

export const terms: Scenario = { setUp, play };
