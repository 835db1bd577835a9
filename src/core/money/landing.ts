/**
 * What becomes of a signed payment's money, as the chain decides it: recorded before the payment is sent
 * (`signedSettlement`), checked against the chain when the payee answers (`checkLanding`) and, by every
 * long-running process, again and again until it is final (`watchLandings`) — so a payment whose
 * process died between signing and settlement is reconciled by the next one. Landed, the hold that
 * carries it settles (a payment intent settles with a receipt naming the transaction); never landing,
 * it is released; claimed by the payee and absent from the chain, it is flagged and kept for a human,
 * whose decision (decisions/effects.ts) releases it or keeps it spent. No tool an agent has reaches any
 * of these: an agent can neither mark a payment landed nor release a flagged hold.
 */
import type { ApprovalsFields } from '../approvals/slice.ts';
import { approvalGate } from '../approvals/flow.ts';
import type { Approval } from '../approvals/model.ts';
import { isExpired } from '../approvals/model.ts';
import type { Clock, Logger } from '../deps.ts';
import { newId } from '../ids.ts';
import type { Money } from '../amount.ts';
import * as M from '../amount.ts';
import type { EventStore, NewEvent, Signer } from '../store/store.ts';
import type { HolonState } from '../state.ts';
import type { ChainReader } from './chain.ts';
import { intentReceipt, moneyEvent } from './slice.ts';
import type { Authorization, ChainVerdict, FlagReason, Settlement, SettlementFor, SettlementScheme } from './settlement.ts';
import { awaitsChain, chainVerdict, chargeOf, isOpen, settlementEvent } from './settlement.ts';
import { getAddress } from 'viem';
import { endHold, spendEvent } from './spend.ts';
import { uptoVerdict } from './permit2.ts';

/** What a toolset hands over once the wallet signed, before the payment is sent. */
export interface SignedDraft {
  mandate: string;
  for: SettlementFor;
  /** The hold that carries the payment's money. */
  hold: string;
  /** What that hold carries for it, in the mandate's currency. */
  held: Money;
  network: string;
  token: string;
  /** `upto`: a Permit2 witness transfer of at most `authorization.value` (permit2.ts); absent: EIP-3009's exact. */
  scheme?: SettlementScheme;
  authorization: Authorization;
  /** The signed payment as it is sent (kept to send exactly it again). */
  payload: unknown;
  /** What it pays, in the token's currency. */
  amount: Money;
}

/** True when `reader` reads payments of this network and token. */
export function reads(reader: ChainReader | undefined, network: string, token: string): reader is ChainReader {
  return reader !== undefined && reader.config.network === network && reader.config.token.toLowerCase() === token.toLowerCase();
}

/** The block the chain is at now, where to look for a payment signed now from; null when the node does not answer. */
export async function startBlock(reader: ChainReader | undefined): Promise<bigint | null> {
  if (!reader) return null;
  try {
    return (await reader.head()).number;
  } catch {
    return null;
  }
}

/**
 * The event that records a signed payment: `signed` when `reader` reads its chain (its hold then waits for
 * the chain), else `unchecked` (its spend settles as it always did: a signed authorization can be taken).
 */
export function signedSettlement(
  draft: SignedDraft,
  reader: ChainReader | undefined,
  fromBlock: bigint | null,
): { id: string; checked: boolean; event: NewEvent } {
  const id = newId('stl');
  const checked = reads(reader, draft.network, draft.token);
  const event = settlementEvent('settlement.signed', {
    settlement: {
      id,
      mandate: draft.mandate,
      ...(draft.scheme ? { scheme: draft.scheme } : {}),
      hold: draft.hold,
      for: { ...draft.for },
      network: draft.network,
      token: draft.token,
      payee: `${draft.network}:${draft.authorization.to}`,
      authorization: { ...draft.authorization },
      amount: M.toJson(draft.amount),
      held: M.toJson(draft.held),
      status: checked ? 'signed' : 'unchecked',
      payload: draft.payload,
      from_block: fromBlock === null ? null : fromBlock.toString(),
    },
  });
  return { id, checked, event };
}

/**
 * Records a payment the wallet signed, in one transaction, before it is sent: its settlement and, for a
 * payment drawn from a call's hold (`parent`), a hold of its own that carries it from then on, whatever
 * becomes of the call. Without a chain to read it on, nothing is held for it apart: the spend settles as
 * it always did. Returns the settlement's id, and whether the chain will be read for it.
 */
