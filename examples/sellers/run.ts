/**
 * `node dist/examples/sellers/seller.mjs --facilitator URL [--variant wrong-bytes] [--scheme upto] [--amount 250000]`:
 * a local x402 seller (priced `exact` at the amount, or `upto` at most the amount, by the page) to try the terms tools against, settling through the facilitator at URL (the one
 * `node dist/examples/chain/chain.cjs` prints). It prints its 402 document (what an agent passes to
 * atr_confirm or atr_transact as `document`) and serves until stopped.
 */
import type { Variant } from './x402Seller.ts';
import { startSeller } from './x402Seller.ts';
import { untilStopped } from '../untilStopped.ts';
import { facilitatorOrExit, flag } from './args.ts';

const facilitator = facilitatorOrExit('seller');
const variant = (flag('--variant') ?? 'honest') as Variant;
const amount = flag('--amount');
const scheme = flag('--scheme');
if (scheme !== undefined && scheme !== 'exact' && scheme !== 'upto') {
  process.stderr.write(`[seller] --scheme is exact or upto, not ${scheme}\n`);
  process.exit(2);
}
void startSeller(variant, { facilitator, ...(amount ? { amount } : {}), ...(scheme ? { scheme } : {}) }).then(
  (seller) => {
    process.stdout.write(
      `${JSON.stringify({ resource: `${seller.url}/resource`, atrHash: seller.hash, document: seller.document }, null, 2)}\n`,
    );
    process.stderr.write(`[seller] ${variant} x402 seller on ${seller.url}, settling through ${facilitator}; Ctrl-C to stop\n`);
    untilStopped(() => seller.close());
  },
  (err: unknown) => {
    process.stderr.write(`[seller] ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
