/**
 * Conformance: the mandates Holon signs, as a merchant reads them (the SD-JWT's claims with its
 * disclosures), against AP2 v0.2's published JSON schemas, vendored in test/fixtures/ap2-schemas (see
 * its README for the source and date). A mandate that names its products carries them as AP2's
 * `checkout.line_items`, which the open checkout schema requires; one that names none has no such
 * constraint, the one rule it does not meet (asserted as such, and said in docs/ap2.md).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { digest } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { signClosedMandates, signOpenMandates } from '../../src/core/commerce/ap2.ts';
import { mandateKeyOf, newMandateJwk } from '../../src/core/local/mandateKey.ts';
import { ROOT } from '../helpers.ts';

const DIR = path.join(ROOT, 'test', 'fixtures', 'ap2-schemas');
const read = (f: string): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8')) as Record<string, unknown>;

function validator(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  // AP2's annotations of what may be selectively disclosed: no constraint on the value.
  ajv.addVocabulary(['x-selectively-disclosable-field', 'x-selectively-disclosable-array']);
  for (const f of ['types/amount.json', 'types/merchant.json', 'types/payment_instrument.json', 'types/pisp.json']) ajv.addSchema(read(f));
  return ajv;
}

const claims = async (sdJwt: string): Promise<unknown> => new SDJwtVcInstance({ hasher: digest, hashAlg: 'sha-256' }).getClaims(sdJwt);
/** A chain's closed mandate: the one item its last hop discloses (AP2's delegate_payload). */
const closed = (chain: string): unknown =>
  (JSON.parse(Buffer.from(chain.split('~~')[1]?.split('~')[1] ?? '', 'base64url').toString('utf8')) as unknown[])[1];

test("Holon's AP2 mandates against AP2 v0.2's published schemas", async () => {
  const ajv = validator();
  const key = mandateKeyOf(newMandateJwk());
  const agent = mandateKeyOf(newMandateJwk());
  const now = Date.parse('2026-12-03T12:00:00Z');
  const open = await signOpenMandates(key, agent.publicJwk, 'demo/shopper', {
      merchants: ['hardware'],
      cap: { amount: 3000, currency: 'USD' },
      budget: { amount: 10050, currency: 'USD' },
      products: [{ id: 'sticker-pack', quantity: 3 }],
      expires_at: '2027-01-01T00:00:00Z',
    },
    now,
  );
  const { presentation } = await signClosedMandates(
    agent,
    open,
    {
      checkout: { authorization: 'h..s', jwt: 'eyJhbGciOiJFUzI1NiJ9.eyJpZCI6ImNoa18xIn0.c2ln', key: { kid: 'business-1', kty: 'EC', crv: 'P-256', x: 'x', y: 'y' } },
      payee: { id: 'hardware', name: 'hardware', website: 'http://127.0.0.1:8080' },
      amount: { amount: 108, currency: 'USD' },
      instrument: { id: 'eip155:31337:0xToken:0xPayer', type: 'org.x402.exact', description: 'USDC on eip155:31337' },
      audience: 'http://127.0.0.1:8080',
      now,
    },
    'chk_1',
  );
  const check = (schema: string | Record<string, unknown>, value: unknown): string[] => {
    const body = typeof schema === 'string' ? read(schema) : schema;
    const validate = ajv.getSchema(String(body['$id'])) ?? ajv.compile(body);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword} ${e.message ?? ''}`);
  };
  assert.deepEqual(check('checkout_mandate.json', closed(presentation.checkout_mandate)), []);
  assert.deepEqual(check('payment_mandate.json', closed(presentation.payment_mandate)), []);
  const openPayment = (await claims(open.payment)) as { constraints: { type: string }[]; exp?: number };
  assert.deepEqual(check('open_payment_mandate.json', openPayment), []);
  assert.deepEqual(
    openPayment.constraints.map((c) => c.type),
    ['payment.reference', 'payment.allowed_payees', 'payment.amount_range', 'payment.agent_recurrence', 'payment.budget'],
  );
  // The products as line items: the open checkout mandate meets the whole schema, `contains` included.
  const openCheckout = await claims(open.checkout);
  assert.deepEqual(check('open_checkout_mandate.json', openCheckout), []);
  // A mandate that names no products has no line-items constraint, which `contains` requires; every other rule holds.
  const any = await signOpenMandates(key, agent.publicJwk, 'demo/any', { merchants: null, cap: null, budget: { amount: 500, currency: 'EUR' }, expires_at: null }, now);
  const anyCheckout = (await claims(any.checkout)) as { exp?: number; iat?: number };
  assert.deepEqual(check('open_checkout_mandate.json', anyCheckout), ['/constraints contains must contain at least 1 valid item(s)']);
  assert.equal(typeof anyCheckout.exp, 'number', 'an expiry even when the mandate has none');
  assert.deepEqual(check('open_payment_mandate.json', await claims(any.payment)), []);
});

test('a mandate that breaks the schema is caught (the check can fail)', async () => {
  const ajv = validator();
  const validate = ajv.compile(read('payment_mandate.json'));
  assert.equal(validate({ vct: 'mandate.payment.1', transaction_id: 'x', payee: { id: 'a', name: 'a' }, payment_amount: { amount: '1.08', currency: 'USD' }, payment_instrument: { id: 'i', type: 't' } }), false);
});
