/**
 * What becomes of a signed payment's money, as the chain decides it: recorded before the payment is sent
 * (signing.ts), checked against the chain when the payee answers (`checkLanding`) and, by every
 * long-running process, again and again until it is final (`watchLandings`) — so a payment whose
 * process died between signing and settlement is reconciled by the next one. Landed, the hold that
 * carries it settles (a payment intent settles with a receipt naming the transaction); never landing,
 * it is released; claimed by the payee and absent from the chain, it is flagged and kept for a human,
 * whose decision (decisions/effects.ts) keeps it spent, or releases it — which gives its money back only
 * once the chain shows it can no longer land (its authorization cancelled, which Holon sends where the
 * wallet can pay for it, or lapsed). One transfer lands one settlement: the one who records a landing
 * checks, under the journal's lock, that its transfer landed no other. What is refused before the wallet
 * signs, and how a signed payment is recorded, is signing.ts; a channel's refund, refund.ts. No tool an agent has
 * reaches any of these: an agent can neither mark a payment landed nor release a flagged hold.
 */
import type { ApprovalsFields } from '../approvals/slice.ts';
import { approvalGate } from '../approvals/flow.ts';
import type { Approval } from '../approvals/model.ts';
import { isExpired } from '../approvals/model.ts';
import type { Clock, Logger } from '../kernel/deps.ts';
import { newId } from '../kernel/ids.ts';
import * as M from '../kernel/amount.ts';
import type { EventStore, NewEvent, Signer } from '../store/store.ts';
import type { HolonState } from '../fold/state.ts';
import type { ChainReader } from './chain.ts';
import { intentReceipt, moneyEvent } from '../money/slice.ts';
import type { ChainVerdict, NeverWhy } from './scheme.ts';
import { schemeOf } from './schemes.ts';
import type { FlagReason, Settlement } from './settlement.ts';
import { awaitsChain, isOpen, settlementEvent, settlementsAwaiting, transferKey } from './settlement.ts';
import { chargeOf, lapsesAt, settlementWords } from './settlementView.ts';
import type { Hash } from 'viem';
import { approvalEvent } from '../approvals/slice.ts';
import { endHold } from '../money/spend.ts';
import { checkRefund } from './refund.ts';
import { reads } from './signing.ts';

/** What the chain's answer, or a human's decision, does to a settlement's money. */
type Outcome =
  | { kind: 'landed'; transaction: string; block: bigint; value: bigint; logIndex: number }
  | { kind: 'never'; why: NeverWhy }
  | { kind: 'kept' };

/**
 * What an outcome does to the spend a settlement pays for: its hold settles at what it carries (landed,
 * or kept by a human) — an `upto` payment's at its share for what the chain moved, the rest going back —
 * or is released; a payment intent settles with its receipt, or fails (its key may
 * then be sent again: the old authorization can never land). A running call's hold is its gateway's to
 * end; the call's payment holds its own, drawn from it, which ends here.
 */
function outcomeEvents(s: HolonState, r: Settlement, o: Outcome, now: number): NewEvent[] {
  const spent = o.kind === 'landed' || o.kind === 'kept';
  const charged =
    o.kind === 'landed'
      ? chargeOf({ ...r, landed: { transaction: o.transaction, block: o.block.toString(), value: o.value.toString() } })
      : r.held;
  const events = [...endHold(s, r.hold, spent ? M.fromJson(charged) : null, spent ? 'landed' : 'not_landed').events];
  if (r.for.kind === 'intent') {
    const intent = s.intents[r.for.id];
    if (intent && intent.status === 'authorized') {
      if (spent) {
        const reference = o.kind === 'landed' ? o.transaction : `unlanded:${r.id}`;
        const paid = { id: newId('rcpt'), rail: 'x402' as const, charged, reference, approval: null, settlement: r.id };
        const receipt = intentReceipt(intent, paid, now);
        events.push(moneyEvent('intent.settled', { intent: intent.id, receipt }));
      } else
        events.push(moneyEvent('intent.failed', { intent: intent.id, error: o.kind === 'never' ? `not_landed:${o.why}` : 'not_landed' }));
    }
  }
  return events;
}

/** Closes a flagged settlement's card that no longer asks anything (the chain has answered it). */
function closeFlag(s: HolonState, r: Settlement): NewEvent[] {
  const a = r.flag?.approval ? s.approvals[r.flag.approval] : undefined;
  return a && a.status === 'pending' ? [approvalEvent('approval.used', { id: a.id, by: r.id })] : [];
}

