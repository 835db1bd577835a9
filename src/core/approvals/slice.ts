/** The approvals slice: every approval asked for, and the channels the human accepts answers from. */
import type { Slice } from '../store/slice.ts';
import { eventsOf } from '../store/slice.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';
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
  /**
   * A human's decision. It counts only from an installation that may decide the approval's account
   * (authority.ts); `by` names it, with `sig` its signature of `decisionMessage`, where the decider's
   * channel knew its key.
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
      // A request is only ever pending: its status comes from decisions alone, whatever the request says.
      const asked = structuredClone(upcastApproval(d.approval));
      const { decided_at: _at, channel: _channel, decided_by: _by, used_by: _used, released: _released, ...a } = asked;
      s.approvals[a.id] = { ...a, status: 'pending' };
    },
    'approval.decided': (s, d, e) => {
      const a = s.approvals[d.id];
      if (!a || a.status !== 'pending') return;
      if (d.decision !== 'approved' && d.decision !== 'rejected') return;
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

/**
 * The one thing the approvals read of the mandates: which account each belongs to. Declared here, not
 * imported, so that approvals depend on no subject module (the mandates' own fields fit it as they are).
 */
export interface MandateAccounts {
  mandates: Readonly<Record<string, { readonly account: string } | undefined>>;
}

/** The account whose team decides an approval: its mandate's. */
export function accountOfApproval(s: MandateAccounts, a: Pick<Approval, 'mandate'>): string {
  return s.mandates[a.mandate]?.account ?? a.mandate.split('/')[0] ?? '';
}
