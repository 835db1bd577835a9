/**
 * The one approval flow every toolset uses: ask, check an approval against exactly what it was given
 * for, wait for a human's decision from an accepted channel, and stop waiting. The decision itself is
 * `decideApproval` (decisions/decide.ts), which no MCP tool reaches: only the panel, an elicitation
 * form and the interactive CLI do.
 */
import type { Denial } from '../kernel/denials.ts';
import { denial } from '../kernel/denials.ts';
import { newId } from '../kernel/ids.ts';
import { thisProcess } from '../store/owner.ts';
import type { EventStore, NewEvent, Signer } from '../store/store.ts';
import type { Money } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { Approval, ApprovalChannel, ApprovalOrigin, ApprovalStatus, ApprovalSubject } from './model.ts';
import { approvalExpiry, bindingOf, isExpired, isWaiting } from './model.ts';
import type { ApprovalsFields } from './slice.ts';
import { approvalEvent } from './slice.ts';

/** How a caller waits for the human; the answer of whichever channel decides first. */
export type ApprovalWaiter = (approval: Approval, signal?: AbortSignal) => Promise<'approved' | 'rejected' | 'pending'>;

/** What the gate decided about an approval for one request. */
export type ApprovalGate =
  /** Go ahead; `approval` is the one to mark used (null when none was needed). */
  | { kind: 'proceed'; approval: Approval | null }
  /** A human must decide: append `events` (the request) and wait. */
  | { kind: 'ask'; approval: Approval; events: NewEvent[] }
  | { kind: 'pending'; approval: Approval }
  | { kind: 'rejected'; approval: Approval }
  | { kind: 'denied'; denials: Denial[] };

/** What a request that may need a human looks like to the gate. */
export interface GateRequest {
  mandate: string;
  subject: ApprovalSubject;
  /** The most it can spend, and the threshold it is measured against; null where no money is at stake. */
  amount: Money | null;
  threshold: Money | null;
  /** True when a human must approve it (over the threshold, or a kind that always asks). */
  needed: boolean;
  /** The approval the caller presents, if any. */
  approvalId: string | undefined;
  /** What the approval unblocks (a receipt, an intent, a proposal). */
  ref: string | null;
  now: number;
  /**
   * The installation that asks: its key is recorded, with this process's machine, on an approval it asks
   * for (read only then, so a call that needs no human creates no key file).
   */
  installation?: Pick<Signer, 'publicKey'> | undefined;
}

/** This process as the origin of an approval it asks for: its machine, and its installation key if given. */
export function originOf(signer?: Pick<Signer, 'publicKey'>): ApprovalOrigin {
  return { machine: thisProcess().host, ...(signer ? { key: signer.publicKey } : {}) };
}

/**
 * Why a presented approval cannot be used at all, whatever it is presented for: not found under this
 * mandate, already used, or expired. Checked before anything else about the request.
 */
export function unusableApproval(s: ApprovalsFields, mandate: string, id: string, now: number): Denial | undefined {
  const a = s.approvals[id];
  if (!a || a.mandate !== mandate) return denial('approval_not_found', { approval: id });
  if (a.status === 'used') return denial('approval_used', { approval: a.id, used_by: a.used_by ?? null });
  if (isExpired(a, now)) return denial('approval_expired', { approval: a.id, expires_at: a.expires_at });
  return undefined;
}

/**
 * Checks a presented approval against exactly what it was given for (mandate, kind, bound fields, the
 * amount the human saw, expiry, single use), or asks for one when a human must decide. Pure: the caller
 * appends the events in the same transaction as the rest of its decision.
 */
export function approvalGate(s: ApprovalsFields, r: GateRequest): ApprovalGate {
  // Most requests present no approval and need none: the binding is hashed only for those that do.
  if (r.approvalId === undefined && !r.needed) return { kind: 'proceed', approval: null };
  const { binding, bound } = bindingOf(r.mandate, r.subject);
  if (r.approvalId !== undefined) {
    const unusable = unusableApproval(s, r.mandate, r.approvalId, r.now);
    if (unusable) return { kind: 'denied', denials: [unusable] };
    const a = s.approvals[r.approvalId] as Approval;
    const denials: Denial[] = [];
    if (a.kind !== r.subject.kind || a.binding !== binding) {
      const fields = [...new Set([...Object.keys(a.bound), ...Object.keys(bound)])];
      const mismatches = [
        ...(a.kind !== r.subject.kind ? [{ field: 'kind', approved: a.kind, requested: r.subject.kind }] : []),
        ...fields.filter((f) => a.bound[f] !== bound[f]).map((f) => ({ field: f, approved: a.bound[f] ?? '', requested: bound[f] ?? '' })),
      ];
      denials.push(denial('approval_mismatch', { approval: a.id, mismatches }));
    }
    // The human approved the amount they saw; more than that needs a new decision.
    if (r.amount && a.amount && (r.amount.currency !== a.amount.currency || M.compare(r.amount, M.fromJson(a.amount)) > 0)) {
      denials.push(denial('approval_amount_raised', { approval: a.id, amount: M.toJson(r.amount), approved: a.amount }));
    }
    if (denials.length > 0) return { kind: 'denied', denials };
    if (a.status === 'pending') return { kind: 'pending', approval: a };
    if (a.status === 'rejected') return { kind: 'rejected', approval: a };
    return { kind: 'proceed', approval: a };
  }
  const approval: Approval = {
    id: newId('apr'),
    kind: r.subject.kind,
    mandate: r.mandate,
    binding,
    bound,
    subject: r.subject,
    amount: r.amount ? M.toJson(r.amount) : null,
    threshold: r.threshold ? M.toJson(r.threshold) : null,
    ref: r.ref,
    requested_at: new Date(r.now).toISOString(),
    expires_at: approvalExpiry(r.now, r.subject.kind),
    origin: originOf(r.installation),
    status: 'pending',
  };
  return { kind: 'ask', approval, events: [approvalEvent('approval.requested', { approval })] };
}

