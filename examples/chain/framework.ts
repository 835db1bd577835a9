/**
 * MetaMask's Delegation Framework (contracts 1.3.0, from delegationArtifact.ts) on the local chain, at
 * addresses that depend on nothing but its code: the accounts a human's passkey owns, the manager that
 * redeems what such an account delegates, and the caveat enforcers that hold a mandate's limits on chain.
 *
 * SimpleFactory, which deploys by CREATE2, has no constructor and no immutables, so its runtime code (what
 * its creation code returns, asked of the node with a call) is placed with `hardhat_setCode` at the address
 * it has on Base. Everything else is deployed through it with one fixed salt, in dependency order, so every
 * local chain has each contract at the same address, whatever was sent before. Holon's table of these
 * addresses (src/core/rails/delegation/addresses.ts) names them for this chain; a test compares the two.
 *
 * No EntryPoint is deployed: Holon never sends a user operation. HybridDeleGator's constructor only keeps
 * the address it is given, so it gets the canonical one (v0.7), where this chain has no code.
 */
import type { Address, Hex } from 'viem';
import { concat, encodeAbiParameters, encodeFunctionData, getContractAddress, keccak256, parseAbi, toHex } from 'viem';
import { DELEGATION_BYTECODE } from './delegationArtifact.ts';

/** SimpleFactory's address on Base and Base Sepolia (MetaMask's deployment of 1.3.0), and here. */
export const SIMPLE_FACTORY: Address = '0x69Aa2f9fe1572F1B640E1bbc512f5c3a734fc77c';
/** The canonical ERC-4337 v0.7 EntryPoint: what HybridDeleGator is told, never called here. */
export const ENTRY_POINT: Address = '0x0000000071727De22E5E9d8BAf0edAc6f37da032';
/**
 * The DelegationManager's owner (who may pause it): the node's first development account, the same on
 * every Hardhat node. A constant, so that the manager's address does not depend on who deploys it.
 */
export const MANAGER_OWNER: Address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
/** The one salt every contract of the framework is deployed with here. */
export const FRAMEWORK_SALT: Hex = keccak256(toHex('holon:delegation-framework:1'));

/** Where HybridDeleGator's creation code expects the SCL_RIP7212 library's address (solc's link placeholder). */
const SCL_PLACEHOLDER = /__\$b8f96b288d4d0429e38b8ed50fd423070f\$__/g;

const FACTORY_ABI = parseAbi(['function deploy(bytes _bytecode, bytes32 _salt) returns (address)']);

/** Where each contract of the framework is, by the name the npm packages give it. */
export type FrameworkAddresses = Record<keyof typeof DELEGATION_BYTECODE, Address>;

type Deployed = Exclude<keyof typeof DELEGATION_BYTECODE, 'SimpleFactory'>;

/** Every contract's init code (creation code, linked, with its constructor's arguments), in deployment order. */
function initCodes(): [Deployed, Hex][] {
  const out: [Deployed, Hex][] = [];
  const addressOf = (name: Deployed): Address => {
    const found = out.find(([n]) => n === name);
    if (!found) throw new Error(`${name} is deployed later than what needs it`);
    return create2(found[1]);
  };
  for (const name of Object.keys(DELEGATION_BYTECODE) as (keyof typeof DELEGATION_BYTECODE)[]) {
    if (name === 'SimpleFactory') continue;
    const code: Hex = DELEGATION_BYTECODE[name];
    if (name === 'DelegationManager') out.push([name, concat([code, encodeAbiParameters([{ type: 'address' }], [MANAGER_OWNER])])]);
    else if (name === 'HybridDeleGator') {
      const linked = code.replace(SCL_PLACEHOLDER, addressOf('SCL_RIP7212').slice(2).toLowerCase()) as Hex;
      const args = encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [addressOf('DelegationManager'), ENTRY_POINT]);
      out.push([name, concat([linked, args])]);
    } else out.push([name, code]);
  }
  return out;
}

function create2(initCode: Hex): Address {
  return getContractAddress({ opcode: 'CREATE2', from: SIMPLE_FACTORY, salt: FRAMEWORK_SALT, bytecode: initCode });
}

/** Where each contract of the framework is on every local chain, by the name the npm packages give it. */
export function frameworkAddresses(): FrameworkAddresses {
  const out = { SimpleFactory: SIMPLE_FACTORY } as FrameworkAddresses;
  for (const [name, code] of initCodes()) out[name] = create2(code);
  return out;
}

/** What deploying needs of the node: a JSON-RPC request, and a transaction sent and mined. */
export interface FrameworkNode {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
  /** Sends `data` to `to` from a funded account and resolves once it is mined, throwing if it reverted. */
  send(tx: { to: Address; data: Hex }): Promise<void>;
}

/** Places SimpleFactory and deploys the rest of the framework through it; throws if anything lands elsewhere. */
export async function deployFramework(node: FrameworkNode): Promise<FrameworkAddresses> {
  const runtime = (await node.request({ method: 'eth_call', params: [{ data: DELEGATION_BYTECODE.SimpleFactory }, 'latest'] })) as Hex;
  await node.request({ method: 'hardhat_setCode', params: [SIMPLE_FACTORY, runtime] });
  for (const [name, code] of initCodes()) {
    await node.send({
      to: SIMPLE_FACTORY,
      data: encodeFunctionData({ abi: FACTORY_ABI, functionName: 'deploy', args: [code, FRAMEWORK_SALT] }),
    });
    const at = create2(code);
    const deployed = (await node.request({ method: 'eth_getCode', params: [at, 'latest'] })) as Hex;
    if (deployed.length <= 2) throw new Error(`${name} is not at ${at}: the node was not fresh`);
  }
  return frameworkAddresses();
}
