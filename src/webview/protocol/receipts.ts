/**
 * The receipts panel: every spend of the accounts (calls, payments, intents, purchases), the recent calls
 * with a status filter, one receipt tree, and the purchases' orders; all of one mandate, or of every one.
 */
import * as z from 'zod/mini';
import { Amount, Id, panelProtocol, ReadyCommand } from './messages.ts';

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
  cost: z.nullable(Amount),
  totalCost: z.nullable(Amount),
  worstCase: z.nullable(Amount),
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
  totalCost: z.nullable(Amount),
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
    z.strictObject({ product: z.string(), title: z.nullable(z.string()), quantity: z.number(), unitPrice: Amount, total: Amount }),
  ),
  total: Amount,
  charged: z.nullable(Amount),
  at: z.string(),
  /**
   * At a merchant that negotiated AP2: its chain of consent (the human's open mandate → the merchant-signed
   * checkout → the payment mandate → the transaction), each link re-verified; null without AP2.
   */
  consent: z.nullable(
    z.strictObject({
      holds: z.boolean(),
      steps: z.array(z.strictObject({ link: z.string(), ok: z.nullable(z.boolean()), detail: z.string() })),
    }),
  ),
});
/** A completed purchase. */
export type PurchaseRow = z.infer<typeof PurchaseRow>;

/** What a spend was: a call of an agent, a payment to a seller under terms, a payment intent, a purchase. */
export const SPEND_KINDS = ['call', 'payment', 'intent', 'purchase'] as const;

/** One spend of an account: what it held, or cost once settled. */
export const SpendRow = z.strictObject({
  id: z.string(),
  kind: z.enum(SPEND_KINDS),
  mandate: z.string(),
  account: z.string(),
  /** Who it paid: the agent, the payee, the merchant. */
  to: z.string(),
  /** What it holds while open; what it cost, its delegated calls included, once it ended. */
  amount: Amount,
  status: z.enum(['held', 'settled', 'released']),
  /** Why it was released, in words. */
  reason: z.nullable(z.string()),
  at: z.string(),
  /** The receipt of a call, to show its tree. */
  receipt: z.nullable(z.string()),
  /** A payment signed on a chain: `landed in block N`, or not landed and why (Holon's reading of the chain). */
  onChain: z.nullable(z.string().check(z.maxLength(1000))),
  /** That payment's settlement id, what the agent's answer named it by; null where no payment on a chain pays the spend. */
  settlement: z.nullable(z.string()),
});
/** One spend of an account. */
export type SpendRow = z.infer<typeof SpendRow>;

/** An account the spends came from: funded, spent and held by all its mandates, and what is left. */
export const AccountRow = z.strictObject({ id: z.string(), funded: Amount, spent: Amount, held: Amount, available: Amount });
/** An account the spends came from. */
export type AccountRow = z.infer<typeof AccountRow>;

/**
 * The spends behind one bar of the Holon view's chart: those settled on one UTC day, or those paid to one
 * payee over the chart's days; `label` says which, in words.
 */
export const SpendNarrow = z.strictObject({ day: z.nullable(z.string()), payee: z.nullable(z.string()), label: z.string() });
/** The spends behind one bar of the chart. */
export type SpendNarrow = z.infer<typeof SpendNarrow>;

/** Everything the panel shows. */
export const ReceiptsState = z.strictObject({
  /** The mandate whose spends and calls are shown; null for every mandate. */
  mandate: z.nullable(z.string()),
  /** Only the spends behind one bar of the chart (and their calls); null for all. */
  narrow: z.nullable(SpendNarrow),
  /** The mandates the panel can be narrowed to. */
  mandates: z.array(z.string()),
  accounts: z.array(AccountRow),
  spends: z.array(SpendRow),
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

/** View → host: show the spends and calls of one mandate (null: of every mandate). */
export const MandateFilterCommand = z.strictObject({ type: z.literal('mandate'), mandate: z.nullable(Id) });
/** View → host: show the spends and calls of one mandate. */
export type MandateFilterCommand = z.infer<typeof MandateFilterCommand>;

/** View → host: show every spend again, not only those behind a bar of the chart. */
export const ClearNarrowCommand = z.strictObject({ type: z.literal('clearNarrow') });
/** View → host: show every spend again. */
export type ClearNarrowCommand = z.infer<typeof ClearNarrowCommand>;

/** Everything the panel may send. */
export const ReceiptsCommand = z.discriminatedUnion('type', [
  ReadyCommand,
  SelectReceiptCommand,
  FilterCommand,
  MandateFilterCommand,
  ClearNarrowCommand,
]);
/** Everything the panel may send. */
export type ReceiptsCommand = z.infer<typeof ReceiptsCommand>;

/** The receipts panel's protocol: its state, its state notification and its commands. */
export const receiptsProtocol = panelProtocol(ReceiptsState, ReceiptsCommand);
