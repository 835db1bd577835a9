/**
 * A payment Holon signs with the human's wallet, through the mandate like any other spend: the `pay`
 * capability and its payee scope, the amount in the mandate's currency (by the human's rates), the
 * limits, a human above the threshold (the approval bound to payee, amount, currency and the terms hash),
 * and, once the wallet signed, the hold and what settles it written in one transaction before the
 * signature leaves — a signed authorization is money the payee can take.
 */
import type { ApprovalWaiter } from '../approvals/flow.ts';
import { untilDecided } from '../approvals/flow.ts';
import type { Approval, ApprovalSubject } from '../approvals/model.ts';
import { approvalStatus, bindingOf } from '../approvals/model.ts';
import { payeeScopeDenial } from '../kernel/capabilities.ts';
import type { Clock } from '../kernel/deps.ts';
import type { Denial } from '../kernel/denials.ts';
import { denial } from '../kernel/denials.ts';
import { HolonError } from '../kernel/errors.ts';
import { convertTo } from './fx.ts';
import { newId } from '../kernel/ids.ts';
import { mandateOf } from '../accounts/mandates.ts';
import type { Money } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import { denialTexts } from '../kernel/words.ts';
import { closeHold, gateSpend } from './spend.ts';
import type { ChainReader } from '../rails/chain.ts';
import type { SignedDraft } from '../rails/signing.ts';
import { signedSettlement, startBlock } from '../rails/signing.ts';
import type { HolonState } from '../fold/state.ts';
import { authorizedPayment } from '../accounts/chainAccount.ts';
import type { Authorization } from '../rails/scheme.ts';
import type { EventStore, NewEvent } from '../store/store.ts';

/** A payment as a toolset asks for it. */
export interface PaymentAsk {
  mandate: string;
  /** Who is paid, as the rail names them (a CAIP-10 account). */
  payee: string;
  /** The amount in the asset's own currency. */
  amount: Money;
  /** H, the hash of the terms the payment is bound to, where there are terms. */
  termsHash: string | null;
  /** What the payment is for, as the human is shown it. */
  purpose: string | null;
}

/** How a payment went; a paid one signed on a chain has its settlement record. */
export type PaymentOutcome<T> =
  { kind: 'paid'; result: T; spend: string; charged: Money; settlement?: string } | { kind: 'pending' | 'rejected'; approval: Approval };

/** A payment on a chain, as the wallet signed it: what its settlement record keeps (rails/signing.ts). */
export type ChainPayment = Pick<SignedDraft, 'network' | 'token' | 'scheme' | 'authorization' | 'payload' | 'amount'>;

/** How a payment's settlement is recorded: the chain it is read on, and what the wallet signed, read from the result. */
export interface ChainSettle<T> {
  reader: ChainReader | undefined;
  payment(result: T): ChainPayment | undefined;
  /** The chain's head, read already by the caller (beside its own reads of the chain); default: read here. */
  head?: Promise<bigint | null>;
}

/** Why the mandate does not let this payee be paid, or nothing when it does. */
export function payeeDenial(s: HolonState, mandateId: string, payee: string): Denial | undefined {
  return payeeScopeDenial(mandateOf(s, mandateId), payee);
}

function refused(denials: Denial[]): HolonError {
  return new HolonError('denied', denialTexts(denials).join('; '), {}, denials);
}

/**
 * The newest approval for exactly this payment under this mandate that can still be used: an agent that
 * calls again after the human approved finds it by what it binds, without an id to carry.
 */
function approvalFor(s: HolonState, mandate: string, subject: ApprovalSubject, now: number): Approval | undefined {
  const { binding } = bindingOf(mandate, subject);
  let found: Approval | undefined;
  for (const a of Object.values(s.approvals)) {
    if (a.mandate !== mandate || a.binding !== binding) continue;
    const status = approvalStatus(a, now);
    if (status !== 'pending' && status !== 'approved') continue;
    if (!found || a.requested_at > found.requested_at) found = a;
  }
  return found;
}

