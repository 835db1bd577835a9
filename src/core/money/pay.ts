/**
 * The `pay` tool (seed 003): pays a payment intent within the mandate. Under the journal's lock the key is
 * replayed or the intent submitted and gated (intents.ts decides); an allowed intent's money is then moved
 * on its rail — the journal between Holon accounts, or a chain (rails/chainPay.ts) — and settled, and a
 * rail failure gives the hold back. The same key with the same body always returns the same result.
 */
import type { ApprovalSubject } from '../approvals/model.ts';
import { approvalEvent } from '../approvals/slice.ts';
import type { Clock } from '../kernel/deps.ts';
import { denial } from '../kernel/denials.ts';
import { HolonError } from '../kernel/errors.ts';
import { newId } from '../kernel/ids.ts';
import type { Money, MoneyJson } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import { canonicalHash } from '../kernel/util.ts';
import { denialTexts } from '../kernel/words.ts';
import { mandateOf } from '../accounts/mandates.ts';
import type { ProcessRef } from '../store/owner.ts';
import type { EventStore, NewEvent, Signer } from '../store/store.ts';
import type { HolonState } from '../fold/state.ts';
import { isOpen, settlementFor } from '../rails/settlement.ts';
import { settlementWords } from '../rails/settlementView.ts';
import type { ChainRail } from '../rails/chainPay.ts';
import { payIntentOnChain } from '../rails/chainPay.ts';
import type { ChainReach, IntentAsk, IntentBody, IntentView, PayeeRef } from './intents.ts';
import {
  decideIntent,
  intentBody,
  intentByKey,
  intentStatement,
  intentView,
  lapsedEvents,
  parsePayee,
  settleEvents,
  signWith,
  statusNow,
} from './intents.ts';
import type { Ed25519Signature, IntentReceipt, IntentRecord } from './slice.ts';
import { moneyEvent } from './slice.ts';
import { gateSpend, spendEvent, thresholdDenial } from './spend.ts';

/** A movement of money an allowed intent asks a rail for. */
export interface TransferOrder {
  intent: string;
  from: string;
  to: string;
  amount: MoneyJson;
}

/**
 * How an allowed intent's money moves. The journal rail records the transfer itself (the settlement
 * appended after it answers); another rail (a test's failing one) answers first or throws, and then
 * nothing moved.
 */
export interface TransferRail {
  transfer(order: TransferOrder): Promise<{ reference: string }>;
}

/** The rail between Holon accounts: the journal's own settlement is the movement. */
export const journalRail: TransferRail = {
  transfer: async (order) => ({ reference: `journal:${order.intent}` }),
};

/** What `payIntent` needs from its host. */
export interface PayDeps {
  store: EventStore<HolonState>;
  clock: Clock;
  signer: Signer;
  rail: TransferRail;
  /** The process that moves the money: if it dies mid-transfer, the next process releases the hold. */
  owner?: ProcessRef | undefined;
  /** The x402/EIP-3009 rail to `eip155:` accounts, where a chain, a wallet and a facilitator are configured. */
  chain?: ChainRail | undefined;
}

/** What the gate knows of a chain rail. */
function reachOf(rail: ChainRail | undefined): ChainReach | undefined {
  return rail ? { network: rail.reader.config.network, currency: rail.reader.config.asset.currency } : undefined;
}

/** A settled intent. */
export interface PayResult {
  intent: IntentView;
  receipt: IntentReceipt;
  /** True when an earlier request with the same key and body had settled it. */
  replayed: boolean;
}

type Gated =
  | { kind: 'resend'; intent: string; order: TransferOrder }
  | { kind: 'conflict'; intent: string }
  | { kind: 'busy' }
  | { kind: 'done'; intent: string; first: boolean }
  | { kind: 'move'; intent: string; order: TransferOrder };

