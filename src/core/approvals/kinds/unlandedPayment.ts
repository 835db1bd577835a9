/**
 * A payment Holon signed that a seller or merchant says it was paid, and the chain does not show: its
 * money stays held until a human decides. Approving releases the hold (nothing moved); rejecting keeps
 * it counted as spent. Bound to the settlement, its payee, the amount and the transaction the seller
 * named. Holon keeps reading the chain meanwhile: a payment that lands after all settles by itself.
 */
import type { MoneyJson } from '../../amount.ts';
import { fmt } from '../../words.ts';
import type { KindSpec } from './kind.ts';
import { OFFICE_APPROVAL_TTL_MS } from './kind.ts';

/** What the human is shown about a payment that did not land. */
export interface UnlandedPaymentSubject {
  kind: 'unlanded_payment';
  settlement: string;
  payee: string;
  amount: MoneyJson;
  network: string;
  /** Why it is flagged, in a few words. */
  reason: string;
  /** The transaction the seller or merchant named, if it named one. */
  claimed_transaction: string | null;
}

export const unlandedPayment: KindSpec<UnlandedPaymentSubject> = {
  kind: 'unlanded_payment',
  label: 'Payment not on chain',
  amountLabel: 'Held',
  // As long as an office request: the human may look at the chain tomorrow; the hold waits for them.
  ttlMs: OFFICE_APPROVAL_TTL_MS,
  binds: (s) => ({
    settlement: s.settlement,
    payee: s.payee,
    amount: s.amount.amount,
    currency: s.amount.currency,
    claimed_transaction: s.claimed_transaction ?? '',
  }),
  view: (s) => ({
    title: `Release ${fmt(s.amount)} held for a payment to ${s.payee} that is not on chain`,
    subject: s.payee,
    facts: [
      { label: 'Why', value: s.reason },
      { label: 'Network', value: s.network },
      ...(s.claimed_transaction ? [{ label: 'Transaction the payee named', value: s.claimed_transaction }] : []),
      { label: 'Settlement', value: s.settlement },
    ],
    detail: 'Approve gives the money back to the mandate (nothing moved). Reject keeps it counted as spent.',
    removals: [],
  }),
};
