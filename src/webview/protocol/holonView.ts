/**
 * The Holon view (activity bar): the selected mandate and its budget, and the approvals that wait for
 * the human. Amounts arrive formatted ("3.10 EUR"): the view never does arithmetic on money.
 */
import * as z from 'zod/mini';
import { Id, panelProtocol, ReadyCommand } from './messages.ts';

/** The selected mandate's budget, formatted. */
export const BudgetInfo = z.strictObject({
  mandate: z.string(),
  status: z.string(),
  total: z.string(),
  spent: z.string(),
  held: z.string(),
  remaining: z.string(),
  perDay: z.nullable(z.string()),
  spentToday: z.string(),
  perCall: z.nullable(z.string()),
  threshold: z.string(),
});
/** The selected mandate's budget, formatted. */
export type BudgetInfo = z.infer<typeof BudgetInfo>;

/** One delegated call an agent declares: a capability, and how many times at most. */
export const DelegatedCall = z.strictObject({ capability: z.string(), maxCount: z.number() });
/** One delegated call an agent declares. */
export type DelegatedCall = z.infer<typeof DelegatedCall>;

/** An approval waiting for the human. */
export const PendingApproval = z.strictObject({
  id: z.string(),
  mandate: z.string(),
  agent: z.string(),
  /** The exact version the approval is bound to. */
  version: z.string(),
  worstCase: z.string(),
  threshold: z.string(),
  delegatedCalls: z.array(DelegatedCall),
  /** The input, pretty-printed JSON. */
  input: z.string(),
  requestedAt: z.string(),
  expiresAt: z.string(),
});
/** An approval waiting for the human. */
export type PendingApproval = z.infer<typeof PendingApproval>;

/** Everything the view shows. */
export const HolonViewState = z.strictObject({
  mandate: z.nullable(z.string()),
  budget: z.nullable(BudgetInfo),
  approvals: z.array(PendingApproval),
  /** False when the human turned the panel channel off: approvals are shown, not answerable here. */
  panelApprovals: z.boolean(),
});
/** Everything the view shows. */
export type HolonViewState = z.infer<typeof HolonViewState>;

/** View → host: the human clicked Approve. */
export const ApproveCommand = z.strictObject({ type: z.literal('approve'), id: Id });
/** View → host: the human clicked Approve. */
export type ApproveCommand = z.infer<typeof ApproveCommand>;

/** View → host: the human clicked Reject. */
export const RejectCommand = z.strictObject({ type: z.literal('reject'), id: Id });
/** View → host: the human clicked Reject. */
export type RejectCommand = z.infer<typeof RejectCommand>;

/** The commands the Holon view can run through `RunCommand`. */
export const RUN_COMMANDS = ['selectMandate', 'fundAccount', 'showReceipts', 'createMandate'] as const;

/** View → host: run one of Holon's commands (select mandate, fund, receipts, create mandate). */
export const RunCommand = z.strictObject({ type: z.literal('run'), command: z.enum(RUN_COMMANDS) });
/** View → host: run one of Holon's commands. */
export type RunCommand = z.infer<typeof RunCommand>;

/** Everything the view may send. */
export const HolonViewCommand = z.discriminatedUnion('type', [ReadyCommand, ApproveCommand, RejectCommand, RunCommand]);
/** Everything the view may send. */
export type HolonViewCommand = z.infer<typeof HolonViewCommand>;

/** The Holon view's protocol: its state, its state notification and its commands. */
export const holonViewProtocol = panelProtocol(HolonViewState, HolonViewCommand);
