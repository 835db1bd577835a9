/**
 * Buying from a merchant within a mandate, at the merchant's price. The caller names lines and a replay
 * key, never an amount: the amount is the total of the cart the merchant priced, converted into the
 * mandate's currency with the human's rates. It goes through the same gate every spend does (the
 * `commerce.buy` capability and its merchants, the limits), is held while the merchant completes the
 * checkout, then settled at the order's total (never above the hold) or released when the merchant
 * fails. A purchase that needs a human's approval is refused, never parked: a merchant's checkout cannot
 * wait for one.
 */
import type { ApprovalSubject } from '../approvals/model.ts';
import { CAP } from '../kernel/capabilities.ts';
import type { Clock } from '../kernel/deps.ts';
import type { Denial } from '../kernel/denials.ts';
import { denial } from '../kernel/denials.ts';
import { HolonError } from '../kernel/errors.ts';
import { convertTo } from '../money/fx.ts';
import { newId } from '../kernel/ids.ts';
import { mandateOf } from '../accounts/mandates.ts';
import type { Mandate } from '../kernel/model.ts';
import type { Money } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import { grantsAllow, grantsNow } from '../office/colleagues.ts';
import type { ProcessRef } from '../store/owner.ts';
import { thisProcess } from '../store/owner.ts';
import { getAddress } from 'viem';
import { denialTexts } from '../kernel/words.ts';
import { endHold, gateSpend } from '../money/spend.ts';
import type { HolonState } from '../fold/state.ts';
import type { EventStore, NewEvent, TxResult } from '../store/store.ts';
import type { Ap2Consent, Ap2Instrument, OpenMandates } from './ap2.ts';
import { consentFor, signClosedMandates } from './ap2.ts';
import { productDenial } from '../kernel/products.ts';
import type { MandateKey } from '../local/mandateKey.ts';
import type { Cart, CheckoutClient, LineRequest, Order, Presentation } from './checkout.ts';
import { sameLines, toMinor } from './checkout.ts';
import type { Purchase } from './purchases.ts';
import type { CheckoutChain, PayableOffer } from './payCheckout.ts';
import { orderMismatch, payableOffer, signCheckoutPayment } from './payCheckout.ts';
import { checkLanding, flagSettlement, recordClaim } from '../rails/landing.ts';
import { recordSigned } from '../rails/signing.ts';
import { settlementFor } from '../rails/settlement.ts';
import { purchaseEvent, purchaseKey } from './purchases.ts';

/** A purchase as the commerce toolset asks for it. */
export interface BuyRequest {
  mandate: string;
  merchant: CheckoutClient;
  lines: LineRequest[];
  replayKey: string;
  /** The process that runs it: if it dies mid-checkout, the next process releases the hold. */
  owner?: ProcessRef;
  /** The chain Holon pays a merchant's x402 payment handler on (payCheckout.ts); none: Holon's own credential. */
  chain?: CheckoutChain | undefined;
  /** The human's AP2 consent (key and open mandates), for a merchant that negotiated AP2; none: such a purchase is refused. */
  ap2?: Ap2Consent | undefined;
}

/** A completed purchase, and whether it was completed before (the same replay key, answered again). */
export interface BuyOutcome {
  purchase: Purchase & { order: Order; charged: M.MoneyJson };
  replayed: boolean;
}

function refused(denials: Denial[]): HolonError {
  return new HolonError('denied', denialTexts(denials).join('; '), {}, denials);
}

/**
 * The Idempotency-Key the merchant sees for a replay key: scoped to the mandate, so two mandates that
 * chose the same key never meet at one merchant (one would be answered the other's order).
 */
export function merchantKey(mandate: string, replayKey: string): string {
  return `holon:${mandate}:${replayKey}`;
}

/** Why the mandate may not buy from this merchant now, or nothing when it may. */
export function merchantDenial(s: HolonState, mandate: Mandate, merchant: string, now: number): Denial | undefined {
  const grants = grantsNow(s, mandate, CAP.commerceBuy, now);
  if (grants.length === 0) return denial('capability_missing', { capability: CAP.commerceBuy });
  if (!grantsAllow(grants, 'merchants', merchant)) {
    const allowed = grants.flatMap((g) =>
      Array.isArray(g.params?.['merchants']) ? (g.params['merchants'] as unknown[]).filter((x): x is string => typeof x === 'string') : [],
    );
    return denial('capability_scope', { capability: CAP.commerceBuy, target: merchant, allowed });
  }
  return undefined;
}

