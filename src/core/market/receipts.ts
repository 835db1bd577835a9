/**
 * Receipts of agent calls, allowed or denied, as trees (delegated calls are children), and the record
 * Holon measures of every agent from them.
 */
import type { ApprovalEvents } from '../approvals/slice.ts';
import { denial } from '../denials.ts';
import { HolonError } from '../errors.ts';
import type { MeasuredRecord, Receipt } from '../model.ts';
import type { Money, MoneyJson } from '../money.ts';
import * as M from '../money.ts';
import type { Slice } from '../slice.ts';
import { big, eventsOf } from '../slice.ts';
import type { Dict } from '../util.ts';
import { dict, toDict } from '../util.ts';

/** The receipts' part of the state. */
export interface ReceiptsFields {
  receipts: Dict<Receipt>;
  /** What Holon measured of each agent, in the agent's price currency. */
  records: Dict<MeasuredRecord>;
  /** The receipt each agent-call approval is for. */
  receipt_of_approval: Dict<string>;
  /** Counts record changes, so rankings derived from them know when to be recomputed. */
  records_version: number;
}

/** The receipts' events. A call's hold and approval are the spend's and the approvals' own events. */
export interface ReceiptEvents {
  'call.denied': { receipt: Receipt };
  'call.pending': { receipt: Receipt };
  'call.started': { receipt: Receipt };
  'call.finished': {
    receipt: string;
    status: 'succeeded' | 'failed';
    /** What was charged, in the mandate's currency. */
    cost: MoneyJson;
    /** What the agent's price came to, in its own currency: what its record measures. */
    price_cost: MoneyJson;
    error: Receipt['error'];
    output_summary: string | null;
    duration_ms: number;
  };
}

/** Builds a receipts event. */
export const receiptEvent = eventsOf<ReceiptEvents>();

function put(s: ReceiptsFields, r: Receipt): void {
  const known = s.receipts[r.id];
  s.receipts[r.id] = structuredClone(r);
  if (r.approval) s.receipt_of_approval[r.approval] = r.id;
  if (!known && r.parent) s.receipts[r.parent]?.children.push(r.id);
}

export const receiptsSlice: Slice<ReceiptsFields, ReceiptEvents & Pick<ApprovalEvents, 'approval.decided'>> = {
  initial: () => ({ receipts: dict(), records: dict(), receipt_of_approval: dict(), records_version: 0 }),
  on: {
    'call.denied': (s, d) => put(s, d.receipt),
    'call.pending': (s, d) => put(s, d.receipt),
    'call.started': (s, d) => put(s, d.receipt),
    'call.finished': (s, d, e) => {
      const r = s.receipts[d.receipt];
      if (!r) return;
      r.status = d.status;
      r.cost = { ...d.cost };
      r.error = d.error ? { ...d.error } : null;
      r.output_summary = d.output_summary;
      r.ended_at = e.time;
      r.duration_ms = d.duration_ms;
      if (!r.agent) return;
      const rec = (s.records[r.agent] ??= { runs: 0, succeeded: 0, cost_units: 0n, duration_ms: 0 });
      rec.runs += 1;
      if (d.status === 'succeeded') rec.succeeded += 1;
      rec.cost_units += M.parseUnits(d.price_cost.amount);
      rec.duration_ms += d.duration_ms;
      s.records_version += 1;
    },
    // A call that waited for a human and was rejected ends rejected, whoever was (or was not) waiting.
    'approval.decided': (s, d, e) => {
      if (d.decision !== 'rejected') return;
      const id = s.receipt_of_approval[d.id];
      const r = id ? s.receipts[id] : undefined;
      if (!r || r.status !== 'pending_approval') return;
      r.status = 'rejected';
      r.ended_at = e.time;
      r.denials = [denial('rejected', { approval: d.id })];
    },
  },
  revive: (s) => {
    s.receipts = toDict(s.receipts);
    s.records = toDict(s.records, (r) => ({ ...r, cost_units: big(r.cost_units) }));
    s.receipt_of_approval = toDict(s.receipt_of_approval);
    s.records_version ??= 0;
  },
};

/** A measured record as rates and means: the one place they are computed. */
export interface RecordStats {
  runs: number;
  /** Successes per run, in millionths (1_000_000 = always). */
  success_units: bigint;
  /** Mean price per run, in the agent's currency. */
  mean_cost: Money;
  mean_duration_ms: number;
}

/** The stats of a measured record (null when the agent never ran). */
export function recordStats(rec: MeasuredRecord | undefined, currency: string): RecordStats | null {
  if (!rec || rec.runs <= 0) return null;
  const runs = BigInt(rec.runs);
  return {
    runs: rec.runs,
    success_units: (BigInt(rec.succeeded) * 10n ** BigInt(M.SCALE)) / runs,
    mean_cost: { units: rec.cost_units / runs, currency },
    mean_duration_ms: Math.round(rec.duration_ms / rec.runs),
  };
}

/** A receipt with its delegated calls, and the cost of the whole tree. */
export interface ReceiptTree extends Omit<Receipt, 'children'> {
  total_cost: MoneyJson | null;
  /** How many delegated calls are under it, at any depth. */
  descendants: number;
  children: ReceiptTree[];
}

/** Builds the tree under a receipt. */
export function receiptTree(s: ReceiptsFields, id: string): ReceiptTree {
  const r = s.receipts[id];
  if (!r) throw new HolonError('not_found', `no receipt "${id}"`, { receipt: id });
  const children = r.children.map((c) => receiptTree(s, c));
  let total: Money | null = r.cost ? M.fromJson(r.cost) : null;
  for (const c of children) {
    if (c.total_cost) total = total ? M.add(total, M.fromJson(c.total_cost)) : M.fromJson(c.total_cost);
  }
  const descendants = children.reduce((n, c) => n + 1 + c.descendants, 0);
  return { ...structuredClone(r), total_cost: total ? M.toJson(total) : null, descendants, children };
}

/** The tree of a receipt under one mandate (another mandate's receipts are not found). */
export function mandateReceiptTree(s: ReceiptsFields, mandate: string, id: string): ReceiptTree {
  const r = s.receipts[id];
  if (!r || r.mandate !== mandate) throw new HolonError('not_found', `no receipt "${id}" under mandate ${mandate}`, { receipt: id });
  return receiptTree(s, id);
}

/** The newest root calls (delegated calls stay under their parents), optionally of one mandate or status. */
export function recentRootReceipts(s: ReceiptsFields, filter: { mandate?: string | undefined; status?: Receipt['status'] | undefined; limit: number }): Receipt[] {
  return Object.values(s.receipts)
    .filter((r) => r.parent === null && (!filter.mandate || r.mandate === filter.mandate) && (!filter.status || r.status === filter.status))
    .sort((a, b) => (a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : 0))
    .slice(0, filter.limit);
}
