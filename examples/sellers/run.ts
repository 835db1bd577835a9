/**
 * `node dist/examples/sellers/seller.mjs [--variant wrong-bytes]`: a local x402 seller to try the terms
 * tools against. It prints its 402 document (what an agent passes to atr_confirm or atr_transact as
 * `document`) and serves until stopped. Nothing moves on its test chain: it only checks payments.
 */
import type { Variant } from './x402Seller.ts';
import { startSeller } from './x402Seller.ts';

const i = process.argv.indexOf('--variant');
const variant = (i > 0 ? process.argv[i + 1] : 'honest') as Variant;
void startSeller(variant).then((seller) => {
  process.stdout.write(`${JSON.stringify({ resource: `${seller.url}/resource`, atrHash: seller.hash, document: seller.document }, null, 2)}\n`);
  process.stderr.write(`[seller] ${variant} x402 seller on ${seller.url}; Ctrl-C to stop\n`);
  const stop = (): void => void seller.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
});
