/**
 * Spend at a glance: a mandate's settled spend per UTC day over the last days, by payee and by kind of
 * spend, beside its limits. Read from the few day totals the activity slice folds (`spend_days`), never
 * from the journal, so a chart costs the same on a day-old state and on a million events. The editor's
 * Holon view and the MCP Apps' budget view both draw it.
 */
import type { DaySpend } from '../fold/activity.ts';
import type * as M from '../kernel/amount.ts';
import type { Payee } from '../money/spend.ts';
import { budgetOf } from '../money/spend.ts';
import type { HolonState } from '../fold/state.ts';

/** How many days a chart shows by default: today and the 29 before it. */
export const CHART_DAYS = 30;

/** What a spend paid for, as the toolsets name it: a call of an agent, a payment (terms or money), a purchase. */
export type SpendGroup = 'market' | 'payments' | 'commerce';

/** Each group in words, as every view names it. */
export const SPEND_GROUP_LABELS: Record<SpendGroup, string> = {
  market: 'Agents (market)',
  payments: 'Payments (terms, money)',
  commerce: 'Purchases (commerce)',
};

/** The group of a payee's kind: agents are the market's, merchants commerce's, every other payee a payment's. */
export function spendGroup(kind: Payee['kind']): SpendGroup {
  return kind === 'agent' ? 'market' : kind === 'merchant' ? 'commerce' : 'payments';
}

/** One day of a chart. */
export interface ChartDay {
  /** The UTC day, `2026-11-29`. */
  day: string;
  spent: M.Money;
  /** The bar's height in thousandths of the day axis (`SpendChart.dayScale`): exact integers, no float money. */
  permille: number;
}

/** One payee of a chart: what the window's spends paid them. */
export interface ChartPayee {
  payee: Payee;
  /** `payeeKey(payee)`. */
  key: string;
  spent: M.Money;
  /** The bar's length in thousandths of the most any payee was paid. */
  permille: number;
}

/** `part` in thousandths of `whole` (rounded down; 0 when the whole is nothing). */
export function permille(part: bigint, whole: bigint): number {
  return whole <= 0n ? 0 : Number((part * 1000n) / whole);
}

/** A mandate's spend over the window, in its currency, with the limits it is drawn against. */
export interface SpendChart {
  mandate: string;
  currency: string;
  /** Oldest first, one per day of the window (a day without spend is zero), today last. */
  days: ChartDay[];
  /** Most paid first. */
  payees: ChartPayee[];
  /** What each group of spends cost over the window, most first; groups with nothing spent are left out. */
  groups: { group: SpendGroup; spent: M.Money }[];
  /** What the window's spends cost in all. */
  total: M.Money;
  /** The per-day limit (today's, an approved override included), or null when the mandate has none. */
  perDay: M.Money | null;
  /** The top of the day axis: the most spent on one day, or the per-day limit when that is more. */
  dayScale: M.Money;
  /** Where the per-day limit's line is, in thousandths of `dayScale`; null without a limit. */
  perDayPermille: number | null;
  /** The mandate's whole budget and what it has spent of it. */
  budget: { total: M.Money; spent: M.Money; held: M.Money; remaining: M.Money };
  /**
   * Currencies other than the mandate's that some of the window's spends were held in: not added to any
   * bar (no rate is applied in a chart), and said, so a chart is never silently short.
   */
  otherCurrencies: string[];
}

/** The UTC day `n` days before the day of `now`. */
function dayBefore(now: number, n: number): string {
  return new Date(now - n * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The chart of `mandateId` at `now` over the last `days` days (today included), or null when there is no
 * such mandate. Costs a few dictionary reads per day: the day totals are in the fold.
 */
export function spendChart(s: HolonState, mandateId: string, now: number, days = CHART_DAYS): SpendChart | null {
  const mandate = s.mandates[mandateId];
  if (!mandate) return null;
  const currency = mandate.currency;
  const u = (units: bigint): M.Money => ({ units, currency });
  const kept = s.spend_days.mandates[mandateId];
  const payees = new Map<string, { payee: Payee; units: bigint }>();
  const groups = new Map<SpendGroup, bigint>();
  const others = new Set<string>();
  const out: ChartDay[] = [];
  let total = 0n;
  for (let n = days - 1; n >= 0; n--) {
    const day = dayBefore(now, n);
    const byCurrency = kept?.[day];
    for (const c of Object.keys(byCurrency ?? {})) if (c !== currency) others.add(c);
    const d: DaySpend | undefined = byCurrency?.[currency];
    out.push({ day, spent: u(d?.total ?? 0n), permille: 0 });
    if (!d) continue;
    total += d.total;
    for (const [key, units] of Object.entries(d.payees)) {
      const p = payees.get(key);
      if (p) p.units += units;
      else payees.set(key, { payee: payeeOf(key), units });
    }
    for (const [kind, units] of Object.entries(d.kinds)) {
      const g = spendGroup(kind as Payee['kind']);
      groups.set(g, (groups.get(g) ?? 0n) + units);
    }
  }
  const b = budgetOf(s, mandate, now);
  let scale = b.per_day?.units ?? 0n;
  for (const d of out) if (d.spent.units > scale) scale = d.spent.units;
  for (const d of out) d.permille = permille(d.spent.units, scale);
  const most = <T extends { units: bigint }>(a: T, z: T): number => (a.units === z.units ? 0 : a.units > z.units ? -1 : 1);
  const ranked = [...payees.entries()]
    .map(([key, p]) => ({ key, payee: p.payee, units: p.units }))
    .sort((a, z) => most(a, z) || (a.key < z.key ? -1 : 1));
  const top = ranked[0]?.units ?? 0n;
  return {
    mandate: mandateId,
    currency,
    days: out,
    payees: ranked.map((p) => ({ payee: p.payee, key: p.key, spent: u(p.units), permille: permille(p.units, top) })),
    groups: [...groups.entries()]
      .map(([group, units]) => ({ group, units }))
      .filter((g) => g.units !== 0n)
      .sort(most)
      .map((g) => ({ group: g.group, spent: u(g.units) })),
    total: u(total),
    perDay: b.per_day,
    dayScale: u(scale),
    perDayPermille: b.per_day ? permille(b.per_day.units, scale) : null,
    budget: { total: b.total, spent: b.spent, held: b.held, remaining: b.remaining },
    otherCurrencies: [...others].sort(),
  };
}

/** The payee a key names (the inverse of `payeeKey`; an id may itself hold colons). */
export function payeeOf(key: string): Payee {
  const at = key.indexOf(':');
  const kind = key.slice(0, at);
  return { kind: kind === 'agent' || kind === 'merchant' ? kind : 'payee', id: key.slice(at + 1) };
}
