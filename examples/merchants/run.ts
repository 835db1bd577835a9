/**
 * `node dist/examples/merchants/merchants.mjs` (or `node --import tsx examples/merchants/run.ts`): the two
 * local merchants, an ACP stationery shop (EUR) and a UCP hardware business (USD), on free loopback ports.
 * It prints their URLs, their catalogs (prices in minor units) and the `--merchant` flag to give
 * `holon mcp`, and serves until stopped. Nothing is charged anywhere.
 */
import { startAcpMerchant } from './acpMerchant.ts';
import { startUcpMerchant } from './ucpMerchant.ts';

void Promise.all([startAcpMerchant(), startUcpMerchant()]).then(([acp, ucp]) => {
  const catalog = (shop: typeof acp): unknown => [...shop.catalog.values()].map((p) => ({ product: p.id, title: p.title, price: p.price, stock: p.stock }));
  const flag = `--merchant stationery=acp:${acp.url},hardware=ucp:${ucp.url}`;
  process.stdout.write(`${JSON.stringify({ flag, acp: { url: acp.url, currency: acp.currency, catalog: catalog(acp) }, ucp: { url: ucp.url, currency: ucp.currency, catalog: catalog(ucp) } }, null, 2)}\n`);
  process.stderr.write(`[merchants] ACP on ${acp.url}, UCP on ${ucp.url}; holon mcp --mandate … ${flag}; Ctrl-C to stop\n`);
  const stop = (): void => void Promise.all([acp.close(), ucp.close()]).then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
});
