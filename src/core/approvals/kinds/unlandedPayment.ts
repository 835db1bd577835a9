/**
 * A payment Holon signed that a seller or merchant says it was paid, and the chain does not show: its
 * money stays held until a human decides. Approving releases it: its money goes back once the payment can
 * no longer land (Holon cancels its authorization on the chain where the wallet can pay for that, or it
 * lapses), and until then it stays held and is counted as spent should it land. Rejecting keeps it counted
 * as spent. Bound to the settlement, its payee, the amount and the transaction the seller named. Holon
 * keeps reading the chain meanwhile: a payment that lands, or can no longer land, closes the card itself.
 */
import type { MoneyJson } from '../../kernel/amount.ts';
import { fmt } from '../../kernel/words.ts';
import { transactionAsNamed } from '../../kernel/foreign.ts';
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
  /** The transaction the seller or merchant named, if it named one (its words: shown marked as data). */
  claimed_transaction: string | null;
  /** When its authorization lapses, after which it can never land (absent in approvals from before). */
  lapses_at?: string;
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
      ...(s.claimed_transaction
        ? [{ label: 'Transaction the payee named', value: transactionAsNamed('payee', s.claimed_transaction) }]
        : []),
      ...(s.lapses_at ? [{ label: 'Can land until', value: s.lapses_at }] : []),
      { label: 'Settlement', value: s.settlement },
    ],
    detail:
      'Approve releases it: Holon cancels its authorization on the chain (where the wallet has gas for it), and the money goes back ' +
      `to the mandate once the payment can no longer land${s.lapses_at ? ` (at the latest ${s.lapses_at})` : ''}. Until then it ` +
      'stays held, and if the payee settles it before, it is counted as spent and you are told. Reject keeps it counted as spent.',
    removals: [],
  }),
};
