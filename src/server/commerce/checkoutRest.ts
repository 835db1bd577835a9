/**
 * What the ACP and UCP checkout clients share: the four requests of a checkout over REST (create, read,
 * complete, cancel) with the paths, success statuses and idempotency each one has in both protocols, the
 * pieces of a merchant's session both read the same way (amounts in minor units, totals, messages), and
 * the Cart those pieces become. A protocol adds its headers, its request bodies and its line items.
 */
import * as z from 'zod';
import type {
  Cart,
  CartLine,
  CartStatus,
  CheckoutClient,
  CheckoutProtocol,
  LineRequest,
  Presentation,
} from '../../core/commerce/checkout.ts';
import { merchantCurrency, minorJson } from '../../core/commerce/checkout.ts';
import type { FetchLike } from '../net/publicFetch.ts';
import type { MerchantConfig } from './merchants.ts';
import { codeOf } from './merchants.ts';

/** An amount in minor units, as both protocols send it. */
export const Minor = z.number().int().min(0);
export const Total = z.object({ type: z.string().max(64), amount: Minor });
export const Message = z.object({ type: z.string().max(32), code: z.string().optional(), content: z.string().optional() });

/** A merchant's text, cut to `n` characters. */
export const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n)}…` : s);

/** One request to a merchant's checkout: what every operation of both protocols comes down to. */
export interface CheckoutRequest {
  method: 'GET' | 'POST';
  /** The path under the checkout's base, e.g. `/checkout_sessions/{id}/complete`. */
  path: string;
  /** What it is about, as a failure names it: checkout, order or cancellation. */
  what: string;
  /** The statuses that mean success. */
  ok: number[];
  body?: unknown;
  /** The Idempotency-Key, on create and complete. */
  key?: string;
}

/** The parts of a merchant's session that both protocols send alike. */
interface SessionParts {
  id: string;
  status: string;
  currency: string;
  totals: z.infer<typeof Total>[];
  messages?: z.infer<typeof Message>[] | undefined;
}

/**
 * A session as a Cart, from the parts both protocols share and the lines and order the protocol read. A
 * status the table does not have is not_ready, whatever its name.
 */
export function cartOf(
  merchant: string,
  protocol: CheckoutProtocol,
  statuses: Readonly<Record<string, CartStatus>>,
  s: SessionParts,
  lines: (currency: string) => CartLine[],
  order: Cart['order'],
): Cart {
  const currency = merchantCurrency(s.currency);
  const total = s.totals.find((t) => t.type === 'total');
  return {
    id: s.id,
    merchant,
    protocol,
    status: statuses[s.status] ?? 'not_ready',
    merchant_status: s.status,
    currency,
    lines: lines(currency),
    totals: s.totals.map((t) => ({ type: t.type, amount: minorJson(t.amount, currency) })),
    total: total ? minorJson(total.amount, currency) : null,
    messages: (s.messages ?? []).map((m) => ({ type: m.type, code: codeOf(m.code), content: clip(m.content ?? '', 500) })),
    order,
  };
}

/** A merchant's checkout over REST: the four operations as requests; the protocol sends them and says what they carry. */
export abstract class RestCheckout implements CheckoutClient {
  abstract readonly protocol: CheckoutProtocol;
  readonly merchant: string;

  /** `sessions`: the path of the checkout collection (`/checkout_sessions` in ACP, `/checkout-sessions` in UCP). */
  constructor(
    protected readonly config: MerchantConfig,
    protected readonly fetch: FetchLike,
    private readonly sessions: string,
  ) {
    this.merchant = config.id;
  }

  /** Sends one request and reads the merchant's answer as a Cart, or throws the merchant's failure. */
  protected abstract send(request: CheckoutRequest): Promise<Cart>;

  /** What creating a checkout for `lines` sends. */
  protected abstract createBody(lines: LineRequest[]): unknown;

  /** What placing the order sends: the payment, and the AP2 mandates where they were negotiated. */
  protected abstract completeBody(payment: { token: string } | { x402: unknown }, ap2?: Presentation): unknown;

  private pathOf(id: string, action = ''): string {
    return `${this.sessions}/${encodeURIComponent(id)}${action}`;
  }

  async create(lines: LineRequest[], key?: string): Promise<Cart> {
    const body = await this.createBody(lines);
    return this.send({ method: 'POST', path: this.sessions, what: 'checkout', ok: [200, 201], body, ...(key ? { key } : {}) });
  }

  retrieve(id: string): Promise<Cart> {
    return this.send({ method: 'GET', path: this.pathOf(id), what: 'checkout', ok: [200] });
  }

  async complete(id: string, key: string, payment: { token: string } | { x402: unknown }, ap2?: Presentation): Promise<Cart> {
    const body = this.completeBody(payment, ap2);
    return this.send({ method: 'POST', path: this.pathOf(id, '/complete'), what: 'order', ok: [200, 201], body, key });
  }

  cancel(id: string): Promise<Cart> {
    return this.send({ method: 'POST', path: this.pathOf(id, '/cancel'), what: 'cancellation', ok: [200], body: {} });
  }

  /** The headers of a request: the protocol's own, and the Idempotency-Key when it has one. */
  protected headersOf(request: CheckoutRequest, own: Record<string, string>): Record<string, string> {
    return { ...own, ...(request.key ? { 'idempotency-key': request.key } : {}) };
  }
}
