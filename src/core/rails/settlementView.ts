/**
 * How a settlement reads for a human and an agent: what it paid (its scheme says how much of what it
 * authorized that is), where it landed or why it never can, in Holon's own words only.
 */
import type { MoneyJson } from '../kernel/amount.ts';
import { formatUnits, parseUnits } from '../kernel/amount.ts';
import { transactionAsNamed } from '../kernel/foreign.ts';
import type { NeverWhy } from './scheme.ts';
import type { FlagReason, Settlement, SettlementStatus } from './settlement.ts';

/**
 * What a settlement's hold is charged once it landed, in the mandate's currency: what its scheme settles
 * of it — all it carries, or, for an `upto` payment settled for less than authorized, the same share of it
 * as the chain moved of the value authorized (rounded up); the rest goes back to the mandate.
 */
export function chargeOf(r: Pick<Settlement, 'landed' | 'authorization' | 'held'>): MoneyJson {
  return settledShare(r, r.held);
}

/** What a settlement paid, in the token's currency: its amount, or an `upto` payment's share of its maximum the chain moved. */
export function paidOf(r: Pick<Settlement, 'landed' | 'authorization' | 'amount'>): MoneyJson {
  return settledShare(r, r.amount);
}

/**
 * What a landed payment settles of `carried`: the share of it the chain moved of the value authorized, as
 * its scheme's verdict read it (older records: all of it), rounded up, never in the payer's favour. A
 * scheme that moves exactly what it authorized settles all of it.
 *
 * Asked of the record, not of the scheme table: the views and the fold must not load what signs and reads
 * the chain.
 */
function settledShare(r: Pick<Settlement, 'landed' | 'authorization'>, carried: MoneyJson): MoneyJson {
  const max = BigInt(r.authorization.value);
  const value = BigInt(r.landed?.value ?? r.authorization.value);
  if (value >= max || max === 0n) return { ...carried };
  const units = parseUnits(carried.amount);
  return { amount: formatUnits((units * value + max - 1n) / max), currency: carried.currency };
}

/**
 * What a payment authorized where that is not simply what it pays: the most it may move, for every scheme
 * but `exact` (the record names its scheme only then); null for `exact`.
 */
export function authorizedOf(r: Pick<Settlement, 'scheme' | 'amount'>): MoneyJson | null {
  return r.scheme === undefined || (r.scheme as string) === 'exact' ? null : { ...r.amount };
}

/** How the chain showed a payment can never land, in words. */
const NEVER_WORDS: Record<NeverWhy, string> = {
  expired: 'its authorization lapsed before it was sent',
  cancelled: 'its authorization was cancelled on the chain',
  spent_before: 'its nonce was spent before it was signed: these terms were paid already',
  spent_elsewhere: 'its nonce was spent by a transaction that is not this payment',
};

/** When an authorization can no longer be settled: its `validBefore` (seconds) as a UTC time. */
export function lapsesAt(r: Pick<Settlement, 'authorization'>): string {
  const seconds = Number(r.authorization.validBefore);
  return Number.isSafeInteger(seconds) && seconds * 1000 <= 8.64e15 ? new Date(seconds * 1000).toISOString() : r.authorization.validBefore;
}

