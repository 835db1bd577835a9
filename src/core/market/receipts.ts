/**
 * Receipts of agent calls, allowed or denied, as trees (delegated calls are children), and the record
 * Holon measures of every agent from them. The folded state keeps only the receipts still open (waiting
 * for a human, or running) and the per-agent aggregates; every receipt is filed under keys and read
 * back from the journal on demand, so memory does not grow with the number of calls.
 */
import type { ApprovalEvents } from '../approvals/slice.ts';
import type { Denial } from '../kernel/denials.ts';
import { denial } from '../kernel/denials.ts';
import type { MeasuredRecord, Receipt } from '../kernel/model.ts';
import type { Money, MoneyJson } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { Slice } from '../store/slice.ts';
import { big, eventsOf } from '../store/slice.ts';
import type { SpendEvents } from '../money/spend.ts';
import { INTERRUPTED_REASON } from '../money/spend.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';

/** The receipts' part of the state. */
export interface ReceiptsFields {
  /** Receipts not ended yet: waiting for a human's approval, or running. */
  open_receipts: Dict<Receipt>;
  /** What Holon measured of each agent, in the agent's price currency. */
  records: Dict<MeasuredRecord>;
  /** The receipt each agent-call approval still waiting is for. */
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
    /** When the call ended (older journals leave it out: the event's own time). */
    ended_at?: string;
    /** H, when the agent was paid through the terms pairings. */
    terms_hash?: string | null;
    /** Why Holon refused to pay the agent, where the call failed on a refusal of its own (absent: none). */
    denials?: Denial[];
  };
}

/** Builds a receipts event. */
export const receiptEvent = eventsOf<ReceiptEvents>();

/** What an interrupted call's receipt says: the money came back, and what the agent did is unknown. */
export const INTERRUPTED: NonNullable<Receipt['error']> = {
  code: INTERRUPTED_REASON,
  message:
    'the process running this call stopped before it settled: its hold was released ' +
    'and nothing was charged; what the agent did (its side effects) is unknown',
  charged: false,
};

/** The events that concern one receipt, in the vocabulary this module reads them in. */
export type ReceiptEvent =
  | { type: 'call.denied' | 'call.pending' | 'call.started'; data: ReceiptEvents['call.started'] }
  | { type: 'call.finished'; data: ReceiptEvents['call.finished'] }
  | { type: 'approval.decided'; data: ApprovalEvents['approval.decided'] }
  | { type: 'hold.released'; data: SpendEvents['hold.released'] };

/**
 * What one event does to a receipt: the one place a receipt's life is written down, used both by the
 * fold (for open receipts) and by whoever reads a receipt back from the journal.
 */
export function applyToReceipt(r: Receipt | undefined, e: ReceiptEvent, time: string): Receipt | undefined {
  switch (e.type) {
    case 'call.denied':
    case 'call.pending':
    case 'call.started':
      return { ...structuredClone(e.data.receipt), children: r?.children ?? [] };
    case 'call.finished':
      if (!r) return r;
      return {
        ...r,
        status: e.data.status,
        cost: { ...e.data.cost },
        error: e.data.error ? { ...e.data.error } : null,
        output_summary: e.data.output_summary,
        ended_at: e.data.ended_at ?? time,
        ...(e.data.terms_hash ? { terms_hash: e.data.terms_hash } : {}),
        ...(e.data.denials?.length ? { denials: structuredClone(e.data.denials) } : {}),
        duration_ms: e.data.duration_ms,
      };
    case 'approval.decided':
      // A call that waited for a human and was rejected ends rejected, whoever was (or was not) waiting.
      if (!r || r.status !== 'pending_approval' || e.data.decision !== 'rejected') return r;
      return { ...r, status: 'rejected', ended_at: time, denials: [denial('rejected', { approval: e.data.id })] };
    case 'hold.released':
      if (!r || r.status !== 'running' || e.data.reason !== INTERRUPTED.code) return r;
      return {
        ...r,
        status: 'interrupted',
        ended_at: time,
        cost: { amount: '0.00', currency: r.worst_case?.currency ?? 'EUR' },
        error: { ...INTERRUPTED },
      };
  }
}

const open = (r: Receipt): boolean => r.status === 'pending_approval' || r.status === 'running';

