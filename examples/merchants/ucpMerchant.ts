/**
 * A business to try the commerce tools against (and the tests' UCP merchant): the Universal Commerce
 * Protocol's checkout capability over REST on loopback. Its profile at /.well-known/ucp names the REST
 * endpoint of its dev.ucp.shopping service; under it, checkout sessions are created, read, updated
 * (PUT replaces), completed and canceled. Every request must name its platform (UCP-Agent). Statuses
 * incomplete → ready_for_complete → completed, or canceled; a cart with nothing sellable is a business
 * outcome (HTTP 200, messages, no checkout). A completion is paid with Holon's mandate credential, which
 * the business only records, or — when it is started with `x402` — by an x402 `exact` payment (an
 * EIP-3009 authorization of the cart's total in USDC, at par with its USD prices) that the business
 * settles through its facilitator, with `@x402/core`'s client, before it places the order. Dishonest
 * variants complete without settling (`unpaid`) or add to the total after they were paid (`surcharge`).
 */
import { randomBytes } from 'node:crypto';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Accepted, Ap2Options, BusinessKey, Usage } from './ap2Verify.ts';
import { businessKey, verifyMandates } from './ap2Verify.ts';
import type { Fault, PricedLine, Reply, Request, Session, Shop, ShopOptions } from './shop.ts';
import { placeOrder, priceLine, shortages, startShop } from './shop.ts';

/** The UCP version this business speaks. */
export const UCP_VERSION = '2026-01-23';

const ENDPOINT = '/ucp/v1';
const problem = (status: number, code: string, content: string): Reply => ({ status, body: { code, content } });
const outcome = (code: string, content: string): Reply => ({
  status: 200,
  body: { ucp: { version: UCP_VERSION, status: 'error' }, messages: [{ type: 'error', code, content, severity: 'unrecoverable' }] },
});

function statusOf(s: Session): string {
  if (s.state !== 'open') return s.state;
  return shortages(s).length > 0 ? 'incomplete' : 'ready_for_complete';
}

/** How the business takes x402 payments: the chain, the token, where it is paid, and the facilitator it settles through. */
export interface X402Handler {
  facilitator: string;
  network: string;
  asset: string;
  payTo: string;
  name?: string;
  version?: string;
  /** A dishonest business: completes the order without settling, or adds a surcharge to the total once paid. */
  lie?: 'unpaid' | 'surcharge';
}

/** The payment handler UCP names x402's `exact` scheme by here. */
export const X402_HANDLER = 'org.x402.exact';
/** UCP's AP2 Mandates extension. */
export const AP2_EXTENSION = 'dev.ucp.shopping.ap2_mandate';

function envelope(x402?: X402Handler, ap2?: Ap2Options): unknown {
  return {
    version: UCP_VERSION,
    capabilities: {
      'dev.ucp.shopping.checkout': [{ version: UCP_VERSION }],
      ...(ap2 ? { [AP2_EXTENSION]: [{ version: UCP_VERSION, extends: 'dev.ucp.shopping.checkout', config: { vp_formats_supported: { 'dc+sd-jwt': {} } } }] } : {}),
    },
    payment_handlers: {
      'dev.holon.mandate': [{ id: 'holon', version: UCP_VERSION, available_instruments: [{ type: 'holon_mandate' }] }],
      ...(x402
        ? {
            [X402_HANDLER]: [
              {
                id: 'x402',
                version: UCP_VERSION,
                config: { network: x402.network, asset: x402.asset, pay_to: x402.payTo, name: x402.name ?? 'USD Coin', version: x402.version ?? '2', max_timeout_seconds: 300 },
              },
            ],
          }
        : {}),
    },
  };
}

/** What an x402 payment of `minor` cents must be: USDC (6 decimals) at par with the business's USD. */
function requirementsFor(x402: X402Handler, minor: number): PaymentRequirements {
  return {
    scheme: 'exact',
    network: x402.network as PaymentRequirements['network'],
    asset: x402.asset,
    amount: (BigInt(minor) * 10_000n).toString(),
    payTo: x402.payTo,
    maxTimeoutSeconds: 300,
    extra: { name: x402.name ?? 'USD Coin', version: x402.version ?? '2' },
  };
}

function checkoutJson(shop: Shop, s: Session, x402?: X402Handler, ap2?: Ap2Options): Record<string, unknown> {
  const sum = (f: (l: PricedLine) => number): number => s.lines.reduce((n, l) => n + f(l), 0);
  return {
    ucp: envelope(x402, ap2),
    id: s.id,
    status: statusOf(s),
    currency: shop.currency,
    line_items: s.lines.map((l) => ({
      id: l.id,
      item: { id: l.product.id, title: l.product.title, price: l.product.price },
      quantity: l.quantity,
      totals: [
        { type: 'subtotal', amount: l.base },
        { type: 'tax', amount: l.tax },
        { type: 'total', amount: l.total },
      ],
    })),
    totals: [
      { type: 'subtotal', amount: sum((l) => l.base) },
      { type: 'tax', amount: sum((l) => l.tax) },
      ...(s.surcharge ? [{ type: 'fee', amount: s.surcharge }] : []),
      { type: 'total', amount: sum((l) => l.total) + (s.surcharge ?? 0) },
    ],
    messages: shortages(s).map((i) => ({ type: 'error', code: 'out_of_stock', path: `$.line_items[${i}]`, content: `${s.lines[i]?.product.title}: ${s.lines[i]?.product.stock} left`, severity: 'recoverable' })),
    links: [{ type: 'terms_of_service', url: `${shop.url}/terms` }],
    ...(s.order ? { order: s.order } : {}),
  };
}

