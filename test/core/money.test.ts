import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HolonError } from '../../src/core/kernel/errors.ts';
import * as M from '../../src/core/kernel/amount.ts';

const invalid = (fn: () => unknown): void => {
  assert.throws(fn, (err: unknown) => HolonError.is(err, 'invalid_input'));
};

describe('money: parse and format', () => {
  test('decimal strings parse to exact millionths', () => {
    assert.equal(M.parseUnits('5'), 5_000_000n);
    assert.equal(M.parseUnits('0.0276'), 27_600n);
    assert.equal(M.parseUnits('0.000001'), 1n);
    assert.equal(M.parseUnits('-1.5'), -1_500_000n);
    assert.equal(M.parseUnits('000.10'), 100_000n);
    assert.equal(M.parseUnits('999999999999999.999999'), 999_999_999_999_999_999_999n);
    // 0.1 + 0.2 is exactly 0.3 here, unlike floats.
    assert.equal(M.parseUnits('0.1') + M.parseUnits('0.2'), M.parseUnits('0.3'));
  });

  test('format trims trailing zeros but keeps two decimals', () => {
    assert.equal(M.formatUnits(5_000_000n), '5.00');
    assert.equal(M.formatUnits(27_600n), '0.0276');
    assert.equal(M.formatUnits(1n), '0.000001');
    assert.equal(M.formatUnits(0n), '0.00');
    assert.equal(M.formatUnits(-1n), '-0.000001');
    assert.equal(M.formatUnits(-1_500_000n), '-1.50');
    assert.equal(M.formatUnits(100_000n), '0.10');
    assert.equal(M.format(M.money('3.1', 'EUR')), '3.10 EUR');
    assert.deepEqual(M.toJson(M.money('0.0092', 'EUR')), { amount: '0.0092', currency: 'EUR' });
  });

  test('canonical strings round-trip through parse and format', () => {
    for (const s of ['0.00', '0.01', '0.10', '1.00', '5.00', '0.0276', '3.10', '0.000001', '123.456789', '-2.50', '-0.000001', '999999999999999.999999']) {
      assert.equal(M.formatUnits(M.parseUnits(s)), s, s);
    }
    // Non-canonical spellings parse to the same units as their canonical form.
    for (const [a, b] of [['5', '5.00'], ['5.5', '5.50'], ['0.100000', '0.10'], ['007', '7.00']] as const) {
      assert.equal(M.formatUnits(M.parseUnits(a)), b);
    }
  });

  test('units round-trip through format and parse (pseudo-random sample)', () => {
    let x = 0x2545f491n;
    for (let i = 0; i < 2000; i++) {
      x = (x * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
      const units = (x % 10n ** 21n) * (i % 2 === 0 ? 1n : -1n);
      assert.equal(M.parseUnits(M.formatUnits(units)), units, String(units));
    }
  });

  test('anything that is not a plain decimal with at most 6 decimals is refused', () => {
    for (const bad of ['', ' ', '-', '+1', '1e3', '1E3', '0.1234567', '1.', '.5', '1,5', '1 000', '0x10', 'NaN', 'Infinity', '--1', '1.2.3', '1234567890123456', 'abc', '٣', '1_000']) {
      invalid(() => M.parseUnits(bad));
    }
  });

  test('the error says what was wrong, with the reason invalid_input', () => {
    try {
      M.parseUnits('1e3');
      assert.fail('parsed');
    } catch (err) {
      assert.ok(HolonError.is(err, 'invalid_input'));
      assert.match(err.message, /1e3/);
    }
  });

  test('currency codes are 3 to 5 capital letters', () => {
    assert.equal(M.currency('EUR'), 'EUR');
    assert.equal(M.currency('USDC'), 'USDC');
    for (const bad of ['eur', 'EU', 'EURUSD', 'E1R', '', ' EUR']) invalid(() => M.currency(bad));
    invalid(() => M.money('1', 'eur'));
    assert.deepEqual(M.fromJson({ amount: '1.25', currency: 'USD' }), { units: 1_250_000n, currency: 'USD' });
    invalid(() => M.fromJson({ amount: '1.25', currency: 'usd' }));
    invalid(() => M.fromJson({ amount: '1.2.5', currency: 'USD' }));
  });
});

describe('money: arithmetic', () => {
  const eur = (a: string): M.Money => M.money(a, 'EUR');
  const usd = (a: string): M.Money => M.money(a, 'USD');

  test('add, sub, times, compare, min, max in one currency', () => {
    assert.deepEqual(M.add(eur('0.1'), eur('0.2')), eur('0.3'));
    assert.deepEqual(M.sub(eur('1'), eur('0.000001')), eur('0.999999'));
    assert.deepEqual(M.sub(eur('1'), eur('2')), eur('-1'));
    assert.deepEqual(M.times(eur('0.0038'), 40), eur('0.152'));
    assert.deepEqual(M.times(eur('0.0038'), 40n), eur('0.152'));
    assert.equal(M.compare(eur('1'), eur('2')), -1);
    assert.equal(M.compare(eur('2'), eur('2.000000')), 0);
    assert.equal(M.compare(eur('2.000001'), eur('2')), 1);
    assert.deepEqual(M.min(eur('1'), eur('2')), eur('1'));
    assert.deepEqual(M.max(eur('1'), eur('2')), eur('2'));
    assert.deepEqual(M.zero('EUR'), eur('0'));
  });

  test('combining two currencies is refused', () => {
    invalid(() => M.add(eur('1'), usd('1')));
    invalid(() => M.sub(eur('1'), usd('1')));
    invalid(() => M.compare(eur('1'), usd('1')));
    invalid(() => M.min(eur('1'), usd('1')));
    invalid(() => M.max(eur('1'), usd('1')));
  });

  test('convert multiplies by the rate and rounds up to the last kept digit', () => {
    assert.deepEqual(M.convert(usd('1'), 'EUR', '0.92'), eur('0.92'));
    assert.deepEqual(M.convert(usd('0.01'), 'EUR', '0.92'), eur('0.0092'));
    // 0.000001 × 0.92 = 0.00000092 → one millionth, never zero.
    assert.deepEqual(M.convert(usd('0.000001'), 'EUR', '0.92'), eur('0.000001'));
    // 0.003 × 0.333333 = 0.000999999 → 0.001.
    assert.deepEqual(M.convert(usd('0.003'), 'EUR', '0.333333'), eur('0.001'));
    // 0.0096 × 0.92 = 0.008832 exactly: no rounding.
    assert.deepEqual(M.convert(usd('0.0096'), 'EUR', '0.92'), eur('0.008832'));
    // Upward means towards +∞ for negative amounts too: −0.0000005 → 0.
    assert.deepEqual(M.convert(usd('-0.000001'), 'EUR', '0.5'), eur('0'));
    // Same currency: unchanged, whatever the rate.
    assert.deepEqual(M.convert(eur('1.5'), 'EUR', '7'), eur('1.5'));
  });

  test('convert refuses a rate that is zero, negative or not a decimal', () => {
    invalid(() => M.convert(usd('1'), 'EUR', '0'));
    invalid(() => M.convert(usd('1'), 'EUR', '-0.92'));
    invalid(() => M.convert(usd('1'), 'EUR', '9.2e-1'));
  });

  test('divideByRatio divides by a ratio in millionths and rounds up', () => {
    // The ranking of acme/table-extract: 0.0268 / 0.97 = 0.02762886… → 0.027629.
    assert.deepEqual(M.divideByRatio(eur('0.0268'), 970_000n), eur('0.027629'));
    assert.deepEqual(M.divideByRatio(eur('1'), 500_000n), eur('2'));
    assert.deepEqual(M.divideByRatio(eur('0.035'), 1_000_000n), eur('0.035'));
    assert.deepEqual(M.divideByRatio(eur('1'), 3_000_000n), eur('0.333334'));
    assert.deepEqual(M.divideByRatio(eur('0'), 970_000n), eur('0'));
    invalid(() => M.divideByRatio(eur('1'), 0n));
    invalid(() => M.divideByRatio(eur('1'), -1n));
  });

  test('divideByRatio rounds a negative amount up (towards +∞), like convert', () => {
    // −0.000001 / 0.3 = −0.00000333… → rounded up is −0.000003.
    assert.deepEqual(M.divideByRatio(eur('-0.000001'), 300_000n), eur('-0.000003'));
  });
});