/** A cart that cannot be bought as it is, said with what the merchant reported. */
export function notReady(cart: Cart): HolonError {
  const codes = cart.messages.map((m) => m.code).filter((c): c is string => c !== null);
  return new HolonError(
    'conflict',
    `the cart is ${cart.status.replace('_', ' ')} (${cart.merchant_status}${codes.length > 0 ? `: ${codes.join(', ')}` : ''}); only a ` +
      `ready cart can be bought — change the lines and quote again`,
    {
      cart: cart.id,
      status: cart.status,
      merchant_status: cart.merchant_status,
      codes,
    },
  );
}

function completed(p: Purchase | undefined): BuyOutcome['purchase'] | undefined {
  return p && p.status === 'completed' && p.order && p.charged ? (structuredClone(p) as BuyOutcome['purchase']) : undefined;
}

/** The purchase under this key, if it is completed or still running; a different request under it is refused. */
function existing(s: HolonState, r: BuyRequest): Purchase | undefined {
  const p = s.purchases[purchaseKey(r.mandate, r.replayKey)];
  if (!p) return undefined;
  if (p.merchant !== r.merchant.merchant || !sameLines(p.lines, r.lines)) {
    throw new HolonError(
      'conflict',
      `replay key "${r.replayKey}" was used for another purchase (${p.merchant}, other lines); use a new key for a new purchase`,
      { replay_key: r.replayKey, purchase: p.id },
    );
  }
  // A lock-timeout is the `busy` problem: retry as is, once the running attempt ends.
  if (p.status === 'pending' && s.holds[p.hold])
    throw new HolonError('lock_timeout', `the purchase under replay key "${r.replayKey}" is still running; call again with the same key`, {
      replay_key: r.replayKey,
      purchase: p.id,
    });
  return p;
}

/** Cancels a checkout that will not be bought, so the merchant reserves nothing; a failure to cancel changes nothing here. */
async function letGo(client: CheckoutClient, cart: Cart): Promise<void> {
  if (cart.status === 'completed' || cart.status === 'canceled') return;
  await client.cancel(cart.id).catch(() => undefined);
}

/**
 * Buys `r.lines` from the merchant under `r.replayKey`, within the mandate. The same key and request
 * answer the recorded order again and buy nothing; after a failure, the same key completes the same
 * checkout with the same Idempotency-Key, so a merchant that did complete it answers its order and
 * never places a second one.
 */
export async function buyWithin(store: EventStore<HolonState>, clock: Clock, r: BuyRequest): Promise<BuyOutcome> {
  const client = r.merchant;
  const before = existing(store.state, r);
  const done = completed(before);
  if (done) return { purchase: done, replayed: true };
  const key = merchantKey(r.mandate, r.replayKey);
  const cart = await pricedCart(r, before, key);
  const total = M.fromJson(cart.total);
  // AP2 negotiated: without the human's signed consent for this mandate as it is now, nothing is held or signed.
  let consent: { key: MandateKey; open: OpenMandates } | undefined;
  try {
    consent = cart.ap2 ? consentFor(r.ap2, mandateOf(store.state, r.mandate), cart.currency, clock.now()) : undefined;
  } catch (err) {
    if (!before) await letGo(client, cart);
    throw err;
  }

  const purchase = before?.id ?? newId('pur');
  const hold = newId('buy');
  let amount: Money | null;
  try {
    amount = await store.transact<Money | null>((s) => holdPurchase(s, clock.now(), r, { cart, total, purchase, hold }));
  } catch (err) {
    // A concurrent call under the same key may be completing this very checkout (the merchant answered
    // both creates with it): only a checkout no purchase holds is let go.
    if (!before && store.state.purchases[purchaseKey(r.mandate, r.replayKey)]?.checkout !== cart.id) await letGo(client, cart);
    throw err;
  }
  if (amount === null)
    return { purchase: completed(store.state.purchases[purchaseKey(r.mandate, r.replayKey)]) as BuyOutcome['purchase'], replayed: true };
  const held = amount;
  const onChain = payableOffer(store.state, cart, r.chain);
  const fail = (reason: string): Promise<void> => failPurchase(store, r, purchase, hold, reason);
  // The gate held it: only now does the human's key sign this purchase's mandates (AP2 negotiated).
  let mandates: Presentation | undefined;
  if (consent && cart.ap2) {
    try {
      mandates = await mandatesFor(store, clock, r, cart, consent, purchase, onChain ? instrumentOf(onChain, r.chain) : undefined);
    } catch (err) {
      await fail('mandates_unsigned');
      throw err;
    }
  }
  // On a chain: the payment goes with the completion, its settlement recorded (and holding the money) first.
  const paid = onChain && r.chain ? await chainPayment(store, clock, r, r.chain, onChain, purchase, hold, held, cart.id) : undefined;
  const { placed, order } = await completeCheckout(r, cart, key, purchase, paid, mandates, fail);
  // Completed, the merchant says: Holon reads the chain for the payment, and checks the order against it.
  if (paid) await landedPurchase(store, clock, r.chain, paid.settlement, placed, order);
  await store.transact((s) => ({
    events: completionEvents(s, r, { purchase, hold, held, order, settlement: paid?.settlement }),
    result: undefined,
  }));
  const recorded = completed(store.state.purchases[purchaseKey(r.mandate, r.replayKey)]);
  if (!recorded) throw new Error(`purchase ${purchase} completed but is not recorded`);
  return { purchase: recorded, replayed: false };
}

