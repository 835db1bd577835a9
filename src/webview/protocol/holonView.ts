/**
 * The Holon view (activity bar): the selected mandate and its budget, and the approvals that wait for
 * the human. Amounts arrive formatted ("3.10 EUR"): the view never does arithmetic on money.
 */
import type { Message, ReadyCommand } from './messages.ts';
import { isFiniteNumber, isMessage, isRecord, isString, isStringOrNull } from './messages.ts';

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

/** Everything the view shows. */
export interface HolonViewState {
  mandate: string | null;
  budget: BudgetInfo | null;
  approvals: PendingApproval[];
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

/** View → host: run one of Holon's commands (select mandate, fund, receipts). */
export interface RunCommand extends Message<'run'> {
  command: 'selectMandate' | 'fundAccount' | 'showReceipts' | 'createMandate';
}

/** Everything the view may send. */
export type HolonViewCommand = ReadyCommand | ApproveCommand | RejectCommand | RunCommand;

/** True for a state notification. */
export function isStateNotification(value: unknown): value is StateNotification {
  return isMessage(value) && value.type === 'state' && typeof (value as StateNotification).state === 'object';
}

/** The commands the Holon view can run through `RunCommand`. */
export const RUN_COMMANDS = ['selectMandate', 'fundAccount', 'showReceipts', 'createMandate'] as const satisfies readonly RunCommand['command'][];

/** True for a formatted budget. */
export function isBudgetInfo(value: unknown): value is BudgetInfo {
  return (
    isRecord(value) &&
    ['mandate', 'status', 'total', 'spent', 'held', 'remaining', 'spentToday', 'threshold'].every((k) => isString(value[k])) &&
    isStringOrNull(value['perDay']) &&
    isStringOrNull(value['perCall'])
  );
}

/** True for one delegated call of an approval: a capability and how many times at most. */
function isDelegatedCall(value: unknown): value is PendingApproval['delegatedCalls'][number] {
  return isRecord(value) && isString(value['capability']) && isFiniteNumber(value['maxCount']);
}

/** True for a pending approval. */
export function isPendingApproval(value: unknown): value is PendingApproval {
  return (
    isRecord(value) &&
    ['id', 'mandate', 'agent', 'version', 'worstCase', 'threshold', 'input', 'requestedAt', 'expiresAt'].every((k) => isString(value[k])) &&
    Array.isArray(value['delegatedCalls']) &&
    value['delegatedCalls'].every(isDelegatedCall)
  );
}

/** True for a whole, well-formed view state (what a state notification carries, and what the view saves). */
export function isHolonViewStateValue(value: unknown): value is HolonViewState {
  return (
    isRecord(value) &&
    isStringOrNull(value['mandate']) &&
    (value['budget'] === null || isBudgetInfo(value['budget'])) &&
    Array.isArray(value['approvals']) &&
    value['approvals'].every(isPendingApproval) &&
    typeof value['panelApprovals'] === 'boolean'
  );
}

/** True for any command the view may send, with the right field types (the host still validates with zod). */
export function isHolonViewCommand(value: unknown): value is HolonViewCommand {
  if (!isMessage(value) || !isRecord(value)) return false;
  switch (value.type) {
    case 'ready':
      return true;
    case 'approve':
    case 'reject':
      return isString(value['id']);
    case 'run':
      return (RUN_COMMANDS as readonly unknown[]).includes(value['command']);
    default:
      return false;
  }
}
