/**
 * A mandate's product allow-list: what the commerce.buy grant lets the agent put in one cart, by the
 * merchant's product id, and how many of each at most (`{"products": [{"id": "sticker-pack", "quantity":
 * 10}]}`). Without one, any product. The gate holds every purchase to it, and the human's AP2 open checkout
 * mandate carries it to the merchant as AP2's `checkout.line_items` constraint.
 */
import { CAP } from './capabilities.ts';
import type { Denial } from './denials.ts';
import { denial } from './denials.ts';
import { HolonError } from './errors.ts';
import type { Mandate } from './model.ts';

/** One line of a cart: a product, by the merchant's id, and how many. */
export interface CartLine {
  product: string;
  quantity: number;
}

/** One product a mandate may buy, and the most of it one purchase may take. */
export interface AllowedProduct {
  id: string;
  quantity: number;
}

/** The most of one product a mandate may allow per purchase: a bound on what a typo can widen. */
const MAX_QUANTITY = 100_000;
const MAX_PRODUCTS = 100;

/**
 * The product allow-list of a mandate's commerce.buy grant, or null when it names none (any product). A
 * malformed list is an `invalid_input` error that says which entry, so a mandate write carrying it changes nothing.
 */
export function allowedProducts(m: Pick<Mandate, 'capabilities'>): AllowedProduct[] | null {
  const listed = m.capabilities.find((g) => g.name === CAP.commerceBuy)?.params?.['products'];
  if (listed === undefined) return null;
  const bad = (why: string): HolonError =>
    new HolonError(
      'invalid_input',
      `mandate: commerce.buy products ${why}; give [{"id": "<product>", "quantity": <1…${MAX_QUANTITY}>}, …]`,
    );
  if (!Array.isArray(listed) || listed.length === 0 || listed.length > MAX_PRODUCTS)
    throw bad(`must be a list of 1 to ${MAX_PRODUCTS} products`);
  const seen = new Set<string>();
  return listed.map((p: unknown, i) => {
    const { id, quantity, ...rest } = (typeof p === 'object' && p !== null ? p : {}) as Record<string, unknown>;
    if (typeof id !== 'string' || !/^[\w.:-]{1,200}$/.test(id))
      throw bad(`entry ${i + 1}: id must be a product id (letters, digits, . _ : -)`);
    if (typeof quantity !== 'number' || !Number.isSafeInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY)
      throw bad(`entry ${i + 1}: quantity must be a whole number from 1 to ${MAX_QUANTITY}`);
    if (Object.keys(rest).length > 0) throw bad(`entry ${i + 1}: only id and quantity are known`);
    if (seen.has(id)) throw bad(`entry ${i + 1}: ${id} is listed twice`);
    seen.add(id);
    return { id, quantity };
  });
}

/** Why these lines are outside the mandate's product allow-list, or nothing when they are within it (or it has none). */
export function productDenial(m: Pick<Mandate, 'capabilities'>, lines: readonly CartLine[]): Denial | undefined {
  const allowed = allowedProducts(m);
  if (!allowed) return undefined;
  const asked = new Map<string, number>();
  for (const l of lines) asked.set(l.product, (asked.get(l.product) ?? 0) + l.quantity);
  for (const [product, quantity] of asked) {
    const most = allowed.find((p) => p.id === product)?.quantity ?? 0;
    if (quantity > most)
      return denial('capability_scope', {
        capability: CAP.commerceBuy,
        target: `${quantity} × ${product}`,
        allowed: allowed.map((p) => `up to ${p.quantity} × ${p.id}`),
      });
  }
  return undefined;
}
