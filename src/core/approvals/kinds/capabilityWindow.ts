/**
 * An agent asks for a capability for a few hours (seed 004's `capability.window`). Bound to the capability
 * (its hash: the name and every parameter) and the hours; the title and reason are shown, not bound.
 * Approved, the window opens for its hours (decisions/effects.ts).
 */
import type { CapabilityGrant } from '../../kernel/model.ts';
import { canonicalHash } from '../../kernel/util.ts';
import type { KindSpec } from './kind.ts';
import { OFFICE_APPROVAL_TTL_MS } from './kind.ts';

/** What the human is shown before a capability window opens. */
export interface CapabilityWindowSubject {
  kind: 'capability_window';
  title: string;
  reason: string;
  capability: CapabilityGrant;
  hours: number;
}

export const capabilityWindow: KindSpec<CapabilityWindowSubject> = {
  kind: 'capability_window',
  label: 'Capability window',
  amountLabel: 'Amount',
  ttlMs: OFFICE_APPROVAL_TTL_MS,
  binds: (s) => ({ capability: canonicalHash(s.capability), hours: String(s.hours) }),
  view: (s) => ({
    title: s.title,
    subject: s.capability.name,
    facts: [
      { label: 'Capability', value: `${s.capability.name}${s.capability.params ? ` ${JSON.stringify(s.capability.params)}` : ''}` },
      { label: 'For', value: `${s.hours} hours` },
    ],
    detail: s.reason,
    removals: [],
  }),
};
