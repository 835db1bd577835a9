/**
 * The contracts x402's `upto` scheme settles through, at the addresses every chain has them at: Permit2
 * (Uniswap's, compiled from its npm source) at 0x000000000022D473030F116dDEE9F6B43aC78BA3, and the x402
 * upto proxy (contracts/X402UptoPermit2Proxy.sol) at 0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002 — the
 * addresses `@x402/evm` names, and on Base the real contracts. A local chain has neither, and neither can
 * be deployed there (both were deployed by CREATE2 factories with salts mined for those addresses), so
 * their runtime code is placed at them with the node's `hardhat_setCode`.
 *
 * Placing code skips the constructor, which is where a contract's immutables are written. So the code is
 * linked first, as the constructor would have left it for that address on that chain: each immutable's
 * value written where solc says it sits in the runtime code (the artifact's immutables, by name). Permit2
 * caches its EIP-712 domain (the chain's id, and the separator over its name, the chain and its own
 * address); the proxy keeps Permit2's address.
 */
import type { Address, Hex } from 'viem';
import { encodeAbiParameters, hashDomain, toHex } from 'viem';
import { PERMIT2_ADDRESS, x402UptoPermit2ProxyAddress } from '@x402/evm';
import { PERMIT2_IMMUTABLES, PERMIT2_RUNTIME } from './permit2Artifact.ts';
import { UPTO_PROXY_IMMUTABLES, UPTO_PROXY_RUNTIME } from './uptoProxyArtifact.ts';

/** Runtime code with each immutable's value (32 bytes, ABI-encoded) written at every place solc reserved for it. */
export function link(runtime: Hex, places: Record<string, readonly { start: number; length: number }[]>, values: Record<string, Hex>): Hex {
  const code = Buffer.from(runtime.slice(2), 'hex');
  for (const [name, at] of Object.entries(places)) {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for the immutable ${name}`);
    const bytes = Buffer.from(value.slice(2), 'hex');
    for (const { start, length } of at) {
      if (bytes.length !== length) throw new Error(`${name} is ${length} bytes, not ${bytes.length}`);
      if (!code.subarray(start, start + length).equals(Buffer.alloc(length))) throw new Error(`${name}'s place at ${start} is not empty`);
      bytes.copy(code, start);
    }
  }
  for (const name of Object.keys(values)) if (!places[name]) throw new Error(`the code has no immutable ${name}`);
  return toHex(code);
}

/** Permit2's domain on chain `chainId` at its canonical address: what it caches, and what a signer hashes. */
export function permit2Domain(chainId: number): { name: 'Permit2'; chainId: number; verifyingContract: Address } {
  return { name: 'Permit2', chainId, verifyingContract: PERMIT2_ADDRESS };
}

/** The runtime code of Permit2 and of the proxy, linked for their canonical addresses on chain `chainId`. */
export function linkedCode(chainId: number): { permit2: Hex; proxy: Hex } {
  const word = (types: { type: string }[], values: unknown[]): Hex => encodeAbiParameters(types, values);
  return {
    permit2: link(PERMIT2_RUNTIME, PERMIT2_IMMUTABLES, {
      _CACHED_CHAIN_ID: word([{ type: 'uint256' }], [BigInt(chainId)]),
      _CACHED_DOMAIN_SEPARATOR: hashDomain({ domain: { ...permit2Domain(chainId), chainId: BigInt(chainId) }, types: { EIP712Domain: EIP712_DOMAIN } }),
    }),
    proxy: link(UPTO_PROXY_RUNTIME, UPTO_PROXY_IMMUTABLES, { PERMIT2: word([{ type: 'address' }], [PERMIT2_ADDRESS]) }),
  };
}

/** Permit2's EIP-712 domain type: no version (EIP712.sol's `_TYPE_HASH`). */
const EIP712_DOMAIN = [
  { name: 'name', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const;

/** Places Permit2 and the upto proxy at their canonical addresses on the node at the other end of `request`. */
export async function placeUptoContracts(request: (args: { method: string; params: unknown[] }) => Promise<unknown>, chainId: number): Promise<void> {
  const code = linkedCode(chainId);
  await request({ method: 'hardhat_setCode', params: [PERMIT2_ADDRESS, code.permit2] });
  await request({ method: 'hardhat_setCode', params: [x402UptoPermit2ProxyAddress, code.proxy] });
}