/**
 * The cart the merchant priced, ready to buy: a retry reads the checkout it already priced. A create's key
 * is its own: a checkout let go after a refusal must never be answered again to a later call under this key.
 */
async function pricedCart(r: BuyRequest, before: Purchase | undefined, key: string): Promise<PricedCart> {
  const client = r.merchant;
  const cart = before ? await client.retrieve(before.checkout) : await client.create(r.lines, `${key}:create:${newId('try')}`);
  if (cart.status !== 'ready' && cart.status !== 'completed') {
    if (!before) await letGo(client, cart);
    throw notReady(cart);
  }
  if (!cart.total) throw new HolonError('agent_failed', 'the merchant marked the cart ready without a total');
  return cart as PricedCart;
}

/** A cart the merchant priced. */
type PricedCart = Cart & { total: M.MoneyJson };

/** What one attempt at a purchase is: its priced cart and total, the purchase it records, the hold it takes. */
interface Attempt {
  cart: PricedCart;
  total: Money;
  purchase: string;
  hold: string;
}

/**
 * The purchase's hold, decided on the latest state: its total converted into the mandate's currency and
 * held within the mandate's limits (never asked of a human: a purchase over the threshold is refused).
 * Null when another call under this key finished meanwhile: its order is the answer.
 */
function holdPurchase(s: HolonState, now: number, r: BuyRequest, a: Attempt): TxResult<Money | null> {
  const client = r.merchant;
  const again = existing(s, r);
  if (completed(again)) return { events: [], result: null };
  if (again && again.id !== a.purchase)
    throw new HolonError('lock_timeout', `another call under replay key "${r.replayKey}" got there first; call again with the same key`, {
      replay_key: r.replayKey,
    });
  const mandate = mandateOf(s, r.mandate);
  const scope = merchantDenial(s, mandate, client.merchant, now) ?? productDenial(mandate, r.lines);
  if (scope) throw refused([scope]);
  const converted = convertTo(s, a.total, mandate.currency);
  if (!converted) throw refused([denial('no_rate', { from: a.total.currency, to: mandate.currency })]);
  const subject: ApprovalSubject = {
    kind: 'payment',
    payee: `merchant:${client.merchant}`,
    amount: M.toJson(converted),
    terms_hash: null,
    purpose: `order at ${client.merchant}: ${r.lines.map((l) => `${l.quantity} × ${l.product}`).join(', ')}`,
  };
  const gate = gateSpend(s, {
    id: a.hold,
    mandate,
    payee: { kind: 'merchant', id: client.merchant },
    amount: converted,
    subject,
    now,
    owner: r.owner ?? thisProcess(),
  });
  switch (gate.kind) {
    case 'denied':
      throw refused(gate.denials);
    case 'ask':
    case 'pending':
    case 'rejected':
      // No parked path: the approval the gate would ask for is never requested.
      throw refused([
        denial('purchase_over_threshold', {
          amount: M.toJson(converted),
          threshold: { amount: mandate.approval_threshold, currency: mandate.currency },
        }),
      ]);
    case 'held':
      return {
        events: [
          ...gate.events,
          purchaseEvent('purchase.started', {
            purchase: a.purchase,
            mandate: mandate.id,
            replay_key: r.replayKey,
            merchant: client.merchant,
            protocol: client.protocol,
            checkout: a.cart.id,
            lines: r.lines,
            hold: a.hold,
            total: a.cart.total,
            amount: M.toJson(converted),
          }),
        ],
        result: converted,
      };
  }
}

