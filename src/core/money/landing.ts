/**
 * What becomes of a signed payment's money, as the chain decides it: recorded before the payment is sent
 * (`signedSettlement`), checked against the chain when the payee answers (`checkLanding`) and, by every
 * long-running process, again and again until it is final (`watchLandings`) — so a payment whose
 * process died between signing and settlement is reconciled by the next one. Landed, the hold that
 * carries it settles (a payment intent settles with a receipt naming the transaction); never landing,
 * it is released; claimed by the payee and absent from the chain, it is flagged and kept for a human,
 * whose decision (decisions/effects.ts) keeps it spent, or releases it — which gives its money back only
 * once the chain shows it can no longer land (its authorization cancelled, which Holon sends where the
 * wallet can pay for it, or lapsed). One transfer lands one settlement: the one who records a landing
 * checks, under the journal's lock, that its transfer landed no other. Before the wallet signs, Holon
 * refuses (`assertSignable`) a payment on any chain but the configured one, and one whose nonce the terms
 * fix (H) when the chain shows it spent or another payment of it may still land. No tool an agent has
 * reaches any of these: an agent can neither mark a payment landed nor release a flagged hold.
 */
import type { ApprovalsFields } from '../approvals/slice.ts';
import { approvalGate } from '../approvals/flow.ts';
import type { Approval } from '../approvals/model.ts';
import { isExpired } from '../approvals/model.ts';
import type { Clock, Logger } from '../kernel/deps.ts';
import { newId } from '../kernel/ids.ts';
import type { Money } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { EventStore, NewEvent, Signer } from '../store/store.ts';
import type { HolonState } from '../fold/state.ts';
import type { ChainReader } from './chain.ts';
import { intentReceipt, moneyEvent } from './slice.ts';
import type { Authorization, ChainVerdict, FlagReason, NeverWhy, Settlement, SettlementFor, SettlementScheme } from './settlement.ts';
import {
  awaitsChain,
  chainVerdict,
  chargeOf,
  isOpen,
  lapsesAt,
  sameNonce,
  settlementEvent,
  settlementWords,
  transferKey,
} from './settlement.ts';
import type { Hash, Hex } from 'viem';
import { getAddress } from 'viem';
import { denial } from '../kernel/denials.ts';
import { HolonError } from '../kernel/errors.ts';
import { denialText } from '../kernel/words.ts';
import { approvalEvent } from '../approvals/slice.ts';
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

/** A refusal before anything is signed, with its one denial. */
function refusedBeforeSigning(d: ReturnType<typeof denial>): HolonError {
  return new HolonError('denied', denialText(d), {}, [d]);
}

/**
 * Refuses, before the wallet signs, a payment on another network or token than the chain the human
 * configured (or any, where none is): Holon signs only what it reads back from the chain.
 */
export function assertOnConfiguredChain(reader: ChainReader | undefined, network: string, asset: string): asserts reader is ChainReader {
  const configuredChain: ChainReader | undefined = reader;
  if (reads(reader, network, asset)) return;
  const configured = configuredChain ? { network: configuredChain.config.network, asset: configuredChain.config.token } : null;
  // Only what has the form it must have is named: a network id, an address.
  const shown = (text: string, form: RegExp): string => (form.test(text) ? text : 'one Holon cannot read');
  throw refusedBeforeSigning(
    denial('other_chain', {
      network: shown(network, /^[a-z0-9-]{3,8}:[A-Za-z0-9-]{1,32}$/),
      asset: shown(asset, /^0x[0-9a-fA-F]{40}$/),
      configured,
    }),
  );
}

/** A payment about to be signed under a nonce the terms fix (H): who pays, in which scheme's nonces, and to whom. */
export interface NonceToSign {
  scheme?: SettlementScheme;
  /** The payer and the nonce, as its settlement will keep them (32 bytes of hex). */
  authorization: Pick<Authorization, 'from' | 'nonce'>;
}

/**
 * Refuses, before the wallet signs under a nonce the terms fix (H): when the chain shows that nonce spent
 * already (the terms were paid: a new signature could never land), naming where where Holon knows it; or
 * when a payment Holon signed under it may still land (`payment_open`: that one is sent again, never a
 * second). `spent` reads the nonce's state on the chain (the scheme's own: EIP-3009's or Permit2's).
 */
export async function assertNonceUnspent(
  s: HolonState,
  payment: NonceToSign,
  spent: () => Promise<boolean>,
  whereSpent: () => Promise<Hash | undefined>,
): Promise<void> {
  const key = { scheme: payment.scheme, authorization: { ...payment.authorization } } as Pick<Settlement, 'scheme' | 'authorization'>;
  const earlier = sameNonce(s, { id: '', ...key });
  const open = earlier.find((r) => isOpen(r));
  if (open) throw refusedBeforeSigning(denial('payment_open', { settlement: open.id, until: lapsesAt(open) }));
  if (!(await spent())) return;
  const landed = earlier.find((r) => r.landed)?.landed?.transaction;
  const transaction = landed ?? (await whereSpent().catch(() => undefined)) ?? null;
  throw refusedBeforeSigning(denial('terms_paid', { transaction }));
}

/** The same check for an EIP-3009 (`exact`) payment, read at the token. */
export function assertExactNonceUnspent(
  s: HolonState,
  reader: ChainReader,
  authorization: Pick<Authorization, 'from' | 'nonce'>,
): Promise<void> {
  const from = getAddress(authorization.from);
  const nonce = authorization.nonce as Hex;
  return assertNonceUnspent(
    s,
    { authorization },
    () => reader.authorizationSpent(from, nonce),
    () => reader.spentIn(from, nonce, 0n),
  );
}

/** The settlement signed under the same nonce as `payment` that may still land, if one is (the one to send again). */
export function openUnderNonce(s: HolonState, payment: NonceToSign): Settlement | undefined {
  return sameNonce(s, { id: '', scheme: payment.scheme, authorization: { ...payment.authorization } } as Settlement).find((r) => isOpen(r));
}

/**
 * The event that records a signed payment, `signed`: its hold waits for the chain `reader` reads. Only ever
 * on that chain (`assertOnConfiguredChain` refused any other before the wallet signed).
 */
export function signedSettlement(
  draft: SignedDraft,
  reader: ChainReader | undefined,
  fromBlock: bigint | null,
): { id: string; checked: boolean; event: NewEvent } {
  assertOnConfiguredChain(reader, draft.network, draft.token);
  const id = newId('stl');
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
      status: 'signed',
      payload: draft.payload,
      from_block: fromBlock === null ? null : fromBlock.toString(),
    },
  });
  return { id, checked: true, event };
}

/**
 * Records a payment the wallet signed, in one transaction, before it is sent: its settlement and, for a
 * payment drawn from a call's hold (`parent`), a hold of its own that carries it from then on, whatever
 * becomes of the call. Returns the settlement's id.
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
    if (options.parent !== undefined) {
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
    const verdict = await verdictOf(reader, before);
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