export async function recordSigned(
  deps: Pick<LandingDeps, 'store' | 'chain'>,
  draft: SignedDraft,
  options: { parent?: string; fromBlock?: bigint | null } = {},
): Promise<{ id: string; checked: boolean }> {
  const fromBlock = options.fromBlock !== undefined ? options.fromBlock : await startBlock(deps.chain);
  return deps.store.transact((s) => {
    const signed = signedSettlement(draft, deps.chain, fromBlock);
    const events: NewEvent[] = [];
    if (signed.checked && options.parent !== undefined) {
      const parent = s.holds[options.parent];
      if (!parent || parent.currency !== draft.held.currency || parent.units < draft.held.units)
        throw new Error(`the payment of ${M.toJson(draft.held).amount} is not within what hold ${options.parent} has left`);
      events.push(
        spendEvent('hold.placed', {
          hold: draft.hold,
          mandate: parent.mandate,
          account: parent.account,
          currency: parent.currency,
          amount: M.formatUnits(draft.held.units),
          parent: options.parent,
          payee: { kind: 'payee', id: `${draft.network}:${draft.authorization.to}` },
        }),
      );
    }
    events.push(signed.event);
    return { events, result: { id: signed.id, checked: signed.checked } };
  });
}

/** What the chain's answer does, for a settlement still open. */
type Outcome =
  { kind: 'landed'; transaction: string; block: bigint; value: bigint } | { kind: 'never'; why: string } | { kind: 'released' | 'kept' };

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
        const reference = o.kind === 'landed' ? o.transaction : (r.claimed?.transaction ?? `unlanded:${r.id}`);
        const paid = { id: newId('rcpt'), rail: 'x402' as const, charged, reference, approval: null, settlement: r.id };
        const receipt = intentReceipt(intent, paid, now);
        events.push(moneyEvent('intent.settled', { intent: intent.id, receipt }));
      } else
        events.push(moneyEvent('intent.failed', { intent: intent.id, error: o.kind === 'never' ? `not_landed:${o.why}` : 'not_landed' }));
    }
  }
  return events;
}

