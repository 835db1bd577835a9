/** The receipts panel: one receipt tree, and the list of recent calls with a status filter. */
import * as z from 'zod/mini';
import { Id, panelProtocol, ReadyCommand } from './messages.ts';

/** Statuses a receipt can have. */
export const RECEIPT_STATUSES = ['pending_approval', 'running', 'succeeded', 'failed', 'denied', 'rejected', 'interrupted'] as const;

/** A receipt's status. */
export const ReceiptStatus = z.enum(RECEIPT_STATUSES);
/** A receipt's status. */
export type ReceiptStatus = z.infer<typeof ReceiptStatus>;

/** How deep a receipt tree may nest before it is refused (the gateway limits delegation depth far below). */
export const MAX_RECEIPT_DEPTH = 32;

const Node = z.strictObject({
  id: z.string(),
  mandate: z.string(),
  agent: z.nullable(z.string()),
  version: z.nullable(z.string()),
  status: ReceiptStatus,
  cost: z.nullable(z.string()),
  totalCost: z.nullable(z.string()),
  worstCase: z.nullable(z.string()),
  durationMs: z.nullable(z.number()),
  approval: z.nullable(z.string()),
  /** Which channel decided the approval, if any. */
  approvalChannel: z.nullable(z.string()),
  reasons: z.array(z.string()),
  error: z.nullable(z.string()),
  startedAt: z.string(),
  /** Its delegated calls. */
  get children(): z.ZodMiniArray<typeof Node> {
    return z.array(Node);
  },
});

/** True when no node of the tree below `value` is more than `limit` levels down (checked without recursion). */
function depthAtMost(value: unknown, limit: number): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > limit) return false;
    level = level.flatMap((node) => {
      const children = typeof node === 'object' && node !== null ? (node as { children?: unknown }).children : undefined;
      return Array.isArray(children) ? (children as unknown[]) : [];
    });
  }
  return true;
}

/** One node of a receipt tree, formatted for display, with its children (to `MAX_RECEIPT_DEPTH` levels). */
export const ReceiptNode = z.pipe(
  z.custom<unknown>((value) => depthAtMost(value, MAX_RECEIPT_DEPTH)),
  Node,
);
/** One node of a receipt tree, formatted for display. */
export type ReceiptNode = z.infer<typeof Node>;

/** A row of the recent list (a root call). */
export const ReceiptRow = z.strictObject({
  id: z.string(),
  mandate: z.string(),
  agent: z.nullable(z.string()),
  status: ReceiptStatus,
  totalCost: z.nullable(z.string()),
  startedAt: z.string(),
  delegatedCalls: z.number(),
});
/** A row of the recent list (a root call). */
export type ReceiptRow = z.infer<typeof ReceiptRow>;

/** The filter's choices: every status, and `all`. */
export const RECEIPT_FILTERS = ['all', ...RECEIPT_STATUSES] as const;

/** A filter of the recent list: a status, or `all`. */
export const ReceiptFilter = z.enum(RECEIPT_FILTERS);
/** A filter of the recent list: a status, or `all`. */
export type ReceiptFilter = z.infer<typeof ReceiptFilter>;

/** A purchase completed at a merchant: its order and lines, at the merchant's prices, formatted. */
export const PurchaseRow = z.strictObject({
  id: z.string(),
  mandate: z.string(),
  merchant: z.string(),
  order: z.string(),
  lines: z.array(
    z.strictObject({ product: z.string(), title: z.nullable(z.string()), quantity: z.number(), unitPrice: z.string(), total: z.string() }),
  ),
  total: z.string(),
  charged: z.nullable(z.string()),
  at: z.string(),
});
/** A completed purchase. */
export type PurchaseRow = z.infer<typeof PurchaseRow>;

/** Everything the panel shows. */
export const ReceiptsState = z.strictObject({
  filter: ReceiptFilter,
  recent: z.array(ReceiptRow),
  selected: z.nullable(ReceiptNode),
  purchases: z.array(PurchaseRow),
});
/** Everything the panel shows. */
export type ReceiptsState = z.infer<typeof ReceiptsState>;

/** View → host: show this receipt's tree. */
export const SelectReceiptCommand = z.strictObject({ type: z.literal('select'), id: Id });
/** View → host: show this receipt's tree. */
export type SelectReceiptCommand = z.infer<typeof SelectReceiptCommand>;

/** View → host: filter the list by status. */
export const FilterCommand = z.strictObject({ type: z.literal('filter'), filter: ReceiptFilter });
/** View → host: filter the list by status. */
export type FilterCommand = z.infer<typeof FilterCommand>;

/** Everything the panel may send. */
export const ReceiptsCommand = z.discriminatedUnion('type', [ReadyCommand, SelectReceiptCommand, FilterCommand]);
/** Everything the panel may send. */
export type ReceiptsCommand = z.infer<typeof ReceiptsCommand>;

/** The receipts panel's protocol: its state, its state notification and its commands. */
export const receiptsProtocol = panelProtocol(ReceiptsState, ReceiptsCommand);
