/**
 * AP2 mandates at a UCP merchant that negotiates them, end to end: the human creates the mandate with the
 * CLI (which signs its open mandate with their key), an SDK client buys through the built `holon mcp`, and
 * the local merchant verifies the mandates with the `@sd-jwt` libraries against the human's published key
 * before it settles the x402 payment on the local chain. Then the merchant is attacked directly, as an
 * agent that got past the gate could: every forged, edited, replayed, expired or misdirected mandate is
 * refused, and the payee's balance on the chain shows nothing was paid.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Presentation } from '../../src/core/commerce/checkout.ts';
import { loadOpenMandates, loadPublished, signClosedMandates } from '../../src/core/commerce/ap2.ts';
import type { Cart, LineRequest } from '../../src/core/commerce/checkout.ts';
import { toMinor } from '../../src/core/commerce/checkout.ts';
import { signCheckoutPayment } from '../../src/core/commerce/payCheckout.ts';
import * as M from '../../src/core/kernel/amount.ts';
import type { MandateKey } from '../../src/core/local/mandateKey.ts';
import { loadAgentKey, loadMandateKey, mandateKeyOf, newMandateJwk } from '../../src/core/local/mandateKey.ts';
import { saveWallet, walletFromKey } from '../../src/core/local/wallet.ts';
import { UcpCheckout } from '../../src/server/commerce/ucp.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import type { Shop } from '../../examples/merchants/shop.ts';
import { startUcpMerchant } from '../../examples/merchants/ucpMerchant.ts';
import type { McpSession } from '../cli/cliHarness.ts';
import { ensureBuilt, holonIn, json, mcpSession, ok, openLedger, readEvents, tempDir } from '../cli/cliHarness.ts';
import { consentChain } from '../../src/core/commerce/consent.ts';
import { receiptsState } from '../../src/editor/views.ts';
import { callTool } from '../server/support.ts';
import { chainFlags } from './support.ts';

const SHOPPER = 'demo/shopper';
const walletKey = generatePrivateKey();
const wallet = walletFromKey(walletKey);
const STICKERS: LineRequest[] = [{ product: 'sticker-pack', quantity: 2 }];
let chain: LocalChain;
let state: { dir: string; cleanup: () => void };
let shop: Shop;
let payTo: `0x${string}`;
let session: McpSession;


before(async () => {
  await ensureBuilt();
  chain = await localChain();
  await chain.fund(wallet.address, { usdc: 20_000_000n });
  state = tempDir('holon-ap2-');
  saveWallet(state.dir, walletKey);
  payTo = privateKeyToAccount(generatePrivateKey()).address;
  shop = await startUcpMerchant({
    x402: { facilitator: chain.facilitator.url, network: chain.network, asset: chain.token, payTo },
    ap2: { id: 'hardware', human: () => loadPublished(state.dir) },
  });
  await ok(state.dir, ['fx', 'USD', 'USDC', '1']);
  await ok(state.dir, ['fund', 'demo', '100.00', '--currency', 'USD']);
  // The human's own command: it signs the open mandate with their key, made now.
  const created = await ok(state.dir, [
    'mandate',
    'create',
    SHOPPER,
    '--currency',
    'USD',
    '--toolsets',
    'commerce',
    '--threshold',
    '30.00',
    '--total',
    '100.00',
    '--grant',
    '{"commerce.buy": {"merchants": ["hardware"]}}',
  ]);
  assert.match(created, /Merchants will see this .*hardware; up to 30(\.00)? USD a purchase; no expiry/);
  session = await mcpSession(state.dir, SHOPPER, ['--merchant', `hardware=ucp:${shop.url}`, ...chainFlags(chain)]);
});
after(async () => {
  await session?.close();
  await shop?.close();
  state?.cleanup();
});

/** Holon's own UCP client, used as the attacker's transport: it activates AP2 and checks the merchant's signature. */
const direct = (): UcpCheckout => new UcpCheckout({ id: 'hardware', protocol: 'ucp', url: shop.url }, fetch as never);

/** An x402 payment of the cart's total signed by the human's wallet: what the merchant would settle if it accepted. */
async function paymentFor(cart: Cart): Promise<unknown> {
  const offer = cart.x402;
  assert.ok(offer && cart.total);
  const amount = { units: M.fromJson(cart.total).units, currency: 'USDC' };
  return (await signCheckoutPayment({ reader: undefined as never, wallet }, offer, amount, `hardware:checkout:${cart.id}`, Date.now()))
    .payload;
}

