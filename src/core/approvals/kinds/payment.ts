/**
 * A payment to a payee: bound to the payee, the amount, its currency and the terms hash H of the seller's
 * terms, so the human's yes pays exactly what they saw, under exactly those terms.
 */
import type { MoneyJson } from '../../kernel/amount.ts';
import { fmt } from '../../kernel/words.ts';
import type { KindSpec } from './kind.ts';
import { APPROVAL_TTL_MS } from './kind.ts';

/** What the human is shown before a payment. */
export interface PaymentSubject {
  kind: 'payment';
  payee: string;
  amount: MoneyJson;
  terms_hash: string | null;
  purpose: string | null;
}

export const payment: KindSpec<PaymentSubject> = {
  kind: 'payment',
  label: 'Payment',
  amountLabel: 'Amount',
  ttlMs: APPROVAL_TTL_MS,
  binds: (s) => ({ payee: s.payee, amount: s.amount.amount, currency: s.amount.currency, terms_hash: s.terms_hash ?? '' }),
  view: (s) => ({
    title: `Pay ${fmt(s.amount)} to ${s.payee}`,
    subject: s.payee,
    facts: [
      ...(s.terms_hash ? [{ label: 'Terms hash', value: s.terms_hash }] : []),
      ...(s.purpose ? [{ label: 'Purpose', value: s.purpose }] : []),
    ],
    detail: null,
    removals: [],
  }),
};