/**
 * The events of what the chain showed for a settlement: its own, and what it does to its money. A
 * landing whose transfer already landed another settlement is no landing of this one: its nonce was
 * spent by a payment that is not it. Landed, a settlement still held (signed, flagged, released by a
 * human and still able to land) settles its hold; one a human kept as spent is only recorded. Never
 * landing, a held one gives its money back; a kept one stays spent. A flagged one's card is closed.
 */
function chainEvents(s: HolonState, id: string, verdict: Exclude<ChainVerdict, { kind: 'pending' }>, now: number): NewEvent[] {
  const r = s.settlements[id];
  if (!r || !awaitsChain(r) || r.status === 'landed') return [];
  let v: Exclude<ChainVerdict, { kind: 'pending' }> = verdict;
  if (v.kind === 'landed') {
    const other = s.settlement_by_transfer[transferKey(v.transaction, v.logIndex)];
    if (other !== undefined && other !== id) v = { kind: 'never', why: 'spent_elsewhere', transaction: v.transaction };
  }
  if (v.kind === 'landed') {
    const landed = settlementEvent('settlement.landed', {
      settlement: id,
      transaction: v.transaction,
      block: v.block.toString(),
      value: v.value.toString(),
      log_index: v.logIndex,
    });
    const money = r.status === 'kept' ? [] : outcomeEvents(s, r, { ...v, kind: 'landed' }, now);
    return [landed, ...money, ...closeFlag(s, r)];
  }
  // The payee said it was paid, and the chain shows it never can be: on the record, with no question left.
  const claim =
    r.status === 'signed' && r.claimed
      ? [settlementEvent('settlement.flagged', { settlement: id, reason: 'not_on_chain', detail: claimDetail(r), approval: null })]
      : [];
  const never = settlementEvent('settlement.expired', { settlement: id, why: v.why });
  const money = r.status === 'kept' ? [] : outcomeEvents(s, r, { kind: 'never', why: v.why }, now);
  return [...claim, never, ...money, ...closeFlag(s, r)];
}

/** Why a payee's claim is flagged, in Holon's own words: never the transaction text the payee sent. */
function claimDetail(r: Settlement): string {
  return r.claimed
    ? `the payee named a transaction that does not show this payment on ${r.network}`
    : `the payee said it was paid, and ${r.network} does not show the payment`;
}

/** Flags a settlement to the human, asking them what to do with its hold; an approval already waiting is kept. */
function flagEvents(s: HolonState, r: Settlement, reason: FlagReason, detail: string, now: number, installation?: Signer): NewEvent[] {
  const waiting = r.flag?.approval ? s.approvals[r.flag.approval] : undefined;
  if (waiting && waiting.status === 'pending' && !isExpired(waiting, now) && r.flag?.reason === reason) return [];
  const held = M.fromJson(r.held);
  const gate = approvalGate(s as ApprovalsFields & HolonState, {
    mandate: r.mandate,
    subject: {
      kind: 'unlanded_payment',
      settlement: r.id,
      payee: r.payee,
      amount: { ...r.held },
      network: r.network,
      reason: detail,
      claimed_transaction: r.claimed?.transaction ?? null,
      lapses_at: lapsesAt(r),
    },
    amount: held,
    threshold: null,
    needed: true,
    approvalId: undefined,
    ref: r.id,
    now,
    installation,
  });
  if (gate.kind !== 'ask') return [];
  return [...gate.events, settlementEvent('settlement.flagged', { settlement: r.id, reason, detail, approval: gate.approval.id })];
}

/** What checking settlements needs from its host. */
export interface LandingDeps {
  store: EventStore<HolonState>;
  clock: Clock;
  /** The configured chain; without one, nothing is read and nothing changes. */
  chain: ChainReader | undefined;
  logger?: Logger;
  /** The installation that asks the human, should a settlement be flagged. */
  signer?: Signer;
  /**
   * Sends the cancellation of a released settlement's authorization from the wallet (it pays the gas), and
   * returns its transaction; none: a released payment waits until its authorization lapses.
   */
  cancel?: ((r: Settlement) => Promise<Hash>) | undefined;
}

/** Records the transaction the payee (`by`) says the payment landed in: where Holon looks first, nothing more. */
export async function recordClaim(deps: Pick<LandingDeps, 'store'>, id: string, transaction: string, by: string): Promise<void> {
  await deps.store.transact((s) => {
    const r = s.settlements[id];
    const same = r?.claimed?.transaction === transaction && r.claimed.by === by;
    return { events: r && !same ? [settlementEvent('settlement.claimed', { settlement: id, transaction, by })] : [], result: undefined };
  });
}

