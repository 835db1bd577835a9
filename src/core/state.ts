import type { JournalEvent, Reducer } from './journal.ts';
import type { AgentEntry, Approval, ApprovalChannel, Mandate, MeasuredRecord, Receipt, ReceiptStatus } from './model.ts';
import type { MoneyJson } from './money.ts';
import { parseUnits } from './money.ts';

/** Running totals of a mandate, in its currency, as fixed-point units. */
export interface MandateSpend {
  spent: bigint;
  held: bigint;
  /** Spent per UTC day ("2026-11-29"). */
  by_day: Record<string, bigint>;
}

/** Running totals of an account, per currency. */
export interface AccountTotals {
  funded: Record<string, bigint>;
  spent: Record<string, bigint>;
  held: Record<string, bigint>;
}

/** Everything the journal folds into: the same in every process that reads it. */
export interface HolonState {
  accounts: Record<string, AccountTotals>;
  mandates: Record<string, Mandate>;
  spend: Record<string, MandateSpend>;
  /** Human-set rates, "FROM/TO" → units of TO per FROM. */
  fx: Record<string, string>;
  agents: Record<string, AgentEntry>;
  records: Record<string, MeasuredRecord>;
  approvals: Record<string, Approval>;
  receipts: Record<string, Receipt>;
  /** Receipt ids per mandate, oldest first. */
  receipts_by_mandate: Record<string, string[]>;
  /** What each running call holds, in its mandate's currency. */
  holds: Record<string, { mandate: string; units: bigint }>;
  /** The human's settings that every process must honour. */
  settings: { approval_channels: ApprovalChannel[] | null };
}

/** Event payloads, by type. */
export interface EventMap {
  'account.funded': { account: string; amount: string; currency: string };
  'mandate.created': { mandate: Mandate };
  'mandate.updated': { mandate: Mandate };
  'fx.set': { from: string; to: string; rate: string };
  'settings.updated': { approval_channels: ApprovalChannel[] | null };
  'agent.added': { entry: AgentEntry };
  'approval.requested': { approval: Approval };
  'approval.decided': { id: string; decision: 'approved' | 'rejected'; channel: ApprovalChannel };
  'approval.released': { id: string };
  'call.denied': { receipt: Receipt };
  'call.pending': { receipt: Receipt };
  'call.started': { receipt: Receipt; hold: string; approval: string | null };
  'call.settled': {
    receipt: string;
    status: Extract<ReceiptStatus, 'succeeded' | 'failed'>;
    cost: MoneyJson;
    price_cost: MoneyJson;
    error: Receipt['error'];
    output_summary: string | null;
    ended_at: string;
    duration_ms: number;
  };
}

/** A typed event constructor. */
export function ev<K extends keyof EventMap>(type: K, data: EventMap[K]): { type: K; data: EventMap[K] } {
  return { type, data };
}

const bump = (rec: Record<string, bigint>, key: string, by: bigint): void => {
  rec[key] = (rec[key] ?? 0n) + by;
};

function spendOf(s: HolonState, mandate: string): MandateSpend {
  return (s.spend[mandate] ??= { spent: 0n, held: 0n, by_day: {} });
}

function accountOf(s: HolonState, account: string): AccountTotals {
  return (s.accounts[account] ??= { funded: {}, spent: {}, held: {} });
}

function putReceipt(s: HolonState, r: Receipt): void {
  const known = s.receipts[r.id];
  s.receipts[r.id] = r;
  if (known) return;
  (s.receipts_by_mandate[r.mandate] ??= []).push(r.id);
  if (r.parent) s.receipts[r.parent]?.children.push(r.id);
}

/**
 * Folds one event. Unknown types are skipped so that an older build can read a newer journal. Objects
 * are copied in, never kept: an event is a fact, and the state changes after it.
 */
