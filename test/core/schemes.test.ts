import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import path from 'node:path';
import { build } from 'esbuild';
import { nonceKey } from '../../src/core/rails/settlement.ts';
import { authorizedOf, chargeOf, paidOf } from '../../src/core/rails/settlementView.ts';
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

  test('a landed payment settles the share of its hold the chain moved of what it authorized, rounded up; all of it where it moved all', () => {
    const landed = { authorization, landed: { transaction: '0x1', block: '7', value: '100000' } };
    assert.deepEqual(paidOf({ ...landed, amount: { amount: '0.30', currency: 'USDC' } }), { amount: '0.10', currency: 'USDC' });
    assert.deepEqual(chargeOf({ ...landed, held: { amount: '0.276', currency: 'EUR' } }), { amount: '0.092', currency: 'EUR' });
    const all = { authorization, landed: { transaction: '0x1', block: '7', value: '300000' } };
    assert.deepEqual(chargeOf({ ...all, held: { amount: '0.276', currency: 'EUR' } }), { amount: '0.276', currency: 'EUR' });
    assert.deepEqual(chargeOf({ authorization, landed: null, held: { amount: '0.276', currency: 'EUR' } }), {
      amount: '0.276',
      currency: 'EUR',
    });
  });

  test('only a scheme other than exact authorizes a most rather than an amount', () => {
    const amount = { amount: '0.30', currency: 'USDC' };
    assert.equal(authorizedOf({ amount }), null);
    assert.deepEqual(authorizedOf({ scheme: 'upto', amount }), amount);
  });

  // The fold runs in the journal's worker and the editor's host at every start; what signs and reads the
  // chain (viem) is loaded only where a payment is made or checked.
  test('the fold, the journal worker and the settlement views load nothing that signs or reads a chain', async () => {
    const root = path.join(__dirname, '..', '..');
    for (const entry of [
      'src/core/fold/state.ts',
      'src/core/journalWorker.ts',
      'src/core/rails/settlementView.ts',
      'src/core/money/payments.ts',
    ]) {
      const r = await build({
        entryPoints: [path.join(root, entry)],
        bundle: true,
        write: false,
        metafile: true,
        platform: 'node',
        format: 'cjs',
        logLevel: 'silent',
      });
      const chain = Object.keys(r.metafile.inputs).filter((f) => /node_modules\/viem\/|src\/core\/rails\/schemes/.test(f));
      assert.deepEqual(chain, [], `${entry} loads ${chain.slice(0, 3).join(', ')}`);
    }
  });
});