/** How long a payee's claim is given to show on the chain (a node may serve a block a moment late). */
const CLAIM_GRACE_MS = 3_000;

/**
 * Reads the chain for settlement `id` and records what it shows. With `claimed` (the payee has just said
 * it was paid: a seller's `PAYMENT-RESPONSE`, a merchant's completed order), a payment the chain does not
 * show within a short grace is flagged to the human. Returns the settlement as it is then.
 */
export async function checkLanding(deps: LandingDeps, id: string, options: { claimed?: boolean } = {}): Promise<Settlement | undefined> {
  const first = deps.store.state.settlements[id];
  const reader = deps.chain;
  if (!first || !isOpen(first) || !reads(reader, first.network, first.token)) return first ? structuredClone(first) : undefined;
  const deadline = Date.now() + (options.claimed ? CLAIM_GRACE_MS : 0);
  let verdict: ChainVerdict;
  for (let wait = 50; ; wait = Math.min(wait * 2, 500)) {
    const r = deps.store.state.settlements[id] ?? first;
    verdict = await schemeOf(r).verdict(reader, r);
    if (verdict.kind !== 'pending' || Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, wait));
  }
  await applyVerdict(deps, id, verdict, options.claimed === true);
  const after = deps.store.state.settlements[id];
  return after ? structuredClone(after) : undefined;
}

/** Records a verdict, against the latest state: a settlement another process decided meanwhile is left as it is. */
async function applyVerdict(deps: LandingDeps, id: string, verdict: ChainVerdict, claimed: boolean): Promise<void> {
  await deps.store.transact((s) => {
    const now = deps.clock.now();
    const r = s.settlements[id];
    if (!r || !awaitsChain(r)) return { events: [], result: undefined };
    if (verdict.kind !== 'pending') return { events: chainEvents(s, id, verdict, now), result: undefined };
    // The payee said it was paid (now, or before a restart) and the chain does not show it: the human decides.
    if ((claimed || r.claimed) && (r.status === 'signed' || r.status === 'flagged'))
      return { events: flagEvents(s, r, 'not_on_chain', claimDetail(r), now, deps.signer), result: undefined };
    return { events: [], result: undefined };
  });
}

/** Flags a settlement for another reason than its absence (a merchant's order for another amount than was paid). */
export async function flagSettlement(deps: LandingDeps, id: string, reason: FlagReason, detail: string): Promise<void> {
  await deps.store.transact((s) => {
    const r = s.settlements[id];
    if (!r) return { events: [], result: undefined };
    // A settlement whose money is settled (or given back) has no hold to ask about: the flag is for the record.
    if (!isOpen(r) || r.status !== 'signed')
      return { events: [settlementEvent('settlement.flagged', { settlement: id, reason, detail, approval: null })], result: undefined };
    return { events: flagEvents(s, r, reason, detail, deps.clock.now(), deps.signer), result: undefined };
  });
}

/** The settlements still waiting for the configured chain: a payment, or a channel's refund. */
function openOnChain(s: HolonState, reader: ChainReader): string[] {
  return [...settlementsAwaiting(s)].filter((id) => {
    const r = s.settlements[id];
    return r !== undefined && reads(reader, r.network, r.token);
  });
}

/**
 * Reads the chain once for every open settlement on it and records what it shows: what a process does
 * for those whose process died before it could, and for payments an agent sent itself. A released one
 * whose authorization is not cancelled yet gets its cancellation sent first, where this process can send
 * it. Returns how many changed.
 */
export async function reconcileSettlements(deps: LandingDeps): Promise<number> {
  const reader = deps.chain;
  if (!reader) return 0;
  let changed = 0;
  for (const id of openOnChain(deps.store.state, reader)) {
    const before = deps.store.state.settlements[id];
    if (!before) continue;
    if (before.status === 'landed') {
      await checkRefund(deps, reader, id);
      if (deps.store.state.settlements[id]?.refund?.transaction) changed += 1;
      continue;
    }
    if (before.status === 'releasing' && !before.cancel) await sendCancel(deps, before);
    const verdict = await schemeOf(before).verdict(reader, before);
    await applyVerdict(deps, id, verdict, false);
    const after = deps.store.state.settlements[id];
    // The human released it, and the payee settled it all the same: they are told, beside the record's words.
    if (before.status === 'releasing' && after?.status === 'landed')
      deps.logger?.warn(`payment ${id}, which a human released, landed on ${after.network} all the same: ${settlementWords(after)}`);
    if (after?.status !== before.status || after?.flag?.approval !== before.flag?.approval || after?.never !== before.never) changed += 1;
  }
  return changed;
}

