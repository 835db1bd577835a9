/**
 * The live spend authority of a mandate as `get_mandate` shows it: its caps, expiry, when the daily
 * period resets, and what each cap has drawn. Prior spends are counted in the currency they were made
 * in and converted with the human's rates; when one cannot be converted, what was spent and what is left
 * are unknown, and are left out together — never shown as zero.
 */
import { convertTo } from './fx.ts';
import { mandateOf } from '../accounts/mandates.ts';
import type { CapabilityGrant, Mandate } from '../kernel/model.ts';
import type { Money, MoneyJson } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { BudgetView } from './spend.ts';
import { budgetOf, countsAsHeld } from './spend.ts';
import type { HolonState } from '../fold/state.ts';
import type { Dict } from '../kernel/util.ts';
import { unconvertibleCurrencies } from './intents.ts';

/** One cap: its limit, and (when known) what it has drawn and what is left of it. */
export interface CapView {
  cap: 'total' | 'per_day' | 'per_call';
  limit: MoneyJson;
  drawn?: MoneyJson;
  remaining?: MoneyJson;
  /** When the cap's period starts again; null for a cap without a period. */
  resets_at: string | null;
}

/** A mandate's spend authority now. */
export interface MandateAuthority {
  mandate: string;
  status: string;
  currency: string;
  expires_at: string | null;
  approval_threshold: MoneyJson;
  capabilities: CapabilityGrant[];
  caps: CapView[];
  period: { unit: 'day'; resets_at: string };
  /** Settled spends in all; absent with `remaining` when a prior spend cannot be converted. */
  spent?: MoneyJson;
  held: MoneyJson;
  remaining?: MoneyJson;
  /** The currencies that make `spent` and `remaining` unknown (no human-set rate converts them). */
  unconvertible: string[];
}

/** The sum of per-currency amounts in `to`, or undefined when one of them cannot be converted. */
function sumIn(s: HolonState, amounts: Dict<bigint> | undefined, to: string): Money | undefined {
  let units = 0n;
  for (const [currency, u] of Object.entries(amounts ?? {})) {
    if (u === 0n) continue;
    const c = convertTo(s, { units: u, currency }, to);
    if (!c) return undefined;
    units += c.units;
  }
  return { units, currency: to };
}

const pos = (m: Money): Money => (m.units > 0n ? m : { units: 0n, currency: m.currency });

/**
 * What a mandate has drawn and has left, in its currency, counted from the currency each spend was made
 * in. `spent`, `remaining` and the day's two are there together or not at all: absent when a prior spend
 * cannot be converted (`unconvertible` names its currencies) — unknown, never zero.
 */
export interface MandateDrawn {
  budget: BudgetView;
  held: Money;
  spent?: Money;
  remaining?: Money;
  spent_today?: Money;
  /** What is left of today's limit; absent without one, or when unknown. */
  remaining_today?: Money;
  unconvertible: string[];
}

/**
 * What `mandate` has drawn and has left at `now`: the one computation behind `get_mandate` and `holon
 * budget`, so that the tool and the terminal never disagree on what is known.
 */
export function mandateDrawn(s: HolonState, m: Mandate, now: number): MandateDrawn {
  const cur = m.currency;
  const budget = budgetOf(s, m, now);
  const today = new Date(now).toISOString().slice(0, 10);
  const drawn = s.drawn[m.id];
  // Held money is counted in the currency of each hold, as the fold counts it (spend.ts): a delegated hold
  // draws on its parent's while that one is open, and counts on its own once its parent ended.
  const heldBy: Dict<bigint> = {};
  for (const h of Object.values(s.holds))
    if (h.mandate === m.id && countsAsHeld(s, h)) heldBy[h.currency] = (heldBy[h.currency] ?? 0n) + h.units;
  const unconvertible = unconvertibleCurrencies(s, m);
  const held = sumIn(s, heldBy, cur) ?? { units: 0n, currency: cur };
  const spent = unconvertible.length === 0 ? sumIn(s, drawn?.total, cur) : undefined;
  const spentToday = unconvertible.length === 0 ? sumIn(s, drawn?.days[today], cur) : undefined;
  if (!spent || !spentToday) return { budget, held, unconvertible };
  const remaining = pos(M.min(M.sub(M.sub(budget.total, spent), held), budget.account.available));
  const remainingToday = budget.per_day ? pos(M.sub(M.sub(budget.per_day, spentToday), held)) : undefined;
  return {
    budget,
    held,
    spent,
    remaining,
    spent_today: spentToday,
    ...(remainingToday ? { remaining_today: remainingToday } : {}),
    unconvertible,
  };
}

/** The spend authority of `mandateId` at `now`. */
export function mandateAuthority(s: HolonState, mandateId: string, now: number): MandateAuthority {
  const m = mandateOf(s, mandateId);
  const cur = m.currency;
  const today = new Date(now).toISOString().slice(0, 10);
  const tomorrow = new Date(Date.parse(today) + 86400_000).toISOString();
  const drawn = mandateDrawn(s, m, now);
  const { budget, held, spent, remaining: remainingTotal, spent_today: spentToday, remaining_today: left, unconvertible } = drawn;
  const j = M.toJson;
  const caps: CapView[] = [];
  caps.push({
    cap: 'total',
    limit: j(budget.total),
    ...(spent && remainingTotal ? { drawn: j(spent), remaining: j(remainingTotal) } : {}),
    resets_at: null,
  });
  if (budget.per_day) {
    caps.push({
      cap: 'per_day',
      limit: j(budget.per_day),
      ...(spentToday && left ? { drawn: j(spentToday), remaining: j(left) } : {}),
      resets_at: tomorrow,
    });
  }
  if (budget.per_call) caps.push({ cap: 'per_call', limit: j(budget.per_call), resets_at: null });
  return {
    mandate: m.id,
    status: m.status,
    currency: cur,
    expires_at: m.expires_at,
    approval_threshold: j(budget.threshold),
    capabilities: structuredClone(m.capabilities),
    caps,
    period: { unit: 'day', resets_at: tomorrow },
    ...(spent && remainingTotal ? { spent: j(spent), held: j(held), remaining: j(remainingTotal) } : { held: j(held) }),
    unconvertible,
  };
}
