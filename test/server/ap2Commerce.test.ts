/**
 * AP2 at a UCP merchant that is paid with Holon's own credential (no chain): the purchase's mandates are
 * signed inside the gate and verified by the merchant before it places the order; a mandate whose open
 * mandate was never signed, or was signed for other terms, is refused before anything is held; a retry
 * after a lost answer sends the very same mandates (the merchant's idempotency answers it).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadPublished, signMandateConsent } from '../../src/core/commerce/ap2.ts';
import { createMandate, patchMandate } from '../../src/core/accounts/mandates.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import type { Shop } from '../../examples/merchants/shop.ts';
import { startUcpMerchant } from '../../examples/merchants/ucpMerchant.ts';
import { connect, demoRuntime, TestClock } from '../helpers.ts';
import { callTool } from './support.ts';

const SHOPPER = 'demo/shopper';
let world: Awaited<ReturnType<typeof demoRuntime>>;
let runtime: Runtime;
let shop: Shop;

before(async () => {
  // The merchant reads the real clock: the mandates are signed on it too.
  world = await demoRuntime({ funds: '100', clock: new TestClock(Date.now()) });
  runtime = world.runtime;
  shop = await startUcpMerchant({ currency: 'EUR', ap2: { id: 'hardware', human: () => loadPublished(world.dir) } });
  runtime.deps.merchants = { list: [{ id: 'hardware', protocol: 'ucp', url: shop.url }], fetch: fetch as never };
});
after(async () => {
  await world.cleanup();
  await shop.close();
});

const buy = async (key: string, quantity = 2) => {
  const client = await connect(runtime, { mandate: SHOPPER });
  try {
    return await callTool(client, 'buy', { merchant: 'hardware', lines: [{ product: 'sticker-pack', quantity }], replay_key: key });
  } finally {
    await client.close();
  }
};

describe('AP2 with the Holon payment handler', () => {
  test('no open mandate signed: refused before anything is held or sent', async () => {
    await createMandate(runtime.store, world.clock, SHOPPER, {
      toolsets: ['commerce'],
      approval_threshold: '30.00',
      budget: { total: '60.00', per_day: null, per_call: null },
      capabilities: [{ name: 'commerce.buy', params: { merchants: ['hardware'] } }],
    });
    const r = await buy('unsigned');
    assert.equal(r.isError, true);
    assert.match(JSON.stringify(r.structuredContent), /has not signed this mandate's open AP2 mandate/);
    assert.equal(shop.completions, 0);
    assert.equal(runtime.store.state.spend[SHOPPER]?.held ?? 0n, 0n);
  });

  test('signed: the merchant verifies the mandates and places the order; the result carries no mandate', async () => {
    await signMandateConsent(world.dir, runtime.store.state.mandates[SHOPPER] as never, world.clock.now());
    shop.faults.push('drop');
    // The merchant places the order and the answer is lost: the retry sends the same request, answered as it was.
    const lost = await buy('stickers');
    assert.equal(lost.isError, true);
    const r = await buy('stickers');
    assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent));
    assert.equal(shop.orders.length, 1);
    assert.deepEqual(shop.refusals, []);
    // The retry reached the merchant's idempotency and was answered the order: its body, mandates included, was the
    // same byte for byte (another mandate would be a 409 idempotency_conflict).
    const [first, ...others] = shop.completionBodies as { ap2: { checkout_mandate: string } }[];
    assert.deepEqual(others, [], 'answered from the merchant’s idempotency, never handled again');
    const out = r.structuredContent as { consent: { holds: boolean; steps: { link: string; ok: boolean | null }[] } };
    assert.deepEqual(
      out.consent.steps.map((s) => [s.link, s.ok]),
      [
        ['mandate', true],
        ['checkout', true],
        ['payment', true],
        ['transaction', null],
      ],
    );
    assert.ok(!JSON.stringify(r).includes(first?.ap2.checkout_mandate.split('~')[0] ?? '-'));
    // Both key bindings answer the challenge the merchant issued with that checkout (its nonce), not one of Holon's.
    const body = first as unknown as { ap2: { checkout_mandate: string }; payment: { instruments: { credential: { token: string } }[] } };
    const nonceOf = (chain: string): unknown =>
      (JSON.parse(Buffer.from(chain.split('~~')[1]?.split('.')[1] ?? '', 'base64url').toString('utf8')) as { nonce?: unknown }).nonce;
    const challenge = shop.sessions.get(shop.orders[0]?.session ?? '')?.nonce;
    assert.ok(challenge);
    assert.equal(nonceOf(body.ap2.checkout_mandate), challenge);
    assert.equal(nonceOf(body.payment.instruments[0]?.credential.token ?? ''), challenge);
    // The purchase's receipt, read again under its replay key: the same order and the same chain of consent.
    const again = (await buy('stickers')).structuredContent as { replayed: boolean; consent: { holds: boolean } };
    assert.deepEqual([again.replayed, again.consent.holds], [true, true]);
  });

  test('the mandate edited without signing again (not by the CLI or the form): refused until the human signs it', async () => {
    await patchMandate(runtime.store, world.clock, SHOPPER, { approval_threshold: '20.00' });
    const r = await buy('stale', 1);
    assert.equal(r.isError, true);
    assert.match(JSON.stringify(r.structuredContent), /signed for other terms/);
    await signMandateConsent(world.dir, runtime.store.state.mandates[SHOPPER] as never, world.clock.now());
    const ok = await buy('stale', 1);
    assert.notEqual(ok.isError, true, JSON.stringify(ok.structuredContent));
  });
});
