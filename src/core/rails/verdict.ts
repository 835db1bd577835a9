/**
 * The one way every scheme's payment is judged by the chain: the transaction the payee named first (only
 * where to look), then the nonce as of the head, then whether it can still land. What differs between
 * schemes — which transaction shows a payment, how a nonce is spent, when an authorization lapses — each
 * scheme passes in as its rules.
 */
import type { Hash } from 'viem';
import type { ChainReader } from './chain.ts';
import type { ChainVerdict, SignedPayment } from './scheme.ts';

/**
 * How one scheme's payment shows on the chain, for `readVerdict`: the transaction it landed in (when `tx`
 * is one), whether its nonce is spent as of a block, where it was spent (a verdict, or undefined: not
 * readable yet), and whether a block's time is past the last one it could land in.
 */
export interface LandingRules {
  landedIn(tx: Hash): Promise<ChainVerdict | undefined>;
  spent(block: bigint): Promise<boolean>;
  whereSpent(): Promise<ChainVerdict | undefined>;
  expired(blockTime: bigint): boolean;
}

/**
 * Holon's own reading of the chain for a settlement, as its scheme's rules read it: the transaction the
 * payee named, when it shows the payment in a block after the one it was signed at; else, once the nonce is
 * spent, where — never this payment when it was spent already at the block it was signed at (an earlier
 * payment of the same terms), or by a transaction that does not show it; else, whether it still can land.
 * Nothing the payee said is taken for more than where to look first. Whether the transfer it shows already
 * landed another settlement is for the one who records it (landing.ts), under the journal's lock.
 */
export async function readVerdict(
  reader: ChainReader,
  r: Pick<SignedPayment, 'claimed' | 'from_block'>,
  rules: LandingRules,
): Promise<ChainVerdict> {
  const signedAt = r.from_block === null ? null : BigInt(r.from_block);
  // Mined at or before the block that was the chain's head when it was signed: not this payment.
  const after = (v: ChainVerdict): ChainVerdict =>
    v.kind === 'landed' && signedAt !== null && v.block <= signedAt
      ? { kind: 'never', why: 'spent_before', transaction: v.transaction }
      : v;
  if (r.claimed && /^0x[0-9a-fA-F]{64}$/.test(r.claimed.transaction)) {
    const claimed = await rules.landedIn(r.claimed.transaction as Hash);
    if (claimed?.kind === 'landed' && after(claimed).kind === 'landed') return claimed;
  }
  // The head first, then the nonce as of that block: a payment landing between the two reads can never
  // be taken for one that expired.
  const head = await reader.head();
  if (await rules.spent(head.number)) {
    // Spent already in the block that was the head when it was signed: spent before it was.
    if (signedAt !== null && (signedAt >= head.number || (await rules.spent(signedAt)))) return { kind: 'never', why: 'spent_before' };
    const where = await rules.whereSpent();
    if (where) return after(where);
    // Spent, and nowhere to be read since it was signed: not this payment, once it could no longer land anyway.
    return rules.expired(head.timestamp) ? { kind: 'never', why: 'spent_elsewhere' } : { kind: 'pending' };
  }
  return rules.expired(head.timestamp) ? { kind: 'never', why: 'expired' } : { kind: 'pending' };
}
