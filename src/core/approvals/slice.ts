/** The approvals slice: every approval asked for, and the channels the human accepts answers from. */
import { verifySignature } from '../keys.ts';
import type { MandatesFields } from '../mandates.ts';
import type { Slice } from '../slice.ts';
import { eventsOf } from '../slice.ts';
import type { TeamFields } from '../team.ts';
import { approversOf } from '../team.ts';
import type { Dict } from '../util.ts';
import { dict, toDict } from '../util.ts';
import type { Approval, ApprovalChannel } from './model.ts';
import { decisionMessage } from './model.ts';
import { upcastApproval } from './legacy.ts';

/** The approvals' part of the state. */
export interface ApprovalsFields {
  approvals: Dict<Approval>;
  /** The human's settings that every process must honour. */
  settings: { approval_channels: ApprovalChannel[] | null };
}

/** The approvals' events. */
export interface ApprovalEvents {
  'approval.requested': { approval: Approval };
  /**
   * A human's decision. `by` is the deciding installation's key and `sig` its signature of
   * `decisionMessage`; both are required when the approval's account has approvers.
   */
  'approval.decided': { id: string; decision: 'approved' | 'rejected'; channel: ApprovalChannel; by?: string; sig?: string };
  /** The process that asked stopped waiting: a later decision is used when the agent re-submits. */
  'approval.released': { id: string };
  /** The approval was spent on `by` (a receipt, an intent, a proposal). */
  'approval.used': { id: string; by: string };
  'settings.updated': { approval_channels: ApprovalChannel[] | null };
}

/** Builds an approvals event. */
export const approvalEvent = eventsOf<ApprovalEvents>();

export const approvalsSlice: Slice<ApprovalsFields, ApprovalEvents> = {
  initial: () => ({ approvals: dict(), settings: { approval_channels: null } }),
  on: {
    'approval.requested': (s, d) => {
      const a = upcastApproval(d.approval);
      s.approvals[a.id] = structuredClone(a);
    },
    'approval.decided': (s, d, e) => {
      const a = s.approvals[d.id];
      if (!a || a.status !== 'pending') return;
      // The fold is given the whole state (combineSlices): a decision on a team's account counts only if
      // one of its approvers signed it, so one written straight into a shared store leaves it pending.
      if (!decisionCounts(s as ApprovalsFields & MandatesFields & TeamFields, a, d)) return;
      a.status = d.decision;
      a.channel = d.channel;
      a.decided_at = e.time;
      if (typeof d.by === 'string') a.decided_by = d.by;
    },
    'approval.released': (s, d) => {
      const a = s.approvals[d.id];
      if (a) a.released = true;
    },
    'approval.used': (s, d) => {
      const a = s.approvals[d.id];
      if (!a) return;
      a.status = 'used';
      a.used_by = d.by;
    },
    'settings.updated': (s, d) => {
      s.settings = { approval_channels: d.approval_channels };
    },
  },
  revive: (s) => {
    s.approvals = toDict(s.approvals);
    s.settings ??= { approval_channels: null };
  },
};

/** The account whose team decides an approval: its mandate's. */
export function accountOfApproval(s: MandatesFields, a: Pick<Approval, 'mandate'>): string {
  return s.mandates[a.mandate]?.account ?? a.mandate.split('/')[0] ?? '';
}

/** True when a decision may be folded: its account has no approver, or a current approver signed it. */
export function decisionCounts(s: MandatesFields & TeamFields, a: Approval, d: ApprovalEvents['approval.decided']): boolean {
  const approvers = approversOf(s, accountOfApproval(s, a));
  if (approvers.length === 0) return true;
  if (typeof d.by !== 'string' || typeof d.sig !== 'string' || !approvers.includes(d.by)) return false;
  return verifySignature(d.by, decisionMessage(a, d.decision, d.channel), d.sig);
}
