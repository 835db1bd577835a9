/**
 * The Holon view (activity bar): the selected mandate and its budget, approvals and forms that wait for
 * the human. Amounts arrive formatted ("3.10 EUR"): the view never does arithmetic on money.
 */
import type { Message, ReadyCommand } from './messages.ts';
import { isMessage } from './messages.ts';

/** The selected mandate's budget, formatted. */
export interface BudgetInfo {
  mandate: string;
  status: string;
  total: string;
  spent: string;
  held: string;
  remaining: string;
  perDay: string | null;
  spentToday: string;
  perCall: string | null;
  threshold: string;
}

/** An approval waiting for the human. */
export interface PendingApproval {
  id: string;
  mandate: string;
  agent: string;
  /** The exact version the approval is bound to. */
  version: string;
  worstCase: string;
  threshold: string;
  delegatedCalls: { capability: string; maxCount: number }[];
  /** The input, pretty-printed JSON. */
  input: string;
  requestedAt: string;
  expiresAt: string;
}

/** One field of a form, from a JSON schema subset (the one MCP elicitation uses). */
export type FieldSchema =
  | { type: 'string'; title?: string; description?: string; enum?: string[]; enumNames?: string[]; minLength?: number; maxLength?: number; pattern?: string; format?: string; default?: string }
  | { type: 'number' | 'integer'; title?: string; description?: string; minimum?: number; maximum?: number; default?: number }
  | { type: 'boolean'; title?: string; description?: string; default?: boolean };

/** A flat object schema: one field per property. */
export interface FormSchema {
  type: 'object';
  properties: Record<string, FieldSchema>;
  required?: string[];
}

/** A form a server raised for the human. */
export interface PendingForm {
  id: string;
  mandate: string;
  message: string;
  schema: FormSchema;
}

/** Everything the view shows. */
export interface HolonViewState {
  mandate: string | null;
  budget: BudgetInfo | null;
  approvals: PendingApproval[];
  forms: PendingForm[];
  /** False when the human turned the panel channel off: approvals are shown, not answerable here. */
  panelApprovals: boolean;
}

/** Host → view: the whole state (small; sent on every change). */
export interface StateNotification extends Message<'state'> {
  state: HolonViewState;
}

/** View → host: the human clicked Approve. */
export interface ApproveCommand extends Message<'approve'> {
  id: string;
}

/** View → host: the human clicked Reject. */
export interface RejectCommand extends Message<'reject'> {
  id: string;
}

/** View → host: the human answered (or dismissed) a form. */
export interface AnswerFormCommand extends Message<'answerForm'> {
  id: string;
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean>;
}

/** View → host: run one of Holon's commands (select mandate, fund, receipts). */
export interface RunCommand extends Message<'run'> {
  command: 'selectMandate' | 'fundAccount' | 'showReceipts' | 'createMandate';
}

/** Everything the view may send. */
export type HolonViewCommand = ReadyCommand | ApproveCommand | RejectCommand | AnswerFormCommand | RunCommand;

/** True for a state notification. */
export function isStateNotification(value: unknown): value is StateNotification {
  return isMessage(value) && value.type === 'state' && typeof (value as StateNotification).state === 'object';
}
