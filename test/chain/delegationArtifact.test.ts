/**
 * What Holon writes down of MetaMask's Delegation Framework is what MetaMask publishes: the creation code the
 * local chain deploys and the account's proxy code (`@metamask/delegation-abis`), the framework's addresses
 * on Base and Base Sepolia (`@metamask/delegation-deployments`, contracts 1.3.0), the local chain's
 * addresses as framework.ts places them, and the functions Holon calls as the contracts declare them.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import * as abis from '@metamask/delegation-abis';
import * as bytecode from '@metamask/delegation-abis/bytecode';
import { DELEGATOR_CONTRACTS } from '@metamask/delegation-deployments';
import type { Abi, AbiFunction } from 'viem';
import { toFunctionSignature } from 'viem';
import { DELEGATION_ARTIFACT, delegationArtifactText } from '../../examples/chain/delegationCopy.ts';
import { frameworkAddresses } from '../../examples/chain/framework.ts';
import { ACCOUNT_ABI, ERC1967_PROXY, FACTORY_ABI } from '../../src/core/rails/delegation/account.ts';
import { FRAMEWORKS } from '../../src/core/rails/delegation/addresses.ts';
import { DELEGATION_MANAGER_ABI } from '../../src/core/rails/delegation/delegation.ts';

test('the committed delegation artifact is the package bytecode', () => {
  assert.equal(
    fs.readFileSync(DELEGATION_ARTIFACT, 'utf8'),
    delegationArtifactText(),
    'run `node --import tsx examples/chain/delegationCopy.ts` after the package changes',
  );
});

test("the account's proxy code is the package's ERC1967Proxy", () => {
  assert.equal(ERC1967_PROXY, (bytecode as unknown as Record<string, string>)['ERC1967Proxy']);
});

test('Base and Base Sepolia addresses match the deployments package (1.3.0)', () => {
  for (const chainId of [8453, 84532]) {
    const published = (DELEGATOR_CONTRACTS as unknown as Record<string, Record<number, Record<string, string>>>)['1.3.0']?.[chainId];
    assert.ok(published, `the package lists chain ${chainId}`);
    const holon = FRAMEWORKS[chainId];
    assert.ok(holon);
    assert.deepEqual(holon, Object.fromEntries(Object.keys(holon).map((name) => [name, published[name]])));
  }
});

test('the local chain addresses are where framework.ts deploys the framework', () => {
  const { SCL_RIP7212: _library, HybridDeleGator, ...rest } = frameworkAddresses();
  assert.deepEqual(FRAMEWORKS[31337], { ...rest, HybridDeleGatorImpl: HybridDeleGator });
});

test('the functions Holon calls are declared by the contracts', () => {
  const declared = (name: string): string[] =>
    ((abis as unknown as Record<string, Abi>)[name] ?? [])
      .filter((i): i is AbiFunction => i.type === 'function')
      .map((f) => toFunctionSignature(f));
  for (const [contract, abi] of [
    ['DelegationManager', DELEGATION_MANAGER_ABI],
    ['HybridDeleGator', ACCOUNT_ABI],
    ['SimpleFactory', FACTORY_ABI],
  ] as const) {
    for (const f of (abi as Abi).filter((i): i is AbiFunction => i.type === 'function')) {
      assert.ok(declared(contract).includes(toFunctionSignature(f)), `${contract} declares ${toFunctionSignature(f)}`);
    }
  }
});
