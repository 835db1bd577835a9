/**
 * A personnel change an agent proposed (seed 004's HR tools). Bound to the proposal, the slug it changes
 * and the hash of its diff: the human approves exactly the diff they saw. Approved, it is merged;
 * rejected, it is closed (decisions/effects.ts).
 */
import type { KindSpec } from './kind.ts';
import { OFFICE_APPROVAL_TTL_MS } from './kind.ts';

/** What the human is shown before a proposal is merged. */
export interface ProposalSubject {
  kind: 'proposal';
  proposal: string;
  slug: string;
  title: string;
  diff_sha256: string;
  gains: string[];
  losses: string[];
  changes: string[];
}

export const proposal: KindSpec<ProposalSubject> = {
  kind: 'proposal',
  label: 'Proposal',
  amountLabel: 'Amount',
  ttlMs: OFFICE_APPROVAL_TTL_MS,
  binds: (s) => ({ proposal: s.proposal, slug: s.slug, diff_sha256: s.diff_sha256 }),
  view: (s) => ({
    title: s.title,
    subject: s.slug,
    facts: [...s.gains.map((g) => ({ label: 'Gains', value: g })), ...s.changes.map((c) => ({ label: 'Changes', value: c }))],
    detail: null,
    // What it takes away is never folded into facts: the view shows it apart, impossible to miss.
    removals: s.losses,
  }),
};