/**
 * The releases whose cancellation this process is sending, or could not send: one try per settlement and
 * process, however often the chain is read (a wallet without gas is said once, not at every block).
 */
const cancelling = new Set<string>();

/**
 * Sends the cancellation of a released settlement's authorization (where this process can: `deps.cancel`)
 * and records it. One that cannot be sent (no gas, the node refuses it) is said once in the log; the
 * payment then stays held until its authorization lapses. One that lost the race to the payee's settlement
 * reverts: the chain then shows the payment landed, and it is counted.
 */
async function sendCancel(deps: LandingDeps, r: Settlement): Promise<void> {
  if (!deps.cancel || cancelling.has(r.id)) return;
  cancelling.add(r.id);
  try {
    const transaction = await deps.cancel(r);
    cancelling.delete(r.id);
    await deps.store.transact((s) => {
      const now = s.settlements[r.id];
      return {
        events:
          now?.status === 'releasing' && !now.cancel ? [settlementEvent('settlement.cancel_sent', { settlement: r.id, transaction })] : [],
        result: undefined,
      };
    });
  } catch (err) {
    deps.logger?.warn(
      `could not cancel payment ${r.id} on ${r.network} (${(err as Error).message.split('\n')[0]}): its money stays held until its ` +
        `authorization lapses at ${lapsesAt(r)}`,
    );
  }
}

/** How often a process looks at the chain for open settlements: often on the local chain, gently on a public one. */
export function landingPollMs(reader: ChainReader): number {
  const host = new URL(reader.config.rpcUrl).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' ? 25 : 2_000;
}

/**
 * Watches the chain for as long as this process runs (a server, the editor): at every new block, while
 * any settlement is open, reads each one and records what it shows. Nothing is asked of the node while
 * nothing is open. Returns how to stop.
 */
export function watchLandings(deps: LandingDeps, everyMs?: number): () => void {
  const reader = deps.chain;
  if (!reader) return () => {};
  let running = false;
  let seen: bigint | undefined;
  let warned = false;
  const tick = (): void => {
    if (running || openOnChain(deps.store.state, reader).length === 0) return;
    running = true;
    void (async () => {
      const head = await reader.head();
      // Nothing new on the chain: nothing can have landed (an expiry needs a new block's time too).
      if (seen !== undefined && head.number === seen && !waitsForThisProcess(deps, reader)) return;
      seen = head.number;
      await reconcileSettlements(deps);
      warned = false;
    })()
      .catch((err: unknown) => {
        if (!warned) deps.logger?.warn(`could not read ${reader.config.network} for open payments: ${(err as Error).message}`);
        warned = true;
      })
      .finally(() => (running = false));
  };
  tick();
  const timer = setInterval(tick, everyMs ?? landingPollMs(reader));
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * True when an open settlement needs this process whether or not a block came: a payee's claim not judged
 * yet (its process died after recording it), or a release whose cancellation this process may still send.
 */
function waitsForThisProcess(deps: LandingDeps, reader: ChainReader): boolean {
  const s = deps.store.state;
  return openOnChain(s, reader).some((id) => {
    const r = s.settlements[id];
    return (
      (r?.status === 'signed' && r.claimed !== null) ||
      (r?.status === 'releasing' && !r.cancel && deps.cancel !== undefined && !cancelling.has(r.id))
    );
  });
}

/**
 * What a human's decision on a flagged settlement does, in the decision's own transaction: rejected, it is
 * kept as spent; approved, it is released — its money stays held until the chain shows it can no longer
 * land (Holon cancels its authorization where the wallet can pay for that, or it lapses), and goes back
 * then; should it land before, it is counted as spent. A settlement the chain decided meanwhile is left as it is.
 */
export function unlandedDecisionEvents(s: object, a: Approval, decision: 'approved' | 'rejected', now: number): NewEvent[] {
  if (a.subject.kind !== 'unlanded_payment' || !('settlements' in s)) return [];
  const st = s as HolonState;
  const r = st.settlements[a.subject.settlement];
  if (!r || r.status !== 'flagged' || r.flag?.approval !== a.id) return [];
  if (decision === 'approved') return [settlementEvent('settlement.release_asked', { settlement: r.id, approval: a.id })];
  return [
    settlementEvent('settlement.decided', { settlement: r.id, approval: a.id, outcome: 'kept' }),
    ...outcomeEvents(st, r, { kind: 'kept' }, now),
  ];
}
