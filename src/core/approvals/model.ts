/**
 * Approvals for any subject a human must allow: an agent call, a payment, a parked payment intent, a
 * capability window, a budget override, a proposal, an action. Each is bound to the SHA-256 of the RFC
 * 8785 form of exactly what the human was shown, used at most once, and valid until one expiry computed
 * here.
 */
import type { ApprovalKind } from '../../shared/approvalKinds.ts';
import type { CapabilityGrant } from '../model.ts';
import type { MoneyJson } from '../money/amount.ts';
import { canonicalHash } from '../util.ts';

/** Which human channel decided. */
export type ApprovalChannel = 'panel' | 'elicitation' | 'cli';
/** Every channel a human can answer through. */
export const APPROVAL_CHANNELS: readonly ApprovalChannel[] = ['panel', 'elicitation', 'cli'];

/** An approval's recorded status; `expired` is derived from the clock (see `approvalStatus`). */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'used';

/** What the human is shown, by kind. The `bound` fields of the approval are taken from it. */
export type ApprovalSubject =
  | {
      kind: 'agent_call';
      agent: string;
      version: string;
      capability: string | null;
      /** SHA-256 (hex) of the input's RFC 8785 form: what the approval is bound to. */
      input_sha256: string;
      /** The input as the human reads it, cut to a readable length; the hash covers all of it. */
      input_preview: string;
      input_bytes: number;
      delegated_calls: { capability: string; max_count: number }[];
    }
  | { kind: 'payment'; payee: string; amount: MoneyJson; terms_hash: string | null; purpose: string | null }
  | { kind: 'payment_intent'; intent: string; payee: string; amount: MoneyJson; purpose: string | null }
  | { kind: 'capability_window'; title: string; reason: string; capability: CapabilityGrant; hours: number }
  | { kind: 'budget_override'; title: string; reason: string; amount: MoneyJson }
  | { kind: 'proposal'; proposal: string; slug: string; title: string; diff_sha256: string; gains: string[]; losses: string[]; changes: string[] }
  | { kind: 'action'; title: string; reason: string };

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

/** How long an approval of a spend can be used after it was asked for. */
export const APPROVAL_TTL_MS = 30 * 60 * 1000;
/**
 * How long an office request (an action, a window, an override, a proposal) waits for a human: the agent
 * does not wait for it, and a person may answer tomorrow.
 */
export const OFFICE_APPROVAL_TTL_MS = 7 * 24 * 3600 * 1000;

const OFFICE_KINDS: readonly ApprovalKind[] = ['capability_window', 'budget_override', 'proposal', 'action'];

/** When an approval of `kind` asked for at `now` expires (ISO 8601). */
export function approvalExpiry(now: number, kind: ApprovalKind = 'agent_call'): string {
  return new Date(now + (OFFICE_KINDS.includes(kind) ? OFFICE_APPROVAL_TTL_MS : APPROVAL_TTL_MS)).toISOString();
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
 * The fields an approval of this subject is bound to. An agent call: the agent, its exact version and
 * the input's hash (the mandate is bound for every kind). A payment: payee, amount, currency and the
 * terms hash. The display-only parts (previews, titles of windows) are not.
 */
export function boundFields(subject: ApprovalSubject): Record<string, string> {
  switch (subject.kind) {
    case 'agent_call':
      return { agent: subject.agent, version: subject.version, input_sha256: subject.input_sha256 };
    case 'payment':
      return { payee: subject.payee, amount: subject.amount.amount, currency: subject.amount.currency, terms_hash: subject.terms_hash ?? '' };
    case 'payment_intent':
      return { intent: subject.intent, payee: subject.payee, amount: subject.amount.amount, currency: subject.amount.currency };
    case 'capability_window':
      return { capability: canonicalHash(subject.capability), hours: String(subject.hours) };
    case 'budget_override':
      return { amount: subject.amount.amount, currency: subject.amount.currency };
    case 'proposal':
      return { proposal: subject.proposal, slug: subject.slug, diff_sha256: subject.diff_sha256 };
    case 'action':
      return { title: subject.title, reason: subject.reason };
  }
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
