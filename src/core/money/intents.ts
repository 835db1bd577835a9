/**
 * Payment intents (seed 003's `pay` and `simulate`; paying one is pay.ts): an intent names a payee, an amount, a purpose and an
 * idempotency key; the gate is the mandate's own decision — the `pay` capability and its payees, a rail
 * that can pay the payee, the human's rates, the limits, the threshold — and answers allow, deny or
 * confirm. Allow holds the money, moves it on the rail and settles; confirm parks it (the money held) for
 * a human, whose decision settles or releases it in the decision's own transaction; deny is recorded.
 * The same key with the same body always returns the same result; with another body it is refused.
 */
import { canonicalize } from 'json-canonicalize';
import type { Approval } from '../approvals/model.ts';
import { isExpired } from '../approvals/model.ts';
import { useApproval } from '../approvals/flow.ts';
import type { Denial } from '../kernel/denials.ts';
import { denial } from '../kernel/denials.ts';
import { HolonError } from '../kernel/errors.ts';
import { convertTo } from './fx.ts';
import { ACCOUNT_ID, newId } from '../kernel/ids.ts';
import { mandateDenials, mandateOf } from '../accounts/mandates.ts';
import type { Mandate } from '../kernel/model.ts';
import type { Money, MoneyJson } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import { payeeDenial } from './walletPay.ts';
import { denialTexts } from '../kernel/words.ts';
import { countsAsHeld, limitDenials, roomFor, spendEvent, thresholdDenial } from './spend.ts';
import type { HolonState } from '../fold/state.ts';
import type { NewEvent, Signer } from '../store/store.ts';
import type { Ed25519Signature, GateVerdict, IntentReceipt, IntentRecord, IntentStatus, JobEvent } from './slice.ts';
import { intentKey, intentReceipt, moneyEvent } from './slice.ts';
import type { SettlementView } from '../rails/settlementView.ts';
import { settlementFor } from '../rails/settlement.ts';
import { settlementView } from '../rails/settlementView.ts';
import { auditRange, mayHaveLapsed, newestFirst } from './intentIndex.ts';

/** An intent as the agent submits it. */
export interface IntentAsk {
  /** `acct:<account>` (a Holon account) or a CAIP-10 account. */
  payee: string;
  /** A decimal string. */
  amount: string;
  currency: string;
  purpose: string;
  idempotency_key: string;
}

/** A payee reference, read. */
export type PayeeRef = { kind: 'account'; ref: string; account: string } | { kind: 'chain'; ref: string; chain: string; address: string };

const CAIP10 = /^([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32}):([-.%a-zA-Z0-9]{1,128})$/;

/** Reads a payee reference; anything else is invalid input. */
export function parsePayee(ref: string): PayeeRef {
  if (ref.startsWith('acct:')) {
    const account = ref.slice(5);
    if (!ACCOUNT_ID.test(account)) throw new HolonError('invalid_input', `"${ref}" is not a Holon account reference (acct:<account>)`);
    return { kind: 'account', ref, account };
  }
  const m = CAIP10.exec(ref);
  if (!m) throw new HolonError('invalid_input', `"${ref}" is neither acct:<account> nor a CAIP-10 account (namespace:chain:address)`);
  return { kind: 'chain', ref, chain: `${m[1]}:${m[2]}`, address: m[3] ?? '' };
}

/** The parts of an intent its key is bound to, normalized ("1.0" and "1.00" are one amount). */
export interface IntentBody {
  payee: string;
  amount: string;
  currency: string;
  purpose: string;
}

/** The intent's body, checked: a positive amount of a currency, a payee that reads. */
export function intentBody(ask: IntentAsk): { body: IntentBody; payee: PayeeRef; amount: Money } {
  const payee = parsePayee(ask.payee);
  const amount = M.money(ask.amount, ask.currency);
  if (amount.units <= 0n) throw new HolonError('invalid_input', 'the amount must be positive');
  return {
    body: { payee: ask.payee, amount: M.formatUnits(amount.units), currency: amount.currency, purpose: ask.purpose },
    payee,
    amount,
  };
}

/** What the installation signs for an intent it submits. */
export function intentStatement(mandate: string, key: string, body: IntentBody): string {
  return canonicalize({ type: 'holon.intent.v1', mandate, idempotency_key: key, ...body });
}

