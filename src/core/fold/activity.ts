/**
 * What a human looks back on: every spend of each account — a call, a payment under terms, a payment
 * intent, a purchase — with what it held and what it cost, and the newest refusals with their reasons.
 * The spends' own fields keep only running totals and open holds (a settled hold is gone), and a refusal
 * is a ledger line nothing folds; this slice keeps the newest of each, folded from the events the spends,
 * the receipts and the ledger already write, so every process (the editor's view, its receipts panel)
 * reads the same lists. The journal keeps everything; these lists are bounded.
 */
import * as M from '../kernel/amount.ts';
import type { Denial, DenialCode } from '../kernel/denials.ts';
import type { LedgerEvents } from '../accounts/ledger.ts';
import type { ReceiptEvents } from '../market/receipts.ts';
import type { Payee, SpendEvents } from '../money/spend.ts';
import type { Slice } from '../store/slice.ts';
import type { Dict } from '../kernel/util.ts';
import { big } from '../store/slice.ts';
import { bump, dict, toDict } from '../kernel/util.ts';

/** How many spends each account keeps here (the newest). */
export const SPENDS_KEPT = 500;
/** How many refusals are kept here (the newest, of every mandate). */
export const REFUSALS_KEPT = 100;

/** One spend of an account, from its hold being placed to its settlement or release. */
export interface SpendEntry {
  /** The hold's id: a call's receipt, an intent's id, a payment's or a purchase's hold. */
  id: string;
  mandate: string;
  account: string;
  payee: Payee;
  currency: string;
  /** The most it held, a decimal string in `currency`. */
  held: string;
  status: 'held' | 'settled' | 'released';
  /**
   * What it has cost so far, its delegated calls included (a decimal string in `currency`): a call's
   * delegated calls draw on its hold and settle before it; null while nothing has settled.
   */
  cost: string | null;
  /** Why the hold was released, when it was. */
  reason: string | null;
  placed_at: string;
  ended_at: string | null;
}

/** One refused call of an agent: by the gateway (a denied call) or by any tool's checks. */
export interface RefusalEntry {
  /** The journal's sequence number of the refusal. */
  seq: number;
  at: string;
  mandate: string;
  /** The tool refused (`call_agent` for a call the gateway denied). */
  tool: string;
  /** The agent a denied call named, when it named one. */
  agent: string | null;
  denials: Denial[];
}

/** How many UTC days of spend each mandate keeps by day (the charts show the last 30; one more for the day that has begun). */
export const SPEND_DAYS_KEPT = 31;

/**
 * What a spend's settled cost is counted under: the payee the mandate hired (a delegated call's cost is
 * its root call's payee's) and the kind of payee, in the currency it was held in.
 */
export interface SpendTarget {
  mandate: string;
  currency: string;
  payee: Payee;
}

/** One UTC day of a mandate's settled spend in one currency: in all, by payee (`kind:id`) and by kind of payee. */
export interface DaySpend {
  total: bigint;
  /** `payeeKey(payee)` → what the payee was paid that day. */
  payees: Dict<bigint>;
  /** Payee kind (agent, payee, merchant) → what was spent on that kind that day. */
  kinds: Dict<bigint>;
}

/** The slice's fields. */
export interface ActivityFields {
  /**
   * Each mandate's settled spend per UTC day, counted when a hold settles (the day the per-day limit
   * counts it, as money/slice.ts's `drawn.days`), for the last SPEND_DAYS_KEPT days: the charts read these
   * few totals, never the journal. A top-level field of its own, so a snapshot written before it existed
   * is not taken for one that folded it.
   */
  spend_days: {
    /** Mandate → UTC day ("2026-11-29") → currency → its spend. */
    mandates: Dict<Dict<Dict<DaySpend>>>;
    /** Open holds (delegated ones too) → what their settlement is counted under. */
    open: Dict<SpendTarget>;
  };
  activity: {
    /** Account → its spends, oldest first (at most SPENDS_KEPT). */
    spends: Dict<SpendEntry[]>;
    /** Open root holds → their account, to find a spend when it settles or is released. */
    open: Dict<string>;
    /** Open delegated holds → the root hold they draw on (at any depth), whose spend their cost is part of. */
    under: Dict<string>;
    /** The newest refusals, oldest first (at most REFUSALS_KEPT). */
    refusals: RefusalEntry[];
  };
}

