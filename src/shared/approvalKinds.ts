/**
 * The kinds of approval, by name: the one list both the core and the webviews read. The core declares each
 * kind in src/core/approvals/kinds/ and must declare every name here (its registry does not compile
 * otherwise); the Holon view's protocol validates what the host sends against the same names. It lives
 * outside both folders because neither may import the other, and it imports nothing.
 */

/** What an approval is for, in the order a human reads them. */
export const APPROVAL_KINDS = [
  'agent_call',
  'payment',
  'payment_intent',
  'capability_window',
  'budget_override',
  'proposal',
  'action',
  'unlanded_payment',
] as const;

/** What an approval is for. */
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];