/** What the gate decided for a payment: its money held (in the mandate's currency), or an approval it waits for. */
type Decided = { kind: 'held'; charged: Money; approval: string | undefined } | { kind: 'pending' | 'rejected'; approval: Approval };

/** Under the journal's lock: the payee's scope, the amount in the mandate's currency, then the gate (refusals thrown). */
function gatePayment(
  s: HolonState,
  ask: PaymentAsk,
  p: { spend: string; subject: ApprovalSubject; approvalId: string | undefined; now: number },
): { events: NewEvent[]; result: Decided } {
  const mandate = mandateOf(s, ask.mandate);
  const scope = payeeDenial(s, ask.mandate, ask.payee);
  if (scope) throw refused([scope]);
  const amount = convertTo(s, ask.amount, mandate.currency);
  if (!amount) throw refused([denial('no_rate', { from: ask.amount.currency, to: mandate.currency })]);
  const found = p.approvalId ?? approvalFor(s, mandate.id, p.subject, p.now)?.id;
  const payee = { kind: 'payee' as const, id: ask.payee };
  const gate = gateSpend(s, { id: p.spend, mandate, payee, amount, subject: p.subject, approvalId: found, now: p.now });
  switch (gate.kind) {
    case 'denied':
      throw refused(gate.denials);
    case 'ask':
      return { events: gate.events, result: { kind: 'pending', approval: structuredClone(gate.approval) } };
    case 'pending':
    case 'rejected':
      return { events: [], result: { kind: gate.kind, approval: structuredClone(gate.approval) } };
    case 'held':
      return { events: gate.events, result: { kind: 'held', charged: amount, approval: found } };
  }
}

/** A payment the human's account signed when they approved it: what `sign` sends instead of signing one itself. */
export interface AccountSigned {
  authorization: Authorization;
  signature: string;
}

/** One payment's own: its spend id (the hold's) and what a human would be asked to approve. */
interface Paying {
  spend: string;
  subject: ApprovalSubject;
}

/**
 * The gate, without writing the hold: it is written with the payment's record once the wallet signed
 * (commitPayment). Decided first on the state as this process has it; anything but money that fits is
 * decided again under the journal's lock, against the latest state, and an approval it asks for is
 * made durable at once: the agent is told to wait for it.
 */
async function decidePayment(
  store: EventStore<HolonState>,
  clock: Clock,
  ask: PaymentAsk,
  p: Paying,
  approvalId: string | undefined,
): Promise<Decided> {
  const fast = gatePayment(store.state, ask, { ...p, approvalId, now: clock.now() }).result;
  if (fast.kind === 'held') return fast;
  const d = await store.transact<Decided>(
    (s) => {
      const g = gatePayment(s, ask, { ...p, approvalId, now: clock.now() });
      return g.result.kind === 'held' ? { events: [], result: g.result } : g;
    },
    { durable: false },
  );
  await store.flush();
  return d;
}

/**
 * Writes a signed payment's hold and its record (`recorded`) in one durable transaction, before the
 * signature leaves this process: a crash leaves both or neither, and neither means the signature never
 * left. The gate is decided again there, on the latest state: a payment that no longer fits (another
 * spend took the room while the wallet signed) is refused, and its signature is never handed out.
 */
async function commitPayment(
  store: EventStore<HolonState>,
  clock: Clock,
  ask: PaymentAsk,
  p: Paying,
  held: Extract<Decided, { kind: 'held' }>,
  recorded: NewEvent[],
): Promise<void> {
  await store.transact((s) => {
    const again = gatePayment(s, ask, { ...p, approvalId: held.approval, now: clock.now() });
    if (again.result.kind !== 'held' || again.result.charged.units !== held.charged.units)
      throw new HolonError(
        'conflict',
        'the mandate changed while the wallet signed (another spend, or the approval): nothing was sent; try again',
        {
          reason: 'changed_while_signing',
        },
      );
    return { events: [...again.events, ...recorded], result: undefined };
  });
}