/** The events of a settlement's outcome: its own, and what it does to its spend. Nothing for one already final. */
function finalEvents(s: HolonState, id: string, o: Outcome, now: number): NewEvent[] {
  const r = s.settlements[id];
  if (!r || !isOpen(r)) return [];
  if (o.kind === 'never' && r.status === 'flagged') return [];
  const own =
    o.kind === 'landed'
      ? settlementEvent('settlement.landed', {
          settlement: id,
          transaction: o.transaction,
          block: o.block.toString(),
          value: o.value.toString(),
        })
      : o.kind === 'never'
        ? settlementEvent('settlement.expired', { settlement: id, why: o.why })
        : undefined;
  return [...(own ? [own] : []), ...outcomeEvents(s, r, o, now)];
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

/** Holon's own reading of the chain for a settlement, as its scheme moves money: EIP-3009's (settlement.ts) or Permit2's (permit2.ts). */
function verdictOf(reader: ChainReader, r: Settlement): Promise<ChainVerdict> {
  return r.scheme === 'upto' ? uptoVerdict(reader, r) : chainVerdict(reader, r);
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
    verdict = await verdictOf(reader, deps.store.state.settlements[id] ?? first);
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
    if (!r || !isOpen(r)) return { events: [], result: undefined };
    if (verdict.kind === 'landed')
      return {
        events: finalEvents(s, id, { kind: 'landed', transaction: verdict.transaction, block: verdict.block, value: verdict.value }, now),
        result: undefined,
      };
    if (verdict.kind === 'never' && r.status === 'signed' && !r.claimed)
      return { events: finalEvents(s, id, { kind: 'never', why: verdict.why }, now), result: undefined };
    // The payee said it was paid (now, or before a restart) and the chain does not show it: the human decides.
    if ((claimed || r.claimed) && (r.status === 'signed' || r.status === 'flagged')) {
      const detail = r.claimed
        ? `the payee named transaction ${r.claimed.transaction}, which does not show this payment on ${r.network}`
        : `the payee said it was paid, and ${r.network} does not show the payment`;
      return { events: flagEvents(s, r, 'not_on_chain', detail, now, deps.signer), result: undefined };
    }
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
  return Object.values(s.settlements)
    .filter((r) => awaitsChain(r) && reads(reader, r.network, r.token))
    .map((r) => r.id);
}

/**
 * Records that closing a channel gives back `value` of the deposit paid by settlement `id` (from the
 * escrow it was paid to), to be looked for on the chain from now on.
 */
export async function expectRefund(deps: Pick<LandingDeps, 'store' | 'chain'>, id: string, value: bigint): Promise<void> {
  const from = await startBlock(deps.chain);
  await deps.store.transact((s) => {
    const r = s.settlements[id];
    if (!r || r.refund?.transaction) return { events: [], result: undefined };
    const event = settlementEvent('settlement.refund_expected', {
      settlement: id,
      value: value.toString(),
      from: r.authorization.to,
      from_block: (from ?? BigInt(r.from_block ?? '0')).toString(),
    });
    return { events: [event], result: undefined };
  });
}

/** The settlement a channel's deposit was paid by: its opening's nonce is H, from the payer to the escrow. */
export function channelSettlement(s: HolonState, channel: { atrHash: string; payer: string; escrow: string }): Settlement | undefined {
  const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
  return Object.values(s.settlements).find(
    (r) =>
      same(r.authorization.nonce, channel.atrHash) && same(r.authorization.from, channel.payer) && same(r.authorization.to, channel.escrow),
  );
}

/** Reads the chain for a channel's refund, and credits the mandate with it once it is there. */
async function checkRefund(deps: LandingDeps, reader: ChainReader, id: string): Promise<void> {
  const r = deps.store.state.settlements[id];
  const expected = r?.refund;
  if (!r || r.status !== 'landed' || !expected || expected.transaction !== null) return;
  const found = (await reader.transfers(getAddress(expected.from), getAddress(r.authorization.from), BigInt(expected.from_block))).find(
    (t) => t.value === BigInt(expected.value),
  );
  if (!found) return;
  await deps.store.transact((s) => {
    const now = s.settlements[id];
    if (!now?.refund || now.refund.transaction !== null) return { events: [], result: undefined };
    // The deposit's share of what the mandate was charged for it: exact, rounded in the mandate's disfavour.
    const held = M.fromJson(now.held);
    const credit = (held.units * BigInt(expected.value)) / BigInt(now.authorization.value);
    const mandate = s.mandates[now.mandate];
    const event = settlementEvent('settlement.refunded', {
      settlement: id,
      transaction: found.transaction,
      block: found.block.toString(),
      value: expected.value,
      credit: {
        mandate: now.mandate,
        account: mandate?.account ?? now.mandate.split('/')[0] ?? '',
        amount: M.toJson({ units: credit, currency: held.currency }),
        day: now.signed_at.slice(0, 10),
      },
    });
    return { events: [event], result: undefined };
  });
}

/**
 * Reads the chain once for every open settlement on it and records what it shows: what a process does
 * for those whose process died before it could, and for payments an agent sent itself. Returns how
 * many changed.
 */
export async function reconcileSettlements(deps: LandingDeps): Promise<number> {
  const reader = deps.chain;
  if (!reader) return 0;
  let changed = 0;
  for (const id of openOnChain(deps.store.state, reader)) {
    const before = deps.store.state.settlements[id];
    if (before && !isOpen(before)) {
      await checkRefund(deps, reader, id);
      if (deps.store.state.settlements[id]?.refund?.transaction) changed += 1;
      continue;
    }
    const verdict = await verdictOf(reader, before as Settlement);
    await applyVerdict(deps, id, verdict, false);
    const after = deps.store.state.settlements[id];
    if (after?.status !== before?.status || after?.flag?.approval !== before?.flag?.approval) changed += 1;
  }
  return changed;
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
      if (seen !== undefined && head.number === seen && !hasUnflaggedClaim(deps.store.state, reader)) return;
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

/** True when a payee's claim has not been judged yet (its process died after recording it). */
function hasUnflaggedClaim(s: HolonState, reader: ChainReader): boolean {
  return openOnChain(s, reader).some((id) => {
    const r = s.settlements[id];
    return r?.status === 'signed' && r.claimed !== null;
  });
}

/**
 * What a human's decision on a flagged settlement does, in the decision's own transaction: approved, its
 * hold is released (nothing moved); rejected, it is kept as spent. A settlement that landed or was
 * decided meanwhile is left as it is.
 */
export function unlandedDecisionEvents(s: object, a: Approval, decision: 'approved' | 'rejected', now: number): NewEvent[] {
  if (a.subject.kind !== 'unlanded_payment' || !('settlements' in s)) return [];
  const st = s as HolonState;
  const r = st.settlements[a.subject.settlement];
  if (!r || r.status !== 'flagged' || r.flag?.approval !== a.id) return [];
  const outcome = decision === 'approved' ? 'released' : 'kept';
  return [
    settlementEvent('settlement.decided', { settlement: r.id, approval: a.id, outcome }),
    ...outcomeEvents(st, r, { kind: outcome }, now),
  ];
}