/** Ends a purchase that failed before the merchant completed it: its hold goes back. */
async function failPurchase(store: EventStore<HolonState>, r: BuyRequest, purchase: string, hold: string, reason: string): Promise<void> {
  await store.transact((s) => ({
    events: [
      ...endHold(s, hold, null, reason).events,
      purchaseEvent('purchase.failed', { purchase, mandate: r.mandate, replay_key: r.replayKey, reason }),
    ],
    result: undefined,
  }));
}

/**
 * The merchant completes the checkout under `key`, paid by the x402 payment or the purchase's token. A
 * failure releases the hold (`fail`), except for a payment sent on a chain, which may have settled: it
 * keeps its hold, and the purchase waits for the chain. Returns the completed cart and its order.
 */
async function completeCheckout(
  r: BuyRequest,
  cart: PricedCart,
  key: string,
  purchase: string,
  paid: { payload: unknown; settlement: string } | undefined,
  mandates: Presentation | undefined,
  fail: (reason: string) => Promise<void>,
): Promise<{ placed: Cart; order: Order }> {
  const client = r.merchant;
  let placed: Cart;
  try {
    placed = await client.complete(cart.id, key, paid ? { x402: paid.payload } : { token: purchase }, mandates);
  } catch (err) {
    if (paid) throw unsettledPurchase(r, err);
    await fail(HolonError.is(err) ? err.reason : 'merchant_error');
    if (HolonError.is(err)) throw err;
    throw new HolonError(
      'agent_failed',
      `the merchant ${client.merchant} could not complete the checkout; the hold was released — call again with the same replay key`,
    );
  }
  if (placed.status !== 'completed' || !placed.order) {
    if (paid) throw unsettledPurchase(r, notReady(placed));
    await fail('not_completed');
    throw notReady(placed);
  }
  const order: Order = {
    id: placed.order.id,
    status: 'completed',
    permalink_url: placed.order.permalink_url,
    lines: placed.lines,
    total: placed.total ?? cart.total,
  };
  return { placed, order };
}

/**
 * The events of a completed purchase. On a chain, what was paid is the settlement's (its own hold ends
 * with it; this attempt's, if it is another, goes back); otherwise the order's total, converted as the
 * hold was, never more than held.
 */
function completionEvents(
  s: HolonState,
  r: BuyRequest,
  c: { purchase: string; hold: string; held: Money; order: Order; settlement: string | undefined },
): NewEvent[] {
  const stl = c.settlement ? s.settlements[c.settlement] : undefined;
  const cost = convertTo(s, M.fromJson(c.order.total), c.held.currency) ?? c.held;
  const end =
    stl && stl.hold === c.hold
      ? { events: [], charged: M.fromJson(stl.held).units }
      : stl
        ? { events: endHold(s, c.hold, null, 'paid_before').events, charged: M.fromJson(stl.held).units }
        : endHold(s, c.hold, cost, 'completed');
  const charged = M.toJson({ units: end.charged, currency: c.held.currency });
  return [
    ...end.events,
    purchaseEvent('purchase.completed', {
      purchase: c.purchase,
      mandate: r.mandate,
      replay_key: r.replayKey,
      merchant: r.merchant.merchant,
      order: c.order,
      charged,
    }),
  ];
}

/**
 * The x402 payment of a purchase: the one already signed for it, where one landed or may still (sent again
 * as it was, never a second); else a new one the wallet signs now, recorded with its settlement — which
 * holds the purchase's money from then on — before it is sent.
 */