/**
 * Pays `ask` by `sign` (the wallet), within the mandate: decides, waits for the human where one must
 * decide (`wait`), signs, then writes the hold and the payment's record in one transaction, decided again
 * against the latest state, before the signature is handed back. A wallet that fails leaves nothing
 * written. Where the human's approval carried the payment signed by their account (`payment.authorized`),
 * `sign` is handed it and must send exactly it: a result that pays otherwise is refused, and the hot key
 * never pays such a payment.
 */
export async function payWithin<T>(
  store: EventStore<HolonState>,
  clock: Clock,
  ask: PaymentAsk,
  sign: (account?: AccountSigned) => Promise<T>,
  options: { wait?: ApprovalWaiter | undefined; signal?: AbortSignal | undefined; chain?: ChainSettle<T> | undefined } = {},
): Promise<PaymentOutcome<T>> {
  const p: Paying = {
    spend: newId('pay'),
    subject: { kind: 'payment', payee: ask.payee, amount: M.toJson(ask.amount), terms_hash: ask.termsHash, purpose: ask.purpose },
  };
  // Where the chain is before the wallet signs (a payment signed now is looked for from there on), read
  // while the payment is decided rather than after it; read again after a human was waited for.
  const head = options.chain ? (options.chain.head ?? startBlock(options.chain.reader)) : Promise.resolve(null);
  let waited = false;
  const humanWait = options.wait;
  const wait: ApprovalWaiter | undefined = humanWait && ((a, signal) => ((waited = true), humanWait(a, signal)));
  const { decision, status } = await untilDecided<Decided>(
    store,
    (id) => decidePayment(store, clock, ask, p, id),
    (d) => (d.kind === 'pending' ? d.approval : undefined),
    {
      wait,
      signal: options.signal,
    },
  );
  if (decision.kind !== 'held') {
    const approval = store.state.approvals[decision.approval.id] ?? decision.approval;
    return { kind: status === 'rejected' || decision.kind === 'rejected' ? 'rejected' : 'pending', approval: structuredClone(approval) };
  }
  const fromBlock = waited ? await startBlock(options.chain?.reader) : await head;
  const account = await accountSigned(store.state, decision.approval, options.chain?.reader);
  const result = await sign(account);
  const payment = options.chain?.payment(result);
  if (account && !sameAuthorization(payment?.authorization, account.authorization))
    throw new HolonError('denied', 'the payment your account signed was not the one about to be sent: nothing was sent', {
      reason: 'account_authorization',
    });
  const charged = decision.charged;
  if (payment && options.chain) {
    // The hold waits for the chain Holon reads it back from (and only that chain's payments are signed).
    const draft: SignedDraft = { ...payment, mandate: ask.mandate, for: { kind: 'payment', id: p.spend }, hold: p.spend, held: charged };
    const signed = signedSettlement(draft, options.chain.reader, fromBlock);
    await commitPayment(store, clock, ask, p, decision, [signed.event]);
    return { kind: 'paid', result, spend: p.spend, charged, settlement: signed.id };
  }
  await commitPayment(store, clock, ask, p, decision, closeHold(p.spend, charged.units, charged, 'signed').events);
  return { kind: 'paid', result, spend: p.spend, charged };
}

/**
 * The payment the human's account signed with approval `approval`, checked against the chain it is paid
 * on (delegation/accountPays.ts, loaded only then); undefined where the approval carried none.
 */
async function accountSigned(
  s: HolonState,
  approval: string | undefined,
  reader: ChainReader | undefined,
): Promise<AccountSigned | undefined> {
  if (approval === undefined || !authorizedPayment(s, approval)) return undefined;
  if (!reader)
    throw new HolonError('denied', `approval ${approval}'s payment was signed by your account, and no chain is configured to pay it on`, {
      reason: 'account_authorization',
    });
  const { accountPaymentFor } = await import('../rails/delegation/accountPays.ts');
  return accountPaymentFor(s, reader, approval);
}

/** True when `a` is exactly `b`: every member, addresses in any case. */
function sameAuthorization(a: Authorization | undefined, b: Authorization): boolean {
  if (!a) return false;
  return (['from', 'to', 'value', 'validAfter', 'validBefore', 'nonce'] as const).every(
    (k) => String(a[k]).toLowerCase() === b[k].toLowerCase(),
  );
}
