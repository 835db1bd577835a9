/**
 * Spends, for any payee: an agent call, a payment, a purchase. Each is decided, held (its most), then
 * settled (what it really cost, never more than the hold) or released — each step one journal
 * transaction against the latest state, so concurrent spends from any toolset and any process can
 * never together exceed a limit. Which agent or payee to pay is the toolset's business; how much may be
 * held, and when a human must approve, is decided here.
 */
import type { Approval, ApprovalSubject } from '../approvals/model.ts';
import type { ApprovalsFields } from '../approvals/slice.ts';
import { approvalGate, unusableApproval, useApproval } from '../approvals/flow.ts';
import type { Denial } from '../kernel/denials.ts';
import { denial } from '../kernel/denials.ts';
import { HolonError } from '../kernel/errors.ts';
import { accountId } from '../kernel/ids.ts';
import type { EventStore, NewEvent, Signer } from '../store/store.ts';
import type { MandatesFields } from '../accounts/mandates.ts';
import { mandateDenials } from '../accounts/mandates.ts';
import type { Mandate } from '../kernel/model.ts';
import type { Money, MoneyJson } from '../kernel/amount.ts';
import type { ProcessRef } from '../store/owner.ts';
import { ownerState, processKey } from '../store/owner.ts';
import type { Logger } from '../kernel/deps.ts';
import * as M from '../kernel/amount.ts';
import type { Slice } from '../store/slice.ts';
import { big, eventsOf } from '../store/slice.ts';
import type { Dict } from '../kernel/util.ts';
import { bump, dict, toDict } from '../kernel/util.ts';

/** Who a spend pays. */
export interface Payee {
  kind: 'agent' | 'payee' | 'merchant';
  id: string;
}

/** Money set aside for one spend until it settles or is released, in its mandate's currency. */
export interface Hold {
  mandate: string;
  account: string;
  currency: string;
  units: bigint;
  /** The hold this one draws on (a delegated call draws on its parent's), or null. */
  parent: string | null;
  payee: Payee;
  placed_at: string;
  /** The process that runs the spend, while it runs (absent in journals written before holds had owners). */
  owner?: ProcessRef;
}

/** Running totals of a mandate, in its currency, as fixed-point units. */
export interface MandateSpend {
  spent: bigint;
  held: bigint;
  /** Spent per UTC day ("2026-11-29"). */
  by_day: Dict<bigint>;
  /** What a human let the day's limit be exceeded by (an approved budget override), per UTC day. */
  override_by_day?: Dict<bigint>;
}

/** Running totals of an account, per currency. */
export interface AccountTotals {
  funded: Dict<bigint>;
  spent: Dict<bigint>;
  held: Dict<bigint>;
}

/** The spends' part of the state. */
export interface SpendFields {
  accounts: Dict<AccountTotals>;
  spend: Dict<MandateSpend>;
  /** Open holds, by id (the id of the receipt or intent they are for). */
  holds: Dict<Hold>;
}

/** The spends' events. Amounts are decimal strings in the hold's currency. */
export interface SpendEvents {
  'account.funded': { account: string; amount: string; currency: string };
  'hold.placed': {
    hold: string;
    mandate: string;
    account: string;
    currency: string;
    amount: string;
    parent: string | null;
    payee: Payee;
    owner?: ProcessRef;
  };
  /** The spend happened: `cost` leaves the hold as spent, the rest is released (back to the parent, if any). */
  'hold.settled': { hold: string; cost: string };
  /** The spend did not happen (failed, refused after the hold, interrupted): all of the hold is released. */
  'hold.released': { hold: string; reason: string };
  /** A human approved running past the daily limit by `amount` on `day` (UTC). */
  'budget.override.granted': { mandate: string; approval: string; day: string; amount: string; currency: string };
}

export const spendEvent = eventsOf<SpendEvents>();

function spendOf(s: SpendFields, mandate: string): MandateSpend {
  return (s.spend[mandate] ??= { spent: 0n, held: 0n, by_day: dict() });
}

