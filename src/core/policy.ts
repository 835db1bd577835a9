/**
 * What a mandate allows: pure functions of the folded state, shared by search, get_agent and the
 * gateway's decision so that the three can never disagree.
 */
import type { AgentEntry, CapabilityGrant, Mandate } from './model.ts';
import type { Money, MoneyJson } from './money.ts';
import * as M from './money.ts';
import type { HolonState } from './state.ts';

/** Longest chain of delegated calls a worst case follows. */
export const MAX_DELEGATION_DEPTH = 4;

/** True if `capability` matches `pattern` ("*", "extraction.*", or an exact name). */
export function capabilityMatches(pattern: string, capability: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return capability.startsWith(pattern.slice(0, -1));
  return pattern === capability;
}

/** The mandate's grant of a tool capability, e.g. "market.call". */
export function grantOf(mandate: Mandate, name: string): CapabilityGrant | undefined {
  return mandate.capabilities.find((c) => c.name === name);
}

/** The agent capabilities `market.call` allows (none when the grant is absent). */
export function callablePatterns(mandate: Mandate): string[] {
  const g = grantOf(mandate, 'market.call');
  if (!g) return [];
  const caps = g.params?.['capabilities'];
  return Array.isArray(caps) ? caps.filter((c): c is string => typeof c === 'string') : ['*'];
}

/** Converts with a human-set rate (direct, or the inverse of the reverse rate); undefined when unknown. */
export function convertTo(state: HolonState, amount: Money, to: string): Money | undefined {
  if (amount.currency === to) return amount;
  const direct = state.fx[`${amount.currency}/${to}`];
  if (direct) return M.convert(amount, to, direct);
  const inverse = state.fx[`${to}/${amount.currency}`];
  if (inverse) return M.divideByRatio({ units: amount.units, currency: to }, M.parseUnits(inverse));
  return undefined;
}

/** The agent's own worst case, in its price currency: fixed part plus every unit it may bill. */
export function ownWorstCase(entry: AgentEntry): Money {
  const p = entry.manifest.price;
  const base = M.money(p.per_call, p.currency);
  if (!p.per_unit) return base;
  return M.add(base, M.times(M.money(p.per_unit.amount, p.currency), p.per_unit.max_units));
}

/** The cost of a run that reported `units`, never above the declared worst case. */
export function costOf(entry: AgentEntry, units: number): Money {
  const p = entry.manifest.price;
  const base = M.money(p.per_call, p.currency);
  if (!p.per_unit) return base;
  const n = Number.isFinite(units) ? Math.max(0, Math.min(Math.floor(units), p.per_unit.max_units)) : 0;
  return M.add(base, M.times(M.money(p.per_unit.amount, p.currency), n));
}

/** Why a mandate does not allow an agent at all, whatever the budget: scope, data rules, currency. */
export function staticReasons(state: HolonState, mandate: Mandate, entry: AgentEntry): string[] {
  const reasons: string[] = [];
  const m = entry.manifest;
  const patterns = callablePatterns(mandate);
  if (patterns.length === 0) reasons.push('the mandate does not grant market.call');
  else if (!m.capabilities.some((c) => patterns.some((p) => capabilityMatches(p, c)))) {
    reasons.push(`capabilities ${m.capabilities.join(', ')} are outside the mandate's scope (${patterns.join(', ')})`);
  }
  const rules = mandate.data;
  if (rules.regions) {
    const outside = m.data_policy.regions.filter((r) => !rules.regions?.includes(r));
    if (outside.length > 0) reasons.push(`data rules: processes data in ${outside.join(', ')}; the mandate allows only ${rules.regions.join(', ')}`);
  }
  if (!rules.training && m.data_policy.training) reasons.push('data rules: uses inputs for training; the mandate forbids training');
  if (rules.retention_days !== null && m.data_policy.retention_days > rules.retention_days) {
    reasons.push(`data rules: retains data ${m.data_policy.retention_days} days; the mandate allows at most ${rules.retention_days}`);
  }
  if (!convertTo(state, M.zero(m.price.currency), mandate.currency)) {
    reasons.push(`its price is in ${m.price.currency} and no ${m.price.currency}→${mandate.currency} rate is set (holon fx)`);
  }
  return reasons;
}