/** Signs `message` (RFC 8785 text) with the installation key. */
export function signWith(signer: Signer, message: string): Ed25519Signature {
  return { alg: 'Ed25519', public_key: signer.publicKey, value: signer.sign(message) };
}

/** What the gate decides about an intent now. */
export interface GateDecision {
  verdict: GateVerdict;
  denials: Denial[];
  /** The amount in the mandate's currency, or null when no rate converts it. */
  amount: Money | null;
  threshold: Money;
}

/**
 * The currencies of a mandate's prior spends (settled, or held now) that no human-set rate converts into
 * its currency: while there is one, what it has left is unknown and nothing is authorized.
 */
export function unconvertibleCurrencies(s: HolonState, m: Mandate): string[] {
  const seen = new Set<string>();
  for (const [ccy, units] of Object.entries(s.drawn[m.id]?.total ?? {})) if (units > 0n) seen.add(ccy);
  for (const h of Object.values(s.holds)) if (h.mandate === m.id && countsAsHeld(s, h)) seen.add(h.currency);
  return [...seen].filter((c) => c !== m.currency && !convertTo(s, { units: 1n, currency: c }, m.currency)).sort();
}

/** The chain rail's reach, as the gate sees it: the chain it pays on and the currency of its token. */
export interface ChainReach {
  network: string;
  currency: string;
}

/** Why no rail Holon runs can pay this payee for this mandate, if so. */
function railDenial(s: HolonState, m: Mandate, payee: PayeeRef, amount: Money, chain: ChainReach | undefined): Denial | undefined {
  if (payee.kind === 'chain') {
    // An EVM account on the chain Holon is configured for, paid in its token: the x402/EIP-3009 rail (chainPay.ts).
    if (!chain || payee.chain !== chain.network || !/^0x[0-9a-fA-F]{40}$/.test(payee.address))
      return denial('no_rail', { payee: payee.ref, why: 'chain_account' });
    if (amount.currency !== chain.currency) return denial('no_rail', { payee: payee.ref, why: 'chain_currency' });
    return undefined;
  }
  if (payee.account === m.account) return denial('no_rail', { payee: payee.ref, why: 'own_account' });
  if (!s.accounts[payee.account]) return denial('no_rail', { payee: payee.ref, why: 'unknown_account' });
  return undefined;
}

/** The gate: what the mandate decides about paying `amount` to `payee` now. Pure; writes nothing. */
export function decideIntent(
  s: HolonState,
  mandateId: string,
  payee: PayeeRef,
  amount: Money,
  now: number,
  chain?: ChainReach | undefined,
): GateDecision {
  const m = mandateOf(s, mandateId);
  const threshold = M.money(m.approval_threshold, m.currency);
  const denials: Denial[] = [...mandateDenials(m, now)];
  const scope = payeeDenial(s, mandateId, payee.ref);
  if (scope) denials.push(scope);
  const rail = railDenial(s, m, payee, amount, chain);
  if (rail) denials.push(rail);
  const unknown = unconvertibleCurrencies(s, m);
  if (unknown.length > 0) denials.push(denial('spend_unconvertible', { currencies: unknown, to: m.currency }));
  const converted = convertTo(s, amount, m.currency) ?? null;
  if (!converted) denials.push(denial('no_rate', { from: amount.currency, to: m.currency }));
  else denials.push(...limitDenials(roomFor(s, m, null, now), converted, undefined));
  if (denials.length > 0) return { verdict: 'deny', denials, amount: converted, threshold };
  return { verdict: M.compare(converted as Money, threshold) > 0 ? 'confirm' : 'allow', denials: [], amount: converted, threshold };
}

/** An intent's status as a reader should see it now: a parked one whose approval lapsed is expired. */
export function statusNow(s: HolonState, r: IntentRecord, now: number): IntentStatus {
  if (r.status !== 'pending' || !r.approval) return r.status;
  const a = s.approvals[r.approval];
  return !a || isExpired(a, now) ? 'expired' : 'pending';
}

/** One intent's lifecycle, as `get_job` and `list_intents` return it. */
export interface IntentView {
  intent: string;
  idempotency_key: string;
  status: IntentStatus;
  verdict: GateVerdict | null;
  payee: string;
  amount: MoneyJson;
  purpose: string;
  held: MoneyJson | null;
  charged: MoneyJson | null;
  reasons: string[];
  pending: { approval: string; challenge: string; expires_at: string } | null;
  receipt: IntentReceipt | null;
  error: string | null;
  attempts: number;
  created_at: string;
  updated_at: string;
  /** To a chain account: the payment signed for it and what the chain shows of it. */
  settlement: SettlementView | null;
}

