/**
 * The chain of consent behind a purchase at an AP2 merchant, checked offline from what Holon kept: the
 * human's open mandate (signed by their key, for the terms of the Holon mandate) → the checkout (signed
 * by the merchant; the checkout mandate signed for its hash) → the payment (the payment mandate scoped to
 * that hash, for the checkout's total, to that merchant) → the transaction (the settlement Holon read
 * landed on the chain, for that amount). Each link is re-verified from the signatures, never from
 * Holon's word for it; `holon verify`, `buy` and the receipts panel show the result.
 */
import * as M from '../kernel/amount.ts';
import type { Money } from '../kernel/amount.ts';
import type { PublicJwk } from '../local/mandateKey.ts';
import { settlementFor } from '../rails/settlement.ts';
import type { HolonState } from '../fold/state.ts';
import { hashOf, mandateDigest, VCT, verifyChain } from './ap2.ts';
import { jwsPayload } from './merchantSignature.ts';
import { fromMinor, toMinor } from './checkout.ts';
import { orderMismatch } from './payCheckout.ts';
import type { Purchase } from './purchases.ts';

/** The four links, in order. */
export const CONSENT_LINKS = ['mandate', 'checkout', 'payment', 'transaction'] as const;
export type ConsentLink = (typeof CONSENT_LINKS)[number];

/** One link: whether it holds (null: there is nothing to check, e.g. no chain payment), and what it rests on. */
export interface ConsentStep {
  link: ConsentLink;
  ok: boolean | null;
  detail: string;
}

/** A purchase's chain of consent: it holds when every link that can be checked holds. */
export interface ConsentChain {
  purchase: string;
  holds: boolean;
  steps: ConsentStep[];
}

/**
 * Checks the chain of consent of a purchase Holon made at an AP2 merchant, against the human's public
 * key; undefined when the purchase carried no AP2 mandates.
 */
