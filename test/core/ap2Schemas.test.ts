/**
 * Conformance: the mandates Holon signs, as a merchant reads them (the SD-JWT's claims with its
 * disclosures), against AP2 v0.2's published JSON schemas, vendored in test/fixtures/ap2-schemas (see
 * its README for the source and date). One known gap is asserted as such: AP2's open checkout mandate
 * must carry a `checkout.line_items` constraint, and a Holon mandate does not constrain products.
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
  const open = await signOpenMandates(key, agent.publicJwk, 'demo/shopper', { merchants: ['hardware'], cap: { amount: 3000, currency: 'USD' }, expires_at: '2027-01-01T00:00:00Z' }, now);
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
    const validate = ajv.compile(typeof schema === 'string' ? read(schema) : schema);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword} ${e.message ?? ''}`);
  };
  assert.deepEqual(check('checkout_mandate.json', closed(presentation.checkout_mandate)), []);
  assert.deepEqual(check('payment_mandate.json', closed(presentation.payment_mandate)), []);
  assert.deepEqual(check('open_payment_mandate.json', await claims(open.payment)), []);
  // The known gap: no line-items constraint (the README says so), which the schema's `contains` requires…
  const openCheckout = await claims(open.checkout);
  assert.ok(check('open_checkout_mandate.json', openCheckout).includes('/constraints contains must contain at least 1 valid item(s)'));
  // …and every other rule of the schema holds.
  const schema = read('open_checkout_mandate.json') as { $id: string; properties: { constraints: Record<string, unknown> } };
  delete schema.properties.constraints['contains'];
  schema.$id = `${schema.$id}-without-line-items`;
  assert.deepEqual(check(schema, openCheckout), []);
});

test('a mandate that breaks the schema is caught (the check can fail)', async () => {
  const ajv = validator();
  const validate = ajv.compile(read('payment_mandate.json'));
  assert.equal(validate({ vct: 'mandate.payment.1', transaction_id: 'x', payee: { id: 'a', name: 'a' }, payment_amount: { amount: '1.08', currency: 'USD' }, payment_instrument: { id: 'i', type: 't' } }), false);
});