/** The lifecycle of an intent now. */
export function intentView(s: HolonState, r: IntentRecord, now: number): IntentView {
  const status = statusNow(s, r, now);
  const a = r.approval ? s.approvals[r.approval] : undefined;
  return {
    intent: r.id,
    idempotency_key: r.idempotency_key,
    status,
    verdict: r.verdict,
    payee: r.payee,
    amount: { ...r.amount },
    purpose: r.purpose,
    held: status === 'authorized' || status === 'pending' ? r.held : null,
    charged: r.receipt ? { ...r.receipt.charged } : null,
    reasons: denialTexts(r.denials),
    pending:
      status === 'pending' && r.approval && r.challenge && a
        ? { approval: r.approval, challenge: r.challenge, expires_at: a.expires_at }
        : null,
    receipt: r.receipt ? structuredClone(r.receipt) : null,
    error: r.error,
    attempts: r.attempts,
    created_at: r.created_at,
    updated_at: r.updated_at,
    settlement: chainSettlementOf(s, r.id),
  };
}

/** The settlement of an intent paid on a chain, as its view shows it. */
function chainSettlementOf(s: HolonState, intent: string): SettlementView | null {
  const r = settlementFor(s, { kind: 'intent', id: intent });
  return r ? settlementView(r) : null;
}

/** The intent a mandate submitted under `key`, if any. */
export function intentByKey(s: HolonState, mandate: string, key: string): IntentRecord | undefined {
  const id = s.intent_keys[intentKey(mandate, key)];
  const r = id ? s.intents[id] : undefined;
  return r && r.mandate === mandate ? r : undefined;
}

/** The events that settle an intent whose money is held: the payer's hold settles, the payee is credited. */
export function settleEvents(s: HolonState, r: IntentRecord, reference: string, approval: string | null, now: number): NewEvent[] {
  const h = s.holds[r.id];
  const payee = parsePayee(r.payee);
  if (!h || payee.kind !== 'account') return [];
  const charged = M.toJson({ units: h.units, currency: h.currency });
  const receipt = intentReceipt(r, { id: newId('rcpt'), rail: 'journal', charged, reference, approval }, now);
  return [
    spendEvent('hold.settled', { hold: r.id, cost: charged.amount }),
    moneyEvent('intent.settled', { intent: r.id, credit: { account: payee.account, amount: { ...r.amount } }, receipt }),
  ];
}

/**
 * The parked intents of a mandate whose approval lapsed by `now`, in the order they were submitted. Only
 * those the lapse queue says may have lapsed are looked at, so the work under the lock does not grow
 * with the intents.
 */
export function lapsedIntents(s: HolonState, mandate: string, now: number): IntentRecord[] {
  return mayHaveLapsed(s, s.intent_index[mandate], now).filter(
    (r) => r.mandate === mandate && r.status === 'pending' && r.approval !== null && statusNow(s, r, now) === 'expired',
  );
}

/** Parked intents of a mandate whose approval lapsed: their holds go back. */
export function lapsedEvents(s: HolonState, mandate: string, now: number): NewEvent[] {
  const out: NewEvent[] = [];
  for (const r of lapsedIntents(s, mandate, now)) {
    if (s.holds[r.id]) out.push(spendEvent('hold.released', { hold: r.id, reason: 'approval_expired' }));
    out.push(moneyEvent('intent.expired', { intent: r.id, approval: r.approval as string }));
  }
  return out;
}

/** One entry of a mandate's audit trail: a job event with the intent it belongs to. */
export type AuditEntry = JobEvent & { intent: string; idempotency_key: string };

/**
 * A page of a mandate's audit trail, oldest first: at most `limit` job events after journal seq `after`
 * (a journal event is never split across pages), and the seq the next page starts after, null at the end.
 * A seek in the trail's index: it costs the page, whatever the trail's length.
 */
