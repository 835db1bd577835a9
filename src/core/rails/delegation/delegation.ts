/**
 * A delegation of the Delegation Framework (1.3.0): what the human's account lets the hot key do, as the
 * passkey signs it (EIP-712, domain "DelegationManager" version 1 on the chain's manager), and the calls
 * that redeem it and that revoke it. The manager checks the signature with the account (ERC-1271) and runs
 * every caveat's enforcer on each redeem, so nothing the hot key holds can widen what was signed.
 */
import type { Address, Hex } from 'viem';
import { encodeAbiParameters, encodeFunctionData, encodePacked, getAddress, hashTypedData, isAddress, parseAbi } from 'viem';
import type { DelegationJson } from '../../accounts/chainAccount.ts';
import { HolonError } from '../../kernel/errors.ts';
import type { Framework } from './addresses.ts';
import type { Call, Caveat } from './caveats.ts';

/** The authority of a delegation made by the account itself (not re-delegated from another). */
export const ROOT_AUTHORITY: Hex = '0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff';

/** A delegation before it is signed. */
export interface Delegation {
  /** Who may redeem it: the hot key. */
  delegate: Address;
  /** Whose it is: the human's account. */
  delegator: Address;
  authority: Hex;
  caveats: Caveat[];
  /** Tells apart two delegations with the same terms (each is its own counter at the enforcers). */
  salt: bigint;
}

/** The manager's functions Holon calls. */
export const DELEGATION_MANAGER_ABI = parseAbi([
  'struct Caveat { address enforcer; bytes terms; bytes args; }',
  'struct Delegation { address delegate; address delegator; bytes32 authority; Caveat[] caveats; uint256 salt; bytes signature; }',
  'function redeemDelegations(bytes[] _permissionContexts, bytes32[] _modes, bytes[] _executionCallDatas)',
  'function disableDelegation(Delegation _delegation)',
  'function disabledDelegations(bytes32 _delegationHash) view returns (bool)',
  'function getDelegationHash(Delegation _input) pure returns (bytes32)',
]);

const TYPES = {
  Delegation: [
    { name: 'delegate', type: 'address' },
    { name: 'delegator', type: 'address' },
    { name: 'authority', type: 'bytes32' },
    { name: 'caveats', type: 'Caveat[]' },
    { name: 'salt', type: 'uint256' },
  ],
  // A caveat's `args` are the redeemer's, outside what the delegator signs.
  Caveat: [
    { name: 'enforcer', type: 'address' },
    { name: 'terms', type: 'bytes' },
  ],
} as const;

/** The EIP-712 typed data the passkey signs for `delegation` on chain `chainId`. */
export function delegationTypedData(delegation: Delegation, chainId: number, framework: Framework) {
  return {
    domain: { name: 'DelegationManager', version: '1', chainId, verifyingContract: framework.DelegationManager },
    types: TYPES,
    primaryType: 'Delegation' as const,
    message: { ...delegation, caveats: delegation.caveats.map(({ enforcer, terms }) => ({ enforcer, terms })) },
  };
}

/** The EIP-712 digest of `delegation`: the 32 bytes the passkey's challenge is, and the account checks. */
export function delegationDigest(delegation: Delegation, chainId: number, framework: Framework): Hex {
  return hashTypedData(delegationTypedData(delegation, chainId, framework));
}

/** A signed delegation as the manager decodes it from a permission context. */
const DELEGATION_COMPONENTS = [
  { name: 'delegate', type: 'address' },
  { name: 'delegator', type: 'address' },
  { name: 'authority', type: 'bytes32' },
  {
    name: 'caveats',
    type: 'tuple[]',
    components: [
      { name: 'enforcer', type: 'address' },
      { name: 'terms', type: 'bytes' },
      { name: 'args', type: 'bytes' },
    ],
  },
  { name: 'salt', type: 'uint256' },
  { name: 'signature', type: 'bytes' },
] as const;

/** The single call mode ("default": revert on failure) of ERC-7579, which the manager takes per redeem. */
const SINGLE_DEFAULT: Hex = '0x0000000000000000000000000000000000000000000000000000000000000000';

/** The arguments of `redeemDelegations` for the hot key to have the account make `call` under `delegation`. */
export function redeemArgs(delegation: Delegation, signature: Hex, call: Call): readonly [Hex[], Hex[], Hex[]] {
  const context = encodeAbiParameters([{ type: 'tuple[]', components: DELEGATION_COMPONENTS }], [[{ ...delegation, signature }]]);
  return [[context], [SINGLE_DEFAULT], [encodePacked(['address', 'uint256', 'bytes'], [call.target, call.value, call.data])]];
}

/** The transaction the hot key sends to redeem `delegation` for `call`. */
export function redeemTransaction(framework: Framework, delegation: Delegation, signature: Hex, call: Call): { to: Address; data: Hex } {
  const data = encodeFunctionData({
    abi: DELEGATION_MANAGER_ABI,
    functionName: 'redeemDelegations',
    args: redeemArgs(delegation, signature, call),
  });
  return { to: framework.DelegationManager, data };
}

/**
 * The call by which the account disables `delegation` for good (the manager takes it only from the
 * delegator). The account makes it under a one-call delegation the passkey signs (`oneCallCaveats`).
 */
export function revokeCall(delegation: Delegation, framework: Framework): Call {
  // The manager disables by the delegation's hash, which leaves the signature out.
  const data = encodeFunctionData({
    abi: DELEGATION_MANAGER_ABI,
    functionName: 'disableDelegation',
    args: [{ ...delegation, signature: '0x' }],
  });
  return { target: framework.DelegationManager, value: 0n, data };
}

/** `delegation` as the journal keeps it (its salt in decimal). */
export function delegationJson(delegation: Delegation): DelegationJson {
  return { ...delegation, caveats: delegation.caveats.map((c) => ({ ...c })), salt: delegation.salt.toString() };
}

/** A delegation the journal kept; refused (`invalid_input`) when a field is not of its form. */
export function delegationFromJson(j: DelegationJson): Delegation {
  const hex = (v: unknown, field: string): Hex => {
    if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v))
      throw new HolonError('invalid_input', `the delegation's ${field} is not hex`);
    return v as Hex;
  };
  const address = (v: unknown, field: string): Address => {
    if (typeof v !== 'string' || !isAddress(v, { strict: false }))
      throw new HolonError('invalid_input', `the delegation's ${field} is not an address`);
    return getAddress(v);
  };
  if (typeof j.salt !== 'string' || !/^[0-9]{1,78}$/.test(j.salt))
    throw new HolonError('invalid_input', "the delegation's salt is not a number");
  if (!Array.isArray(j.caveats)) throw new HolonError('invalid_input', 'the delegation has no caveats');
  return {
    delegate: address(j.delegate, 'delegate'),
    delegator: address(j.delegator, 'delegator'),
    authority: hex(j.authority, 'authority'),
    caveats: j.caveats.map((c) => ({ enforcer: address(c.enforcer, 'enforcer'), terms: hex(c.terms, 'terms'), args: hex(c.args, 'args') })),
    salt: BigInt(j.salt),
  };
}
