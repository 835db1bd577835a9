/**
 * The example UCP business's AP2 checks, played against it over HTTP with Holon's own UCP client and mandates
 * signed by the human's and the agent's real keys (no chain: Holon's payment handler pays). The merchant
 * issues a challenge (nonce) with every checkout it answers; the closed mandates' key bindings answer it, and
 * the business takes each answer once, so a chain sent again is refused by its nonce alone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consentFor, loadOpenMandates, loadPublished, OPEN_TTL_DAYS, signClosedMandates, signMandateConsent, stateConsent } from '../../src/core/commerce/ap2.ts';
import { allowedProducts, productDenial } from '../../src/core/kernel/products.ts';
import type { Cart, LineRequest, Presentation } from '../../src/core/commerce/checkout.ts';
import { toMinor } from '../../src/core/commerce/checkout.ts';
import * as M from '../../src/core/kernel/amount.ts';
import type { Mandate } from '../../src/core/kernel/model.ts';
import { loadAgentKey } from '../../src/core/local/mandateKey.ts';
import { UcpCheckout } from '../../src/server/commerce/ucp.ts';
import type { Shop } from '../../examples/merchants/shop.ts';
import { startUcpMerchant } from '../../examples/merchants/ucpMerchant.ts';
import { tempDir } from '../helpers.ts';

const STICKERS: LineRequest[] = [{ product: 'sticker-pack', quantity: 2 }];
let state: { dir: string; cleanup: () => void };
let shop: Shop;

/** A Holon mandate that may buy at the hardware business, as the human made it. */
function shopper(over: Partial<Mandate> = {}): Mandate {
  return {
    id: 'demo/shopper',
    account: 'demo',
    name: 'shopper',
    grantee: { slug: 'shopper', name: 'shopper', role: 'agent', manager: null } as never,
    currency: 'USD',
    budget: { total: '100.00', per_day: null, per_call: null },
    approval_threshold: '30.00',
    toolsets: ['commerce'],
    capabilities: [{ name: 'commerce.buy', params: { merchants: ['hardware'] } }],
    data: { regions: [], retention_days: null, training: false } as never,
    expires_at: null,
    status: 'active',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

before(async () => {
  state = tempDir('holon-ap2-merchant-');
  shop = await startUcpMerchant({ ap2: { id: 'hardware', human: () => loadPublished(state.dir) } });
  await signMandateConsent(state.dir, shopper(), Date.now());
});
after(async () => {
  await shop?.close();
  state?.cleanup();
});

const direct = (): UcpCheckout => new UcpCheckout({ id: 'hardware', protocol: 'ucp', url: shop.url }, fetch as never);

/** The closed mandates the agent key signs for `cart`, as the buy path does; `challenge` replaces the merchant's. */
async function mandatesFor(cart: Cart, o: { challenge?: string | null; mandate?: string } = {}): Promise<Presentation> {
  const key = loadAgentKey(state.dir);
  const open = loadOpenMandates(state.dir, o.mandate ?? 'demo/shopper');
  assert.ok(key && open && cart.ap2 && cart.total);
  const { challenge: _merchant, ...signed } = cart.ap2;
  const checkout = o.challenge === undefined ? cart.ap2 : o.challenge === null ? signed : { ...signed, challenge: o.challenge };
  const r = await signClosedMandates(
    key,
    open,
    {
      checkout,
      payee: { id: 'hardware', name: 'hardware', website: cart.ap2.website },
      amount: { amount: toMinor(M.fromJson(cart.total)), currency: cart.currency },
      instrument: { id: 'purchase-1', type: 'holon_mandate', description: 'Holon mandate demo/shopper' },
      audience: cart.ap2.website,
      now: Date.now(),
    },
    cart.id,
  );
  return r.presentation;
}

/** Completes `cart` with `mandates`: the order, or the merchant's refusal code and sentence. */
async function complete(cart: Cart, mandates: Presentation): Promise<{ order?: string; code?: string; content?: string }> {
  const orders = shop.orders.length;
  try {
    const done = await direct().complete(cart.id, `k-${Math.random()}`, { token: `purchase-${Math.random()}` }, mandates);
    return { order: done.order?.id ?? 'none' };
  } catch (e) {
    assert.equal(shop.orders.length, orders, 'no order placed');
    const code = (e as { details?: { code?: string } }).details?.code ?? 'none';
    const said = shop.refusals.at(-1) ?? '';
    return { code, content: said.startsWith(`${code}: `) ? said.slice(code.length + 2) : '' };
  }
}

/** The nonce of a chain's key binding (its closed hop's JWT). */
const nonceOf = (chain: string): unknown =>
  (JSON.parse(Buffer.from(chain.split('~~')[1]?.split('.')[1] ?? '', 'base64url').toString('utf8')) as { nonce?: unknown }).nonce;

describe("the merchant's challenge (AP2 key binding nonce)", () => {
  test('every checkout carries its own challenge, and the key bindings Holon signs answer it', async () => {
    const a = await direct().create(STICKERS);
    const b = await direct().create(STICKERS);
    assert.match(a.ap2?.challenge ?? '', /^[A-Za-z0-9_-]{16,}$/);
    assert.notEqual(a.ap2?.challenge, b.ap2?.challenge);
    assert.equal(a.ap2?.challenge, shop.sessions.get(a.id)?.nonce);
    const mandates = await mandatesFor(a);
    assert.equal(nonceOf(mandates.checkout_mandate), a.ap2?.challenge);
    assert.equal(nonceOf(mandates.payment_mandate), a.ap2?.challenge);
    assert.ok((await complete(a, mandates)).order);
  });

  test('a key binding without the challenge, or answering another, is refused', async () => {
    const cart = await direct().create(STICKERS);
    const other = await direct().create(STICKERS);
    const own = await complete(cart, await mandatesFor(cart, { challenge: null }));
    assert.equal(own.code, 'mandate_scope_mismatch');
    assert.match(own.content ?? '', /challenge/);
    const answered = await complete(cart, await mandatesFor(cart, { challenge: other.ap2?.challenge ?? '' }));
    assert.equal(answered.code, 'mandate_scope_mismatch');
    assert.match(answered.content ?? '', /challenge/);
    // The same checkout with its own challenge still completes: nothing was spent by the refusals.
    assert.ok((await complete(cart, await mandatesFor(cart))).order);
  });

  test('a chain sent again is refused by its nonce, before the business looks at the digests it remembers', async () => {
    const first = await direct().create(STICKERS);
    const used = await mandatesFor(first);
    assert.ok((await complete(first, used)).order);
    // The same chain on a new checkout: its key bindings answer the first checkout's challenge, which an order used.
    const second = await direct().create(STICKERS);
    const replayed = await complete(second, used);
    assert.equal(replayed.code, 'mandate_replayed');
    assert.match(replayed.content ?? '', /challenge an order already used/);
    // New closed mandates that answer the used challenge (signed again, so no digest is remembered): the nonce refuses them.
    const fresh = await mandatesFor(second, { challenge: first.ap2?.challenge ?? '' });
    const again = await complete(second, fresh);
    assert.equal(again.code, 'mandate_replayed');
    assert.match(again.content ?? '', /challenge an order already used/);
  });
});

/** The claims of an open mandate's issuer JWT and its one disclosure (the constraints). */
function openClaims(sdJwt: string): { exp?: number; iat?: number; constraints: Record<string, unknown>[] } {
  const [jwt = '', disclosure = ''] = sdJwt.split('~');
  const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: number; iat?: number };
  const constraints = (JSON.parse(Buffer.from(disclosure, 'base64url').toString('utf8')) as [string, string, Record<string, unknown>[]])[2];
  return { ...payload, constraints };
}

describe("the open mandates' expiry, budget and line items, as the merchant checks them", () => {
  test('an open mandate always expires: the mandate\'s expiry, else a default the docs state', async () => {
    const open = loadOpenMandates(state.dir, 'demo/shopper');
    assert.ok(open);
    for (const token of [open.checkout, open.payment]) {
      const c = openClaims(token);
      assert.equal(c.exp, (c.iat ?? 0) + OPEN_TTL_DAYS * 86_400);
    }
    const dated = await signMandateConsent(state.dir, shopper({ id: 'demo/dated', expires_at: '2099-01-01T00:00:00.000Z' }), Date.now());
    assert.equal(openClaims(dated?.checkout ?? '').exp, Date.parse('2099-01-01T00:00:00Z') / 1000);
  });

  test('an expired open mandate is refused by the merchant, and by Holon before anything is held', async () => {
    const old = Date.now() - (OPEN_TTL_DAYS + 1) * 86_400_000;
    await signMandateConsent(state.dir, shopper({ id: 'demo/lapsed' }), old);
    const cart = await direct().create(STICKERS);
    const refused = await complete(cart, await mandatesFor(cart, { mandate: 'demo/lapsed' }));
    assert.equal(refused.code, 'mandate_expired');
    assert.throws(
      () => consentFor(stateConsent(state.dir), shopper({ id: 'demo/lapsed' }), 'USD', Date.now()),
      (e: Error) => /expired/.test(e.message),
    );
  });

  test("the mandate's total is AP2's budget, reused on demand: a purchase that would pass it is refused", async () => {
    const tight = shopper({ id: 'demo/tight', budget: { total: '1.50', per_day: null, per_call: null } });
    const open = await signMandateConsent(state.dir, tight, Date.now());
    const payment = openClaims(open?.payment ?? '').constraints;
    assert.deepEqual(
      payment.filter((c) => c['type'] === 'payment.budget' || c['type'] === 'payment.agent_recurrence'),
      [
        { type: 'payment.agent_recurrence', frequency: 'ON_DEMAND' },
        { type: 'payment.budget', max: 1.5, currency: 'USD' },
      ],
    );
    const first = await direct().create(STICKERS);
    assert.ok((await complete(first, await mandatesFor(first, { mandate: 'demo/tight' }))).order, 'within the budget: 1.08 of 1.50');
    const second = await direct().create(STICKERS);
    const over = await complete(second, await mandatesFor(second, { mandate: 'demo/tight' }));
    assert.equal(over.code, 'mandate_scope_mismatch');
    assert.match(over.content ?? '', /over its budget of 150/);
  });

  test('a product allow-list is the line-items constraint; the merchant refuses a product not allowed, or too many', async () => {
    const listed = shopper({
      id: 'demo/stickers',
      capabilities: [{ name: 'commerce.buy', params: { merchants: ['hardware'], products: [{ id: 'sticker-pack', quantity: 3 }] } }],
    });
    const open = await signMandateConsent(state.dir, listed, Date.now());
    assert.deepEqual(
      openClaims(open?.checkout ?? '').constraints.find((c) => c['type'] === 'checkout.line_items'),
      { type: 'checkout.line_items', items: [{ id: 'sticker-pack', acceptable_items: [{ id: 'sticker-pack', title: 'sticker-pack' }], quantity: 3 }] },
    );
    const cable = await direct().create([{ product: 'usb-c-cable', quantity: 1 }]);
    const notAllowed = await complete(cable, await mandatesFor(cable, { mandate: 'demo/stickers' }));
    assert.equal(notAllowed.code, 'mandate_scope_mismatch');
    assert.match(notAllowed.content ?? '', /usb-c-cable, which the open mandate's line items do not list/);
    const many = await direct().create([{ product: 'sticker-pack', quantity: 4 }]);
    const tooMany = await complete(many, await mandatesFor(many, { mandate: 'demo/stickers' }));
    assert.equal(tooMany.code, 'mandate_scope_mismatch');
    assert.match(tooMany.content ?? '', /more of sticker-pack/);
    const fine = await direct().create([{ product: 'sticker-pack', quantity: 3 }]);
    assert.ok((await complete(fine, await mandatesFor(fine, { mandate: 'demo/stickers' }))).order);
    // Holon's gate holds the same list, and a malformed one is refused as input.
    assert.equal(productDenial(listed, [{ product: 'usb-c-cable', quantity: 1 }])?.code, 'capability_scope');
    assert.equal(productDenial(listed, [{ product: 'sticker-pack', quantity: 2 }, { product: 'sticker-pack', quantity: 2 }])?.code, 'capability_scope');
    assert.equal(productDenial(listed, [{ product: 'sticker-pack', quantity: 3 }]), undefined);
    const malformed = shopper({ capabilities: [{ name: 'commerce.buy', params: { products: [{ id: 'sticker-pack', quantity: 0 }] } }] });
    assert.throws(() => allowedProducts(malformed), (e: Error & { code?: string }) => /quantity must be a whole number/.test(e.message));
  });
});
