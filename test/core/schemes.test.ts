import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nonceKey } from '../../src/core/rails/settlement.ts';
import { recordedScheme, SCHEMES, schemeOf } from '../../src/core/rails/schemes.ts';

const authorization = { from: '0xAbC', to: '0x2', value: '300000', validAfter: '0', validBefore: '0', nonce: '0xDeF' };

describe('the payment schemes table', () => {
  test('a record that names no scheme is exact, as every record from before the table; one Holon does not know reads as exact too', () => {
    assert.equal(schemeOf({}), SCHEMES.exact);
    assert.equal(schemeOf({ scheme: 'upto' }), SCHEMES.upto);
    assert.equal(schemeOf({ scheme: 'toString' }), SCHEMES.exact);
  });

  test('the journal keeps `scheme` only for a scheme other than exact', () => {
    assert.deepEqual(recordedScheme('exact'), {});
    assert.deepEqual(recordedScheme(undefined), {});
    assert.deepEqual(recordedScheme('upto'), { scheme: 'upto' });
  });

  test('nonce keys keep the form snapshots carry: the nonce space, the payer and the nonce, lowercase', () => {
    assert.equal(nonceKey({ authorization }), 'exact:0xabc:0xdef');
    assert.equal(nonceKey({ scheme: 'upto', authorization }), 'upto:0xabc:0xdef');
  });

  test('exact settles all it carries; upto the share the chain moved, rounded up', () => {
    const landed = { authorization, landed: { value: '100000' } };
    assert.deepEqual(SCHEMES.exact.settles(landed, { amount: '0.30', currency: 'USDC' }), { amount: '0.30', currency: 'USDC' });
    assert.deepEqual(SCHEMES.upto.settles(landed, { amount: '0.276', currency: 'EUR' }), { amount: '0.092', currency: 'EUR' });
    assert.equal(schemeOf({}).authorized({ amount: '0.30', currency: 'USDC' }), null);
    assert.deepEqual(SCHEMES.upto.authorized({ amount: '0.30', currency: 'USDC' }), { amount: '0.30', currency: 'USDC' });
  });
});