function accountOf(s: SpendFields, account: string): AccountTotals {
  return (s.accounts[account] ??= { funded: dict(), spent: dict(), held: dict() });
}

/** Takes `units` out of what a hold's mandate (and account) holds: on settle, release, or a child's draw. */
function unhold(s: SpendFields, h: Hold, units: bigint): void {
  spendOf(s, h.mandate).held -= units;
  bump(accountOf(s, h.account).held, h.currency, -units);
}

export const spendSlice: Slice<SpendFields, SpendEvents> = {
  initial: () => ({ accounts: dict(), spend: dict(), holds: dict() }),
  on: {
    'account.funded': (s, d) => {
      bump(accountOf(s, d.account).funded, d.currency, M.parseUnits(d.amount));
    },
    'hold.placed': (s, d, e) => {
      const units = M.parseUnits(d.amount);
      const parent = d.parent ? s.holds[d.parent] : undefined;
      if (parent) {
        // A delegated spend draws on its parent's hold: what the mandate holds in all does not change.
        parent.units -= units;
      } else {
        spendOf(s, d.mandate).held += units;
        bump(accountOf(s, d.account).held, d.currency, units);
      }
      s.holds[d.hold] = {
        mandate: d.mandate,
        account: d.account,
        currency: d.currency,
        units,
        parent: parent ? (d.parent ?? null) : null,
        payee: { ...d.payee },
        placed_at: e.time,
        ...(d.owner ? { owner: { ...d.owner } } : {}),
      };
    },
    'hold.settled': (s, d, e) => {
      const h = s.holds[d.hold];
      if (!h) return;
      delete s.holds[d.hold];
      const cost = M.parseUnits(d.cost);
      const sp = spendOf(s, h.mandate);
      sp.spent += cost;
      bump(sp.by_day, e.time.slice(0, 10), cost);
      bump(accountOf(s, h.account).spent, h.currency, cost);
      const parent = h.parent ? s.holds[h.parent] : undefined;
      if (parent) {
        // What the child did not spend goes back to its parent's hold; what it spent leaves the held total.
        parent.units += h.units - cost;
        unhold(s, h, cost);
      } else {
        unhold(s, h, h.units);
      }
    },
    // A transfer between Holon accounts (a settled payment intent) is one event for both sides: the payer's
    // side is the hold's settlement beside it; the payee's account is credited here.
    'intent.settled': (s, d: { credit?: { account: string; amount: MoneyJson } }) => {
      if (d.credit) bump(accountOf(s, d.credit.account).funded, d.credit.amount.currency, M.parseUnits(d.credit.amount.amount));
    },
    // A channel's refund, read on the chain: what came back is no longer spent, by the mandate, its account or on its day.
    'settlement.refunded': (s, d: { credit: { mandate: string; account: string; amount: MoneyJson; day: string } }) => {
      const units = M.parseUnits(d.credit.amount.amount);
      const sp = spendOf(s, d.credit.mandate);
      sp.spent -= units;
      bump(sp.by_day, d.credit.day, -units);
      bump(accountOf(s, d.credit.account).spent, d.credit.amount.currency, -units);
    },
    // A signed payment's hold is the chain's from then on: no process's death gives it back, only what the
    // chain shows (or a human, for one flagged) ends it (rails/landing.ts).
    'settlement.signed': (s, d: { settlement: { hold: string; status: string } }) => {
      const h = s.holds[d.settlement.hold];
      if (h && d.settlement.status === 'signed') delete h.owner;
    },
    'hold.released': (s, d) => {
      const h = s.holds[d.hold];
      if (!h) return;
      delete s.holds[d.hold];
      const parent = h.parent ? s.holds[h.parent] : undefined;
      if (parent) parent.units += h.units;
      else unhold(s, h, h.units);
    },
    'budget.override.granted': (s, d) => {
      const sp = spendOf(s, d.mandate);
      bump((sp.override_by_day ??= dict()), d.day, M.parseUnits(d.amount));
    },
  },
  revive: (s) => {
    const totals = (a: AccountTotals): AccountTotals => ({
      funded: toDict(a.funded, big),
      spent: toDict(a.spent, big),
      held: toDict(a.held, big),
    });
    s.accounts = toDict(s.accounts, totals);
    s.spend = toDict(s.spend, (sp) => ({
      spent: big(sp.spent),
      held: big(sp.held),
      by_day: toDict(sp.by_day, big),
      ...(sp.override_by_day ? { override_by_day: toDict(sp.override_by_day, big) } : {}),
    }));
    s.holds = toDict(s.holds, (h) => ({ ...h, units: big(h.units) }));
  },
};

