/**
 * What Holon's core writes of x402's `upto` instead of importing `@x402/evm` (which would carry the whole
 * package into the extension's bundle) is the package's own: the two addresses, the witness types a
 * payer signs, and the proxy's two settling functions, selector for selector. And what an `upto` payment
 * that landed for less than authorized costs: the chain's share of what was held, never rounded in the
 * mandate's favour.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PERMIT2_ADDRESS, uptoPermit2WitnessTypes, x402UptoPermit2ProxyABI, x402UptoPermit2ProxyAddress } from '@x402/evm';
import type { AbiFunction } from 'viem';
import { toFunctionSelector } from 'viem';
import { PERMIT2, UPTO_PROXY, UPTO_PROXY_SETTLE_ABI, UPTO_WITNESS_TYPES, permit2Nonce, uptoSettlementAuthorization } from '../../src/core/rails/schemes/upto.ts';
import { chargeOf, paidOf } from '../../src/core/rails/settlementView.ts';

describe("upto's constants in the core", () => {
  test("are @x402/evm's: addresses, witness types, the proxy's settle and settleWithPermit", () => {
    assert.equal(PERMIT2, PERMIT2_ADDRESS);
    assert.equal(UPTO_PROXY, x402UptoPermit2ProxyAddress);
    assert.deepEqual(UPTO_WITNESS_TYPES, uptoPermit2WitnessTypes);
    for (const name of ['settle', 'settleWithPermit'] as const) {
      const official = x402UptoPermit2ProxyABI.find((i) => i.type === 'function' && i.name === name);
      const ours = UPTO_PROXY_SETTLE_ABI.find((i) => i.type === 'function' && i.name === name);
      assert.ok(official && ours, name);
      assert.equal(toFunctionSelector(ours as AbiFunction), toFunctionSelector(official as AbiFunction), name);
    }
  });

  test("H is Permit2's nonce: its uint256, kept in the settlement as the same 32 bytes", () => {
    const h = `0x${'ab'.repeat(32)}`;
    const a = uptoSettlementAuthorization({
      from: '0x0000000000000000000000000000000000000001',
      permitted: { token: '0x0000000000000000000000000000000000000002', amount: '300000' },
      spender: UPTO_PROXY,
      nonce: permit2Nonce(h),
      deadline: '1700000000',
      witness: { to: '0x0000000000000000000000000000000000000003', facilitator: '0x0000000000000000000000000000000000000004', validAfter: '0' },
    });
    assert.equal(a.nonce, h);
    assert.deepEqual([a.value, a.validBefore, a.to], ['300000', '1700000000', '0x0000000000000000000000000000000000000003']);
  });

  test('landed for less: charged its share of the hold, rounded up; paid its share of the maximum', () => {
    const r = {
      scheme: 'upto' as const,
      authorization: { from: '', to: '', value: '300000', validAfter: '0', validBefore: '0', nonce: '' },
      held: { amount: '0.276', currency: 'EUR' },
      amount: { amount: '0.30', currency: 'USDC' },
    };
    const at = (value: string) => ({ ...r, landed: { transaction: '0x', block: '1', value } });
    assert.deepEqual(chargeOf(at('100000')), { amount: '0.092', currency: 'EUR' });
    assert.deepEqual(paidOf(at('100000')), { amount: '0.10', currency: 'USDC' });
    // 1/3 of 0.276 EUR is 0.092 exactly; 1 unit of 300000 is 0.00000092, up to 0.000001.
    assert.deepEqual(chargeOf(at('1')), { amount: '0.000001', currency: 'EUR' });
    assert.deepEqual(chargeOf(at('300000')), r.held);
    assert.deepEqual(chargeOf(at('0')), { amount: '0.00', currency: 'EUR' });
    // A record from before `value` was kept: all it authorized.
    assert.deepEqual(chargeOf({ ...r, landed: { transaction: '0x', block: '1' } }), r.held);
  });
});
