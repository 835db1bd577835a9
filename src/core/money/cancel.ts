/**
 * Undoing a payment the wallet signed, on the chain, once a human released it: an `exact` payment's
 * EIP-3009 authorization is cancelled at the token (`cancelAuthorization`, over the wallet's signature of
 * `CancelAuthorization`), an `upto` payment's Permit2 nonce is invalidated at Permit2. The wallet sends
 * either itself and pays its gas: a wallet holding only the token cannot, and the payment then stays
 * held until its authorization lapses. A cancellation that comes after the payee's settlement reverts (the
 * nonce is spent): the chain then shows the payment landed, and it is counted.
 */
import type { Address, Hash, Hex } from 'viem';
import { encodeFunctionData, getAddress, parseAbi, parseSignature } from 'viem';
import type { Wallet } from '../local/wallet.ts';
import type { ChainReader } from './chain.ts';
import { PERMIT2 } from './permit2.ts';
import type { Settlement } from './settlement.ts';

const CANCEL_ABI = /* @__PURE__ */ parseAbi([
  'function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function invalidateUnorderedNonces(uint256 wordPos, uint256 mask)',
]);

/** EIP-3009's `CancelAuthorization`, as EIP-712 types. */
const CANCEL_TYPES = {
  CancelAuthorization: [
    { name: 'authorizer', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** How a process cancels a released settlement's authorization with `wallet` on the chain `reader` reads; none without a way to sign. */
export function cancellerOf(wallet: Wallet | undefined, reader: ChainReader): ((r: Settlement) => Promise<Hash>) | undefined {
  const signTransaction = wallet?.signTransaction?.bind(wallet);
  if (!wallet || !signTransaction) return undefined;
  const config = reader.config;
  const send = (tx: { to: Address; data: Hex }): Promise<Hash> => reader.send(wallet.address, tx, signTransaction);
  return async (r) => {
    if (getAddress(r.authorization.from) !== getAddress(wallet.address)) throw new Error(`payment ${r.id} was signed by another wallet`);
    if (r.scheme === 'upto') {
      // Permit2's unordered nonces: bit (nonce & 255) of word (nonce >> 8).
      const nonce = BigInt(r.authorization.nonce);
      const data = encodeFunctionData({
        abi: CANCEL_ABI,
        functionName: 'invalidateUnorderedNonces',
        args: [nonce >> 8n, 1n << (nonce & 0xffn)],
      });
      return send({ to: PERMIT2, data });
    }
    const signature = await wallet.signTypedData({
      domain: { name: config.asset.name, version: config.asset.version, chainId: String(config.chainId), verifyingContract: config.token },
      types: CANCEL_TYPES,
      primaryType: 'CancelAuthorization',
      message: { authorizer: getAddress(r.authorization.from), nonce: r.authorization.nonce },
    });
    const { v, r: sr, s: ss, yParity } = parseSignature(signature);
    const data = encodeFunctionData({
      abi: CANCEL_ABI,
      functionName: 'cancelAuthorization',
      args: [getAddress(r.authorization.from), r.authorization.nonce as Hex, Number(v ?? BigInt(27 + yParity)), sr, ss],
    });
    return send({ to: config.token, data });
  };
}
