/**
 * Reading receipts back: a receipt and the tree of its delegated calls, from the journal by key (the
 * open ones from the folded state), with old journals' events read in today's vocabulary.
 */
import { HolonError } from '../kernel/errors.ts';
import { upcast } from '../fold/legacy.ts';
import type { MandatesFields } from '../accounts/mandates.ts';
import type { Receipt } from '../kernel/model.ts';
import type { Money, MoneyJson } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { EventStore, JournalEvent } from '../store/store.ts';
import type { ReceiptEvent, ReceiptEvents, ReceiptsFields } from './receipts.ts';
import { applyToReceipt, RECEIPT_KEYS } from './receipts.ts';
import type { SettlementFields } from '../rails/settlement.ts';
import type { SettlementView } from '../rails/settlementView.ts';
import { settlementFor } from '../rails/settlement.ts';
import { settlementView } from '../rails/settlementView.ts';

/** Where receipts are read back from: the store, whose state has the mandates old events need. */
export type ReceiptSource = Pick<EventStore<MandatesFields & ReceiptsFields & SettlementFields>, 'state' | 'readKey'>;

/** A receipt, read back from the journal (the open ones from the folded state). */
export async function readReceipt(store: ReceiptSource, id: string): Promise<Receipt | undefined> {
  let r: Receipt | undefined;
  for (const raw of await store.readKey(RECEIPT_KEYS.receipt(id))) {
    // An old journal's events are read in today's vocabulary, as the fold reads them.
    for (const e of upcast(store.state, raw)) r = applyToReceipt(r, e as ReceiptEvent & JournalEvent, e.time);
  }
  if (!r) return undefined;
  const children = new Set<string>();
  for (const e of await store.readKey(RECEIPT_KEYS.children(id))) {
    const child = (e.data as { receipt: { id: string; parent: string | null } }).receipt;
    if (child.parent === id) children.add(child.id);
  }
  return { ...r, children: [...children] };
}

/** A receipt with its delegated calls, and the cost of the whole tree. */
export interface ReceiptTree extends Omit<Receipt, 'children'> {
  total_cost: MoneyJson | null;
  /** How many delegated calls are under it, at any depth. */
  descendants: number;
  /** The payment it made on a chain, as Holon read it back from the chain (an agent paid through x402). */
  settlement: SettlementView | null;
  children: ReceiptTree[];
}

/** Builds the tree under a receipt, reading it back from the journal. */
export async function receiptTree(store: ReceiptSource, id: string): Promise<ReceiptTree> {
  const r = await readReceipt(store, id);
  if (!r) throw new HolonError('not_found', `no receipt "${id}"`, { receipt: id });
  return treeOf(store, r);
}

/** The tree under a receipt already in hand: a call that delegated nothing needs no read. */
export async function treeOf(store: ReceiptSource, r: Receipt): Promise<ReceiptTree> {
  const children = await Promise.all(r.children.map((c) => receiptTree(store, c)));
  let total: Money | null = r.cost ? M.fromJson(r.cost) : null;
  for (const c of children) {
    if (c.total_cost) total = total ? M.add(total, M.fromJson(c.total_cost)) : M.fromJson(c.total_cost);
  }
  const descendants = children.reduce((n, c) => n + 1 + c.descendants, 0);
  const paid = settlementFor(store.state, { kind: 'call', id: r.id });
  return { ...r, total_cost: total ? M.toJson(total) : null, descendants, settlement: paid ? settlementView(paid) : null, children };
}

/** The tree of a receipt under one mandate (another mandate's receipts are not found). */
export async function mandateReceiptTree(store: ReceiptSource, mandate: string, id: string): Promise<ReceiptTree> {
  const r = await readReceipt(store, id);
  if (!r || r.mandate !== mandate) throw new HolonError('not_found', `no receipt "${id}" under mandate ${mandate}`, { receipt: id });
  return receiptTree(store, id);
}

/** The newest root calls (delegated calls stay under their parents), optionally of one mandate or status. */
export async function recentRootReceipts(
  store: ReceiptSource,
  filter: { mandate?: string | undefined; status?: Receipt['status'] | undefined; limit: number },
): Promise<Receipt[]> {
  const out: Receipt[] = [];
  // Newest first, in growing batches, until enough match (a filter may skip many).
  let want = filter.limit;
  let seen = 0;
  for (;;) {
    const batch = await store.readKey(RECEIPT_KEYS.roots, { newest: want });
    for (const e of batch.slice(0, batch.length - seen).reverse()) {
      const id = (e.data as ReceiptEvents['call.started']).receipt.id;
      const r = await readReceipt(store, id);
      if (r && (!filter.mandate || r.mandate === filter.mandate) && (!filter.status || r.status === filter.status)) out.push(r);
      if (out.length >= filter.limit) return out;
    }
    if (batch.length < want) return out;
    seen = batch.length;
    want *= 4;
  }
}