/**
 * True when a hold counts in its mandate's held money on its own: a root hold, or a delegated one whose
 * parent has ended (a call's payment on a chain outlives the call: its money stays held until the chain
 * says where it went). One whose parent is open is part of its parent's hold. The fold's running totals
 * count exactly these (`hold.placed`, `hold.settled`).
 */
export function countsAsHeld(s: SpendFields, h: Pick<Hold, 'parent'>): boolean {
  return h.parent === null || s.holds[h.parent] === undefined;
}

/** Adds funds to an account. */
export async function fund(store: EventStore<SpendFields>, account: string, amount: string, currency = 'EUR'): Promise<Money> {
  accountId(account);
  const m = M.money(amount, currency);
  if (m.units <= 0n) throw new HolonError('invalid_input', 'the amount must be positive');
  await store.transact(() => ({
    events: [spendEvent('account.funded', { account, amount: M.formatUnits(m.units), currency: m.currency })],
    result: undefined,
  }));
  return m;
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
export function budgetOf(s: SpendFields, mandate: Mandate, now: number): BudgetView {
  const cur = mandate.currency;
  const sp = s.spend[mandate.id];
  const acct = s.accounts[mandate.account];
  const u = (units: bigint): Money => ({ units, currency: cur });
  const pos = (units: bigint): Money => u(units > 0n ? units : 0n);
  const spent = sp?.spent ?? 0n;
  const held = sp?.held ?? 0n;
  const total = M.money(mandate.budget.total, cur);
  const funded = acct?.funded[cur] ?? 0n;
  const accountSpent = acct?.spent[cur] ?? 0n;
  const accountHeld = acct?.held[cur] ?? 0n;
  const accountAvailable = funded - accountSpent - accountHeld;
  const mandateRoom = total.units - spent - held;
  const today = new Date(now).toISOString().slice(0, 10);
  const spentToday = sp?.by_day[today] ?? 0n;
  // An approved budget override raises only today's limit, and only by what the human approved.
  const perDay = mandate.budget.per_day ? u(M.money(mandate.budget.per_day, cur).units + (sp?.override_by_day?.[today] ?? 0n)) : null;
  return {
    mandate: mandate.id,
    currency: cur,
    total,
    spent: u(spent),
    held: u(held),
    remaining: pos(mandateRoom < accountAvailable ? mandateRoom : accountAvailable),
    per_day: perDay,
    spent_today: u(spentToday),
    remaining_today: perDay ? pos(perDay.units - spentToday - held) : null,
    per_call: mandate.budget.per_call ? M.money(mandate.budget.per_call, cur) : null,
    threshold: M.money(mandate.approval_threshold, cur),
    account: { id: mandate.account, funded: u(funded), spent: u(accountSpent), held: u(accountHeld), available: pos(accountAvailable) },
  };
}

/** Why an amount does not fit the limits: per spend, the caller's cap, the budget, the day. */
export function limitDenials(
  budget: Pick<BudgetView, 'per_call' | 'remaining' | 'remaining_today'>,
  amount: Money,
  maxCost: Money | undefined,
): Denial[] {
  const out: Denial[] = [];
  const j = M.toJson;
  if (budget.per_call && M.compare(amount, budget.per_call) > 0)
    out.push(denial('over_per_call', { amount: j(amount), limit: j(budget.per_call) }));
  if (maxCost && (maxCost.currency !== amount.currency || M.compare(amount, maxCost) > 0))
    out.push(denial('over_max_cost', { amount: j(amount), limit: j(maxCost) }));
  if (M.compare(amount, budget.remaining) > 0) out.push(denial('over_budget', { amount: j(amount), remaining: j(budget.remaining) }));
  if (budget.remaining_today && M.compare(amount, budget.remaining_today) > 0)
    out.push(denial('over_daily', { amount: j(amount), remaining: j(budget.remaining_today) }));
  return out;
}

/**
 * The most a spend could be now, read from why it was refused: the smallest of the limits it was over —
 * when every denial is a limit (per call, the budget, the day, the caller's own cap) and that leaves more
 * than nothing. A smaller amount then passes every limit (each one not exceeded is at least the amount
 * refused). Otherwise undefined: no smaller amount helps (a payee not allowed, an expired mandate,
 * nothing left, an unknown amount, limits in two currencies).
 */
export function roomLeft(denials: readonly Denial[]): Money | undefined {
  let least: Money | undefined;
  for (const d of denials) {
    let limit: MoneyJson;
    switch (d.code) {
      case 'over_per_call':
      case 'over_max_cost':
        limit = d.params.limit;
        break;
      case 'over_budget':
      case 'over_daily':
        limit = d.params.remaining;
        break;
      default:
        return undefined;
    }
    const m = M.fromJson(limit);
    if (least && least.currency !== m.currency) return undefined;
    least = least ? M.min(least, m) : m;
  }
  return least && least.units > 0n ? least : undefined;
}

/** What a spend of `amount` may draw on: the mandate's budget, or (for a delegated spend) its parent's hold, today's limit included. */
export function roomFor(
  s: SpendFields,
  mandate: Mandate,
  parent: string | null,
  now: number,
): Pick<BudgetView, 'per_call' | 'remaining' | 'remaining_today'> {
  const budget = budgetOf(s, mandate, now);
  if (!parent) return budget;
  // The parent's hold is already counted against the budget and the day: it is the child's whole room.
  return {
    per_call: budget.per_call,
    remaining: { units: s.holds[parent]?.units ?? 0n, currency: mandate.currency },
    remaining_today: null,
  };
}

/** One spend as a toolset asks for it, decided under the journal lock. */
export interface SpendRequest {
  /** The id the hold gets (the receipt or intent it is for). */
  id: string;
  mandate: Mandate;
  payee: Payee;
  /** The most it can cost, in the mandate's currency. */
  amount: Money;
  maxCost?: Money | undefined;
  /** A hold this spend draws on; a delegated spend needs no approval of its own (its parent's covered it). */
  parent?: string | null | undefined;
  /** What a human is shown if the amount is above the threshold; an approval is bound to it. */
  subject: ApprovalSubject;
  approvalId?: string | undefined;
  now: number;
  /** The process that will run the spend: if it dies, the next process releases the hold. */
  owner?: ProcessRef | undefined;
  /** The installation that asks, should a human have to approve it (see GateRequest). */
  installation?: Pick<Signer, 'publicKey'> | undefined;
}

/** How a spend was decided. */
export type SpendGate =
  | { kind: 'denied'; denials: Denial[] }
  | { kind: 'ask'; approval: Approval; events: NewEvent[] }
  | { kind: 'pending' | 'rejected'; approval: Approval }
  | { kind: 'held'; events: NewEvent[]; approval: Approval | null };

/**
 * Decides one spend against the latest state: the mandate's status, the limits, then the approval (one
 * is needed above the threshold, and a presented one must be for exactly this). On success its events
 * place the hold and spend the approval; the caller appends them, with its own, in the same transaction.
 */
export function gateSpend(s: SpendFields & ApprovalsFields & MandatesFields, r: SpendRequest): SpendGate {
  const parent = r.parent ?? null;
  const threshold = M.money(r.mandate.approval_threshold, r.mandate.currency);
  // An approval that cannot be used at all is said first (the agent learns it was used before it learns
  // about the budget); a human is asked only for what fits the limits.
  const unusable = r.approvalId !== undefined ? unusableApproval(s, r.mandate.id, r.approvalId, r.now) : undefined;
  if (unusable) return { kind: 'denied', denials: [unusable] };
  const denials = [...mandateDenials(r.mandate, r.now), ...limitDenials(roomFor(s, r.mandate, parent, r.now), r.amount, r.maxCost)];
  if (denials.length > 0) return { kind: 'denied', denials };
  const decided = approvalGate(s, {
    mandate: r.mandate.id,
    subject: r.subject,
    amount: r.amount,
    threshold,
    needed: parent === null && M.compare(r.amount, threshold) > 0,
    approvalId: r.approvalId,
    ref: r.id,
    now: r.now,
    installation: r.installation,
  });
  if (decided.kind !== 'proceed') return decided;
  const approval = decided.approval;
  const events: NewEvent[] = approval ? [useApproval(approval.id, r.id)] : [];
  events.push(
    spendEvent('hold.placed', {
      hold: r.id,
      mandate: r.mandate.id,
      account: r.mandate.account,
      currency: r.mandate.currency,
      amount: M.formatUnits(r.amount.units),
      parent,
      payee: r.payee,
      ...(r.owner ? { owner: r.owner } : {}),
    }),
  );
  return { kind: 'held', events, approval };
}

/** The denial a spend over the threshold carries while it waits for a human. */
export function thresholdDenial(amount: Money, mandate: Mandate): Denial {
  return denial('over_threshold', {
    amount: M.toJson(amount),
    threshold: { amount: mandate.approval_threshold, currency: mandate.currency },
  });
}

/**
 * Ends a hold: settles `cost` (clamped to what the hold still has) when money moved, releases it all
 * otherwise. Returns the event and the cost charged.
 */
export function endHold(s: SpendFields, id: string, cost: Money | null, reason: string): { events: NewEvent[]; charged: bigint } {
  const h = s.holds[id];
  if (!h) return { events: [], charged: 0n };
  return closeHold(id, h.units, cost, reason);
}

/**
 * The event that ends hold `id` of `held` units: settled at `cost` (never above what it holds), or
 * released when that is nothing. For a hold placed in the same transaction, which the state does not hold yet.
 */
export function closeHold(id: string, held: bigint, cost: Money | null, reason: string): { events: NewEvent[]; charged: bigint } {
  const units = cost ? (cost.units > held ? held : cost.units) : 0n;
  if (units <= 0n) return { events: [spendEvent('hold.released', { hold: id, reason })], charged: 0n };
  return { events: [spendEvent('hold.settled', { hold: id, cost: M.formatUnits(units) })], charged: units };
}

/** Why a hold was released when the process running its spend died. */
export const INTERRUPTED_REASON = 'interrupted';

/**
 * How far a team's machines' clocks may be from its database's: a hold placed less than this after the
 * database started is taken as placed before it.
 */
const CLOCK_MARGIN_MS = 5_000;

/**
 * Releases every hold whose process is gone (`gone` says which), children before their parents, in
 * one transaction against the latest state. A spend in flight when its process died moved no money
 * through Holon: its hold goes back, and its record says it was interrupted. Returns the holds released.
 *
 * Except, on a store whose database may lose its last settlements in a crash (they are committed without
 * waiting for their flush), a hold placed before that database last started: its settlement may be what
 * the crash lost, and a process that is gone cannot write it again. It stays held — over-reserved, never
 * overspent — until a human releases it, as a hold from before a machine restarted does on the journal.
 */
export async function releaseOrphanedHolds(store: EventStore<SpendFields>, gone: (owner: ProcessRef) => boolean): Promise<string[]> {
  // On a team store, only a member of a hold's account may give it back: another account's holds are left for its own.
  const mine = (id: string): boolean =>
    store.mayWrite([spendEvent('hold.released', { hold: id, reason: INTERRUPTED_REASON })]) === undefined;
  const candidates = (s: SpendFields): string[] =>
    Object.keys(s.holds).filter((id) => s.holds[id]?.owner && gone(s.holds[id].owner) && mine(id));
  // Most of the time there is nothing to do, and no transaction is needed to see it.
  if (candidates(store.state).length === 0) return [];
  const started = store.startedAt ? await store.startedAt() : undefined;
  if (started === null) return [];
  const orphaned = (s: SpendFields): string[] =>
    candidates(s).filter((id) => started === undefined || Date.parse(s.holds[id]?.placed_at ?? '') >= started + CLOCK_MARGIN_MS);
  if (orphaned(store.state).length === 0) return [];
  return store.transact((s) => {
    const ids = orphaned(s);
    return { events: releaseAll(s, ids, INTERRUPTED_REASON), result: sortChildrenFirst(s, ids) };
  });
}

/** The holds in `ids`, each after every hold that draws on it. */
function sortChildrenFirst(s: SpendFields, ids: string[]): string[] {
  const depth = (id: string): number => {
    let n = 0;
    for (let h = s.holds[id]; h?.parent; h = s.holds[h.parent]) n += 1;
    return n;
  };
  return [...ids].sort((a, b) => depth(b) - depth(a));
}

/** Releases the holds in `ids`, children before their parents, so each gives back to the one it drew on. */
export function releaseAll(s: SpendFields, ids: string[], reason: string): NewEvent[] {
  return sortChildrenFirst(s, ids).map((hold) => spendEvent('hold.released', { hold, reason }));
}

/** A hold and every hold that draws on it, at any depth. */
export function holdTree(s: SpendFields, id: string): string[] {
  const out = [id];
  for (let i = 0; i < out.length; i++) for (const [k, h] of Object.entries(s.holds)) if (h.parent === out[i]) out.push(k);
  return out;
}

/** How long a process that lost its connection to a shared store takes to come back, at most. */
const PRESENCE_RECHECK_MS = 1_500;

/**
 * Which holds' owners are gone, as far as this process can tell now: a process on this machine that
 * certainly died; and, on a store shared by many machines, a process on any machine (this one after a
 * restart included) whose connection to the store is gone, seen twice a reconnect apart so that a
 * moment's network trouble is not taken for a death.
 */
export async function goneOwners(store: EventStore<SpendFields>, recheckMs = PRESENCE_RECHECK_MS): Promise<(owner: ProcessRef) => boolean> {
  const gone = new Set<string>();
  const asked = new Map<string, ProcessRef>();
  for (const h of Object.values(store.state.holds)) {
    if (!h.owner) continue;
    const state = ownerState(h.owner);
    if (state === 'gone') gone.add(processKey(h.owner));
    else if (state !== 'running' && store.ownersAbsent) asked.set(processKey(h.owner), h.owner);
  }
  if (asked.size > 0 && store.ownersAbsent) {
    const first = await store.ownersAbsent([...asked.values()]);
    const absent = first ? [...asked.values()].filter((_, i) => first[i]) : [];
    if (absent.length > 0) {
      await new Promise((r) => setTimeout(r, recheckMs));
      const second = await store.ownersAbsent(absent);
      if (second) absent.forEach((o, i) => second[i] && gone.add(processKey(o)));
    }
  }
  return (owner) => gone.has(processKey(owner));
}

/** How often a long-running process looks for holds whose process died. */
const RECOVERY_EVERY_MS = 5_000;

/**
 * Releases the holds of processes that died, now and then every few seconds, for as long as this
 * process runs (a server, the editor). Returns how to stop.
 */
export function recoverOrphanedHolds(store: EventStore<SpendFields>, logger: Logger, everyMs = RECOVERY_EVERY_MS): () => void {
  let running = false;
  const sweep = (): void => {
    if (running) return;
    running = true;
    goneOwners(store)
      .then((gone) => releaseOrphanedHolds(store, gone))
      .then((ids) => {
        if (ids.length > 0) logger.warn(`released ${ids.length} hold(s) of a process that stopped mid-spend: ${ids.join(', ')}`);
      })
      .catch((err: unknown) => logger.warn(`could not release the holds of a stopped process: ${(err as Error).message}`))
      .finally(() => (running = false));
  };
  sweep();
  const timer = setInterval(sweep, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
