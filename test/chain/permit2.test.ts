/**
 * What `upto` settles through on the local chain is what it settles through on Base, at the same addresses:
 * Permit2, compiled from Uniswap's npm source and linked for its canonical address and this chain, answers
 * with the EIP-712 domain a signer hashes for it; the upto proxy written here has every function, event and
 * error of the ABI `@x402/evm` exports for the real one (what its facilitator calls and decodes), each
 * exactly, and it knows Permit2 and the witness type a client signs.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { PERMIT2_ADDRESS, uptoPermit2WitnessTypes, x402UptoPermit2ProxyABI, x402UptoPermit2ProxyAddress } from '@x402/evm';
import { hashDomain, keccak256, parseAbi, toHex } from 'viem';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { link, linkedCode } from '../../examples/chain/placed.ts';
import { UPTO_PROXY_ABI } from '../../examples/chain/uptoProxyArtifact.ts';

let chain: LocalChain;
before(async () => {
  chain = await localChain();
});

/** EIP-712's encodeType: the primary type's members, then every struct type it refers to, alphabetically. */
function encodeType(primaryType: string, types: Record<string, readonly { name: string; type: string }[]>): string {
  const one = (name: string): string => `${name}(${(types[name] ?? []).map((f) => `${f.type} ${f.name}`).join(',')})`;
  const refs = new Set<string>();
  const visit = (name: string): void => {
    for (const f of types[name] ?? [])
      if (types[f.type] && !refs.has(f.type) && f.type !== primaryType) {
        refs.add(f.type);
        visit(f.type);
      }
  };
  visit(primaryType);
  return one(primaryType) + [...refs].sort().map(one).join('');
}

/** An ABI item with its members in one order, to compare two compilers' (or a compiler's and a hand's) JSON. */
const canonical = (item: unknown): string =>
  JSON.stringify(item, (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );

describe('Permit2 and the upto proxy on the local chain', () => {
  test("Permit2's DOMAIN_SEPARATOR is viem's hash of {Permit2, this chain, its canonical address}", async () => {
    const separator = await chain.client.readContract({
      address: PERMIT2_ADDRESS,
      abi: parseAbi(['function DOMAIN_SEPARATOR() view returns (bytes32)']),
      functionName: 'DOMAIN_SEPARATOR',
    });
    const expected = hashDomain({
      domain: { name: 'Permit2', chainId: BigInt(chain.chainId), verifyingContract: PERMIT2_ADDRESS },
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
      },
    });
    assert.equal(separator, expected);
    // What is at the addresses is the linked artifacts, byte for byte.
    const code = linkedCode(chain.chainId);
    assert.equal(await chain.client.getCode({ address: PERMIT2_ADDRESS }), code.permit2);
    assert.equal(await chain.client.getCode({ address: x402UptoPermit2ProxyAddress }), code.proxy);
  });

  test("the proxy's ABI has every item of @x402/evm's x402UptoPermit2ProxyABI, exactly", () => {
    const ours = new Map(UPTO_PROXY_ABI.map((i) => [`${i.type}:${'name' in i ? i.name : ''}`, canonical(i)]));
    for (const item of x402UptoPermit2ProxyABI) {
      const key = `${item.type}:${item.name}`;
      assert.ok(ours.has(key), `the proxy lacks ${key}`);
      assert.equal(ours.get(key), canonical(item), key);
    }
  });

  test('the proxy knows Permit2 and the witness type a client signs (EIP-712 encodeType, after the primary member)', async () => {
    const read = <F extends 'PERMIT2' | 'WITNESS_TYPE_STRING' | 'WITNESS_TYPEHASH'>(functionName: F) =>
      chain.client.readContract({ address: x402UptoPermit2ProxyAddress, abi: x402UptoPermit2ProxyABI, functionName });
    assert.equal(await read('PERMIT2'), PERMIT2_ADDRESS);
    const full = encodeType('PermitWitnessTransferFrom', uptoPermit2WitnessTypes);
    const stub = 'PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,';
    assert.ok(full.startsWith(stub), full);
    assert.equal(await read('WITNESS_TYPE_STRING'), full.slice(stub.length));
    assert.equal(await read('WITNESS_TYPEHASH'), keccak256(toHex(encodeType('Witness', uptoPermit2WitnessTypes))));
  });

  test('linking refuses a value of the wrong size, a place already written, and a name the code does not have', () => {
    const places = { X: [{ start: 1, length: 32 }] };
    const runtime = toHex(new Uint8Array(40));
    assert.throws(() => link(runtime, places, { X: toHex(new Uint8Array(20)) }), /32 bytes, not 20/);
    assert.throws(() => link(toHex(new Uint8Array(40).fill(1)), places, { X: toHex(new Uint8Array(32)) }), /not empty/);
    assert.throws(() => link(runtime, places, { X: toHex(new Uint8Array(32)), Y: toHex(new Uint8Array(32)) }), /no immutable Y/);
    assert.throws(() => link(runtime, places, {}), /no value for the immutable X/);
  });
});
