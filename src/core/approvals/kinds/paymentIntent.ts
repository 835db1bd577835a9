/**
 * A payment intent the gate parked for a human, its money held meanwhile. Bound to the intent, the payee,
 * the amount and its currency. Deciding it settles or releases the intent (decisions/effects.ts).
 */
import type { MoneyJson } from '../../kernel/amount.ts';
import { fmt } from '../../kernel/words.ts';
import type { KindSpec } from './kind.ts';
import { APPROVAL_TTL_MS } from './kind.ts';

/** What the human is shown before a parked intent is released. */
export interface PaymentIntentSubject {
  kind: 'payment_intent';
  intent: string;
  payee: string;
  amount: MoneyJson;
  purpose: string | null;
}

export const paymentIntent: KindSpec<PaymentIntentSubject> = {
  kind: 'payment_intent',
  label: 'Payment intent',
  amountLabel: 'Amount',
  ttlMs: APPROVAL_TTL_MS,
  binds: (s) => ({ intent: s.intent, payee: s.payee, amount: s.amount.amount, currency: s.amount.currency }),
  view: (s) => ({
    title: `Release payment ${s.intent}: ${fmt(s.amount)} to ${s.payee}`,
    subject: s.payee,
    facts: [{ label: 'Intent', value: s.intent }, ...(s.purpose ? [{ label: 'Purpose', value: s.purpose }] : [])],
    detail: null,
    removals: [],
  }),
};
