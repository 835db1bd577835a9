/** The receipts panel: one receipt tree, and the list of recent calls with a status filter. */
import type { Message, ReadyCommand } from './messages.ts';
import { isMessage } from './messages.ts';

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