/** Agents the mandate allows for a capability (static rules only). */
export function allowedFor(state: HolonState, mandate: Mandate, capability: string): AgentEntry[] {
  return Object.values(state.agents).filter(
    (a) => a.manifest.capabilities.some((c) => capabilityMatches(capability, c)) && staticReasons(state, mandate, a).length === 0,
  );
}

/** A worst case in the mandate's currency, or why there is none. */
export type WorstCase = { ok: true; amount: Money; delegated: number } | { ok: false; reason: string };

/**
 * The most a call can cost, in the mandate's currency: the agent's own worst case plus, for every
 * delegated call it declares, its max count times the dearest allowed agent for that capability,
 * recursively. A cycle, or a chain deeper than MAX_DELEGATION_DEPTH, has no worst case.
 */
export function worstCase(state: HolonState, mandate: Mandate, entry: AgentEntry, chain: string[] = []): WorstCase {
  const id = entry.manifest.id;
  if (chain.includes(id)) return { ok: false, reason: `delegation cycle: ${[...chain, id].join(' → ')}` };
  if (chain.length >= MAX_DELEGATION_DEPTH) return { ok: false, reason: `delegation deeper than ${MAX_DELEGATION_DEPTH} levels` };
  const own = convertTo(state, ownWorstCase(entry), mandate.currency);
  if (!own) return { ok: false, reason: `no ${entry.manifest.price.currency}→${mandate.currency} rate is set` };
  let total = own;
  let delegated = 0;
  for (const d of entry.manifest.delegated_calls) {
    let dearest: Money | undefined;
    for (const candidate of allowedFor(state, mandate, d.capability)) {
      const w = worstCase(state, mandate, candidate, [...chain, id]);
      if (!w.ok) return w;
      dearest = dearest ? M.max(dearest, w.amount) : w.amount;
    }
    if (dearest) total = M.add(total, M.times(dearest, d.max_count));
    delegated += d.max_count;
  }
  return { ok: true, amount: total, delegated };
}

/** A mandate's budget, as seen now. */
export interface BudgetView {
  mandate: string;
  currency: string;
  total: Money;
  spent: Money;
  held: Money;
  /** What can still be held: the least of the mandate's and the account's room. */
  remaining: Money;
  per_day: Money | null;
  spent_today: Money;
  remaining_today: Money | null;
  per_call: Money | null;
  threshold: Money;
  account: { id: string; funded: Money; spent: Money; held: Money; available: Money };
}

/** The budget of `mandate` at `now`. */
export function budgetOf(state: HolonState, mandate: Mandate, now: number): BudgetView {
  const cur = mandate.currency;
  const sp = state.spend[mandate.id] ?? { spent: 0n, held: 0n, by_day: {} };
  const acct = state.accounts[mandate.account] ?? { funded: {}, spent: {}, held: {} };
  const u = (units: bigint): Money => ({ units, currency: cur });
  const total = M.money(mandate.budget.total, cur);
  const accountAvailable = (acct.funded[cur] ?? 0n) - (acct.spent[cur] ?? 0n) - (acct.held[cur] ?? 0n);
  const mandateRoom = total.units - sp.spent - sp.held;
  const today = new Date(now).toISOString().slice(0, 10);
  const spentToday = sp.by_day[today] ?? 0n;
  const perDay = mandate.budget.per_day ? M.money(mandate.budget.per_day, cur) : null;
  const remainingRaw = mandateRoom < accountAvailable ? mandateRoom : accountAvailable;
  return {
    mandate: mandate.id,
    currency: cur,
    total,
    spent: u(sp.spent),
    held: u(sp.held),
    remaining: u(remainingRaw > 0n ? remainingRaw : 0n),
    per_day: perDay,
    spent_today: u(spentToday),
    remaining_today: perDay ? u(perDay.units - spentToday - sp.held > 0n ? perDay.units - spentToday - sp.held : 0n) : null,
    per_call: mandate.budget.per_call ? M.money(mandate.budget.per_call, cur) : null,
    threshold: M.money(mandate.approval_threshold, cur),
    account: {
      id: mandate.account,
      funded: u(acct.funded[cur] ?? 0n),
      spent: u(acct.spent[cur] ?? 0n),
      held: u(acct.held[cur] ?? 0n),
      available: u(accountAvailable > 0n ? accountAvailable : 0n),
    },
  };
}

