/**
 * Amounts: exact, in millionths, always with their currency (never a float). The money room (money/)
 * builds on them, and so does every module that names a price, a limit or a cost.
 */
import { HolonError } from './errors.ts';
import { currencyCode } from './ids.ts';
import type { Currency, MoneyJson } from './amountJson.ts';

export type { Currency, MoneyJson } from './amountJson.ts';

/** Digits kept after the decimal point, everywhere. Prices are quoted to at most this precision. */
export const SCALE = 6;
const UNIT = 10n ** BigInt(SCALE);

/** An exact amount of one currency, in millionths. Never a float. */
export interface Money {
  readonly units: bigint;
  readonly currency: Currency;
}

const DECIMAL = /^(-)?(\d{1,15})(?:\.(\d{1,6}))?$/;

/** Checks a currency code and returns it. */
export const currency: (code: string) => Currency = currencyCode;

/** Parses a decimal string ("5", "0.0276") into fixed-point units; rejects anything else. */
export function parseUnits(text: string): bigint {
  const m = DECIMAL.exec(text.trim());
  if (!m) throw new HolonError('invalid_input', `"${text}" is not an amount (a decimal number with at most ${SCALE} decimals)`);
  const whole = BigInt(m[2] ?? '0');
  const frac = BigInt((m[3] ?? '').padEnd(SCALE, '0'));
  const v = whole * UNIT + frac;
  return m[1] ? -v : v;
}

/** Builds money from a decimal string and a currency code. */
export function money(amount: string, code: string): Money {
  return { units: parseUnits(amount), currency: currency(code) };
}

/** Money from a wire object. */
export function fromJson(m: MoneyJson): Money {
  return money(m.amount, m.currency);
}

/** The amount as a decimal string, trailing zeros trimmed but at least two decimals ("0.0276", "5.00"). */
export function formatUnits(units: bigint): string {
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const whole = abs / UNIT;
  let frac = (abs % UNIT).toString().padStart(SCALE, '0').replace(/0+$/, '');
  if (frac.length < 2) frac = frac.padEnd(2, '0');
  return `${neg ? '-' : ''}${whole}.${frac}`;
}

/** The wire shape of an amount. */
export function toJson(m: Money): MoneyJson {
  return { amount: formatUnits(m.units), currency: m.currency };
}

/** "0.0276 EUR". */
export function format(m: Money): string {
  return `${formatUnits(m.units)} ${m.currency}`;
}

/** Zero of a currency. */
export function zero(code: Currency): Money {
  return { units: 0n, currency: code };
}

function same(a: Money, b: Money): void {
  if (a.currency !== b.currency) throw new HolonError('invalid_input', `cannot combine ${a.currency} with ${b.currency}`);
}

/** a + b, same currency. */
export function add(a: Money, b: Money): Money {
  same(a, b);
  return { units: a.units + b.units, currency: a.currency };
}

/** a − b, same currency. */
export function sub(a: Money, b: Money): Money {
  same(a, b);
  return { units: a.units - b.units, currency: a.currency };
}

/** a × n for a whole number n. */
export function times(a: Money, n: number | bigint): Money {
  return { units: a.units * BigInt(n), currency: a.currency };
}

/** Compares two amounts of one currency: −1, 0 or 1. */
export function compare(a: Money, b: Money): -1 | 0 | 1 {
  same(a, b);
  return a.units < b.units ? -1 : a.units > b.units ? 1 : 0;
}

/** The smaller of two amounts of one currency. */
export function min(a: Money, b: Money): Money {
  return compare(a, b) <= 0 ? a : b;
}

/** The larger of two amounts of one currency. */
export function max(a: Money, b: Money): Money {
  return compare(a, b) >= 0 ? a : b;
}

/**
 * Converts with a human-set rate (units of `to` per one unit of `from`, as a decimal string).
 * Rounds up to the last kept digit: a converted worst case or hold is never smaller than the truth.
 */
export function convert(a: Money, to: Currency, rate: string): Money {
  if (a.currency === to) return a;
  const r = parseUnits(rate);
  if (r <= 0n) throw new HolonError('invalid_input', `rate ${rate} must be positive`);
  const product = a.units * r;
  const q = product / UNIT;
  const up = product % UNIT === 0n || product < 0n ? q : q + 1n;
  return { units: up, currency: to };
}

/** Divides an amount by a ratio given in units (e.g. a success rate 0.97 = 970000), rounding up. */
export function divideByRatio(a: Money, ratioUnits: bigint): Money {
  if (ratioUnits <= 0n) throw new HolonError('invalid_input', 'ratio must be positive');
  const n = a.units * UNIT;
  const q = n / ratioUnits;
  return { units: n % ratioUnits === 0n || n < 0n ? q : q + 1n, currency: a.currency };
}
