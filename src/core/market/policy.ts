/**
 * What a mandate allows in the market: pure functions of the folded state, shared by search, get_agent
 * and the gateway's decision (through the market index) so that the three can never disagree.
 */
import { callablePatterns, capabilityMatches, payeeScopeDenial } from '../kernel/capabilities.ts';
import type { Denial } from '../kernel/denials.ts';
import { denial } from '../kernel/denials.ts';
import type { FxFields } from '../money/fx.ts';
import { convertTo } from '../money/fx.ts';
import type { AgentEntry, Mandate } from '../kernel/model.ts';
import type { Money, MoneyJson } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { ReceiptsFields } from './receipts.ts';
import { recordStats } from './receipts.ts';
import { AGENT_TIMEOUT } from '../kernel/model.ts';

/** Longest chain of delegated calls a worst case follows. */
export const MAX_DELEGATION_DEPTH = 4;

/** How long one call to this agent may take, in milliseconds. */
export function agentTimeoutMs(entry: AgentEntry): number {
  return (entry.manifest.timeout_seconds ?? AGENT_TIMEOUT.default_seconds) * 1000;
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
export function staticDenials(s: FxFields, mandate: Mandate, entry: AgentEntry): Denial[] {
  const out: Denial[] = [];
  const m = entry.manifest;
  const patterns = callablePatterns(mandate);
  if (patterns.length === 0) out.push(denial('capability_missing', { capability: 'market.call' }));
  else if (!m.capabilities.some((c) => patterns.some((p) => capabilityMatches(p, c)))) {
    out.push(denial('agent_out_of_scope', { capabilities: m.capabilities, allowed: patterns }));
  }
  const rules = mandate.data;
  if (rules.regions) {
    const outside = m.data_policy.regions.filter((r) => !rules.regions?.includes(r));
    if (outside.length > 0) out.push(denial('data_regions', { regions: outside, allowed: rules.regions }));
  }
  if (!rules.training && m.data_policy.training) out.push(denial('data_training', {}));
  if (rules.retention_days !== null && m.data_policy.retention_days > rules.retention_days) {
    out.push(denial('data_retention', { days: m.data_policy.retention_days, max: rules.retention_days }));
  }
  if (!convertTo(s, M.zero(m.price.currency), mandate.currency))
    out.push(denial('no_rate', { from: m.price.currency, to: mandate.currency }));
  // An x402 resource is called to be paid: it needs a payee the mandate may pay. An MCP agent that declares one
  // (its tools may be paid) needs the same; one that declares none is never paid, and may be called.
  if (entry.endpoint.type === 'x402' || entry.endpoint.payee !== undefined)
    out.push(...payeeDenials(mandate, entry.manifest.id, entry.endpoint.payee));
  return out;
}

/**
 * Why a mandate may not pay an x402 agent: every signature goes through the `pay` capability and its
 * payees, so the agent's declared payee must be one of them (and it must declare one).
 */
function payeeDenials(mandate: Mandate, agent: string, payee: string | undefined): Denial[] {
  if (!payee) return [denial('payee_undeclared', { agent, payee: null, declared: null })];
  const scope = payeeScopeDenial(mandate, payee);
  return scope ? [scope] : [];
}

/** True if the agent offers a capability matching `capability` (a name or a pattern). */
export function offers(entry: AgentEntry, capability: string): boolean {
  return entry.manifest.capabilities.some((c) => capabilityMatches(capability, c));
}

/** A worst case in the mandate's currency, or why there is none. */
export type WorstCase = { ok: true; amount: Money; delegated: number } | { ok: false; denial: Denial };

/**
 * The most a call can cost, in the mandate's currency: the agent's own worst case plus, for every
 * delegated call it declares, its max count times the dearest allowed agent for that capability,
 * recursively. A cycle, or a chain deeper than MAX_DELEGATION_DEPTH, has no worst case. `allowed` lists
 * the agents the mandate allows for a capability, and `worstOf` gives another agent's worst case from
 * `chain` (both come from the market index, which remembers them).
 */
export function worstCase(
  s: FxFields,
  mandate: Mandate,
  entry: AgentEntry,
  chain: string[],
  allowed: (capability: string) => AgentEntry[],
  worstOf: (entry: AgentEntry, chain: string[]) => WorstCase,
): WorstCase {
  const id = entry.manifest.id;
  if (chain.includes(id)) return { ok: false, denial: denial('delegation_cycle', { chain: [...chain, id] }) };
  if (chain.length >= MAX_DELEGATION_DEPTH) return { ok: false, denial: denial('delegation_depth', { max: MAX_DELEGATION_DEPTH }) };
  const own = convertTo(s, ownWorstCase(entry), mandate.currency);
  if (!own) return { ok: false, denial: denial('no_rate', { from: entry.manifest.price.currency, to: mandate.currency }) };
  let total = own;
  let delegated = 0;
  for (const d of entry.manifest.delegated_calls) {
    let dearest: Money | undefined;
    for (const candidate of allowed(d.capability)) {
      const w = worstOf(candidate, [...chain, id]);
      if (!w.ok) return w;
      dearest = dearest ? M.max(dearest, w.amount) : w.amount;
    }
    if (dearest) total = M.add(total, M.times(dearest, d.max_count));
    delegated += d.max_count;
  }
  return { ok: true, amount: total, delegated };
}

/** Expected cost per successful run, in the mandate's currency: measured once there are enough runs. */
export interface Ranking {
  expected_cost_per_success: MoneyJson | null;
  basis: 'measured' | 'declared' | 'price';
  success_rate: string | null;
  mean_cost: MoneyJson | null;
  /** `expected_cost_per_success` in units, for sorting without parsing; null when unknown (ranked last). */
  key: bigint | null;
}

/** Runs Holon must have measured before its own record outranks the publisher's. */
export const MEASURED_RUNS_TO_TRUST = 5;

/** How an agent ranks for a mandate. */
export function rankingOf(s: FxFields & Pick<ReceiptsFields, 'records'>, mandate: Mandate, entry: AgentEntry): Ranking {
  const cur = entry.manifest.price.currency;
  const measured = recordStats(s.records[entry.manifest.id], cur);
  let mean: Money;
  let rateUnits: bigint;
  let basis: Ranking['basis'];
  if (measured && measured.runs >= MEASURED_RUNS_TO_TRUST) {
    mean = measured.mean_cost;
    rateUnits = measured.success_units;
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
  const meanIn = convertTo(s, mean, mandate.currency);
  const expected = meanIn && rateUnits > 0n ? M.divideByRatio(meanIn, rateUnits) : undefined;
  return {
    expected_cost_per_success: expected ? M.toJson(expected) : null,
    basis,
    success_rate: M.formatUnits(rateUnits),
    mean_cost: meanIn ? M.toJson(meanIn) : null,
    key: expected ? expected.units : null,
  };
}

/** Orders agents by expected cost per successful run (unknown last), then by id. */
export function compareRankings(
  a: { id: string; ranking: Pick<Ranking, 'key'> },
  b: { id: string; ranking: Pick<Ranking, 'key'> },
): number {
  const x = a.ranking.key;
  const y = b.ranking.key;
  if (x !== null && y !== null) {
    if (x !== y) return x < y ? -1 : 1;
  } else if (x !== null || y !== null) return x !== null ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