/** The event that spends an approval on `by`; appended with whatever it unblocked. */
export function useApproval(id: string, by: string): NewEvent {
  return approvalEvent('approval.used', { id, by });
}

/** True if `channel` may answer approvals on this state (the human's setting; null accepts all). */
export function channelAccepted(s: ApprovalsFields, channel: ApprovalChannel): boolean {
  return s.settings.approval_channels === null || s.settings.approval_channels.includes(channel);
}

/**
 * Records which channels may answer approvals on this state (null: all). The editor writes it from its
 * settings and `holon approvals channels` from a terminal, so every process obeys the human's choice.
 */
export async function setApprovalChannels(store: EventStore<ApprovalsFields>, channels: ApprovalChannel[] | null): Promise<void> {
  const norm = (a: ApprovalChannel[] | null): string => JSON.stringify(a && [...new Set(a)].sort());
  const chosen = channels && [...new Set(channels)].sort();
  await store.transact((s) => ({
    events: norm(s.settings.approval_channels) === norm(channels) ? [] : [approvalEvent('settings.updated', { approval_channels: chosen })],
    result: undefined,
  }));
}

/**
 * Marks that nobody waits for an approval any more (a later decision is used on re-submission), and
 * returns its status as of that moment: a decision that landed just before still counts.
 */
export async function releaseApproval(store: EventStore<ApprovalsFields>, id: string): Promise<ApprovalStatus> {
  return store.transact((s) => {
    const a = s.approvals[id];
    if (!a) return { events: [], result: 'pending' as const };
    return { events: a.status === 'pending' && !a.released ? [approvalEvent('approval.released', { id })] : [], result: a.status };
  });
}

/**
 * Waits until an approval leaves `pending` (a decision from any process), the time runs out, or the
 * signal aborts. `onTick` runs about once a second meanwhile (progress notifications).
 */
export function waitForDecision(
  store: EventStore<ApprovalsFields>,
  id: string,
  timeoutMs: number,
  options: { signal?: AbortSignal; onTick?: (elapsedMs: number) => void } = {},
): Promise<ApprovalStatus> {
  const statusNow = (): ApprovalStatus => store.state.approvals[id]?.status ?? 'pending';
  if (statusNow() !== 'pending' || timeoutMs <= 0 || options.signal?.aborted) return Promise.resolve(statusNow());
  return new Promise((resolve) => {
    const start = Date.now();
    const finish = (): void => {
      clearTimeout(timer);
      clearInterval(ticker);
      unsubscribe();
      options.signal?.removeEventListener('abort', finish);
      resolve(statusNow());
    };
    const unsubscribe = store.subscribe(() => {
      if (statusNow() !== 'pending') finish();
    });
    const timer = setTimeout(finish, timeoutMs);
    const ticker = setInterval(() => options.onTick?.(Date.now() - start), 1000);
    options.signal?.addEventListener('abort', finish);
  });
}

/**
 * Runs `attempt` until it no longer waits for a human: when it asks for an approval, waits through
 * `wait`; on approval it attempts again with that approval; otherwise it stops waiting (under the lock,
 * so a decision that landed meanwhile still counts) and returns the last attempt with the final status.
 */
export async function untilDecided<D>(
  store: EventStore<ApprovalsFields>,
  attempt: (approvalId: string | undefined) => Promise<D>,
  waitingOn: (d: D) => Approval | undefined,
  options: { approvalId?: string | undefined; wait?: ApprovalWaiter | undefined; signal?: AbortSignal | undefined } = {},
): Promise<{ decision: D; status: ApprovalStatus | null }> {
  let approvalId = options.approvalId;
  for (;;) {
    const decision = await attempt(approvalId);
    const a = waitingOn(decision);
    if (!a) return { decision, status: null };
    const answer = options.wait ? await options.wait(a, options.signal) : 'pending';
    const status = answer === 'approved' ? 'approved' : answer === 'rejected' ? 'rejected' : await releaseApproval(store, a.id);
    if (status === 'approved') {
      approvalId = a.id;
      continue;
    }
    return { decision, status };
  }
}

/** Approvals a human can still answer (not decided, not expired), oldest first. */
export function pendingApprovals(s: ApprovalsFields, now: number): Approval[] {
  return Object.values(s.approvals)
    .filter((a) => isWaiting(a, now))
    .sort((a, b) => (a.requested_at < b.requested_at ? -1 : a.requested_at > b.requested_at ? 1 : 0));
}
