/**
 * `node dist/examples/merchants/merchants.mjs [--ap2 STATE] [--rpc-url URL --chain-id N --token ADDRESS --facilitator URL [--pay-to ADDRESS]]`
 * (or `node --import tsx examples/merchants/run.ts …`): the two local merchants, an ACP stationery shop (EUR) and a UCP hardware
 * business (USD), on free loopback ports.
 *
 * - `--ap2 STATE`: the hardware business negotiates AP2's mandates (UCP's AP2 Mandates extension) and, before it completes a
 *   checkout, verifies them against what the human publishes in the Holon state folder STATE (`STATE/ap2/human.json`: their key
 *   and the open mandates in force, which `holon mandate create` and `edit` sign). It reads that file at every completion, as it
 *   would fetch a human's published key, so a mandate edited since is refused at once.
 * - the chain flags, the same four `holon mcp` takes (those `node dist/examples/chain/chain.cjs` prints): the hardware business also
 *   takes x402 `exact` payments in that token, at par with its USD, and settles them through the facilitator before it places the
 *   order. It is paid at `--pay-to` (by default an address of the local chain's; no key is needed to be paid).
 *
 * It prints their URLs, their catalogs (prices in minor units) and `flag`: what to give `holon mcp` (`--merchant …`, and the chain
 * flags back when the business takes x402), and serves until stopped (Ctrl-C, or — started by another process — until that
 * process closes its standard input). Nothing is charged anywhere unless the business takes x402.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { untilStopped } from '../untilStopped.ts';
import { startAcpMerchant } from './acpMerchant.ts';
import type { Ap2Options, HumanPublication } from './ap2Verify.ts';
import type { Shop } from './shop.ts';
import type { X402Handler } from './ucpMerchant.ts';
import { startUcpMerchant } from './ucpMerchant.ts';

/** The id Holon's `--merchant` flag, and the human's mandates, name the hardware business by. */
const HARDWARE = 'hardware';
/** Where the business is paid unless told: the local chain's third development address. */
const PAY_TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function fail(message: string): never {
  process.stderr.write(`[merchants] ${message}\n`);
  process.exit(2);
}

let args: Record<string, string | undefined>;
try {
  args = parseArgs({
    options: {
      ap2: { type: 'string' },
      'rpc-url': { type: 'string' },
      'chain-id': { type: 'string' },
      token: { type: 'string' },
      facilitator: { type: 'string' },
      'pay-to': { type: 'string' },
    },
    strict: true,
  }).values;
} catch (err) {
  fail((err as Error).message);
}

/** AP2: the human's publication, read from their state folder whenever a completion is verified. */
function ap2Of(state: string | undefined): (Ap2Options & { file: string }) | undefined {
  if (state === undefined) return undefined;
  if (!fs.existsSync(state) || !fs.statSync(state).isDirectory()) fail(`--ap2 takes a Holon state folder, and ${state} is not a folder`);
  const file = path.resolve(state, 'ap2', 'human.json');
  const human = (): HumanPublication | undefined => {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8')) as HumanPublication;
    } catch {
      // Nothing published yet (no mandate that can buy was signed): the business answers agent_missing_key.
      return undefined;
    }
  };
  return { id: HARDWARE, human, file };
}

/** x402: the chain flags, all four, as `holon mcp` takes them; none of them: no x402. */
function x402Of(a: typeof args): { handler: X402Handler; flags: string[] } | undefined {
  const named = ['rpc-url', 'chain-id', 'token', 'facilitator'].filter((f) => a[f] !== undefined);
  if (named.length === 0) {
    if (a['pay-to'] !== undefined) fail('--pay-to goes with the chain flags (--rpc-url, --chain-id, --token, --facilitator)');
    return undefined;
  }
  const [rpcUrl, chainId, token, facilitator] = [a['rpc-url'], a['chain-id'], a['token'], a['facilitator']];
  if (rpcUrl === undefined || chainId === undefined || token === undefined || facilitator === undefined)
    fail('x402 needs all four chain flags, as holon mcp takes them: --rpc-url URL --chain-id N --token ADDRESS --facilitator URL');
  if (!/^[0-9]{1,12}$/.test(chainId)) fail(`--chain-id takes the chain's id (31337 for the local chain), not ${chainId}`);
  if (!ADDRESS.test(token)) fail(`--token takes the token's address (0x and 40 hex digits), not ${token}`);
  const payTo = a['pay-to'] ?? PAY_TO;
  if (!ADDRESS.test(payTo)) fail(`--pay-to takes an address (0x and 40 hex digits), not ${payTo}`);
  return {
    handler: { facilitator, network: `eip155:${chainId}`, asset: token, payTo },
    // Holon reads the chain for what it paid, and pays with the wallet on it: it needs the same chain.
    flags: ['--rpc-url', rpcUrl, '--chain-id', chainId, '--token', token, '--facilitator', facilitator],
  };
}

const ap2 = ap2Of(args['ap2']);
const x402 = x402Of(args);

void Promise.all([
  startAcpMerchant(),
  startUcpMerchant({
    ...(ap2 ? { ap2: { id: ap2.id, human: ap2.human } } : {}),
    ...(x402 ? { x402: x402.handler } : {}),
  }),
]).then(
  ([acp, ucp]) => {
    const catalog = (shop: Shop): unknown =>
      [...shop.catalog.values()].map((p) => ({ product: p.id, title: p.title, price: p.price, stock: p.stock }));
    const flag = [`--merchant stationery=acp:${acp.url},${HARDWARE}=ucp:${ucp.url}`, ...(x402?.flags ?? [])].join(' ');
    const ready = {
      flag,
      acp: { url: acp.url, currency: acp.currency, catalog: catalog(acp) },
      ucp: {
        url: ucp.url,
        currency: ucp.currency,
        catalog: catalog(ucp),
        ap2: ap2 ? { id: ap2.id, human: ap2.file } : null,
        x402: x402
          ? { network: x402.handler.network, asset: x402.handler.asset, pay_to: x402.handler.payTo, facilitator: x402.handler.facilitator }
          : null,
      },
    };
    process.stdout.write(`${JSON.stringify(ready, null, 2)}\n`);
    const takes = [
      ...(ap2 ? [`AP2 mandates, verified against ${ap2.file}`] : []),
      ...(x402 ? [`x402 on ${x402.handler.network}, paid to ${x402.handler.payTo}`] : []),
    ];
    process.stderr.write(
      `[merchants] ACP on ${acp.url}, UCP on ${ucp.url}${takes.length > 0 ? ` (${takes.join('; ')})` : ''}; ` +
        `holon mcp --mandate … ${flag}; Ctrl-C to stop\n`,
    );
    untilStopped(() => Promise.all([acp.close(), ucp.close()]).then(() => undefined));
  },
  (err: unknown) => {
    process.stderr.write(`[merchants] ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
