/**
 * A one-off action an agent asks a human to allow (seed 004's `approval_request`). Bound to its title and
 * reason, which are all there is of it; deciding it does nothing more than record the answer.
 */
import type { KindSpec } from './kind.ts';
import { OFFICE_APPROVAL_TTL_MS } from './kind.ts';

/** What the human is shown before an action is allowed. */
export interface ActionSubject {
  kind: 'action';
  title: string;
  reason: string;
}

export const action: KindSpec<ActionSubject> = {
  kind: 'action',
  label: 'Action',
  amountLabel: 'Amount',
  ttlMs: OFFICE_APPROVAL_TTL_MS,
  binds: (s) => ({ title: s.title, reason: s.reason }),
  view: (s, a) => ({ title: s.title, subject: a.mandate, facts: [], detail: s.reason, removals: [] }),
};