/**
 * Denials that are not the mandate refusing anything: a human must still decide, the human already did,
 * or the call itself was malformed or failed. The human is shown these elsewhere (the approvals), or
 * they are the agent's own business.
 */
const NOT_A_REFUSAL: ReadonlySet<DenialCode> = new Set<DenialCode>([
  'over_threshold',
  'approval_pending',
  'agreement_pending',
  'rejected',
  'invalid_arguments',
  'call_failed',
]);

type Handled = Pick<SpendEvents, 'hold.placed' | 'hold.settled' | 'hold.released'> &
  Pick<ReceiptEvents, 'call.denied'> &
  Pick<LedgerEvents, 'tool.denied'>;

/** The spend of an open root hold (and, with `end`, stops following it). */
function entryOf(s: ActivityFields, hold: string, end: boolean): SpendEntry | undefined {
  const account = s.activity.open[hold];
  if (account === undefined) return undefined;
  if (end) delete s.activity.open[hold];
  const list = s.activity.spends[account] ?? [];
  // The spend that ends is nearly always one of the newest.
  for (let i = list.length - 1; i >= 0; i--) if (list[i]?.id === hold) return list[i];
  return undefined;
}

/** Adds what a hold cost to its spend's cost. */
function charge(entry: SpendEntry, cost: string): void {
  entry.cost = M.formatUnits((entry.cost === null ? 0n : M.parseUnits(entry.cost)) + M.parseUnits(cost));
}

/** A delegated hold that ends: its cost is its root call's. Returns true when `hold` was one. */
function endDelegated(s: ActivityFields, hold: string, cost: string | null): boolean {
  const root = s.activity.under[hold];
  if (root === undefined) return false;
  delete s.activity.under[hold];
  const entry = entryOf(s, root, false);
  if (entry && cost !== null) charge(entry, cost);
  return true;
}

function refused(s: ActivityFields, entry: RefusalEntry): void {
  if (entry.denials.every((d) => NOT_A_REFUSAL.has(d.code))) return;
  const list = s.activity.refusals;
  list.push(entry);
  if (list.length > REFUSALS_KEPT) list.splice(0, list.length - REFUSALS_KEPT);
}

/** A payee as one key: `agent:acme/table-extract`, `payee:eip155:…`, `merchant:…`. */
export function payeeKey(p: Payee): string {
  return `${p.kind}:${p.id}`;
}

/** Counts a settled hold's cost on its mandate's day, and forgets days older than SPEND_DAYS_KEPT. */
function countDay(s: ActivityFields, target: SpendTarget, day: string, units: bigint): void {
  const days = (s.spend_days.mandates[target.mandate] ??= dict());
  if (days[day] === undefined) {
    // A new day: the oldest ones fall out of the window (a mandate has at most SPEND_DAYS_KEPT + 1 keys).
    const oldest = new Date(Date.parse(`${day}T00:00:00Z`) - SPEND_DAYS_KEPT * 86_400_000).toISOString().slice(0, 10);
    for (const k of Object.keys(days)) if (k < oldest) delete days[k];
    days[day] = dict();
  }
  const byCurrency = days[day] as Dict<DaySpend>;
  const d = (byCurrency[target.currency] ??= { total: 0n, payees: dict(), kinds: dict() });
  d.total += units;
  bump(d.payees, payeeKey(target.payee), units);
  bump(d.kinds, target.payee.kind, units);
}

