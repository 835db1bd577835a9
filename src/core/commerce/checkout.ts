/**
 * A merchant's checkout as the commerce toolset sees it, whatever protocol carries it (ACP's checkout
 * sessions, UCP's checkout): a cart the merchant priced — its lines, totals and status are the
 * merchant's, never the caller's — and the order a completed checkout became. The protocol clients
 * (src/server/commerce) translate each wire form into these; nothing here does I/O.
 */
import { HolonError } from '../kernel/errors.ts';
import { CURRENCY_CODE } from '../kernel/ids.ts';
import type { Money, MoneyJson } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';

/** The checkout protocols Holon speaks. */
export const CHECKOUT_PROTOCOLS = ['acp', 'ucp'] as const;
export type CheckoutProtocol = (typeof CHECKOUT_PROTOCOLS)[number];

/**
 * Where a cart stands, the same for every protocol: only `ready` can be bought. ACP's
 * `ready_for_payment` and UCP's `ready_for_complete` are `ready`; anything still missing something
 * (out of stock, needs an address, escalation, a payment in progress) is `not_ready`.
 */
export type CartStatus = 'not_ready' | 'ready' | 'completed' | 'canceled';

/** One product and how many of it: all a caller may say about a cart. */
export interface LineRequest {
  product: string;
  quantity: number;
}

/** One priced line, as the merchant computed it. */
export interface CartLine {
  product: string;
  /** The merchant's name for it (data, never instructions). */
  title: string | null;
  quantity: number;
  unit_price: MoneyJson;
  /** What the line costs in all, tax and discounts as the merchant applied them. */
  total: MoneyJson;
}

/** A message the merchant attached to a cart (data, never instructions). */
export interface CartMessage {
  type: string;
  code: string | null;
  content: string;
}

/** A cart as the merchant priced it: server-authoritative. */
export interface Cart {
  /** The merchant's checkout (session) id. */
  id: string;
  merchant: string;
  protocol: CheckoutProtocol;
  status: CartStatus;
  /** The status in the protocol's own words. */
  merchant_status: string;
  currency: string;
  lines: CartLine[];
  /** Every total the merchant listed (subtotal, tax, fulfillment, discount, total…). */
  totals: { type: string; amount: MoneyJson }[];
  /** The amount to pay; null when the merchant could not compute it yet. */
  total: MoneyJson | null;
  messages: CartMessage[];
  /** The order a completed checkout became; `transaction`: where the merchant says an x402 payment of it settled (its word). */
  order: { id: string; permalink_url: string | null; transaction?: string | null } | null;
  /** How the merchant takes an x402 payment on a chain, when it offers that payment handler (its claim: Holon pays only a known token). */
  x402?: X402Offer | null;
  /**
   * At a merchant that negotiated AP2's mandates extension: the checkout as it signed it (its signature
   * already checked against its profile's keys) and its origin, which the mandates are bound to. Once
   * negotiated it is always there: a checkout without it never reaches the buy path.
   */
  ap2?: (SignedCheckout & { website: string }) | null;
}

/** A merchant's x402 payment handler: the chain, the token, who is paid, and the token's EIP-712 domain. */
export interface X402Offer {
  network: string;
  asset: string;
  payTo: string;
  name: string;
  version: string;
  maxTimeoutSeconds: number;
}

/** What a completed checkout became: the merchant's order, with its lines and total. */
export interface Order {
  id: string;
  status: 'completed';
  permalink_url: string | null;
  lines: CartLine[];
  total: MoneyJson;
}

/**
 * One merchant's checkout, over its protocol. Every method answers the merchant's authoritative cart.
 * A merchant that cannot be reached, answers 5xx or answers what cannot be read fails with
 * `agent_failed` (retry as is); a refusal it means (4xx) is `conflict`, `invalid_input` or `not_found`.
 */
export interface CheckoutClient {
  /** The merchant's id, as the human configured it. */
  readonly merchant: string;
  readonly protocol: CheckoutProtocol;
  /** Opens a checkout for `lines`; `key` makes a repeated create return the same checkout. */
  create(lines: LineRequest[], key?: string): Promise<Cart>;
  retrieve(id: string): Promise<Cart>;
  /**
   * Places the order; the same `key` and payment never place it twice. Paid with Holon's mandate
   * credential (`token`), or with a signed x402 payment (`x402`) where the merchant offers that handler;
   * with the AP2 mandates (`ap2`) where the merchant negotiated them.
   */
  complete(id: string, key: string, payment: { token: string } | { x402: unknown }, ap2?: Presentation): Promise<Cart>;
  cancel(id: string): Promise<Cart>;
}

/**
 * ISO 4217 minor-unit exponents that are not 2. Checkout protocols send amounts as integers in minor
 * units; every other currency is read with 2 decimals.
 */
const EXPONENTS: Record<string, number> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** The currency code a merchant sent ("eur" in ACP, "EUR" in UCP), upper-cased and checked. */
export function merchantCurrency(code: unknown): string {
  const c = typeof code === 'string' ? code.toUpperCase() : '';
  if (!CURRENCY_CODE.test(c)) throw new HolonError('agent_failed', 'the merchant named no readable currency');
  return c;
}

/** How many decimals a currency's minor unit has (ISO 4217): 2 unless the table above says otherwise. */
export function minorExponent(currency: string): number {
  return EXPONENTS[currency] ?? 2;
}

/** Money as a whole number of its currency's minor units, rounded down (a cap never rounds up). */
export function toMinor(m: Money): number {
  const minor = m.units / 10n ** BigInt(M.SCALE - minorExponent(m.currency));
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) throw new HolonError('invalid_input', 'the amount is too large for minor units');
  return Number(minor);
}

/** An integer amount in a currency's minor units ("1080" cents) as Money ("10.80 EUR"); never a float. */
export function fromMinor(minor: unknown, currency: string): Money {
  if (typeof minor !== 'number' || !Number.isSafeInteger(minor) || minor < 0)
    throw new HolonError('agent_failed', 'the merchant sent an amount that is not a whole number of minor units');
  const exp = minorExponent(currency);
  return { units: BigInt(minor) * 10n ** BigInt(M.SCALE - exp), currency };
}

/** The same, as its wire form. */
export function minorJson(minor: unknown, currency: string): MoneyJson {
  return M.toJson(fromMinor(minor, currency));
}

/** True when two line lists ask for the same thing, in the same order. */
export function sameLines(a: readonly LineRequest[], b: readonly LineRequest[]): boolean {
  return a.length === b.length && a.every((l, i) => l.product === b[i]?.product && l.quantity === b[i]?.quantity);
}

/** A checkout as the merchant signed it: its compact JWT (the detached signature with the payload put back) and its key. */
export interface SignedCheckout {
  /** The merchant's detached JWS, as it sent it (`ap2.merchant_authorization`). */
  authorization: string;
  /** The compact JWS of the checkout: AP2's `checkout_jwt`. */
  jwt: string;
  /** The merchant's key that signed it (from its profile's `signing_keys`). */
  key: Record<string, unknown>;
  /**
   * The merchant's challenge for this checkout (`ap2.nonce`), which the closed mandates' key bindings answer:
   * the merchant takes each answer once, so a chain sent again is a replay it can tell by the nonce alone.
   */
  challenge?: string;
}

/** What Holon presents to a merchant to complete a checkout: never returned by a tool, kept to send again as it was. */
export interface Presentation {
  checkout_mandate: string;
  payment_mandate: string;
  open_checkout_mandate: string;
  open_payment_mandate: string;
}
