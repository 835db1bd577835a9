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
import type { Cart, CartStatus, LineRequest } from '../../core/commerce/checkout.ts';
import { fromMinor, minorJson } from '../../core/commerce/checkout.ts';
import * as M from '../../core/kernel/amount.ts';
import { toDict } from '../../core/kernel/util.ts';
import type { MerchantConfig } from './merchants.ts';
import type { FetchLike } from '../net/publicFetch.ts';
import { codeOf, exchange, merchantFailure, readBody } from './merchants.ts';
import type { CheckoutRequest } from './checkoutRest.ts';
import { cartOf, clip, Message, Minor, RestCheckout, Total } from './checkoutRest.ts';

/** The version of the specification Holon speaks. */
export const ACP_API_VERSION = '2026-01-16';

const LineItem = z.object({
  id: z.string().max(200),
  item: z.object({ id: z.string().min(1).max(200), quantity: z.number().int().min(1) }),
  base_amount: Minor,
  total: Minor,
  unit_amount: Minor.optional(),
  name: z.string().optional(),
});
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

const STATUS = toDict<CartStatus>({ ready_for_payment: 'ready', completed: 'completed', canceled: 'canceled' });

/** A session as a Cart. */
function acpCart(merchant: string, s: Session): Cart {
  const lines = (currency: string): Cart['lines'] =>
    s.line_items.map((l) => {
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
    });
  const order = s.order ? { id: s.order.id, permalink_url: s.order.permalink_url ?? null } : null;
  return cartOf(merchant, 'acp', STATUS, s, lines, order);
}

/** An ACP merchant's checkout. */
export class AcpCheckout extends RestCheckout {
  readonly protocol = 'acp' as const;

  constructor(config: MerchantConfig, fetch: FetchLike) {
    super(config, fetch, '/checkout_sessions');
  }

  protected async send(request: CheckoutRequest): Promise<Cart> {
    const { method, path, what, ok, body } = request;
    const headers = this.headersOf(request, { 'api-version': ACP_API_VERSION });
    const reply = await exchange(this.fetch, this.merchant, method, `${this.config.url}${path}`, headers, body);
    if (!ok.includes(reply.status)) {
      const err = ErrorBody.safeParse(reply.body);
      throw merchantFailure(this.merchant, reply, what, err.success ? (codeOf(err.data.code) ?? codeOf(err.data.type)) : null);
    }
    return acpCart(this.merchant, readBody(Session, this.merchant, reply, what));
  }

  protected createBody(lines: LineRequest[]): unknown {
    return { items: lines.map((l) => ({ id: l.product, quantity: l.quantity })) };
  }

  protected completeBody(payment: { token: string } | { x402: unknown }): unknown {
    // Holon is the payment instrument: its token names the purchase the mandate authorized. (An ACP cart
    // offers no x402 handler, so nothing else is ever sent here.)
    if (!('token' in payment)) throw new HolonError('invalid_input', `the merchant ${this.merchant} takes no x402 payment`);
    return { payment_data: { provider: 'holon', token: payment.token } };
  }
}
