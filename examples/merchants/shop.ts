/**
 * What the two local merchants share: a product catalog with stock, prices the merchant computes (in
 * integer minor units, tax included by the merchant), checkout sessions with their state machine, and
 * the idempotency every state-changing request honours — the same key and body answer the original
 * result; the same key with another body is a 409. Each protocol (acpMerchant.ts, ucpMerchant.ts) only
 * says how these look on its wire. Faults let a test make a completion fail, or complete and lose the
 * answer, as a real network would.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A product the merchant sells. */
export interface Product {
  id: string;
  title: string;
  /** Price per unit, in minor units of the shop's currency. */
  price: number;
  stock: number;
}

/** What a completion does instead of succeeding: fail with 503 (nothing placed), or place the order and drop the answer. */
export type Fault = 'error' | 'drop';

export interface ShopOptions {
  /** ISO 4217, upper case. */
  currency?: string;
  /** Tax in basis points of each line's amount (2000 = 20 %). */
  taxBasisPoints?: number;
  catalog?: Product[];
  /** Applied to successive completions, one each, before they behave. */
  faults?: Fault[];
}

/** One line of a session, priced. */
export interface PricedLine {
  id: string;
  product: Product;
  quantity: number;
  base: number;
  tax: number;
  total: number;
}

/** A checkout session, in the merchant's own terms. */
export interface Session {
  id: string;
  lines: PricedLine[];
  state: 'open' | 'completed' | 'canceled';
  /** The platform activated AP2's mandates on it: it is never completed without them. */
  ap2?: boolean;
  /** With AP2: the challenge the business issued with the checkout, which the mandates' key bindings answer once. */
  nonce?: string;
  /** What the merchant adds to the total after it was paid (a dishonest merchant's surcharge), in minor units. */
  surcharge?: number;
  /** The order it became; `transaction`: where the merchant says its payment settled (x402). */
  order: { id: string; permalink_url: string; transaction?: string } | null;
}

/** An order the merchant placed. */
export interface PlacedOrder {
  id: string;
  session: string;
  total: number;
  token: string;
}

/** A running merchant, for a test or the demo to look at. */
export interface Shop {
  url: string;
  currency: string;
  catalog: Map<string, Product>;
  sessions: Map<string, Session>;
  orders: PlacedOrder[];
  faults: Fault[];
  /** How many completion requests arrived (replays included). */
  completions: number;
  /** The AP2 refusals it answered, in order, each as its UCP error code and sentence (`code: sentence`). */
  refusals: string[];
  /** The completion requests' bodies, as they arrived (what a test replays or tampers with). */
  completionBodies: unknown[];
  close(): Promise<void>;
}

/** A demo catalog: a few things to buy, and one sold out. */
export function demoCatalog(kind: 'stationery' | 'hardware'): Product[] {
  return kind === 'stationery'
    ? [
        { id: 'notebook-a5', title: 'A5 notebook, dotted', price: 390, stock: 100 },
        { id: 'pen-black', title: 'Gel pen, black', price: 120, stock: 500 },
        { id: 'ink-refill', title: 'Ink refill', price: 45, stock: 1000 },
        { id: 'desk-lamp', title: 'Desk lamp', price: 4200, stock: 10 },
        { id: 'sold-out-mug', title: 'Enamel mug', price: 950, stock: 0 },
      ]
    : [
        { id: 'usb-c-cable', title: 'USB-C cable, 1 m', price: 999, stock: 100 },
        { id: 'sticker-pack', title: 'Sticker pack', price: 50, stock: 1000 },
        { id: 'keyboard', title: 'Mechanical keyboard', price: 8900, stock: 5 },
        { id: 'sold-out-hub', title: 'USB hub', price: 2500, stock: 0 },
      ];
}

/** The merchant's own arithmetic: base, tax rounded half up, total — integers, never floats. */
export function priceLine(id: string, product: Product, quantity: number, taxBasisPoints: number): PricedLine {
  const base = product.price * quantity;
  const tax = Math.floor((base * taxBasisPoints + 5000) / 10000);
  return { id, product, quantity, base, tax, total: base + tax };
}

/** The lines that ask for more than is in stock. */
export function shortages(s: Session): number[] {
  return s.lines.flatMap((l, i) => (l.quantity > l.product.stock ? [i] : []));
}

/** A reply a protocol handler gives: status, JSON body, and whether to drop the connection instead of answering. */
export interface Reply {
  status: number;
  body: unknown;
  drop?: boolean;
}

/** A request as a protocol handler sees it. */
export interface Request {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

const MAX_BODY = 64 * 1024;

/**
 * Starts a loopback HTTP server for a shop: JSON in and out, and idempotency for every POST and PUT
 * that carries an Idempotency-Key (the key, the method, the path and the body must all match).
 */
export async function startShop(options: ShopOptions, kind: 'stationery' | 'hardware', handle: (shop: Shop, req: Request) => Reply | Promise<Reply>): Promise<Shop> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const shop: Shop = {
    url,
    currency: options.currency ?? 'EUR',
    catalog: new Map((options.catalog ?? demoCatalog(kind)).map((p) => [p.id, { ...p }])),
    sessions: new Map(),
    orders: [],
    faults: [...(options.faults ?? [])],
    completions: 0,
    refusals: [],
    completionBodies: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const remembered = new Map<string, { fingerprint: string; reply: Reply }>();
  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => void (async () => {
      const send = (r: Reply): void => {
        if (r.drop) {
          res.socket?.destroy();
          return;
        }
        res.writeHead(r.status, { 'content-type': 'application/json' }).end(JSON.stringify(r.body));
      };
      let body: unknown;
      try {
        body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      } catch {
        return send({ status: 400, body: { type: 'invalid_request', code: 'invalid_json', message: 'the body is not JSON' } });
      }
      const path = new URL(req.url ?? '/', url).pathname;
      const request: Request = { method: req.method ?? 'GET', path, headers: req.headers, body };
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string' || request.method === 'GET') return send(await handle(shop, request));
      const fingerprint = JSON.stringify([request.method, path, body ?? null]);
      const seen = remembered.get(key);
      if (seen) {
        if (seen.fingerprint !== fingerprint) return send({ status: 409, body: { type: 'invalid_request', code: 'idempotency_conflict', message: 'Same Idempotency-Key used with different parameters' } });
        return send({ ...seen.reply, drop: false });
      }
      const reply = await handle(shop, request);
      // Only what the merchant did is remembered: a 5xx did nothing, and may be tried again.
      if (reply.status < 500) remembered.set(key, { fingerprint, reply });
      send(reply);
    })().catch(() => res.destroy()));
  });
  return shop;
}

/** Places the order of a ready session: stock goes down, an order is recorded. */
export function placeOrder(shop: Shop, s: Session, token: string, transaction?: string): void {
  for (const l of s.lines) l.product.stock -= l.quantity;
  const id = `ord_${shop.orders.length + 1}`;
  s.state = 'completed';
  s.order = { id, permalink_url: `${shop.url}/orders/${id}`, ...(transaction ? { transaction } : {}) };
  shop.orders.push({ id, session: s.id, total: s.lines.reduce((n, l) => n + l.total, 0), token });
}
