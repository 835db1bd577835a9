/**
 * A merchant to try the commerce tools against (and the tests' ACP merchant): the Agentic Checkout
 * Specification's merchant REST API on loopback — create, update, retrieve, complete and cancel
 * checkout sessions; the API-Version it supports checked on every request; amounts integers in minor
 * units, the merchant's own; statuses not_ready_for_payment → ready_for_payment → completed, or
 * canceled. Nothing is charged anywhere: a completion is paid by Holon's token, which the shop only
 * records.
 */
import type { Fault, PricedLine, Reply, Request, Session, Shop, ShopOptions } from './shop.ts';
import { placeOrder, priceLine, shortages, startShop } from './shop.ts';

/** The API version this merchant supports. */
export const ACP_VERSION = '2026-01-16';

const error = (status: number, type: string, code: string, message: string, param?: string): Reply => ({ status, body: { type, code, message, ...(param ? { param } : {}) } });

function statusOf(s: Session): string {
  if (s.state !== 'open') return s.state;
  return shortages(s).length > 0 ? 'not_ready_for_payment' : 'ready_for_payment';
}

function sessionJson(shop: Shop, s: Session): unknown {
  const sum = (f: (l: PricedLine) => number): number => s.lines.reduce((n, l) => n + f(l), 0);
  return {
    id: s.id,
    payment_provider: { provider: 'holon', supported_payment_methods: [{ type: 'holon_mandate' }] },
    status: statusOf(s),
    currency: shop.currency.toLowerCase(),
    line_items: s.lines.map((l) => ({
      id: l.id,
      item: { id: l.product.id, quantity: l.quantity },
      name: l.product.title,
      unit_amount: l.product.price,
      base_amount: l.base,
      discount: 0,
      subtotal: l.base,
      tax: l.tax,
      total: l.total,
    })),
    fulfillment_options: [{ type: 'digital', id: 'download', title: 'Delivered by email', totals: [{ type: 'total', display_text: 'Delivery', amount: 0 }] }],
    selected_fulfillment_options: [{ type: 'digital', option_id: 'download', item_ids: s.lines.map((l) => l.product.id) }],
    totals: [
      { type: 'items_base_amount', display_text: 'Item(s) total', amount: sum((l) => l.base) },
      { type: 'subtotal', display_text: 'Subtotal', amount: sum((l) => l.base) },
      { type: 'tax', display_text: 'VAT', amount: sum((l) => l.tax) },
      { type: 'fulfillment', display_text: 'Delivery', amount: 0 },
      { type: 'total', display_text: 'Total', amount: sum((l) => l.total) },
    ],
    messages: shortages(s).map((i) => ({
      type: 'error',
      code: 'out_of_stock',
      param: `$.line_items[${i}]`,
      content_type: 'plain',
      content: `${s.lines[i]?.product.title}: ${s.lines[i]?.product.stock} left`,
    })),
    links: [{ type: 'terms_of_use', url: `${shop.url}/terms` }],
    ...(s.order ? { order: { id: s.order.id, checkout_session_id: s.id, permalink_url: s.order.permalink_url } } : {}),
  };
}

/** Prices `items` ({id, quantity}[]) from the catalog, or says which one is wrong. */
function linesOf(shop: Shop, items: unknown, taxBasisPoints: number): PricedLine[] | Reply {
  if (!Array.isArray(items) || items.length === 0) return error(400, 'invalid_request', 'missing', 'items are required', '$.items');
  const lines: PricedLine[] = [];
  for (const [i, it] of items.entries()) {
    const { id, quantity } = (it ?? {}) as { id?: unknown; quantity?: unknown };
    const product = typeof id === 'string' ? shop.catalog.get(id) : undefined;
    if (!product) return error(400, 'invalid_request', 'invalid', 'no such product', `$.items[${i}].id`);
    if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 1) return error(400, 'invalid_request', 'invalid', 'quantity must be a whole number ≥ 1', `$.items[${i}].quantity`);
    lines.push(priceLine(`li_${i + 1}`, product, quantity, taxBasisPoints));
  }
  return lines;
}

function handler(taxBasisPoints: number) {
  let next = 0;
  return (shop: Shop, req: Request): Reply => {
    if (req.headers['api-version'] !== ACP_VERSION) return error(400, 'invalid_request', 'unsupported_api_version', `API-Version ${ACP_VERSION} is required`);
    const m = /^\/checkout_sessions(?:\/([^/]+)(?:\/(complete|cancel))?)?$/.exec(req.path);
    if (!m) return error(404, 'invalid_request', 'not_found', 'no such resource');
    const [, id, action] = m;
    if (!id) {
      if (req.method !== 'POST') return error(405, 'invalid_request', 'method_not_allowed', 'POST to create');
      const lines = linesOf(shop, (req.body as { items?: unknown } | undefined)?.items, taxBasisPoints);
      if (!Array.isArray(lines)) return lines;
      const s: Session = { id: `cs_${++next}`, lines, state: 'open', order: null };
      shop.sessions.set(s.id, s);
      return { status: 201, body: sessionJson(shop, s) };
    }
    const s = shop.sessions.get(decodeURIComponent(id));
    if (!s) return error(404, 'invalid_request', 'not_found', 'no such checkout session');
    if (!action && req.method === 'GET') return { status: 200, body: sessionJson(shop, s) };
    if (req.method !== 'POST') return error(405, 'invalid_request', 'method_not_allowed', 'not allowed');
    if (!action) {
      if (s.state !== 'open') return error(400, 'invalid_request', 'invalid', `the session is ${s.state}`);
      const lines = linesOf(shop, (req.body as { items?: unknown } | undefined)?.items, taxBasisPoints);
      if (!Array.isArray(lines)) return lines;
      s.lines = lines;
      return { status: 200, body: sessionJson(shop, s) };
    }
    if (action === 'cancel') {
      if (s.state !== 'open') return error(405, 'invalid_request', 'invalid', `the session is ${s.state}`);
      s.state = 'canceled';
      return { status: 200, body: sessionJson(shop, s) };
    }
    shop.completions += 1;
    if (statusOf(s) !== 'ready_for_payment') return error(400, 'invalid_request', 'invalid', `the session is ${statusOf(s)}`);
    const payment = (req.body as { payment_data?: { provider?: unknown; token?: unknown } } | undefined)?.payment_data;
    if (payment?.provider !== 'holon' || typeof payment.token !== 'string' || payment.token.length === 0) return error(400, 'invalid_request', 'invalid', 'payment_data with a holon token is required', '$.payment_data');
    const fault = shop.faults.shift();
    if (fault === 'error') return error(503, 'service_unavailable', 'unavailable', 'try again');
    placeOrder(shop, s, payment.token);
    return { status: 200, body: sessionJson(shop, s), ...(fault === 'drop' ? { drop: true } : {}) };
  };
}

/** Starts the ACP merchant on a free loopback port: a stationery shop in EUR with 20 % VAT by default. */
export function startAcpMerchant(options: ShopOptions & { faults?: Fault[] } = {}): Promise<Shop> {
  return startShop({ currency: 'EUR', ...options }, 'stationery', handler(options.taxBasisPoints ?? 2000));
}