export async function consentChain(s: HolonState, p: Purchase, human: PublicJwk | undefined): Promise<ConsentChain | undefined> {
  const ev = p.ap2;
  if (!ev) return undefined;
  const presented = s.presentations[p.id];
  // As of the purchase's last step: its checkout and payment mandates are signed during it, after it started
  // (as of its start, one signed a second later reads as not yet valid).
  const at = Date.parse(p.updated_at);
  const steps: ConsentStep[] = [];
  const step = (link: ConsentLink, ok: boolean | null, detail: string): void => void steps.push({ link, ok, detail });

  // The chains: each closed mandate signed by the key its open mandate binds, over that open mandate (sd_hash).
  const humanKey = human ? { kty: human.kty, crv: human.crv, x: human.x, y: human.y } : undefined;
  const checkoutChain = humanKey && presented ? await verifyChain(presented.checkout_mandate, humanKey, at) : undefined;
  const paymentChain = humanKey && presented ? await verifyChain(presented.payment_mandate, humanKey, at) : undefined;
  // The human's open mandate: their key signed it, and it is the one the purchase names.
  const openCheckout = checkoutChain?.open;
  const openPayment = paymentChain?.open;
  const openOk =
    !!openCheckout &&
    !!openPayment &&
    openCheckout['vct'] === VCT.openCheckout &&
    openPayment['vct'] === VCT.openPayment &&
    human?.kid === ev.key &&
    mandateDigest(presented?.open_payment_mandate ?? '') === ev.open.payment &&
    mandateDigest(presented?.open_checkout_mandate ?? '') === ev.open.checkout &&
    presented?.payment_mandate.startsWith(presented.open_payment_mandate.replace(/~$/, '~~')) === true &&
    presented.checkout_mandate.startsWith(presented.open_checkout_mandate.replace(/~$/, '~~'));
  step(
    'mandate',
    openOk,
    openOk ? `open mandate ${ev.open.payment.slice(0, 12)}… signed by ${ev.key.slice(0, 12)}…` : "not signed by the human's key",
  );

  // The checkout: the merchant signed it, and the checkout mandate (the key the open mandate binds) is for its hash.
  const checkoutMandate = checkoutChain?.closed;
  const signedCheckout = jwsPayload(ev.checkout.jwt, ev.checkout.merchant_key);
  const checkoutOk =
    !!checkoutMandate &&
    !!signedCheckout &&
    checkoutMandate['vct'] === VCT.checkout &&
    checkoutMandate['checkout_hash'] === hashOf(ev.checkout.jwt) &&
    ev.checkout.hash === hashOf(ev.checkout.jwt) &&
    signedCheckout['id'] === p.checkout;
  step(
    'checkout',
    checkoutOk,
    checkoutOk
      ? `checkout ${p.checkout} signed by the merchant (${ev.checkout.merchant_key.kid}), hash ${ev.checkout.hash.slice(0, 12)}…`
      : 'the checkout mandate does not match the signed checkout',
  );

  // The payment: scoped to that hash, for the checkout's total, to that merchant.
  const paymentMandate = paymentChain?.closed;
  const amount = paymentMandate?.['payment_amount'] as { amount?: unknown; currency?: unknown } | undefined;
  const total =
    typeof amount?.amount === 'number' && typeof amount.currency === 'string' ? fromMinor(amount.amount, amount.currency) : undefined;
  const paymentOk =
    !!paymentMandate &&
    paymentMandate['vct'] === VCT.payment &&
    paymentMandate['transaction_id'] === ev.checkout.hash &&
    (paymentMandate['payee'] as { id?: unknown } | undefined)?.id === p.merchant &&
    !!total &&
    total.currency === p.total.currency &&
    total.units === fromMinor(toMinor(M.fromJson(p.total)), p.total.currency).units;
  step(
    'payment',
    paymentOk,
    paymentOk
      ? `payment mandate ${ev.payment_mandate.digest.slice(0, 12)}… for ${p.total.amount} ${p.total.currency} to ${p.merchant}`
      : 'the payment mandate does not match the checkout',
  );

  steps.push(transactionStep(s, p, total));
  return { purchase: p.id, holds: steps.every((x) => x.ok !== false), steps };
}

/** The transaction: what the chain shows was paid for the purchase, of the amount its payment mandate names. */
function transactionStep(s: HolonState, p: Purchase, total: Money | undefined): ConsentStep {
  const stl = settlementFor(s, { kind: 'purchase', id: p.id });
  if (!stl) return { link: 'transaction', ok: null, detail: 'not paid on a chain' };
  const landed = stl.status === 'landed' && stl.landed !== null;
  const mismatch = total ? orderMismatch(s, M.toJson(total), M.fromJson(stl.amount)) : 'no amount';
  const ok = landed && mismatch === undefined;
  return {
    link: 'transaction',
    ok,
    detail: ok
      ? `landed in ${stl.landed?.transaction ?? ''} (block ${stl.landed?.block ?? ''})`
      : (mismatch ?? `the payment is ${stl.status}`),
  };
}

/** The chains of consent of every purchase made with AP2 mandates, newest first. */
export async function consentChains(s: HolonState, human: PublicJwk | undefined): Promise<ConsentChain[]> {
  const out: ConsentChain[] = [];
  for (const p of Object.values(s.purchases).sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1))) {
    const c = p.status === 'completed' ? await consentChain(s, p, human) : undefined;
    if (c) out.push(c);
  }
  return out;
}

/** A chain of consent in words: one line per purchase, naming the first link that does not hold. */
export function consentText(c: ConsentChain): string {
  const broken = c.steps.find((x) => x.ok === false);
  const links = c.steps.map((x) => `${x.link}${x.ok === null ? ' (none)' : ''}`).join(' → ');
  return broken
    ? `Purchase ${c.purchase}: consent BROKEN at ${broken.link}: ${broken.detail}`
    : `Purchase ${c.purchase}: consent holds, ${links}`;
}
