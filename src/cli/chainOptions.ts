/**
 * The chain a command reads payments and balances on, and the facilitator `pay` settles through: flags,
 * else the environment (`HOLON_RPC_URL`, `HOLON_CHAIN_ID`, `HOLON_TOKEN`, `HOLON_FACILITATOR`, which the
 * editor sets for the servers it starts from the human's user settings). None of it widens what a mandate
 * allows: it only says where money that a mandate let go is looked for, and where `pay` sends it.
 */
import type { ChainConfig } from '../core/rails/chain.ts';
import { chainConfig } from '../core/rails/chain.ts';
import { HolonError } from '../core/kernel/errors.ts';
import type { Command } from './args.ts';
import { str } from './args.ts';

/** The environment variables the chain settings are read from when no flag names them. */
export const CHAIN_ENV = {
  rpcUrl: 'HOLON_RPC_URL',
  chainId: 'HOLON_CHAIN_ID',
  token: 'HOLON_TOKEN',
  facilitator: 'HOLON_FACILITATOR',
} as const;

/** The chain's flags, shared by `holon mcp`, `holon serve` and `holon wallet`. */
export const CHAIN_OPTIONS: Command['options'] = {
  'rpc-url': { type: 'string', help: `the chain's JSON-RPC URL that payments are read back from (default $${CHAIN_ENV.rpcUrl})` },
  'chain-id': { type: 'string', help: `its chain id, e.g. 84532 for Base Sepolia (default $${CHAIN_ENV.chainId})` },
  token: { type: 'string', help: `the token Holon counts on it, USDC's address (default $${CHAIN_ENV.token})` },
  facilitator: { type: 'string', help: `the x402 facilitator pay settles through (default $${CHAIN_ENV.facilitator})` },
};

/** The chain the flags or the environment name; undefined when neither names an RPC URL. */
export function chainOf(opts: Record<string, string | boolean | undefined>): ChainConfig | undefined {
  const pick = (flag: string, env: string): string | undefined => str(opts, flag) ?? (process.env[env]?.trim() || undefined);
  const rpcUrl = pick('rpc-url', CHAIN_ENV.rpcUrl);
  const chainId = pick('chain-id', CHAIN_ENV.chainId);
  const token = pick('token', CHAIN_ENV.token);
  const facilitator = pick('facilitator', CHAIN_ENV.facilitator);
  if (rpcUrl === undefined) {
    if (str(opts, 'chain-id') ?? str(opts, 'token') ?? str(opts, 'facilitator'))
      throw new HolonError('invalid_input', '--chain-id, --token and --facilitator go with --rpc-url URL');
    return undefined;
  }
  if (chainId === undefined || !/^[0-9]{1,12}$/.test(chainId))
    throw new HolonError('invalid_input', `--rpc-url needs --chain-id N (the chain's id, e.g. 84532), not ${chainId ?? 'nothing'}`);
  if (token === undefined) throw new HolonError('invalid_input', "--rpc-url needs --token ADDRESS (USDC's address on that chain)");
  return chainConfig({ rpcUrl, chainId: Number(chainId), token, facilitator: facilitator ?? null });
}