async function chainPayment(
  store: EventStore<HolonState>,
  clock: Clock,
  r: BuyRequest,
  chain: CheckoutChain,
  offer: PayableOffer,
  purchase: string,
  hold: string,
  held: Money,
  checkout: string,
): Promise<{ payload: unknown; settlement: string }> {
  const prior = settlementFor(store.state, { kind: 'purchase', id: purchase });
  if (prior && prior.status !== 'expired' && prior.status !== 'released') return { payload: prior.payload, settlement: prior.id };
  const signed = await signCheckoutPayment(chain, offer.offer, offer.amount, `${r.merchant.merchant}:checkout:${checkout}`, clock.now());
  const recorded = await recordSigned(
    { store, chain: chain.reader, wallet: chain.wallet },
    {
      mandate: r.mandate,
      for: { kind: 'purchase', id: purchase },
      hold,
      held,
      network: offer.offer.network,
      token: offer.offer.asset,
      authorization: signed.authorization,
      payload: signed.payload,
      amount: offer.amount,
    },
  );
  return { payload: signed.payload, settlement: recorded.id };
}

/** AP2's payment instrument for an x402 payment: the token on its chain, and the wallet that pays it. */
function instrumentOf(offer: PayableOffer, chain: CheckoutChain | undefined): Ap2Instrument {
  const from = chain?.wallet.address ?? 'unknown';
  return {
    id: `${offer.offer.network}:${getAddress(offer.offer.asset)}:${from}`,
    type: 'org.x402.exact',
    description: `${offer.amount.currency} on ${offer.offer.network}, from ${from}`,
  };
}

/**
 * The AP2 mandates of a purchase: those already presented for this checkout (a retry sends the merchant the
 * same request, which its Idempotency-Key answers), else new ones the human's key signs now, recorded
 * before they are sent. Only their digests and disclosed claims are ever shown.
 */
async function mandatesFor(
  store: EventStore<HolonState>,
  clock: Clock,
  r: BuyRequest,
  cart: Cart,
  consent: { key: MandateKey; open: OpenMandates },
  purchase: string,
  instrument: Ap2Instrument | undefined,
): Promise<Presentation> {
  const s = store.state;
  const prior = s.purchases[purchaseKey(r.mandate, r.replayKey)];
  const kept = s.presentations[purchase];
  if (kept && prior?.ap2?.checkout.id === cart.id) return kept;
  const signed = cart.ap2;
  if (!signed || !cart.total) throw new Error('an AP2 purchase needs the signed checkout and its total');
  const { presentation, evidence } = await signClosedMandates(
    consent.key,
    consent.open,
    {
      checkout: signed,
      payee: { id: r.merchant.merchant, name: r.merchant.merchant, website: signed.website },
      amount: { amount: toMinor(M.fromJson(cart.total)), currency: cart.currency },
      instrument: instrument ?? { id: purchase, type: 'holon_mandate', description: `Holon mandate ${r.mandate}` },
      audience: signed.website,
      now: clock.now(),
    },
    cart.id,
  );
  await store.transact(() => ({
    events: [purchaseEvent('purchase.mandated', { purchase, mandate: r.mandate, replay_key: r.replayKey, evidence, presentation })],
    result: undefined,
  }));
  return presentation;
}

/** A purchase whose payment was sent and whose order did not come back: it waits for the chain, its money held. */
function unsettledPurchase(r: BuyRequest, err: unknown): HolonError {
  const why = HolonError.is(err) ? err.message : 'the merchant could not be reached';
  return new HolonError(
    'agent_failed',
    `${why}; the payment was sent, so its money stays held until the chain shows whether it landed — call again with the same ` +
      'replay key: the same payment is sent again, never a second one',
    { replay_key: r.replayKey },
  );
}

/**
 * Reads the chain for a purchase the merchant completed: flagged when the chain does not show the payment
 * (a merchant that completed unpaid), or when the order's total is not what was paid.
 */
async function landedPurchase(
  store: EventStore<HolonState>,
  clock: Clock,
  chain: CheckoutChain | undefined,
  settlement: string,
  placed: Cart,
  order: Order,
): Promise<void> {
  const deps = { store, clock, chain: chain?.reader };
  if (placed.order?.transaction) await recordClaim(deps, settlement, placed.order.transaction, 'merchant');
  const read = await checkLanding(deps, settlement, { claimed: true });
  if (!read || read.status !== 'landed') return;
  const mismatch = orderMismatch(store.state, order.total, M.fromJson(read.amount));
  if (mismatch) await flagSettlement(deps, settlement, 'other_amount', mismatch);
}