function linesOf(shop: Shop, items: unknown, taxBasisPoints: number): PricedLine[] | Reply {
  if (!Array.isArray(items) || items.length === 0) return problem(400, 'invalid', 'line_items are required');
  const lines: PricedLine[] = [];
  for (const [i, it] of items.entries()) {
    const { item, quantity } = (it ?? {}) as { item?: { id?: unknown }; quantity?: unknown };
    const product = typeof item?.id === 'string' ? shop.catalog.get(item.id) : undefined;
    if (!product) return outcome('item_unavailable', `line ${i + 1}: no such item`);
    if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 1) return problem(400, 'invalid', `line ${i + 1}: quantity must be a whole number ≥ 1`);
    lines.push(priceLine(`li_${i + 1}`, product, quantity, taxBasisPoints));
  }
  return lines;
}

function handler(taxBasisPoints: number, endpoint: string | undefined, x402: X402Handler | undefined, ap2: Ap2Options | undefined, key: BusinessKey | undefined, spent: { digests: Set<string>; nonces: Set<string>; usage: Map<string, Usage> }) {
  let next = 0;
  const facilitator = x402 ? new HTTPFacilitatorClient({ url: x402.facilitator }) : undefined;
  // With AP2, every checkout it answers carries its signature of it (UCP: `ap2.merchant_authorization`).
  const forger = ap2?.signature === 'forged' ? businessKey() : undefined;
  const json = (shop: Shop, s: Session): unknown => {
    const c = checkoutJson(shop, s, x402, ap2);
    if (!key || ap2?.signature === 'none') return c;
    // A forger's header names the published key; its signature is another key's.
    const authorization = forger ? `${key.authorize(c).split('..')[0]}..${forger.authorize(c).split('..')[1]}` : key.authorize(c);
    // Its challenge for the checkout goes with it, for the mandates' key bindings to answer.
    return { ...c, ap2: { merchant_authorization: authorization, ...(s.nonce ? { nonce: s.nonce } : {}) } };
  };
  return async (shop: Shop, req: Request): Promise<Reply> => {
    if (req.path === '/.well-known/ucp' && req.method === 'GET') {
      return {
        status: 200,
        body: {
          ucp: {
            ...(envelope(x402, ap2) as object),
            services: { 'dev.ucp.shopping': [{ version: UCP_VERSION, spec: 'https://ucp.dev/specification/overview', transport: 'rest', endpoint: endpoint ?? `${shop.url}${ENDPOINT}` }] },
          },
          ...(key ? { signing_keys: [key.publicJwk] } : {}),
        },
      };
    }
    if (typeof req.headers['ucp-agent'] !== 'string' || !/profile="[^"]+"/.test(req.headers['ucp-agent'])) return problem(400, 'invalid_profile', 'UCP-Agent with a profile is required');
    const m = new RegExp(`^${ENDPOINT}/checkout-sessions(?:/([^/]+)(?:/(complete|cancel))?)?$`).exec(req.path);
    if (!m) return problem(404, 'not_found', 'no such resource');
    const [, id, action] = m;
    if (!id) {
      if (req.method !== 'POST') return problem(405, 'method_not_allowed', 'POST to create');
      const lines = linesOf(shop, (req.body as { line_items?: unknown } | undefined)?.line_items, taxBasisPoints);
      if (!Array.isArray(lines)) return lines;
      // The platform activates AP2 on the checkout it creates: from then on it is completed only with mandates.
      const activated = ap2 !== undefined && (req.body as { ap2?: unknown } | undefined)?.ap2 !== undefined;
      const s: Session = {
        id: `chk_${++next}`,
        lines,
        state: 'open',
        order: null,
        ...(activated ? { ap2: true, nonce: randomBytes(16).toString('base64url') } : {}),
      };
      shop.sessions.set(s.id, s);
      return { status: 201, body: json(shop, s) };
    }
    const s = shop.sessions.get(decodeURIComponent(id));
    if (!s) return problem(404, 'not_found', 'no such checkout');
    if (!action && req.method === 'GET') return { status: 200, body: json(shop, s) };
    if (!action && req.method === 'PUT') {
      if (s.state !== 'open') return problem(409, 'invalid_state', `the checkout is ${s.state}`);
      const lines = linesOf(shop, (req.body as { line_items?: unknown } | undefined)?.line_items, taxBasisPoints);
      if (!Array.isArray(lines)) return lines;
      s.lines = lines;
      return { status: 200, body: json(shop, s) };
    }
    if (req.method !== 'POST' || !action) return problem(405, 'method_not_allowed', 'not allowed');
    if (action === 'cancel') {
      if (s.state !== 'open') return problem(409, 'invalid_state', `the checkout is ${s.state}`);
      s.state = 'canceled';
      return { status: 200, body: json(shop, s) };
    }
    shop.completions += 1;
    shop.completionBodies.push(structuredClone(req.body));
    if (statusOf(s) !== 'ready_for_complete') return problem(409, 'invalid_state', `the checkout is ${statusOf(s)}`);
    const instrument = (req.body as { payment?: { instruments?: { handler_id?: unknown; credential?: { token?: unknown; payment?: unknown } }[] } } | undefined)?.payment?.instruments?.[0];
    // AP2 negotiated: the mandates are verified before anything is settled or placed, and a completion without them is refused.
    let accepted: Accepted | undefined;
    if (s.ap2 && ap2 && key) {
      const paid = instrument?.credential?.payment as { payload?: { authorization?: { from?: unknown } }; accepted?: { network?: unknown; asset?: unknown } } | undefined;
      const verdict = await verifyMandates(
        ap2,
        key,
        req.body as never,
        {
          checkout: checkoutJson(shop, s, x402, ap2),
          total: s.lines.reduce((n, l) => n + l.total, 0),
          currency: shop.currency,
          url: shop.url,
          instrument: instrument?.handler_id === 'x402' ? `${String(paid?.accepted?.network)}:${String(paid?.accepted?.asset)}:${String(paid?.payload?.authorization?.from)}` : null,
          nonce: s.nonce ?? '',
        },
        spent,
        Date.now(),
      );
      if ('code' in verdict) {
        shop.refusals.push(`${verdict.code}: ${verdict.content}`);
        return problem(verdict.code === 'mandate_required' ? 400 : 403, verdict.code, verdict.content);
      }
      accepted = verdict;
    }
    // Once the order is placed, its mandates and the challenge they answered are spent: presented again, they are a replay.
    const placed = (): void => {
      if (!accepted) return;
      accepted.spent.forEach((d) => spent.digests.add(d));
      spent.nonces.add(accepted.nonce);
      const used = spent.usage.get(accepted.open) ?? { amount: 0, uses: 0 };
      spent.usage.set(accepted.open, { amount: used.amount + s.lines.reduce((n, l) => n + l.total, 0), uses: used.uses + 1 });
    };
    if (instrument?.handler_id === 'x402' && x402 && facilitator) {
      // Paid on the chain: the payment settles (through the facilitator, which checks it) before the order is placed.
      const payment = instrument.credential?.payment as PaymentPayload | undefined;
      if (!payment || typeof payment !== 'object') return problem(400, 'invalid_payment', 'an x402 instrument carries the payment');
      const fault = shop.faults.shift();
      if (fault === 'error') return problem(503, 'unavailable', 'try again');
      const total = s.lines.reduce((n, l) => n + l.total, 0);
      let transaction: string | undefined;
      if (x402.lie !== 'unpaid') {
        const settled = await facilitator.settle(payment, requirementsFor(x402, total)).catch((err: unknown) => ({ success: false, transaction: '', errorReason: String((err as { errorReason?: string }).errorReason ?? err) }));
        if (!settled.success) return problem(402, 'payment_failed', settled.errorReason ?? 'the payment did not settle');
        transaction = settled.transaction;
      }
      if (x402.lie === 'surcharge') s.surcharge = 150;
      placeOrder(shop, s, `x402:${transaction ?? 'none'}`, transaction);
      placed();
      return { status: 200, body: json(shop, s), ...(fault === 'drop' ? { drop: true } : {}) };
    }
    const token = instrument?.credential?.token;
    if (instrument?.handler_id !== 'holon' || typeof token !== 'string' || token.length === 0) return problem(400, 'invalid_payment', 'a holon payment instrument is required');
    const fault = shop.faults.shift();
    if (fault === 'error') return problem(503, 'unavailable', 'try again');
    placeOrder(shop, s, token);
    placed();
    return { status: 200, body: json(shop, s), ...(fault === 'drop' ? { drop: true } : {}) };
  };
}

/**
 * Starts the UCP business on a free loopback port: a hardware shop in USD with 8 % sales tax by default.
 * `endpoint`: the REST endpoint its profile names instead of its own (one on another origin, say, which a
 * platform must not follow).
 */
export function startUcpMerchant(options: ShopOptions & { faults?: Fault[]; endpoint?: string; x402?: X402Handler; ap2?: Ap2Options } = {}): Promise<Shop> {
  const key = options.ap2 ? businessKey() : undefined;
  return startShop({ currency: 'USD', ...options }, 'hardware', handler(options.taxBasisPoints ?? 800, options.endpoint, options.x402, options.ap2, key, { digests: new Set(), nonces: new Set(), usage: new Map() }));
}
