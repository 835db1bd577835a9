/** The receipts panel: one receipt tree, and the list of recent calls with a status filter. */
import type { Message, ReadyCommand } from './messages.ts';
import { isFiniteNumber, isMessage, isRecord, isString, isStringArray, isStringOrNull } from './messages.ts';

/** Statuses a receipt can have. */
export const RECEIPT_STATUSES = ['pending_approval', 'running', 'succeeded', 'failed', 'denied', 'rejected'] as const;

/** One node of a receipt tree, formatted for display. */
export interface ReceiptNode {
  id: string;
  mandate: string;
  agent: string | null;
  version: string | null;
  status: (typeof RECEIPT_STATUSES)[number];
  cost: string | null;
  totalCost: string | null;
  worstCase: string | null;
  durationMs: number | null;
  approval: string | null;
  /** Which channel decided the approval, if any. */
  approvalChannel: string | null;
  reasons: string[];
  error: string | null;
  startedAt: string;
  children: ReceiptNode[];
}

/** A row of the recent list (a root call). */
export interface ReceiptRow {
  id: string;
  mandate: string;
  agent: string | null;
  status: ReceiptNode['status'];
  totalCost: string | null;
  startedAt: string;
  delegatedCalls: number;
}

/** Everything the panel shows. */
export interface ReceiptsState {
  filter: ReceiptNode['status'] | 'all';
  recent: ReceiptRow[];
  selected: ReceiptNode | null;
}

/** Host → view: the whole state. */
export interface ReceiptsStateNotification extends Message<'state'> {
  state: ReceiptsState;
}

/** View → host: show this receipt's tree. */
export interface SelectReceiptCommand extends Message<'select'> {
  id: string;
}

/** View → host: filter the list by status. */
export interface FilterCommand extends Message<'filter'> {
  filter: ReceiptsState['filter'];
}

/** Everything the panel may send. */
export type ReceiptsCommand = ReadyCommand | SelectReceiptCommand | FilterCommand;

/** True for a state notification of this panel. */
export function isReceiptsState(value: unknown): value is ReceiptsStateNotification {
  return isMessage(value) && value.type === 'state' && typeof (value as ReceiptsStateNotification).state === 'object';
}

/** The filter's choices: every status, and `all`. */
export const RECEIPT_FILTERS = ['all', ...RECEIPT_STATUSES] as const satisfies readonly ReceiptsState['filter'][];

/** How deep a receipt tree may nest before the guard refuses it (the gateway limits delegation depth far below). */
export const MAX_RECEIPT_DEPTH = 32;

/** True for a receipt status. */
export function isReceiptStatus(value: unknown): value is ReceiptNode['status'] {
  return (RECEIPT_STATUSES as readonly unknown[]).includes(value);
}

/** True for a filter value: a status or `all`. */
export function isReceiptFilter(value: unknown): value is ReceiptsState['filter'] {
  return value === 'all' || isReceiptStatus(value);
}

/** True for a receipt node and all its children (to `MAX_RECEIPT_DEPTH`). */
export function isReceiptNode(value: unknown, depth = 0): value is ReceiptNode {
  return (
    depth <= MAX_RECEIPT_DEPTH &&
    isRecord(value) &&
    isString(value['id']) &&
    isString(value['mandate']) &&
    isString(value['startedAt']) &&
    isReceiptStatus(value['status']) &&
    ['agent', 'version', 'cost', 'totalCost', 'worstCase', 'approval', 'approvalChannel', 'error'].every((k) => isStringOrNull(value[k])) &&
    (value['durationMs'] === null || isFiniteNumber(value['durationMs'])) &&
    isStringArray(value['reasons']) &&
    Array.isArray(value['children']) &&
    value['children'].every((child) => isReceiptNode(child, depth + 1))
  );
}

/** True for a row of the recent list. */
export function isReceiptRow(value: unknown): value is ReceiptRow {
  return (
    isRecord(value) &&
    isString(value['id']) &&
    isString(value['mandate']) &&
    isString(value['startedAt']) &&
    isStringOrNull(value['agent']) &&
    isStringOrNull(value['totalCost']) &&
    isReceiptStatus(value['status']) &&
    isFiniteNumber(value['delegatedCalls'])
  );
}

/** True for a whole, well-formed panel state (what a state notification carries, and what the panel saves). */
export function isReceiptsStateValue(value: unknown): value is ReceiptsState {
  return (
    isRecord(value) &&
    isReceiptFilter(value['filter']) &&
    Array.isArray(value['recent']) &&
    value['recent'].every(isReceiptRow) &&
    (value['selected'] === null || isReceiptNode(value['selected']))
  );
}

/** True for any command the panel may send, with the right field types (the host still validates with zod). */
export function isReceiptsCommand(value: unknown): value is ReceiptsCommand {
  if (!isMessage(value) || !isRecord(value)) return false;
  switch (value.type) {
    case 'ready':
      return true;
    case 'select':
      return isString(value['id']);
    case 'filter':
      return isReceiptFilter(value['filter']);
    default:
      return false;
  }
}