/** How a settlement reads for a human and an agent: `landed in block N`, or what else it is. Holon's own words only. */
export function settlementWords(
  r: Pick<
    Settlement,
    'status' | 'landed' | 'flag' | 'network' | 'refund' | 'scheme' | 'amount' | 'authorization' | 'never' | 'release' | 'cancel'
  >,
): string {
  const most = authorizedOf(r);
  const upto = most ? `authorized up to ${most.amount} ${most.currency}, ` : '';
  switch (r.status) {
    case 'landed': {
      const flag = r.flag ? `; flagged: ${r.flag.detail}` : '';
      const released = r.release ? '; it landed after a human released it, so it is counted as spent' : '';
      const refund = !r.refund
        ? ''
        : r.refund.block
          ? `; its refund landed in block ${r.refund.block}`
          : '; its refund is not on the chain yet';
      const paid = upto ? `${upto}paid ${paidOf(r).amount} ${r.amount.currency}, ` : '';
      return `${paid}landed in block ${r.landed?.block ?? '?'} (${r.network})${flag}${released}${refund}`;
    }
    case 'signed':
      return `${upto}not landed yet (it can land until ${lapsesAt(r)})`;
    case 'expired':
      return `not landed: it never can now (${r.never ? NEVER_WORDS[r.never] : 'its authorization lapsed'}); nothing moved`;
    case 'flagged':
      return `not landed: flagged (${r.flag?.detail ?? 'the payee says it was paid'}), its money held for you`;
    case 'releasing':
      return (
        `not landed: released by a human; its money stays held until it can no longer land — ` +
        (r.cancel ? 'its cancellation was sent to the chain, ' : '') +
        `its authorization lapses at ${lapsesAt(r)}; if it lands before then, it is counted as spent`
      );
    case 'released':
      return (
        `not landed: released by a human, and it can no longer land (${r.never ? NEVER_WORDS[r.never] : 'nothing moved'}); ` +
        'nothing counted'
      );
    case 'kept':
      return 'not landed: kept as spent by a human';
    case 'unchecked':
      return 'not checked: no chain was configured to read it on';
  }
}

/** A settlement as receipts show it: what an agent and a human read (never the signed payment itself). */
export interface SettlementView {
  id: string;
  status: SettlementStatus;
  /** `landed in block N`, `not landed…`. */
  summary: string;
  network: string;
  payee: string;
  /** What it paid (landed), or pays: an `upto` payment's is what the chain moved once it landed, its maximum before. */
  amount: MoneyJson;
  /** An `upto` payment's maximum, what the wallet authorized; null for `exact`, whose amount is what it authorized. */
  authorized: MoneyJson | null;
  transaction: string | null;
  block: string | null;
  /**
   * The transaction the payee named, where it named one: as named when it has a transaction's form (0x and
   * 64 hex digits), else marked as data (the payee's words, never Holon's).
   */
  claimed_transaction: string | null;
  flag: { reason: FlagReason; detail: string; approval: string | null } | null;
  /** A channel's refund at its closing: what comes back, and where Holon read it (null until it did). */
  refund: { amount: MoneyJson; transaction: string | null; block: string | null; credited: MoneyJson | null } | null;
}

/** The transaction a payee named, as anyone is shown it: as named when it has a transaction's form, else marked as its data. */
export function claimedTransaction(r: Pick<Settlement, 'claimed'>): string | null {
  return r.claimed ? transactionAsNamed(r.claimed.by, r.claimed.transaction) : null;
}

/** The view of a settlement. */
export function settlementView(r: Settlement): SettlementView {
  return {
    id: r.id,
    status: r.status,
    summary: settlementWords(r),
    network: r.network,
    payee: r.payee,
    amount: r.status === 'landed' ? paidOf(r) : { ...r.amount },
    authorized: authorizedOf(r),
    transaction: r.landed?.transaction ?? null,
    block: r.landed?.block ?? null,
    claimed_transaction: claimedTransaction(r),
    flag: r.flag ? { ...r.flag } : null,
    refund: r.refund
      ? {
          amount: { amount: refundAmount(r), currency: r.amount.currency },
          transaction: r.refund.transaction,
          block: r.refund.block,
          credited: r.refund.credited,
        }
      : null,
  };
}

/** A refund's value in the token's currency, exact: the deposit's amount scaled by the value's share of it. */
function refundAmount(r: Settlement): string {
  const total = BigInt(r.authorization.value);
  const units = parseUnits(r.amount.amount);
  return formatUnits(total === 0n ? 0n : (units * BigInt(r.refund?.value ?? '0')) / total);
}
