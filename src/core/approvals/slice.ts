/** The approvals slice: every approval asked for, and the channels the human accepts answers from. */
import type { Slice } from '../slice.ts';
import { eventsOf } from '../slice.ts';
import type { Dict } from '../util.ts';
import { dict, toDict } from '../util.ts';
import type { Approval, ApprovalChannel } from './model.ts';
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
  'approval.decided': { id: string; decision: 'approved' | 'rejected'; channel: ApprovalChannel };
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
      a.status = d.decision;
      a.channel = d.channel;
      a.decided_at = e.time;
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