/** Closed mandates for `cart` as a bypassed gate would sign them; each option changes one thing. */
async function mandatesFor(
  cart: Cart,
  o: { key?: MandateKey; open?: { checkout: string; payment: string }; amount?: number; payee?: string; now?: number } = {},
): Promise<Presentation> {
  const key = o.key ?? loadAgentKey(state.dir);
  const open = loadOpenMandates(state.dir, SHOPPER);
  assert.ok(key && open && cart.ap2 && cart.total && cart.x402);
  const signed = await signClosedMandates(
    key,
    { ...open, ...(o.open ?? {}) },
    {
      checkout: cart.ap2,
      payee: { id: o.payee ?? 'hardware', name: o.payee ?? 'hardware', website: cart.ap2.website },
      amount: { amount: o.amount ?? toMinor(M.fromJson(cart.total)), currency: cart.currency },
      instrument: { id: `${cart.x402.network}:${cart.x402.asset}:${wallet.address}`, type: 'org.x402.exact', description: 'USDC' },
      audience: cart.ap2.website,
      now: o.now ?? Date.now(),
    },
    cart.id,
  );
  return signed.presentation;
}

/** Completes `cart` with a payment and `mandates`; the merchant's refusal code (it must refuse). */
async function refusedWith(cart: Cart, mandates: Presentation | undefined, complete: Cart = cart): Promise<string> {
  const before = { orders: shop.orders.length, paid: await chain.usdcOf(payTo) };
  const err = await direct()
    .complete(complete.id, `attack-${Math.random()}`, { x402: await paymentFor(cart) }, mandates)
    .then(
      () => undefined,
      (e: unknown) => e as { details?: { code?: string } },
    );
  assert.ok(err, 'the merchant completed it');
  assert.equal(shop.orders.length, before.orders, 'no order placed');
  assert.equal(await chain.usdcOf(payTo), before.paid, 'nothing paid on the chain');
  return err.details?.code ?? 'none';
}

