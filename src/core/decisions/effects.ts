/**
 * What a human's decision does beyond recording it, for the kinds where it does something: a window
 * opens, the day's limit is raised, a proposal is merged or closed, a parked intent settles or goes back.
 * Computed in the decision's own transaction (decide.ts), so it lands with the decision or neither does.
 * A kind not listed here does nothing more: whoever asked uses the approval when it re-submits.
 *
 * A kind's declaration (approvals/kinds/) says everything else about it; this part stands apart because
 * it reaches into the subjects, and the subjects themselves read the declarations whenever they ask for
 * an approval — a declaration that imported its subject would close a circle.
 */
import type { ApprovalKind } from '../../shared/approvalKinds.ts';
import { useApproval } from '../approvals/flow.ts';
import type { SubjectOf } from '../approvals/kinds/registry.ts';
import type { Approval } from '../approvals/model.ts';
import type { MandatesFields } from '../accounts/mandates.ts';
import { intentDecisionEvents } from '../money/intents.ts';
import { unlandedDecisionEvents } from '../rails/landing.ts';
import { spendEvent } from '../money/spend.ts';
import { mergeEvents } from '../office/merge.ts';
import type { OfficeFields } from '../office/slice.ts';
import { officeEvent } from '../office/slice.ts';
import type { NewEvent } from '../store/store.ts';

/** What a decision's effects read: the state its transaction was taken on. */
export type DecisionState = MandatesFields & OfficeFields;

/** What deciding an approval of kind `K` appends beside the decision itself. */
export type DecisionEffect<K extends ApprovalKind> = (
  s: DecisionState,
  a: Approval & { subject: SubjectOf<K> },
  decision: 'approved' | 'rejected',
  now: number,
) => NewEvent[];

const EFFECTS: { readonly [K in ApprovalKind]?: DecisionEffect<K> } = {
  // Approved, the journal transfer settles it; rejected, its hold is released.
  payment_intent: (s, a, decision, now) => intentDecisionEvents(s, a, decision, now),
  // Approved, a payment that did not land gives its hold back; rejected, it stays spent.
  unlanded_payment: (s, a, decision, now) => unlandedDecisionEvents(s, a, decision, now),
  // Approved, the window opens now, for its hours.
  capability_window: (_s, a, decision, now) => {
    if (decision !== 'approved') return [];
    const closes = now + Math.round(a.subject.hours * 3600_000);
    const window = { approval: a.id, mandate: a.mandate, capability: a.subject.capability };
    const open = { opens_at: new Date(now).toISOString(), closes_at: new Date(closes).toISOString() };
    return [officeEvent('capability.window.opened', { ...window, ...open }), useApproval(a.id, `window:${a.id}`)];
  },
  // Approved, today's limit is raised by the amount.
  budget_override: (_s, a, decision, now) => {
    if (decision !== 'approved') return [];
    const { amount, currency } = a.subject.amount;
    const day = new Date(now).toISOString().slice(0, 10);
    return [
      spendEvent('budget.override.granted', { mandate: a.mandate, approval: a.id, day, amount, currency }),
      useApproval(a.id, `override:${a.id}`),
    ];
  },
  // Approved, it is merged (or refused, if its file changed since); rejected, it is closed. A proposal
  // closed meanwhile is left as it is.
  proposal: (s, a, decision, now) => {
    const p = s.office.proposals[a.subject.proposal];
    if (!p || p.status !== 'open') return [];
    return decision === 'approved' ? [...mergeEvents(s, p, now), useApproval(a.id, p.id)] : [officeEvent('policy.rejected', { id: p.id })];
  },
};

/** What deciding an approval of `kind` does beyond recording it; none for a kind whose decision is all. */
export function decisionEffect<K extends ApprovalKind>(kind: K): DecisionEffect<K> | undefined {
  return EFFECTS[kind];
}