/** Keys receipts are filed under. */
export const RECEIPT_KEYS = {
  receipt: (id: string): string => `rcpt:${id}`,
  children: (id: string): string => `kids:${id}`,
  roots: 'roots',
} as const;

type Handled = ReceiptEvents & Pick<ApprovalEvents, 'approval.decided'> & Pick<SpendEvents, 'hold.released'>;

function track(s: ReceiptsFields, r: Receipt | undefined): void {
  if (!r) return;
  // A delegated call starts while its parent runs: the parent's open receipt lists it, so the receipt a
  // finished call returns is whole without reading the journal back.
  const parent = r.parent ? s.open_receipts[r.parent] : undefined;
  if (parent && !parent.children.includes(r.id)) parent.children.push(r.id);
  if (open(r)) {
    s.open_receipts[r.id] = r;
    if (r.approval && r.status === 'pending_approval') s.receipt_of_approval[r.approval] = r.id;
  } else {
    delete s.open_receipts[r.id];
    if (r.approval) delete s.receipt_of_approval[r.approval];
  }
}

export const receiptsSlice: Slice<ReceiptsFields, Handled> = {
  initial: () => ({ open_receipts: dict(), records: dict(), receipt_of_approval: dict(), records_version: 0 }),
  on: {
    'call.denied': (s, d, e) => track(s, applyToReceipt(s.open_receipts[d.receipt.id], { type: 'call.denied', data: d }, e.time)),
    'call.pending': (s, d, e) => track(s, applyToReceipt(s.open_receipts[d.receipt.id], { type: 'call.pending', data: d }, e.time)),
    'call.started': (s, d, e) => track(s, applyToReceipt(s.open_receipts[d.receipt.id], { type: 'call.started', data: d }, e.time)),
    'call.finished': (s, d, e) => {
      const r = s.open_receipts[d.receipt];
      if (!r) return;
      track(s, applyToReceipt(r, { type: 'call.finished', data: d }, e.time));
      if (!r.agent) return;
      const rec = (s.records[r.agent] ??= { runs: 0, succeeded: 0, cost_units: 0n, duration_ms: 0 });
      rec.runs += 1;
      if (d.status === 'succeeded') rec.succeeded += 1;
      rec.cost_units += M.parseUnits(d.price_cost.amount);
      rec.duration_ms += d.duration_ms;
      s.records_version += 1;
    },
    'approval.decided': (s, d, e) => {
      const id = s.receipt_of_approval[d.id];
      if (d.decision === 'approved' || !id) return;
      track(s, applyToReceipt(s.open_receipts[id], { type: 'approval.decided', data: d }, e.time));
    },
    'hold.released': (s, d, e) => track(s, applyToReceipt(s.open_receipts[d.hold], { type: 'hold.released', data: d }, e.time)),
  },
  keys: (s, e) => {
    switch (e.type) {
      case 'call.denied':
      case 'call.pending':
      case 'call.started': {
        const r = (e.data as ReceiptEvents['call.started']).receipt;
        if (s.open_receipts[r.id]) return [{ key: RECEIPT_KEYS.receipt(r.id) }];
        // A receipt's first event opens its key and its children's; a root is listed, a child is filed under its parent.
        return [
          { key: RECEIPT_KEYS.receipt(r.id), first: true },
          { key: RECEIPT_KEYS.children(r.id), first: true },
          r.parent ? { key: RECEIPT_KEYS.children(r.parent) } : { key: RECEIPT_KEYS.roots },
        ];
      }
      case 'call.finished': {
        const id = (e.data as ReceiptEvents['call.finished']).receipt;
        return s.open_receipts[id] ? [{ key: RECEIPT_KEYS.receipt(id) }] : [];
      }
      case 'approval.decided': {
        const id = s.receipt_of_approval[(e.data as ApprovalEvents['approval.decided']).id];
        return id ? [{ key: RECEIPT_KEYS.receipt(id) }] : [];
      }
      case 'hold.released': {
        const id = (e.data as SpendEvents['hold.released']).hold;
        return s.open_receipts[id] ? [{ key: RECEIPT_KEYS.receipt(id) }] : [];
      }
      default:
        return [];
    }
  },
  revive: (s) => {
    s.open_receipts = toDict(s.open_receipts);
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
