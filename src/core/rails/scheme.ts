/**
 * What a payment scheme is to Holon: one way of moving a token on an EVM chain that the wallet signs for,
 * and that Holon reads back from the chain before a receipt says it landed. Every scheme has a file of its
 * own in schemes/ and a line in the table (schemes.ts); nothing outside those files asks which scheme a
 * payment is, it asks the payment's scheme. The types a scheme and a settlement record share are here too,
 * so a scheme never imports the record it is part of.
 */
import type { Address, Hash, Hex } from 'viem';
import type { TypedRequest, Wallet } from '../local/wallet.ts';
import type { ChainReader } from './chain.ts';

/**
 * An authorization as a settlement keeps it, whatever its scheme: EIP-3009's shape (uint256 members as
 * decimal strings, the nonce as 32 bytes of 0x hex). `value` is the most it may move.
 */
export interface Authorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

/**
 * How the chain shows a payment can never land. `expired`: its validity ended with its nonce unspent.
 * `cancelled`: its authorization was cancelled on the chain. `spent_before`: its nonce was spent before it
 * was signed (by an earlier payment of the same terms). `spent_elsewhere`: its nonce was spent by a
 * transaction that is not this payment, or whose transfer already landed another settlement.
 */
export type NeverWhy = 'expired' | 'cancelled' | 'spent_before' | 'spent_elsewhere';

/** What the chain says of one settlement now. */
export type ChainVerdict =
  /**
   * It landed: the transaction, its block, the value the token moved from the payer to the payee in it, and
   * the `Transfer` log's index (what the one transfer is known by).
   */
  | { kind: 'landed'; transaction: Hash; block: bigint; value: bigint; logIndex: number }
  /** Not on the chain yet, and it still may be (its validity has not ended). */
  | { kind: 'pending' }
  /** It never can be (`why`), and, where the chain showed one, the transaction that spent its nonce. */
  | { kind: 'never'; why: NeverWhy; transaction?: Hash };

/** What a scheme reads of a signed payment's record: its authorization, where to look, and what Holon sent since. */
export interface SignedPayment {
  id: string;
  authorization: Authorization;
  /** The block the chain was at when it was signed: where to look for it from. */
  from_block: string | null;
  /** The transaction the payee named, as it named it: where to look first, nothing more. */
  claimed: { transaction: string; by: string } | null;
  /** The cancellation Holon sent on the chain, once a human released it. */
  cancel?: { transaction: string; at: string };
}

/** The token a payment is signed in, as its EIP-712 domain names it (the token's own; a scheme may sign under another). */
export interface TokenDomain {
  name: string;
  version: string;
  /** The chain's id, as a decimal string or a number. */
  chainId: string | number;
  /** The token's address. */
  token: string;
}

/** What cancelling a payment has to work with: the wallet that signed it, the chain, and a way to send from the wallet. */
export interface Canceller {
  wallet: Wallet;
  reader: ChainReader;
  send(tx: { to: Address; data: Hex }): Promise<Hash>;
}

/**
 * One payment scheme. `A` is what the wallet signs for it (its authorization as the scheme has it); every
 * member that reads or writes a settlement sees the shape every settlement keeps (`Authorization`). A
 * `Scheme` with no argument is any scheme, whatever it signs: only the one who builds its authorization
 * knows its shape, so only its own file's `request` is called with one.
 */
export interface Scheme<A = never> {
  /** Its name, as x402 names it (`accepted.scheme`), and its key in the table (schemes.ts). */
  readonly name: string;
  /** The typed data the wallet signs to authorize a payment of `authorization`, in the token `token`. */
  request(authorization: A, token: TokenDomain): TypedRequest;
  /** Its authorization as a settlement keeps it (`value` the most it may move, the nonce as 32 bytes of hex). */
  recorded(authorization: A): Authorization;
  /** Whether the payer's nonce is spent on the chain, as of `block` (the head by default). */
  nonceSpent(reader: ChainReader, a: Pick<Authorization, 'from' | 'nonce'>, block?: bigint): Promise<boolean>;
  /** The transaction the chain names as having spent the nonce, where it names one (EIP-3009 does; Permit2 does not). */
  spentIn(reader: ChainReader, a: Pick<Authorization, 'from' | 'nonce'>): Promise<Hash | undefined>;
  /**
   * Holon's own reading of the chain for a signed payment: landed (where, moving what), not yet, or never.
   * What it reads as moved is how its hold settles: at the share of the value authorized the chain moved
   * (settlementView.ts), all of it for a scheme that moves exactly what it authorized.
   */
  verdict(reader: ChainReader, r: SignedPayment): Promise<ChainVerdict>;
  /**
   * Cancels a signed payment's authorization on the chain: what the wallet signs for it, if anything, and the
   * transaction `send` sends from the wallet (which pays the gas). Returns that transaction.
   */
  cancel(r: SignedPayment, by: Canceller): Promise<Hash>;
}