/** Why a mandate cannot act at all right now (status, expiry). */
export function mandateReasons(mandate: Mandate, now: number): string[] {
  const reasons: string[] = [];
  if (mandate.status !== 'active') reasons.push(`the mandate is ${mandate.status}`);
  if (mandate.expires_at && Date.parse(mandate.expires_at) <= now) reasons.push(`the mandate expired at ${mandate.expires_at}`);
  return reasons;
}

/** Why a worst case does not fit the limits: per call, the caller's cap, the budget, the day. */
export function limitReasons(budget: BudgetView, worst: Money, maxCost: Money | undefined): string[] {
  const reasons: string[] = [];
  const f = M.format;
  if (budget.per_call && M.compare(worst, budget.per_call) > 0) reasons.push(`worst case ${f(worst)} is above the per-call limit ${f(budget.per_call)}`);
  if (maxCost && M.compare(worst, maxCost) > 0) reasons.push(`worst case ${f(worst)} is above max_cost ${f(maxCost)}`);
  if (M.compare(worst, budget.remaining) > 0) reasons.push(`worst case ${f(worst)} is above the remaining budget ${f(budget.remaining)}`);
  if (budget.remaining_today && M.compare(worst, budget.remaining_today) > 0) reasons.push(`worst case ${f(worst)} is above what is left today ${f(budget.remaining_today)}`);
  return reasons;
}

/** Expected cost per successful run, in the mandate's currency: measured once there are enough runs. */
export interface Ranking {
  expected_cost_per_success: MoneyJson | null;
  basis: 'measured' | 'declared' | 'price';
  success_rate: string | null;
  mean_cost: MoneyJson | null;
}

/** Runs Holon must have measured before its own record outranks the publisher's. */
export const MEASURED_RUNS_TO_TRUST = 5;

/** How an agent ranks for a mandate. */
export function rankingOf(state: HolonState, mandate: Mandate, entry: AgentEntry): Ranking {
  const cur = entry.manifest.price.currency;
  const measured = state.records[entry.manifest.id];
  let mean: Money;
  let rateUnits: bigint;
  let basis: Ranking['basis'];
  if (measured && measured.runs >= MEASURED_RUNS_TO_TRUST) {
    mean = { units: measured.cost_units / BigInt(measured.runs), currency: cur };
    rateUnits = (BigInt(measured.succeeded) * 10n ** BigInt(M.SCALE)) / BigInt(measured.runs);
    basis = 'measured';
  } else if (entry.manifest.record) {
    mean = M.money(entry.manifest.record.mean_cost, cur);
    rateUnits = M.parseUnits(entry.manifest.record.success_rate);
    basis = 'declared';
  } else {
    mean = M.money(entry.manifest.price.per_call, cur);
    rateUnits = 10n ** BigInt(M.SCALE);
    basis = 'price';
  }
  const meanIn = convertTo(state, mean, mandate.currency);
  const expected = meanIn && rateUnits > 0n ? M.divideByRatio(meanIn, rateUnits) : undefined;
  return {
    expected_cost_per_success: expected ? M.toJson(expected) : null,
    basis,
    success_rate: M.formatUnits(rateUnits),
    mean_cost: meanIn ? M.toJson(meanIn) : null,
  };
}

/** Orders agents by expected cost per successful run (unknown last), then by id. */
export function compareRankings(a: { id: string; ranking: Ranking }, b: { id: string; ranking: Ranking }): number {
  const x = a.ranking.expected_cost_per_success;
  const y = b.ranking.expected_cost_per_success;
  if (x && y) {
    const c = M.compare(M.fromJson(x), M.fromJson(y));
    if (c !== 0) return c;
  } else if (x || y) return x ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