export function auditPage(s: HolonState, mandate: string, after: number, limit: number): { entries: AuditEntry[]; next: number | null } {
  const ix = s.intent_index[mandate];
  const { from, to, left } = auditRange(ix, after, limit);
  const entries: AuditEntry[] = [];
  for (let i = from; i < to; i++) {
    const r = s.intents[ix?.audit_intent[i] ?? ''];
    const seq = ix?.audit_seq[i];
    const e = r?.events.findLast((x) => x.seq === seq);
    if (r && e) entries.push({ ...structuredClone(e), intent: r.id, idempotency_key: r.idempotency_key });
  }
  const last = entries[entries.length - 1];
  return { entries, next: to - from < left && last ? last.seq : null };
}

/**
 * A page of a mandate's intents, newest first: at most `limit` submitted before journal seq `before`, only
 * those whose status is `status` now if given, and the created_seq the next page starts before (null at
 * the end). Walks the status index back from `before`: a parked intent whose approval lapsed is read as
 * expired, as `statusNow` says, so the pending list is checked against the clock.
 */
export function intentPage(
  s: HolonState,
  mandate: string,
  status: IntentStatus | null | undefined,
  before: number,
  limit: number,
  now: number,
): { intents: IntentRecord[]; next: number | null } {
  const ix = s.intent_index[mandate];
  const lists = !status ? Object.keys(ix?.by_status ?? {}) : status === 'expired' ? ['expired', 'pending'] : [status];
  const rows: IntentRecord[] = [];
  for (const r of newestFirst(s, ix, lists, before)) {
    if (status && statusNow(s, r, now) !== status) continue;
    rows.push(r);
    if (rows.length > limit) break;
  }
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { intents: page, next: rows.length > limit && last ? last.created_seq : null };
}

/**
 * What a human's decision on a parked intent does, in the decision's own transaction: approved, the
 * journal transfer settles it (unless the mandate can no longer act, then the money goes back);
 * rejected, the hold is released. `s` is the whole state the decision was made on.
 */
export function intentDecisionEvents(s: object, a: Approval, decision: 'approved' | 'rejected', now: number): NewEvent[] {
  if (a.subject.kind !== 'payment_intent' || !('intents' in s)) return [];
  const st = s as HolonState;
  const r = st.intents[a.subject.intent];
  if (!r || r.status !== 'pending' || r.approval !== a.id || !st.holds[r.id]) return [];
  if (decision === 'rejected')
    return [
      spendEvent('hold.released', { hold: r.id, reason: 'rejected' }),
      moneyEvent('intent.rejected', { intent: r.id, approval: a.id }),
    ];
  const m = st.mandates[r.mandate];
  const inactive = m ? mandateDenials(m, now) : [];
  if (!m || inactive.length > 0)
    return [
      spendEvent('hold.released', { hold: r.id, reason: 'mandate_inactive' }),
      moneyEvent('intent.denied', { intent: r.id, denials: inactive }),
    ];
  return [useApproval(a.id, r.id), ...settleEvents(st, r, `journal:${r.id}`, a.id, now)];
}

/** What `simulate` answers: the gate's decision, which is never a grant. */
export interface Simulation {
  decision: GateVerdict;
  authorizes: false;
  reasons: string[];
  amount: MoneyJson;
  /** The amount in the mandate's currency; null when no rate converts it. */
  in_mandate_currency: MoneyJson | null;
  threshold: MoneyJson;
  /** Why it would not pay at once, as codes (for confirm, the threshold): what `pay` would refuse with. */
  denials: Denial[];
}

/** What the gate would decide now. Settles nothing, appends nothing, and leaves the key unused. */
export function simulateIntent(s: HolonState, mandateId: string, ask: IntentAsk, now: number, chain?: ChainReach): Simulation {
  const { payee, amount } = intentBody(ask);
  const d = decideIntent(s, mandateId, payee, amount, now, chain);
  const denials = d.verdict === 'confirm' && d.amount ? [thresholdDenial(d.amount, mandateOf(s, mandateId))] : d.denials;
  return {
    decision: d.verdict,
    authorizes: false,
    reasons: denialTexts(denials),
    denials,
    amount: M.toJson(amount),
    in_mandate_currency: d.amount ? M.toJson(d.amount) : null,
    threshold: M.toJson(d.threshold),
  };
}

/** The statement that signs an intent's job events: their count and the hash of the last. */
export function jobChainStatement(intent: string, events: readonly JobEvent[]): string {
  return canonicalize({ type: 'holon.job.v1', intent, count: events.length, head: events[events.length - 1]?.hash ?? '' });
}
