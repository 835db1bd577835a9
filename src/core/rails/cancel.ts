/**
 * Undoing a payment the wallet signed, on the chain, once a human released it, as its scheme undoes it (an
 * `exact` payment's EIP-3009 authorization cancelled at the token, an `upto` payment's Permit2 nonce
 * invalidated at Permit2). The wallet sends it itself and pays its gas: a wallet holding only the token
 * cannot, and the payment then stays held until its authorization lapses. A cancellation that comes after
 * the payee's settlement reverts (the nonce is spent): the chain then shows the payment landed, and it is
 * counted.
 */
import type { Address, Hash, Hex } from 'viem';
import { getAddress } from 'viem';
import type { Wallet } from '../local/wallet.ts';
import type { ChainReader } from './chain.ts';
import { schemeOf } from './schemes.ts';
import type { Settlement } from './settlement.ts';

/** How a process cancels a released settlement's authorization with `wallet` on the chain `reader` reads; none without a way to sign. */
export function cancellerOf(wallet: Wallet | undefined, reader: ChainReader): ((r: Settlement) => Promise<Hash>) | undefined {
  const signTransaction = wallet?.signTransaction?.bind(wallet);
  if (!wallet || !signTransaction) return undefined;
  const send = (tx: { to: Address; data: Hex }): Promise<Hash> => reader.send(wallet.address, tx, signTransaction);
  return async (r) => {
    if (getAddress(r.authorization.from) !== getAddress(wallet.address)) throw new Error(`payment ${r.id} was signed by another wallet`);
    return schemeOf(r).cancel(r, { wallet, reader, send });
  };
}