describe('AP2 mandates at a UCP merchant', () => {
  test('holon keys prints the public key the merchant trusts, and no private part', async () => {
    const keys = await json<{ mandate_key: Record<string, string>; open: Record<string, unknown> }>(state.dir, ['keys']);
    assert.equal(keys.mandate_key['kty'], 'EC');
    assert.equal(keys.mandate_key['crv'], 'P-256');
    assert.equal(keys.mandate_key['d'], undefined);
    assert.deepEqual(Object.keys(keys.open), [SHOPPER]);
    assert.equal(loadPublished(state.dir)?.key.x, keys.mandate_key['x']);
    // Its private part: in a file of the user's alone, beside the wallet's key, and nowhere in what was printed.
    const file = path.join(state.dir, 'keys', 'mandate.jwk');
    assert.equal(fs.statSync(file).mode & 0o077, 0);
    const d = (JSON.parse(fs.readFileSync(file, 'utf8')) as { d: string }).d;
    assert.ok(!(await holonIn(state.dir, ['keys'])).stdout.includes(d));
  });

  test('an allowed purchase completes with mandates the merchant verified, and pays on the chain', async () => {
    const r = await callTool(session.client, 'buy', { merchant: 'hardware', lines: STICKERS, replay_key: 'stickers' });
    assert.notEqual(r.isError, true, `${JSON.stringify(r.structuredContent)}\n${session.log()}`);
    assert.deepEqual(shop.refusals, []);
    assert.equal(shop.orders.length, 1);
    assert.equal(await chain.usdcOf(payTo), 1_080_000n);
    const body = shop.completionBodies.at(-1) as { ap2?: Record<string, string> };
    assert.match(
      body.ap2?.['checkout_mandate'] ?? '',
      /^[\w-]+\.[\w-]+\.[\w-]+(~[\w-]+)+~~[\w-]+\.[\w-]+\.[\w-]+~[\w-]+~$/,
      "AP2's chain: the open mandate with its disclosure, then the closed hop with its own",
    );
    // No tool result carries a mandate the agent could present again.
    const out = JSON.stringify(r);
    for (const m of Object.values(body.ap2 ?? {})) assert.ok(!out.includes(m.split('~')[0] ?? '-'), 'a mandate leaked into the result');
    // The chain of consent, each link re-verified from its signatures.
    const order = r.structuredContent as { consent: { holds: boolean; steps: { link: string; ok: boolean | null; detail: string }[] } };
    assert.equal(order.consent.holds, true, JSON.stringify(order.consent));
    assert.deepEqual(
      order.consent.steps.map((x) => [x.link, x.ok]),
      [
        ['mandate', true],
        ['checkout', true],
        ['payment', true],
        ['transaction', true],
      ],
    );
    const events = await readEvents(state.dir);
    assert.ok(events.some((e) => e.type === 'purchase.mandated'));
    for (const e of events) assert.ok(!JSON.stringify(e).includes('"d":'), 'a private key in the journal');
  });

  test('holon verify shows that the chain of consent holds, and that it does not against another key', async () => {
    const v = await holonIn(state.dir, ['verify']);
    assert.equal(v.code, 0, v.stderr);
    assert.match(v.stdout, /consent holds, mandate → checkout → payment → transaction/);
    const j = await json<{ consent: { holds: boolean }[] }>(state.dir, ['verify']);
    assert.deepEqual(
      j.consent.map((c) => c.holds),
      [true],
    );
    const store = await openLedger(state.dir);
    try {
      const p = store.state.purchases[`${SHOPPER}#stickers`];
      assert.ok(p);
      const other = await consentChain(store.state, p, mandateKeyOf(newMandateJwk()).publicJwk);
      assert.equal(other?.holds, false);
      assert.equal(other?.steps.find((x) => x.ok === false)?.link, 'mandate');
      // The receipts panel's rows carry the same chain, checked against the state's key.
      const panel = await receiptsState(store, { mandate: null, status: 'all' }, null, 50, Date.now(), loadMandateKey(state.dir)?.publicJwk);
      const row = panel.purchases.find((x) => x.id === p.id);
      assert.equal(row?.consent?.holds, true);
      assert.deepEqual(
        row?.consent?.steps.map((x) => x.link),
        ['mandate', 'checkout', 'payment', 'transaction'],
      );
    } finally {
      store.close();
    }
  });

  test('above the threshold: intent.denied, nothing signed, nothing sent to the merchant', async () => {
    const sent = shop.completionBodies.length;
    const before = (await readEvents(state.dir)).filter((e) => e.type === 'purchase.mandated').length;
    const r = await callTool(session.client, 'buy', {
      merchant: 'hardware',
      lines: [{ product: 'keyboard', quantity: 1 }],
      replay_key: 'keyboard',
    });
    assert.equal(r.isError, true);
    assert.match(JSON.stringify(r.structuredContent), /intent\.denied/);
    assert.equal(shop.completionBodies.length, sent);
    assert.equal((await readEvents(state.dir)).filter((e) => e.type === 'purchase.mandated').length, before);
  });

  test("a merchant whose checkout signature does not verify, or that stops signing, gets no mandate", async () => {
    for (const signature of ['forged', 'none'] as const) {
      const liar = await startUcpMerchant({ ap2: { id: 'hardware', human: () => loadPublished(state.dir), signature } });
      try {
        const err = await new UcpCheckout({ id: 'hardware', protocol: 'ucp', url: liar.url }, fetch as never).create(STICKERS).then(
          () => undefined,
          (e: unknown) => e as { reason?: string; details?: { code?: string } },
        );
        assert.equal(err?.reason, 'agent_failed', signature);
        assert.equal(err?.details?.code, signature === 'forged' ? 'merchant_authorization_invalid' : 'merchant_authorization_missing');
        assert.deepEqual(liar.completionBodies, []);
      } finally {
        await liar.close();
      }
    }
  });

  test('once negotiated, a completion without mandates is refused', async () => {
    const cart = await direct().create(STICKERS);
    assert.equal(await refusedWith(cart, undefined), 'mandate_required');
  });

  test('a mandate for another checkout is refused', async () => {
    const a = await direct().create(STICKERS);
    const b = await direct().create(STICKERS);
    assert.equal(await refusedWith(a, await mandatesFor(a), b), 'mandate_scope_mismatch');
  });

  test('a cart edited after its mandate was signed is refused', async () => {
    const cart = await direct().create(STICKERS);
    const mandates = await mandatesFor(cart);
    const put = await fetch(`${shop.url}/ucp/v1/checkout-sessions/${cart.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'ucp-agent': 'profile="urn:test"' },
      body: JSON.stringify({ line_items: [{ item: { id: 'sticker-pack' }, quantity: 3 }] }),
    });
    assert.equal(put.status, 200);
    assert.equal(await refusedWith(cart, mandates), 'mandate_scope_mismatch');
  });

  test('a replayed mandate is refused', async () => {
    const used = shop.completionBodies.find((b) => (b as { ap2?: unknown }).ap2) as {
      ap2: Record<string, string>;
      payment: { instruments: { credential: { token: string } }[] };
    };
    const cart = await direct().create(STICKERS);
    const replayed: Presentation = {
      checkout_mandate: used.ap2['checkout_mandate'] ?? '',
      payment_mandate: used.payment.instruments[0]?.credential.token ?? '',
      open_checkout_mandate: used.ap2['open_checkout_mandate'] ?? '',
      open_payment_mandate: used.ap2['open_payment_mandate'] ?? '',
    };
    assert.equal(await refusedWith(cart, replayed), 'mandate_replayed');
  });

  test('an expired mandate is refused', async () => {
    const cart = await direct().create(STICKERS);
    assert.equal(await refusedWith(cart, await mandatesFor(cart, { now: Date.now() - 20 * 60_000 })), 'mandate_expired');
  });

  test('a payment mandate for another amount or another payee is refused', async () => {
    const cart = await direct().create(STICKERS);
    assert.equal(await refusedWith(cart, await mandatesFor(cart, { amount: 1 })), 'mandate_scope_mismatch');
    assert.equal(await refusedWith(cart, await mandatesFor(cart, { payee: 'elsewhere' })), 'mandate_scope_mismatch');
  });

  test('mandates signed by any other key are refused', async () => {
    const cart = await direct().create(STICKERS);
    const other = mandateKeyOf(newMandateJwk());
    assert.equal(await refusedWith(cart, await mandatesFor(cart, { key: other })), 'mandate_invalid_signature');
    // The human's own key signs only open mandates: the closed ones are the agent key's, which the open ones bind.
    const human = loadMandateKey(state.dir);
    assert.ok(human);
    assert.equal(await refusedWith(cart, await mandatesFor(cart, { key: human })), 'mandate_invalid_signature');
  });

  test('the agent key is apart from the human key, kept beside it, and the open mandates bind it', async () => {
    const human = loadMandateKey(state.dir);
    const agent = loadAgentKey(state.dir);
    const open = loadOpenMandates(state.dir, SHOPPER);
    assert.ok(human && agent && open);
    assert.notEqual(agent.publicJwk.kid, human.publicJwk.kid);
    assert.equal(fs.statSync(path.join(state.dir, 'keys', 'ap2-agent.jwk')).mode & 0o777, 0o600);
    assert.equal(open.key, human.publicJwk.kid);
    assert.equal(open.agent, agent.publicJwk.kid);
    const cnf = (JSON.parse(Buffer.from(open.payment.split('.')[1] ?? '', 'base64url').toString('utf8')) as { cnf: { jwk: { x: string } } }).cnf;
    assert.equal(cnf.jwk.x, agent.publicJwk.x);
  });

  test('after the human edits the mandate, its old open mandate is refused, and so is a purchase outside the new one', async () => {
    const old = loadOpenMandates(state.dir, SHOPPER);
    assert.ok(old);
    const edited = await ok(state.dir, ['mandate', 'edit', SHOPPER, '--threshold', '1.00']);
    assert.match(edited, /Merchants will see this .*up to 1(\.00)? USD a purchase/);
    const now = loadOpenMandates(state.dir, SHOPPER);
    assert.ok(now && now.payment !== old.payment);
    assert.deepEqual(now.terms.cap, { amount: 100, currency: 'USD' });
    // 1.08 USD: within the old cap of 30, outside the new one of 1. A gate bypassed, presenting the old consent:
    const cart = await direct().create(STICKERS);
    assert.equal(
      await refusedWith(cart, await mandatesFor(cart, { open: { checkout: old.checkout, payment: old.payment } })),
      'mandate_scope_mismatch',
    );
    assert.match(shop.refusals.at(-1) ?? '', /mandate_scope_mismatch/);
    // … or the new one: over its cap.
    assert.equal(await refusedWith(cart, await mandatesFor(cart)), 'mandate_scope_mismatch');
    // Through Holon, the gate refuses it first, and nothing is signed.
    const r = await callTool(session.client, 'buy', { merchant: 'hardware', lines: STICKERS, replay_key: 'after-edit' });
    assert.equal(r.isError, true);
    // A purchase within the new terms carries them: 0.54 USD.
    const small = await callTool(session.client, 'buy', {
      merchant: 'hardware',
      lines: [{ product: 'sticker-pack', quantity: 1 }],
      replay_key: 'small',
    });
    assert.notEqual(small.isError, true, JSON.stringify(small.structuredContent));
    const store = await openLedger(state.dir);
    try {
      const p = store.state.purchases[`${SHOPPER}#small`];
      assert.deepEqual(p?.ap2?.open.terms.cap, { amount: 100, currency: 'USD' });
    } finally {
      store.close();
    }
  });
});
