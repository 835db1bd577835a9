/**
 * A business to try the commerce tools against (and the tests' UCP merchant): the Universal Commerce
 * Protocol's checkout capability over REST on loopback. Its profile at /.well-known/ucp names the REST
 * endpoint of its dev.ucp.shopping service; under it, checkout sessions are created, read, updated
 * (PUT replaces), completed and canceled. Every request must name its platform (UCP-Agent). Statuses
 * incomplete → ready_for_complete → completed, or canceled; a cart with nothing sellable is a business
 * outcome (HTTP 200, messages, no checkout). Nothing is charged anywhere: a completion is paid with
 * Holon's credential, which the business only records.
 */
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

function envelope(): unknown {
  return {
    version: UCP_VERSION,
    capabilities: { 'dev.ucp.shopping.checkout': [{ version: UCP_VERSION }] },
    payment_handlers: { 'dev.holon.mandate': [{ id: 'holon', version: UCP_VERSION, available_instruments: [{ type: 'holon_mandate' }] }] },
  };
}

function checkoutJson(shop: Shop, s: Session): unknown {
  const sum = (f: (l: PricedLine) => number): number => s.lines.reduce((n, l) => n + f(l), 0);
  return {
    ucp: envelope(),
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
      { type: 'total', amount: sum((l) => l.total) },
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

function handler(taxBasisPoints: number, endpoint: string | undefined) {
  let next = 0;
  return (shop: Shop, req: Request): Reply => {
    if (req.path === '/.well-known/ucp' && req.method === 'GET') {
      return {
        status: 200,
        body: {
          ucp: {
            ...(envelope() as object),
            services: { 'dev.ucp.shopping': [{ version: UCP_VERSION, spec: 'https://ucp.dev/specification/overview', transport: 'rest', endpoint: endpoint ?? `${shop.url}${ENDPOINT}` }] },
          },
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
      const s: Session = { id: `chk_${++next}`, lines, state: 'open', order: null };
      shop.sessions.set(s.id, s);
      return { status: 201, body: checkoutJson(shop, s) };
    }
    const s = shop.sessions.get(decodeURIComponent(id));
    if (!s) return problem(404, 'not_found', 'no such checkout');
    if (!action && req.method === 'GET') return { status: 200, body: checkoutJson(shop, s) };
    if (!action && req.method === 'PUT') {
      if (s.state !== 'open') return problem(409, 'invalid_state', `the checkout is ${s.state}`);
      const lines = linesOf(shop, (req.body as { line_items?: unknown } | undefined)?.line_items, taxBasisPoints);
      if (!Array.isArray(lines)) return lines;
      s.lines = lines;
      return { status: 200, body: checkoutJson(shop, s) };
    }
    if (req.method !== 'POST' || !action) return problem(405, 'method_not_allowed', 'not allowed');
    if (action === 'cancel') {
      if (s.state !== 'open') return problem(409, 'invalid_state', `the checkout is ${s.state}`);
      s.state = 'canceled';
      return { status: 200, body: checkoutJson(shop, s) };
    }
    shop.completions += 1;
    if (statusOf(s) !== 'ready_for_complete') return problem(409, 'invalid_state', `the checkout is ${statusOf(s)}`);
    const instrument = (req.body as { payment?: { instruments?: { handler_id?: unknown; credential?: { token?: unknown } }[] } } | undefined)?.payment?.instruments?.[0];
    const token = instrument?.credential?.token;
    if (instrument?.handler_id !== 'holon' || typeof token !== 'string' || token.length === 0) return problem(400, 'invalid_payment', 'a holon payment instrument is required');
    const fault = shop.faults.shift();
    if (fault === 'error') return problem(503, 'unavailable', 'try again');
    placeOrder(shop, s, token);
    return { status: 200, body: checkoutJson(shop, s), ...(fault === 'drop' ? { drop: true } : {}) };
  };
}

/**
 * Starts the UCP business on a free loopback port: a hardware shop in USD with 8 % sales tax by default.
 * `endpoint`: the REST endpoint its profile names instead of its own (one on another origin, say, which a
 * platform must not follow).
 */
export function startUcpMerchant(options: ShopOptions & { faults?: Fault[]; endpoint?: string } = {}): Promise<Shop> {
  return startShop({ currency: 'USD', ...options }, 'hardware', handler(options.taxBasisPoints ?? 800, options.endpoint));
}
