/**
 * The Universal Commerce Protocol's checkout capability (dev.ucp.shopping.checkout), REST binding, from
 * the platform's side. The business's profile at `/.well-known/ucp` names the REST endpoint of its
 * dev.ucp.shopping service; under it, `POST /checkout-sessions` creates a checkout from line items,
 * `GET /checkout-sessions/{id}` reads it, `POST …/{id}/complete` places the order with a payment
 * instrument, `POST …/{id}/cancel` cancels it. Every request names the platform (`UCP-Agent`); create
 * and complete carry an Idempotency-Key. Amounts are integers in minor units; the status is one of
 * incomplete, requires_escalation, ready_for_complete, complete_in_progress, completed, canceled. A
 * business outcome that is an error (nothing can be sold) comes back as HTTP 200 with `messages` and no
 * checkout.
 */
import * as z from 'zod';
import type { Presentation } from '../../core/commerce/checkout.ts';
import { AP2_EXTENSION } from '../../core/commerce/ap2.ts';
import { verifyMerchantAuthorization } from '../../core/commerce/merchantSignature.ts';
import type { Cart, CartStatus, LineRequest, X402Offer } from '../../core/commerce/checkout.ts';
import { fromMinor, minorJson } from '../../core/commerce/checkout.ts';
import { denial } from '../../core/kernel/denials.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import * as M from '../../core/kernel/amount.ts';
import { toDict } from '../../core/kernel/util.ts';
import { denialText } from '../../core/kernel/words.ts';
import type { FetchLike } from '../net/publicFetch.ts';
import type { MerchantConfig } from './merchants.ts';
import { codeOf, exchange, merchantFailure, readBody } from './merchants.ts';
import type { CheckoutRequest } from './checkoutRest.ts';
import { cartOf, clip, Message, Minor, RestCheckout, Total } from './checkoutRest.ts';

/** How Holon names itself to a business (an RFC 8941 dictionary, as UCP-Agent wants). */
export const UCP_AGENT = 'profile="urn:holon:platform"';

const Checkout = z.object({
  id: z.string().min(1).max(200),
  status: z.string().max(64),
  currency: z.string(),
  line_items: z
    .array(
      z.object({
        id: z.string().max(200),
        item: z.object({ id: z.string().min(1).max(200), title: z.string().optional(), price: Minor }),
        quantity: z.number().int().min(1),
        totals: z.array(Total).max(20).optional(),
      }),
    )
    .max(500),
  totals: z.array(Total).max(50),
  messages: z.array(Message).max(50).optional(),
  order: z
    .object({ id: z.string().min(1).max(200), permalink_url: z.string().max(2000).optional(), transaction: z.string().max(100).optional() })
    .nullish(),
  ucp: z
    .object({ payment_handlers: z.record(z.string(), z.unknown()).optional() })
    .passthrough()
    .optional(),
});
/** An x402 payment handler's configuration, as a business advertises it (the handler `org.x402.exact`). */
const X402Config = z.object({
  network: z.string().regex(/^eip155:[0-9]{1,12}$/),
  asset: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  pay_to: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  name: z.string().max(100),
  version: z.string().max(20),
  max_timeout_seconds: z.number().int().min(30).max(3600),
});
/** The payment handler x402's `exact` scheme is advertised under. */
export const X402_HANDLER = 'org.x402.exact';

/** The x402 handler a checkout advertises, when it advertises one that reads. */
function x402Of(c: Checkout): X402Offer | null {
  const handlers = c.ucp?.payment_handlers?.[X402_HANDLER];
  const first = Array.isArray(handlers) ? (handlers[0] as { config?: unknown } | undefined) : undefined;
  const config = X402Config.safeParse(first?.config);
  if (!config.success) return null;
  const x = config.data;
  return {
    network: x.network,
    asset: x.asset,
    payTo: x.pay_to,
    name: x.name,
    version: x.version,
    maxTimeoutSeconds: x.max_timeout_seconds,
  };
}
type Checkout = z.infer<typeof Checkout>;
/** A business outcome with no checkout, or a protocol error: codes only are read. */
const Outcome = z.object({ code: z.string().optional(), messages: z.array(Message).max(50).optional() }).partial();
/** The part of a business profile that names the shopping service's REST endpoint (array or keyed form). */
const Profile = z.object({
  ucp: z.object({
    capabilities: z.record(z.string(), z.unknown()).optional(),
    services: z.record(
      z.string(),
      z.union([
        z.array(z.object({ transport: z.string().optional(), endpoint: z.string().optional() })),
        z.object({ rest: z.object({ endpoint: z.string() }).optional() }),
      ]),
    ),
  }),
  /** The business's public keys (JWK), by kid: what its checkout signatures verify with. */
  signing_keys: z.array(z.record(z.string(), z.unknown())).max(20).optional(),
});

/** What discovery learned: the REST endpoint, and — when the business advertises AP2's mandates — its signing keys. */
interface Discovered {
  endpoint: string;
  ap2: { keys: unknown[] } | null;
}

const STATUS = toDict<CartStatus>({ ready_for_complete: 'ready', completed: 'completed', canceled: 'canceled' });

function ucpCart(merchant: string, c: Checkout, raw: unknown, found: Discovered, website: string): Cart {
  // Once AP2 is negotiated every checkout must carry the business's signature, checked before anything reads it.
  const ap2 = found.ap2 ? { ...verifyMerchantAuthorization(raw as Record<string, unknown>, found.ap2.keys, merchant), website } : null;
  const lines = (currency: string): Cart['lines'] =>
    c.line_items.map((l) => {
      const lineTotal = l.totals?.find((t) => t.type === 'total');
      const unit = fromMinor(l.item.price, currency);
      return {
        product: l.item.id,
        title: l.item.title ? clip(l.item.title, 200) : null,
        quantity: l.quantity,
        unit_price: M.toJson(unit),
        total: lineTotal ? minorJson(lineTotal.amount, currency) : M.toJson(M.times(unit, l.quantity)),
      };
    });
  const order = c.order ? { id: c.order.id, permalink_url: c.order.permalink_url ?? null, transaction: c.order.transaction ?? null } : null;
  return { ...cartOf(merchant, 'ucp', STATUS, c, lines, order), x402: x402Of(c), ap2 };
}

