/**
 * The Agentic Commerce Protocol's checkout (the Agentic Checkout Specification, API-Version
 * 2026-01-16) from the buyer's side: `POST /checkout_sessions` creates a session from items,
 * `GET /checkout_sessions/{id}` reads it, `POST …/{id}/complete` places the order with payment data,
 * `POST …/{id}/cancel` cancels it. Every answer is the merchant's authoritative session: amounts are
 * integers in minor units, the currency is ISO 4217 (lower case), the status one of
 * not_ready_for_payment, ready_for_payment, in_progress, authentication_required, completed, canceled.
 * Create and complete carry an Idempotency-Key; the same key with the same body answers the original.
 */
import { HolonError } from '../../core/kernel/errors.ts';
import * as z from 'zod';
import type { Cart, CartStatus, CheckoutClient, LineRequest } from '../../core/commerce/checkout.ts';
import { fromMinor, merchantCurrency, minorJson } from '../../core/commerce/checkout.ts';
import * as M from '../../core/kernel/amount.ts';
import { toDict } from '../../core/kernel/util.ts';
import type { MerchantConfig } from './merchants.ts';
import type { FetchLike } from '../net/publicFetch.ts';
import { codeOf, exchange, merchantFailure, readBody } from './merchants.ts';

/** The version of the specification Holon speaks. */
export const ACP_API_VERSION = '2026-01-16';

const Minor = z.number().int().min(0);
const Total = z.object({ type: z.string().max(64), amount: Minor });
const LineItem = z.object({
  id: z.string().max(200),
  item: z.object({ id: z.string().min(1).max(200), quantity: z.number().int().min(1) }),
  base_amount: Minor,
  total: Minor,
  unit_amount: Minor.optional(),
  name: z.string().optional(),
});
const Message = z.object({ type: z.string().max(32), code: z.string().optional(), content: z.string().optional() });
const Session = z.object({
  id: z.string().min(1).max(200),
  status: z.string().max(64),
  currency: z.string(),
  line_items: z.array(LineItem).max(500),
  totals: z.array(Total).max(50),
  messages: z.array(Message).max(50).optional(),
  order: z.object({ id: z.string().min(1).max(200), permalink_url: z.string().max(2000).optional() }).nullish(),
});
type Session = z.infer<typeof Session>;
const ErrorBody = z.object({ type: z.string().optional(), code: z.string().optional() }).partial();

// Looked up by the status the merchant sent: one this table does not have is not_ready, whatever its name.
const STATUS = toDict<CartStatus>({ ready_for_payment: 'ready', completed: 'completed', canceled: 'canceled' });

const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n)}…` : s);

/** A session as a Cart. */
function cartOf(merchant: string, s: Session): Cart {
  const currency = merchantCurrency(s.currency);
  const total = s.totals.find((t) => t.type === 'total');
  return {
    id: s.id,
    merchant,
    protocol: 'acp',
    status: STATUS[s.status] ?? 'not_ready',
    merchant_status: s.status,
    currency,
    lines: s.line_items.map((l) => {
      // The unit price is the merchant's when it says it; otherwise its base amount per unit.
      const unit =
        l.unit_amount !== undefined
          ? fromMinor(l.unit_amount, currency)
          : { units: fromMinor(l.base_amount, currency).units / BigInt(l.item.quantity), currency };
      return {
        product: l.item.id,
        title: l.name ? clip(l.name, 200) : null,
        quantity: l.item.quantity,
        unit_price: M.toJson(unit),
        total: minorJson(l.total, currency),
      };
    }),
    totals: s.totals.map((t) => ({ type: t.type, amount: minorJson(t.amount, currency) })),
    total: total ? minorJson(total.amount, currency) : null,
    messages: (s.messages ?? []).map((m) => ({ type: m.type, code: codeOf(m.code), content: clip(m.content ?? '', 500) })),
    order: s.order ? { id: s.order.id, permalink_url: s.order.permalink_url ?? null } : null,
  };
}

/** An ACP merchant's checkout. */
export class AcpCheckout implements CheckoutClient {
  readonly protocol = 'acp' as const;
  readonly merchant: string;

  constructor(
    private readonly config: MerchantConfig,
    private readonly fetch: FetchLike,
  ) {
    this.merchant = config.id;
  }

  private async call(method: 'GET' | 'POST', path: string, what: string, ok: number[], body?: unknown, key?: string): Promise<Cart> {
    const headers: Record<string, string> = { 'api-version': ACP_API_VERSION, ...(key ? { 'idempotency-key': key } : {}) };
    const reply = await exchange(this.fetch, this.merchant, method, `${this.config.url}${path}`, headers, body);
    if (!ok.includes(reply.status)) {
      const err = ErrorBody.safeParse(reply.body);
      throw merchantFailure(this.merchant, reply, what, err.success ? (codeOf(err.data.code) ?? codeOf(err.data.type)) : null);
    }
    return cartOf(this.merchant, readBody(Session, this.merchant, reply, what));
  }

  create(lines: LineRequest[], key?: string): Promise<Cart> {
    return this.call(
      'POST',
      '/checkout_sessions',
      'checkout',
      [200, 201],
      { items: lines.map((l) => ({ id: l.product, quantity: l.quantity })) },
      key,
    );
  }

  retrieve(id: string): Promise<Cart> {
    return this.call('GET', `/checkout_sessions/${encodeURIComponent(id)}`, 'checkout', [200]);
  }

  complete(id: string, key: string, payment: { token: string } | { x402: unknown }): Promise<Cart> {
    // Holon is the payment instrument: its token names the purchase the mandate authorized. (An ACP cart
    // offers no x402 handler, so nothing else is ever sent here.)
    if (!('token' in payment)) throw new HolonError('invalid_input', `the merchant ${this.merchant} takes no x402 payment`);
    return this.call(
      'POST',
      `/checkout_sessions/${encodeURIComponent(id)}/complete`,
      'order',
      [200, 201],
      { payment_data: { provider: 'holon', token: payment.token } },
      key,
    );
  }

  cancel(id: string): Promise<Cart> {
    return this.call('POST', `/checkout_sessions/${encodeURIComponent(id)}/cancel`, 'cancellation', [200], {});
  }
}