/** The problem an intent that did not settle amounts to, as a typed error the edge renders. */
function notSettled(s: HolonState, r: IntentRecord, first: boolean, now: number): HolonError {
  const status = statusNow(s, r, now);
  const key = r.idempotency_key;
  if (status === 'denied')
    return new HolonError(
      'denied',
      `the gate denied intent ${key}: ${denialTexts(r.denials).join('; ')}`,
      { idempotency_key: key },
      r.denials,
    );
  const a = r.approval ? s.approvals[r.approval] : undefined;
  if (status === 'rejected' && r.approval)
    return new HolonError('denied', `the human rejected intent ${key}`, { idempotency_key: key }, [
      denial('rejected', { approval: r.approval }),
    ]);
  if (status === 'expired' && r.approval) {
    return new HolonError(
      'denied',
      `the approval of intent ${key} expired before a human decided; submit a new intent with a new key`,
      { idempotency_key: key },
      [denial('approval_expired', { approval: r.approval, expires_at: a?.expires_at ?? r.updated_at })],
    );
  }
  if (status === 'pending' && r.approval && a) {
    // The intent id is said once, in the response that parked it; list_intents {status: "pending"} finds it again.
    const over = thresholdDenial(M.fromJson(r.held ?? r.amount), mandateOf(s, r.mandate));
    return new HolonError(
      'denied',
      `intent ${key} waits for a human: ${denialTexts([over]).join('')}; approval ${r.approval} ` +
        `(challenge ${r.challenge ?? ''}) is theirs to release`,
      {
        idempotency_key: key,
        ...(first ? { intent: r.id } : {}),
        approval: r.approval,
        challenge: r.challenge,
        expires_at: a.expires_at,
      },
      [over, denial('approval_pending', { approval: r.approval })],
    );
  }
  return new HolonError(
    'agent_failed',
    `intent ${key} did not settle (${status}${r.error ? `: ${r.error}` : ''}); send it again with the same key`,
    { idempotency_key: key },
  );
}

/**
 * Pays an intent within the mandate: decides and holds under the journal lock (or replays what the key
 * already did), moves the money on the rail, then settles. A rail failure releases the hold and marks
 * the intent failed: sending it again with the same key pays once. Throws the typed error of a denial,
 * a parked or rejected intent, a key reused for another body, or a rail failure.
 */
export async function payIntent(deps: PayDeps, mandateId: string, ask: IntentAsk): Promise<PayResult> {
  const { body, payee, amount } = intentBody(ask);
  const key = ask.idempotency_key;
  const bodySha = canonicalHash(body);
  // Signed before the lock is taken: signing needs no state, and the lock is held as briefly as it can be.
  const signature = signWith(deps.signer, intentStatement(mandateId, key, body));
  const asked: Asked = { mandate: mandateId, key, body, bodySha, payee, amount, signature };
  const gated = await deps.store.transact<Gated>((s) => gateIntent(s, deps, asked));
  const s = deps.store.state;
  switch (gated.kind) {
    case 'conflict':
      throw new HolonError(
        'conflict',
        `idempotency key "${key}" was already used for another intent (another payee, amount, currency or purpose); use a new key`,
        { idempotency_key: key },
      );
    case 'busy':
      throw new HolonError('lock_timeout', `intent ${key} is being paid right now; ask again in a moment with the same key`, {
        idempotency_key: key,
      });
    case 'done': {
      const r = s.intents[gated.intent] as IntentRecord;
      if (r.status === 'settled' && r.receipt)
        return { intent: intentView(s, r, deps.clock.now()), receipt: structuredClone(r.receipt), replayed: true };
      throw notSettled(s, r, gated.first, deps.clock.now());
    }
    case 'move':
    case 'resend':
      return parsePayee(body.payee).kind === 'chain' ? onChain(deps, gated.intent, gated.order) : move(deps, gated.intent, gated.order);
  }
}

/** An intent as `payIntent` took it in: its body, the hash and signature of that body, and what it pays whom. */
interface Asked {
  mandate: string;
  key: string;
  body: IntentBody;
  bodySha: string;
  payee: PayeeRef;
  amount: Money;
  signature: Ed25519Signature;
}

/**
 * Under the journal's lock: replays what the key already did, or submits the intent and asks the gate —
 * which holds its money (to move it), parks it for a human, or denies it.
 */
