/**
 * What identifies the local chain, for everything that runs on it (the node's harness, the facilitator,
 * the example seller): its chain id, its CAIP-2 name, and where its token is.
 */
import type { Chain, HttpTransport } from 'viem';
import { defineChain, http } from 'viem';

/** Hardhat Network's chain id, which the node's configuration keeps. */
export const CHAIN_ID = 31337;
/** The chain as x402 and CAIP-10 name it. */
export const NETWORK = 'eip155:31337';
/**
 * Where the token is: the first contract the node's first development account deploys (its nonce 0),
 * so the same on every fresh node. Holon's table of tokens it counts (src/core/money/assets.ts) names
 * this address for this chain; the harness refuses a node where the token landed anywhere else.
 */
export const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

/** viem's description of the chain at `rpcUrl`. */
export function localChainDefinition(rpcUrl: string): Chain {
  return defineChain({
    id: CHAIN_ID,
    name: 'Holon local chain',
    nativeCurrency: { decimals: 18, name: 'Ether', symbol: 'ETH' },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/**
 * viem's transport to the node at `rpcUrl`. It does not retry: the node is on loopback, so an error is
 * its answer (a revert comes back as JSON-RPC's internal error, which viem would otherwise retry three
 * times, for a second, before saying the same).
 */
export function localTransport(rpcUrl: string): HttpTransport {
  return http(rpcUrl, { retryCount: 0 });
}