/** A UCP business's checkout. */
export class UcpCheckout extends RestCheckout {
  readonly protocol = 'ucp' as const;
  private endpoint: Promise<Discovered> | undefined;

  constructor(config: MerchantConfig, fetch: FetchLike) {
    super(config, fetch, '/checkout-sessions');
  }

  /**
   * The REST endpoint the business's profile names, read once. It must be on the origin the human
   * configured: a profile cannot send Holon to another host (the cloud's metadata address, say).
   */
  private endpointOf(): Promise<Discovered> {
    this.endpoint ??= (async () => {
      const reply = await exchange(this.fetch, this.merchant, 'GET', `${this.config.url}/.well-known/ucp`, { 'ucp-agent': UCP_AGENT });
      if (reply.status !== 200) throw merchantFailure(this.merchant, reply, 'profile', null);
      const profile = readBody(Profile, this.merchant, reply, 'profile');
      const service = profile.ucp.services['dev.ucp.shopping'];
      const raw = Array.isArray(service)
        ? service.find((s) => s.transport === undefined || s.transport === 'rest')?.endpoint
        : service?.rest?.endpoint;
      // Either is how the business describes itself, not a passing failure: asking again cannot help (never-retry).
      const configured = new URL(this.config.url).origin;
      const unusable = (why: 'no_endpoint' | 'endpoint_elsewhere'): HolonError => {
        const d = denial('merchant_unusable', { merchant: this.merchant, configured, why });
        return new HolonError('denied', denialText(d), { merchant: this.merchant }, [d]);
      };
      let url: URL;
      try {
        url = new URL(raw ?? '', `${this.config.url}/`);
      } catch {
        throw unusable('no_endpoint');
      }
      if (raw === undefined) throw unusable('no_endpoint');
      if (url.origin !== configured) throw unusable('endpoint_elsewhere');
      // Holon speaks AP2's mandates wherever the business advertises them: the intersection is the business's list.
      const ap2 = profile.ucp.capabilities?.[AP2_EXTENSION] !== undefined ? { keys: profile.signing_keys ?? [] } : null;
      return { endpoint: url.href.replace(/\/+$/, ''), ap2 };
    })();
    // A failed discovery is tried again on the next call.
    this.endpoint.catch(() => (this.endpoint = undefined));
    return this.endpoint;
  }

  protected async send(request: CheckoutRequest): Promise<Cart> {
    const { method, path, what, ok, body } = request;
    const found = await this.endpointOf();
    const headers = this.headersOf(request, { 'ucp-agent': UCP_AGENT });
    const reply = await exchange(this.fetch, this.merchant, method, `${found.endpoint}${path}`, headers, body);
    const outcome = Outcome.safeParse(reply.body);
    const codes = outcome.success
      ? [outcome.data.code, ...(outcome.data.messages ?? []).map((m) => m.code)].map(codeOf).filter((c): c is string => c !== null)
      : [];
    if (!ok.includes(reply.status)) throw merchantFailure(this.merchant, reply, what, codes[0] ?? null);
    // A business outcome with no checkout (every item unavailable, say): the merchant refused the cart.
    if (reply.body && typeof reply.body === 'object' && !('id' in reply.body)) {
      throw new HolonError(
        'conflict',
        `the merchant ${this.merchant} refused the ${what}${codes.length > 0 ? ` (${codes.join(', ')})` : ''}`,
        { merchant: this.merchant, codes },
      );
    }
    return ucpCart(this.merchant, readBody(Checkout, this.merchant, reply, what), reply.body, found, new URL(this.config.url).origin);
  }

  protected async createBody(lines: LineRequest[]): Promise<unknown> {
    // Where the business advertises AP2, Holon activates it on the checkout it creates (the session is then locked to it).
    const { ap2 } = await this.endpointOf();
    return {
      line_items: lines.map((l) => ({ item: { id: l.product }, quantity: l.quantity })),
      ...(ap2 ? { ap2: { activate: true } } : {}),
    };
  }

  protected completeBody(payment: { token: string } | { x402: unknown }, ap2?: Presentation): unknown {
    // Paid on the chain (the business settles it), or Holon is the payment handler: its credential names the purchase.
    // With AP2, the payment mandate is the instrument's credential token (UCP's placement); the checkout mandate goes in `ap2`.
    const mandate = ap2 ? { token: ap2.payment_mandate } : {};
    const instrument =
      'x402' in payment
        ? { id: 'x402', handler_id: 'x402', type: 'x402', selected: true, credential: { type: 'x402', payment: payment.x402, ...mandate } }
        : {
            id: 'holon',
            handler_id: 'holon',
            type: 'holon_mandate',
            selected: true,
            // With AP2 the token is the payment mandate here too (UCP's placement); the purchase is named beside it.
            credential: { type: 'holon', ...(ap2 ? { token: ap2.payment_mandate, purchase: payment.token } : { token: payment.token }) },
          };
    const mandates = ap2
      ? {
          ap2: {
            checkout_mandate: ap2.checkout_mandate,
            open_checkout_mandate: ap2.open_checkout_mandate,
            open_payment_mandate: ap2.open_payment_mandate,
          },
        }
      : {};
    return { payment: { instruments: [instrument] }, ...mandates };
  }
}
