/**
 * The human's account: an ERC1967 proxy over the framework's HybridDeleGator, initialised with no owner
 * key and one P-256 key, the passkey's. Nothing the hot key or the state folder holds can sign for it. It
 * is deployed through SimpleFactory (CREATE2), so its address is known before it exists, and anyone may
 * send the deployment: the hot key does, and pays the gas.
 */
import type { Address, Hex } from 'viem';
import { concat, encodeAbiParameters, encodeFunctionData, getContractAddress, parseAbi, toHex, zeroAddress } from 'viem';
import { HolonError } from '../../kernel/errors.ts';
import type { Wallet } from '../../local/wallet.ts';
import type { PasskeyCredential } from '../../passkey/types.ts';
import type { ChainReader } from '../chain.ts';
import type { Framework } from './addresses.ts';
import { frameworkOn } from './addresses.ts';

/** The account's functions Holon calls, and the events it says its keys with. */
export const ACCOUNT_ABI = parseAbi([
  'function initialize(address _owner, string[] _keyIds, uint256[] _xValues, uint256[] _yValues)',
  'function isValidSignature(bytes32 _hash, bytes _signature) view returns (bytes4)',
  'function getKey(string _keyId) view returns (uint256 x, uint256 y)',
  'function getKeyIdHashes() view returns (bytes32[])',
  'function owner() view returns (address)',
  'function addKey(string _keyId, uint256 _x, uint256 _y)',
  'function removeKey(string _keyId)',
  'event AddedP256Key(bytes32 indexed keyIdHash, string keyId, uint256 x, uint256 y)',
  'event RemovedP256Key(bytes32 indexed keyIdHash, uint256 x, uint256 y)',
]);

/** SimpleFactory's functions. */
export const FACTORY_ABI = parseAbi([
  'function deploy(bytes _bytecode, bytes32 _salt) returns (address)',
  'function computeAddress(bytes32 _bytecodeHash, bytes32 _salt) view returns (address)',
]);

/**
 * The init code of the account of `credential`: the proxy, pointed at the chain's HybridDeleGator and
 * initialised with owner address(0) and the passkey's key under its credential id. The key id is what the
 * account hashes to find the key when a signature names it (`deleGatorSignature`).
 */
export function accountInitCode(credential: PasskeyCredential, framework: Framework): Hex {
  const { x, y } = credentialPoint(credential);
  const initialize = encodeFunctionData({
    abi: ACCOUNT_ABI,
    functionName: 'initialize',
    args: [zeroAddress, [credential.id], [x], [y]],
  });
  return concat([
    ERC1967_PROXY,
    encodeAbiParameters([{ type: 'address' }, { type: 'bytes' }], [framework.HybridDeleGatorImpl, initialize]),
  ]);
}

/**
 * The passkey's public key as the account holds it: x and y as numbers. Refused (`invalid_input`) when a
 * coordinate is not 32 bytes or the credential has no id (the account finds a key by its id).
 */
export function credentialPoint(credential: PasskeyCredential): { x: bigint; y: bigint } {
  const coordinate = (name: 'x' | 'y'): bigint => {
    const bytes = Buffer.from(credential[name], 'base64url');
    if (bytes.length !== 32)
      throw new HolonError('invalid_input', `the passkey's ${name} must be 32 bytes, not ${bytes.length}`, { field: name });
    return BigInt(toHex(bytes));
  };
  if (!credential.id) throw new HolonError('invalid_input', 'the passkey has no credential id', { field: 'id' });
  return { x: coordinate('x'), y: coordinate('y') };
}

/** Where the account of `initCode` is (or will be) once SimpleFactory deploys it with `salt`. */
export function accountAddress(initCode: Hex, salt: Hex, framework: Framework): Address {
  return getContractAddress({ opcode: 'CREATE2', from: framework.SimpleFactory, salt, bytecode: initCode });
}

/**
 * Sends the deployment of `credential`'s account from `wallet` (the hot key, which pays the gas) on the
 * reader's chain. Returns the account's address and the transaction, once the node took it.
 */
export async function deployAccount(
  reader: ChainReader,
  wallet: Wallet,
  credential: PasskeyCredential,
  salt: Hex,
): Promise<{ address: Address; transaction: Hex }> {
  const sign = wallet.signTransaction;
  if (!sign) throw new HolonError('invalid_input', 'this wallet cannot send a transaction of its own');
  const framework = frameworkOn(reader.config.chainId);
  const initCode = accountInitCode(credential, framework);
  const data = encodeFunctionData({ abi: FACTORY_ABI, functionName: 'deploy', args: [initCode, salt] });
  const transaction = await reader.send(wallet.address, { to: framework.SimpleFactory, data }, (tx) => sign(tx));
  return { address: accountAddress(initCode, salt, framework), transaction };
}

/** OpenZeppelin's ERC1967Proxy creation code, as @metamask/delegation-abis 2.0.0 ships it (a test compares). */
export const ERC1967_PROXY: Hex = `0x${[
  '60806040526040516103f03803806103f08339810160408190526100229161025e565b61002c8282610033565b5050610341565b61003c8261009156',
  '5b6040516001600160a01b038316907fbc7cd75a20ee27fd9adebab32041f755214dbc6bffa90cc0225b39da2e5c2d3b905f90a28051156100855761',
  '0080828261010c565b505050565b61008d61017f565b5050565b806001600160a01b03163b5f036100cb57604051634c9c8ce360e01b815260016001',
  '60a01b03821660048201526024015b60405180910390fd5b7f360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc805460',
  '01600160a01b0319166001600160a01b0392909216919091179055565b60605f80846001600160a01b0316846040516101289190610326565b5f6040',
  '5180830381855af49150503d805f8114610160576040519150601f19603f3d011682016040523d82523d5f602084013e610165565b606091505b5090',
  '925090506101768583836101a0565b95945050505050565b341561019e5760405163b398979f60e01b815260040160405180910390fd5b565b606082',
  '6101b5576101b0826101ff565b6101f8565b81511580156101cc57506001600160a01b0384163b155b156101f557604051639996b31560e01b815260',
  '01600160a01b03851660048201526024016100c2565b50805b9392505050565b80511561020f5780518082602001fd5b604051630a12f52160e11b81',
  '5260040160405180910390fd5b634e487b7160e01b5f52604160045260245ffd5b5f5b8381101561025657818101518382015260200161023e565b50',
  '505f910152565b5f806040838503121561026f575f80fd5b82516001600160a01b0381168114610285575f80fd5b6020840151909250600160016040',
  '1b03808211156102a1575f80fd5b818501915085601f8301126102b4575f80fd5b8151818111156102c6576102c6610228565b604051601f8201601f',
  '19908116603f011681019083821181831017156102ee576102ee610228565b81604052828152886020848701011115610306575f80fd5b6103178360',
  '2083016020880161023c565b80955050505050509250929050565b5f825161033781846020870161023c565b9190910192915050565b60a38061034d',
  '5f395ff3fe6080604052600a600c565b005b60186014601a565b6050565b565b5f604b7f360894a13ba1a3210667c828492db98dca3e2076cc3735a9',
  '20a3ca505d382bbc546001600160a01b031690565b905090565b365f80375f80365f845af43d5f803e8080156069573d5ff35b3d5ffdfea264697066',
  '7358221220fd2cc92935c943d341edacaf5318a0b9ab0185ce62ef72e95ab393ef358730c464736f6c63430008170033',
].join('')}`;