export function applyEvent(s: HolonState, e: JournalEvent): void {
  switch (e.type) {
    case 'account.funded': {
      const d = e.data as EventMap['account.funded'];
      bump(accountOf(s, d.account).funded, d.currency, parseUnits(d.amount));
      return;
    }
    case 'mandate.created':
    case 'mandate.updated': {
      const d = e.data as EventMap['mandate.created'];
      s.mandates[d.mandate.id] = structuredClone(d.mandate);
      spendOf(s, d.mandate.id);
      accountOf(s, d.mandate.account);
      return;
    }
    case 'settings.updated': {
      s.settings = { approval_channels: (e.data as EventMap['settings.updated']).approval_channels };
      return;
    }
    case 'fx.set': {
      const d = e.data as EventMap['fx.set'];
      s.fx[`${d.from}/${d.to}`] = d.rate;
      return;
    }
    case 'agent.added': {
      const d = e.data as EventMap['agent.added'];
      s.agents[d.entry.manifest.id] = structuredClone(d.entry);
      return;
    }
    case 'approval.requested': {
      const d = e.data as EventMap['approval.requested'];
      s.approvals[d.approval.id] = structuredClone(d.approval);
      return;
    }
    case 'approval.decided': {
      const d = e.data as EventMap['approval.decided'];
      const a = s.approvals[d.id];
      if (!a || a.status !== 'pending') return;
      a.status = d.decision;
      a.channel = d.channel;
      a.decided_at = e.time;
      const r = s.receipts[a.receipt];
      if (d.decision === 'rejected' && r && r.status === 'pending_approval') {
        r.status = 'rejected';
        r.ended_at = e.time;
        r.reasons = ['the human rejected this call'];
      }
      return;
    }
    case 'approval.released': {
      const a = s.approvals[(e.data as EventMap['approval.released']).id];
      if (a) a.released = true;
      return;
    }
    case 'call.denied':
    case 'call.pending': {
      putReceipt(s, structuredClone((e.data as EventMap['call.denied']).receipt));
      return;
    }
    case 'call.started': {
      const d = e.data as EventMap['call.started'];
      const r = structuredClone(d.receipt);
      putReceipt(s, r);
      const hold = parseUnits(d.hold);
      const parentHold = r.parent ? s.holds[r.parent] : undefined;
      if (parentHold) {
        // A delegated call draws on its parent's hold: the mandate's total held does not change.
        parentHold.units -= hold;
      } else {
        const m = s.mandates[r.mandate];
        spendOf(s, r.mandate).held += hold;
        if (m) bump(accountOf(s, m.account).held, m.currency, hold);
      }
      s.holds[r.id] = { mandate: r.mandate, units: hold };
      if (d.approval) {
        const a = s.approvals[d.approval];
        if (a) {
          a.status = 'used';
          a.used_by = r.id;
        }
      }
      return;
    }
    case 'call.settled': {
      const d = e.data as EventMap['call.settled'];
      const r = s.receipts[d.receipt];
      if (!r) return;
      r.status = d.status;
      r.cost = { ...d.cost };
      r.error = d.error ? { ...d.error } : null;
      r.output_summary = d.output_summary;
      r.ended_at = d.ended_at;
      r.duration_ms = d.duration_ms;
      const cost = parseUnits(d.cost.amount);
      const hold = s.holds[r.id]?.units ?? 0n;
      delete s.holds[r.id];
      const m = s.mandates[r.mandate];
      const sp = spendOf(s, r.mandate);
      sp.spent += cost;
      bump(sp.by_day, d.ended_at.slice(0, 10), cost);
      const parentHold = r.parent ? s.holds[r.parent] : undefined;
      if (parentHold) {
        // What the child did not spend goes back to its parent's hold; what it spent leaves the held total.
        parentHold.units += hold - cost;
        sp.held -= cost;
        if (m) bump(accountOf(s, m.account).held, m.currency, -cost);
      } else {
        sp.held -= hold;
        if (m) bump(accountOf(s, m.account).held, m.currency, -hold);
      }
      if (m) bump(accountOf(s, m.account).spent, m.currency, cost);
      if (r.agent) {
        const rec = (s.records[r.agent] ??= { runs: 0, succeeded: 0, cost_units: 0n, duration_ms: 0 });
        rec.runs += 1;
        if (d.status === 'succeeded') rec.succeeded += 1;
        rec.cost_units += parseUnits(d.price_cost.amount);
        rec.duration_ms += d.duration_ms;
      }
      return;
    }
    default:
      return;
  }
}

/** An empty state. */
export function initialState(): HolonState {
  return { accounts: {}, mandates: {}, spend: {}, fx: {}, agents: {}, records: {}, approvals: {}, receipts: {}, receipts_by_mandate: {}, holds: {}, settings: { approval_channels: null } };
}

const big = (v: unknown): bigint => BigInt(typeof v === 'string' || typeof v === 'number' ? v : 0);
const bigMap = (m: Record<string, unknown>): Record<string, bigint> => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, big(v)]));

/**
 * The reducer every process folds the journal with. A snapshot writes bigints as strings and turns the
 * few maps that hold them back into bigints after a plain JSON.parse: a reviver over every value of a
 * large snapshot would cost more than it saves.
 */
export const holonReducer: Reducer<HolonState> = {
  initial: initialState,
  apply: applyEvent,
  serialize: (s) => JSON.stringify(s, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
  deserialize: (text) => {
    const s = JSON.parse(text) as HolonState;
    for (const a of Object.values(s.accounts)) {
      a.funded = bigMap(a.funded);
      a.spent = bigMap(a.spent);
      a.held = bigMap(a.held);
    }
    for (const sp of Object.values(s.spend)) {
      sp.spent = big(sp.spent);
      sp.held = big(sp.held);
      sp.by_day = bigMap(sp.by_day);
    }
    for (const r of Object.values(s.records)) r.cost_units = big(r.cost_units);
    for (const h of Object.values(s.holds)) h.units = big(h.units);
    s.settings ??= { approval_channels: null };
    return s;
  },
};