function gateIntent(s: HolonState, deps: PayDeps, asked: Asked): { events: NewEvent[]; result: Gated } {
  const now = deps.clock.now();
  const events: NewEvent[] = lapsedEvents(s, asked.mandate, now);
  const existing = intentByKey(s, asked.mandate, asked.key);
  if (existing) {
    const replayed = replayOf(s, existing, asked, events);
    if (replayed) return { events: replayed.kind === 'conflict' ? [] : events, result: replayed };
  }
  const id = existing?.id ?? newId('int');
  if (!existing) {
    events.push(
      moneyEvent('intent.submitted', {
        intent: id,
        mandate: asked.mandate,
        idempotency_key: asked.key,
        body_sha256: asked.bodySha,
        payee: asked.body.payee,
        amount: { amount: asked.body.amount, currency: asked.body.currency },
        purpose: asked.body.purpose,
        signature: asked.signature,
      }),
    );
  }
  const decided = decideIntent(s, asked.mandate, asked.payee, asked.amount, now, reachOf(deps.chain));
  if (decided.verdict === 'deny' || !decided.amount) {
    events.push(moneyEvent('intent.denied', { intent: id, denials: decided.denials }));
    return { events, result: { kind: 'done', intent: id, first: true } };
  }
  return { events, result: gatedSpend(s, deps, asked, id, decided.amount, events, now) };
}

/**
 * What an intent already submitted under the key amounts to now (with `events`, the lapses found): another
 * body is a conflict; an open payment on a chain is sent again; a settled, denied or parked one is done;
 * one that failed (or whose process died mid-transfer) is tried again — undefined, with its retry recorded.
 */
function replayOf(s: HolonState, existing: IntentRecord, asked: Asked, events: NewEvent[]): Gated | undefined {
  if (existing.body_sha256 !== asked.bodySha) return { kind: 'conflict', intent: existing.id };
  const expiring = events.some((e) => (e.data as { intent?: string }).intent === existing.id);
  // Paid on a chain and not known to have landed: its one authorization is sent again, never a second.
  const open = settlementFor(s, { kind: 'intent', id: existing.id });
  if (existing.status === 'authorized' && open && isOpen(open)) return { kind: 'resend', intent: existing.id, order: orderOf(s, existing) };
  if (existing.status === 'authorized' && s.holds[existing.id]) return { kind: 'busy' };
  if (expiring || !['authorized', 'failed'].includes(existing.status)) return { kind: 'done', intent: existing.id, first: false };
  // Failed on the rail, or its process died mid-transfer (its hold was given back): try again.
  if (existing.status === 'authorized') events.push(moneyEvent('intent.failed', { intent: existing.id, error: 'interrupted' }));
  events.push(moneyEvent('intent.retried', { intent: existing.id, signature: asked.signature }));
  return undefined;
}

/** The gate's answer for an allowed intent (its amount in the mandate's currency), its events pushed onto `events`. */
function gatedSpend(s: HolonState, deps: PayDeps, asked: Asked, id: string, inMandate: Money, events: NewEvent[], now: number): Gated {
  const { payee, amount } = asked;
  const mandate = mandateOf(s, asked.mandate);
  const subject: ApprovalSubject = {
    kind: 'payment_intent',
    intent: id,
    payee: payee.ref,
    amount: M.toJson(amount),
    purpose: asked.body.purpose,
  };
  const gate = gateSpend(s, {
    id,
    mandate,
    payee: { kind: 'payee', id: payee.ref },
    amount: inMandate,
    subject,
    now,
    owner: deps.owner,
    installation: deps.signer,
  });
  const held = M.toJson(inMandate);
  switch (gate.kind) {
    case 'held': {
      events.push(...gate.events, moneyEvent('intent.authorized', { intent: id, held }));
      const to = payee.kind === 'account' ? payee.account : payee.ref;
      return { kind: 'move', intent: id, order: { intent: id, from: mandate.account, to, amount: M.toJson(amount) } };
    }
    case 'ask':
      // Parked: the money is held with no process owning it, so it waits for the human across restarts.
      events.push(
        ...gate.events,
        spendEvent('hold.placed', {
          hold: id,
          mandate: mandate.id,
          account: mandate.account,
          currency: mandate.currency,
          amount: held.amount,
          parent: null,
          payee: { kind: 'payee', id: payee.ref },
        }),
        moneyEvent('intent.parked', {
          intent: id,
          held,
          approval: gate.approval.id,
          challenge: gate.approval.binding,
          expires_at: gate.approval.expires_at,
        }),
        // No process waits for it: the human's decision itself settles or releases the intent.
        approvalEvent('approval.released', { id: gate.approval.id }),
      );
      return { kind: 'done', intent: id, first: true };
    case 'denied':
      events.push(moneyEvent('intent.denied', { intent: id, denials: gate.denials }));
      return { kind: 'done', intent: id, first: true };
    default:
      throw new Error('an intent presents no approval, so the gate cannot find one pending');
  }
}

