/**
 * Approvals for any subject a human must allow: an agent call, a payment, a parked payment intent, a
 * capability window, a budget override, a proposal, an action. Each is bound to the SHA-256 of the RFC
 * 8785 form of exactly what the human was shown, used at most once, and valid until one expiry computed
 * here. What each kind binds and how long it lives are the kind's own declaration (kinds/).
 */
import type { ApprovalKind } from '../../shared/approvalKinds.ts';
import type { MoneyJson } from '../kernel/amount.ts';
import { canonicalHash } from '../kernel/util.ts';
import type { SubjectOf } from './kinds/registry.ts';
import { kindSpec } from './kinds/registry.ts';

/** Which human channel decided. */
export type ApprovalChannel = 'panel' | 'elicitation' | 'cli';
/** Every channel a human can answer through. */
export const APPROVAL_CHANNELS: readonly ApprovalChannel[] = ['panel', 'elicitation', 'cli'];

/** An approval's recorded status; `expired` is derived from the clock (see `approvalStatus`). */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'used';

/** What the human is shown, by kind (each kind's file declares its shape). The `bound` fields of the approval are taken from it. */
export type ApprovalSubject = SubjectOf<ApprovalKind>;

/** Who asked for an approval: the machine and, where the asking process knew it, its installation key. */
export interface ApprovalOrigin {
  machine: string;
  key?: string;
}

/** A human decision bound to one mandate and exactly one subject. */
export interface Approval {
  id: string;
  kind: ApprovalKind;
  mandate: string;
  /** SHA-256 (hex) of the RFC 8785 form of {kind, mandate, …bound}. */
  binding: string;
  /** The fields the binding covers, so a mismatch can be named. */
  bound: Record<string, string>;
  subject: ApprovalSubject;
  /** The most that can be spent under it, and the threshold it crossed; null where no money is at stake. */
  amount: MoneyJson | null;
  threshold: MoneyJson | null;
  /** What it unblocks: the receipt, intent or proposal waiting on it. */
  ref: string | null;
  requested_at: string;
  expires_at: string;
  /** The process that asked; absent on approvals recorded before it was. */
  origin?: ApprovalOrigin;
  status: ApprovalStatus;
  decided_at?: string;
  channel?: ApprovalChannel;
  /** The installation key that decided, when the decision named one. */
  decided_by?: string;
  /** Set when the process that asked stopped waiting; the agent re-submits with the approval's id. */
  released?: boolean;
  used_by?: string;
}

/** When an approval of `kind` asked for at `now` expires (ISO 8601). */
export function approvalExpiry(now: number, kind: ApprovalKind = 'agent_call'): string {
  return new Date(now + kindSpec(kind).ttlMs).toISOString();
}

/** True once an approval that was never used can no longer be. */
export function isExpired(a: Pick<Approval, 'status' | 'expires_at'>, now: number): boolean {
  return (a.status === 'pending' || a.status === 'approved') && Date.parse(a.expires_at) <= now;
}

/** The status a human or agent should see now: the recorded one, or `expired`. */
export function approvalStatus(a: Pick<Approval, 'status' | 'expires_at'>, now: number): ApprovalStatus | 'expired' {
  return isExpired(a, now) ? 'expired' : a.status;
}

/** True while a human can still answer it. */
export function isWaiting(a: Approval, now: number): boolean {
  return a.status === 'pending' && !isExpired(a, now);
}

/**
 * The fields an approval of this subject is bound to, as its kind declares them (the mandate is bound
 * for every kind).
 */
export function boundFields(subject: ApprovalSubject): Record<string, string> {
  return kindSpec(subject.kind).binds(subject);
}

/**
 * The message a decision's signature covers: the approval, what was decided, through which channel, and
 * the binding hash of exactly what the human was shown.
 */
export function decisionMessage(a: Pick<Approval, 'id' | 'binding'>, decision: 'approved' | 'rejected', channel: ApprovalChannel): string {
  return `holon-decision:v1:${a.id}:${decision}:${channel}:${a.binding}`;
}

/** The binding hash of a subject under a mandate. */
export function bindingOf(mandate: string, subject: ApprovalSubject): { binding: string; bound: Record<string, string> } {
  const bound = boundFields(subject);
  return { binding: canonicalHash({ kind: subject.kind, mandate, ...bound }), bound };
}
