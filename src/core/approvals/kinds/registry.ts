/**
 * Every kind of approval, collected in one table the compiler holds complete: a name in the shared list of
 * kinds (src/shared/approvalKinds.ts) without its declaration here, or a declaration filed under another
 * kind's name, does not compile. Adding a kind is its file beside this one and its line in the table.
 */
import type { ApprovalKind } from '../../../shared/approvalKinds.ts';
import { action } from './action.ts';
import { agentCall } from './agentCall.ts';
import { budgetOverride } from './budgetOverride.ts';
import { capabilityWindow } from './capabilityWindow.ts';
import type { KindSpec } from './kind.ts';
import { payment } from './payment.ts';
import { paymentIntent } from './paymentIntent.ts';
import { proposal } from './proposal.ts';
import { unlandedPayment } from './unlandedPayment.ts';

const declared = {
  agent_call: agentCall,
  payment,
  payment_intent: paymentIntent,
  capability_window: capabilityWindow,
  budget_override: budgetOverride,
  proposal,
  action,
  unlanded_payment: unlandedPayment,
} satisfies { [K in ApprovalKind]: KindSpec<{ kind: K }> };

/** The shape of a subject of kind `K`, as its declaration gives it. */
export type SubjectOf<K extends ApprovalKind> = K extends ApprovalKind ? DeclaredSubject<(typeof declared)[K]> : never;
type DeclaredSubject<D> = D extends KindSpec<infer S> ? S : never;

/** Every kind's declaration, by kind. */
export const APPROVAL_KIND_SPECS: { readonly [K in ApprovalKind]: KindSpec<SubjectOf<K>> } = declared;

/** The declaration of `kind`; given a subject's own kind, its members take that subject. */
export function kindSpec<K extends ApprovalKind>(kind: K): KindSpec<SubjectOf<K>> {
  return APPROVAL_KIND_SPECS[kind];
}