/** The slice: folds spends from their holds, and refusals from denied calls and the ledger's refused tool calls. */
export const activitySlice: Slice<ActivityFields, Handled> = {
  initial: () => ({
    activity: { spends: dict(), open: dict(), under: dict(), refusals: [] },
    spend_days: { mandates: dict(), open: dict() },
  }),
  on: {
    'hold.placed': (s, d, e) => {
      // Counted under the root call's payee: what the mandate hired, whoever that agent delegated to.
      const parent = d.parent ? s.spend_days.open[d.parent] : undefined;
      s.spend_days.open[d.hold] = { mandate: d.mandate, currency: d.currency, payee: parent ? parent.payee : { ...d.payee } };
      // A delegated call draws on its parent's hold: its cost is part of the root call's spend, not a spend of its own.
      if (d.parent) {
        const root = s.activity.open[d.parent] !== undefined ? d.parent : s.activity.under[d.parent];
        if (root !== undefined) s.activity.under[d.hold] = root;
        return;
      }
      const list = (s.activity.spends[d.account] ??= []);
      list.push({
        id: d.hold,
        mandate: d.mandate,
        account: d.account,
        payee: { ...d.payee },
        currency: d.currency,
        held: d.amount,
        status: 'held',
        cost: null,
        reason: null,
        placed_at: e.time,
        ended_at: null,
      });
      s.activity.open[d.hold] = d.account;
      if (list.length > SPENDS_KEPT) {
        for (const gone of list.splice(0, list.length - SPENDS_KEPT)) delete s.activity.open[gone.id];
      }
    },
    'hold.settled': (s, d, e) => {
      const target = s.spend_days.open[d.hold];
      if (target) {
        delete s.spend_days.open[d.hold];
        const units = M.parseUnits(d.cost);
        if (units !== 0n) countDay(s, target, e.time.slice(0, 10), units);
      }
      if (endDelegated(s, d.hold, d.cost)) return;
      const entry = entryOf(s, d.hold, true);
      if (!entry) return;
      entry.status = 'settled';
      charge(entry, d.cost);
      entry.ended_at = e.time;
    },
    'hold.released': (s, d, e) => {
      delete s.spend_days.open[d.hold];
      if (endDelegated(s, d.hold, null)) return;
      const entry = entryOf(s, d.hold, true);
      if (!entry) return;
      entry.status = 'released';
      entry.reason = d.reason;
      entry.ended_at = e.time;
    },
    'call.denied': (s, d, e) =>
      refused(s, {
        seq: e.seq,
        at: e.time,
        mandate: d.receipt.mandate,
        tool: 'call_agent',
        agent: d.receipt.agent,
        denials: structuredClone(d.receipt.denials),
      }),
    'tool.denied': (s, d, e) =>
      refused(s, { seq: e.seq, at: e.time, mandate: d.mandate, tool: d.tool, agent: null, denials: structuredClone(d.denials) }),
  },
  revive: (s) => {
    s.activity = {
      spends: toDict(s.activity?.spends),
      open: toDict(s.activity?.open),
      under: toDict(s.activity?.under),
      refusals: Array.isArray(s.activity?.refusals) ? s.activity.refusals : [],
    };
    const day = (d: DaySpend): DaySpend => ({ total: big(d.total), payees: toDict(d.payees, big), kinds: toDict(d.kinds, big) });
    s.spend_days = {
      mandates: toDict(s.spend_days?.mandates, (days) => toDict(days, (byCurrency) => toDict(byCurrency, day))),
      open: toDict(s.spend_days?.open),
    };
  },
};

/** What a spend was, by whom it paid: a call of an agent, a payment under terms, a payment intent, a purchase. */
export type SpendKind = 'call' | 'payment' | 'intent' | 'purchase';

/** The kind of a spend; `isIntent` tells a payment intent's hold (named by its intent) from a payment's. */
export function spendKind(entry: Pick<SpendEntry, 'id' | 'payee'>, isIntent: (id: string) => boolean): SpendKind {
  if (entry.payee.kind === 'agent') return 'call';
  if (entry.payee.kind === 'merchant') return 'purchase';
  return isIntent(entry.id) ? 'intent' : 'payment';
}

/** The spends of every account (or of one mandate, or those `where` keeps), newest first, at most `limit`. */
export function recentSpends(
  s: ActivityFields,
  filter: { mandate?: string | undefined; limit: number; where?: ((e: SpendEntry) => boolean) | undefined },
): SpendEntry[] {
  const all = Object.values(s.activity.spends).flat();
  const wanted = all.filter((e) => (!filter.mandate || e.mandate === filter.mandate) && (!filter.where || filter.where(e)));
  // ISO times sort as text; a spend placed in the same millisecond keeps the journal's order.
  return wanted
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e.placed_at === b.e.placed_at ? b.i - a.i : a.e.placed_at < b.e.placed_at ? 1 : -1))
    .slice(0, filter.limit)
    .map(({ e }) => e);
}

/** The newest refusals made at or after `since` (an ISO time), newest first, at most `limit`. */
export function recentRefusals(s: ActivityFields, filter: { since: string; limit: number }): RefusalEntry[] {
  const out: RefusalEntry[] = [];
  const list = s.activity.refusals;
  for (let i = list.length - 1; i >= 0 && out.length < filter.limit; i--) {
    const r = list[i];
    if (r && r.at >= filter.since) out.push(r);
  }
  return out;
}
