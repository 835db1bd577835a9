/**
 * The tokens Holon knows how to count: a payment's amount is in the asset's smallest units, and only a
 * table the seller cannot write says how many decimals it has and which currency it is. A seller who
 * could name its own decimals could make any payment look like a fraction of a cent to the mandate. The
 * chain settings (chain.ts) name a token by its address, and only one of these is accepted there too.
 */

import type { Money } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';

/** A token a payment may be made in. */
export interface KnownAsset {
  /** The currency the mandate and the rates name it by. */
  currency: string;
  decimals: number;
  /** Its EIP-712 domain (EIP-3009 and EIP-2612 sign under it). */
  name: string;
  version: string;
}

const USDC: KnownAsset = { currency: 'USDC', decimals: 6, name: 'USD Coin', version: '2' };

/** CAIP-2 network → lowercase token address → what it is. */
const KNOWN: Record<string, Record<string, KnownAsset>> = {
  // USDC (Circle's EIP-3009 contracts) on Ethereum, Base and Base Sepolia.
  'eip155:1': { '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48': USDC },
  'eip155:8453': { '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913': USDC },
  'eip155:84532': { '0x036cbd53842c5426634e7929541ec2318f3dcf7e': { ...USDC, name: 'USDC' } },
  // The local chain of the demo and the tests (examples/chain): the token the node's first account deploys.
  'eip155:31337': { '0x5fbdb2315678afecb367f032d93f642f64180aa3': USDC },
};

/** The asset `address` on `network`, when Holon knows it. Both are the seller's words: only the table's own entries count. */
export function knownAsset(network: string, address: string): KnownAsset | undefined {
  const assets = Object.hasOwn(KNOWN, network) ? KNOWN[network] : undefined;
  const key = address.toLowerCase();
  return assets && Object.hasOwn(assets, key) ? assets[key] : undefined;
}

/** A demo token's address on the local test chain. */
export const TEST_USDC = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
export const TEST_NETWORK = 'eip155:31337';

/** An amount in a token's smallest units as Money (rounded up past Holon's six decimals: a price is a worst case). */
export function fromAtomic(amount: string, decimals: number, currency: string): Money {
  const atomic = BigInt(amount);
  const shift = M.SCALE - decimals;
  const units = shift >= 0 ? atomic * 10n ** BigInt(shift) : (atomic + 10n ** BigInt(-shift) - 1n) / 10n ** BigInt(-shift);
  return { units, currency };
}
