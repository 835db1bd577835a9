/**
 * `node dist/examples/chain/chain.cjs [--fund 0xADDRESS]…` (or `node --import tsx examples/chain/run.ts`):
 * a local chain to pay on by hand — a node on a free loopback port, the token, and a facilitator
 * settling on it. Each `--fund` address gets 10 USDC and 1 ETH. It prints what a seller and a wallet need
 * ({rpcUrl, network, token, facilitator, funded}) and serves until stopped (Ctrl-C), or, started by
 * another process, until that process closes its standard input.
 */
import { isAddress } from 'viem';
import { untilStopped } from '../untilStopped.ts';
import { startChain } from './chain.ts';

const FUNDING = { usdc: 10_000_000n, eth: 10n ** 18n };

const funded = process.argv.flatMap((arg, i) => (process.argv[i - 1] === '--fund' ? [arg] : []));
const bad = funded.find((a) => !isAddress(a));
if (bad !== undefined) {
  process.stderr.write(`[chain] --fund takes an address (0x and 40 hex digits), not ${bad}\n`);
  process.exit(2);
}

void startChain().then(
  async (chain) => {
    for (const address of funded) await chain.fund(address as `0x${string}`, FUNDING);
    const ready = { rpcUrl: chain.rpcUrl, network: chain.network, token: chain.token, facilitator: chain.facilitator.url, funded };
    process.stdout.write(`${JSON.stringify(ready, null, 2)}\n`);
    process.stderr.write(
      `[chain] ${chain.network} on ${chain.rpcUrl}, token ${chain.token}, facilitator ${chain.facilitator.url}; Ctrl-C to stop\n`,
    );
    untilStopped(() => chain.stop());
  },
  (err: unknown) => {
    process.stderr.write(`[chain] ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
