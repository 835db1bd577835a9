/**
 * An agent asks to run past the day's limit (seed 004's `budget.override`). Bound to the amount and its
 * currency. Approved, today's limit is raised by it (decisions/effects.ts).
 */
import type { MoneyJson } from '../../kernel/amount.ts';
import { fmt } from '../../kernel/words.ts';
import type { KindSpec } from './kind.ts';
import { OFFICE_APPROVAL_TTL_MS } from './kind.ts';

/** What the human is shown before the day's limit is raised. */
export interface BudgetOverrideSubject {
  kind: 'budget_override';
  title: string;
  reason: string;
  amount: MoneyJson;
}

export const budgetOverride: KindSpec<BudgetOverrideSubject> = {
  kind: 'budget_override',
  label: 'Budget override',
  amountLabel: 'Amount',
  ttlMs: OFFICE_APPROVAL_TTL_MS,
  binds: (s) => ({ amount: s.amount.amount, currency: s.amount.currency }),
  view: (s) => ({
    title: s.title,
    subject: fmt(s.amount),
    facts: [{ label: 'Amount', value: fmt(s.amount) }],
    detail: s.reason,
    removals: [],
  }),
};