/** The transfer an intent asks for. */
function orderOf(s: HolonState, r: IntentRecord): TransferOrder {
  return { intent: r.id, from: mandateOf(s, r.mandate).account, to: r.payee, amount: { ...r.amount } };
}

/** Pays an authorized intent on the chain rail (chainPay.ts): it settles once Holon reads it landed. */
async function onChain(deps: PayDeps, id: string, order: TransferOrder): Promise<PayResult> {
  const rail = deps.chain;
  if (!rail) throw new HolonError('agent_failed', 'no chain rail is configured any more to pay this intent on; its money stays held');
  const payee = parsePayee(order.to);
  const to = payee.kind === 'chain' ? payee.address : order.to;
  const settlement = await payIntentOnChain({ store: deps.store, clock: deps.clock, signer: deps.signer, rail }, id, {
    to,
    amount: M.fromJson(order.amount),
  });
  const s = deps.store.state;
  const r = s.intents[id] as IntentRecord;
  if (r.status === 'settled' && r.receipt)
    return { intent: intentView(s, r, deps.clock.now()), receipt: structuredClone(r.receipt), replayed: false };
  // Not landed, and it may still: its one authorization stands, and no second is signed while it does.
  if (settlement.status === 'flagged' || settlement.status === 'releasing')
    throw new HolonError('denied', `intent ${r.idempotency_key}: ${settlementWords(settlement)}`, {
      idempotency_key: r.idempotency_key,
      settlement: settlement.id,
    });
  throw notSettled(s, r, false, deps.clock.now());
}

/** Moves an authorized intent's money on the rail, then settles it; on a rail failure releases the hold. */
async function move(deps: PayDeps, id: string, order: TransferOrder): Promise<PayResult> {
  let reference: string;
  try {
    reference = (await deps.rail.transfer(order)).reference;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    await deps.store.transact((s) => ({
      events:
        s.intents[id]?.status === 'authorized'
          ? [
              ...(s.holds[id] ? [spendEvent('hold.released', { hold: id, reason: 'rail_failed' })] : []),
              moneyEvent('intent.failed', { intent: id, error: why }),
            ]
          : [],
      result: undefined,
    }));
    const key = deps.store.state.intents[id]?.idempotency_key ?? '';
    throw new HolonError(
      'agent_failed',
      `the transfer rail failed (${why}); nothing moved — send the same intent again with the same idempotency key`,
      { idempotency_key: key },
    );
  }
  const settled = await deps.store.transact((s) => {
    const r = s.intents[id];
    if (!r || r.status !== 'authorized') return { events: [], result: false };
    const events = settleEvents(s, r, reference, null, deps.clock.now());
    return {
      events: events.length > 0 ? events : [moneyEvent('intent.failed', { intent: id, error: 'hold_lost' })],
      result: events.length > 0,
    };
  });
  const s = deps.store.state;
  const r = s.intents[id] as IntentRecord;
  if (!settled || !r.receipt) throw notSettled(s, r, false, deps.clock.now());
  return { intent: intentView(s, r, deps.clock.now()), receipt: structuredClone(r.receipt), replayed: false };
}
