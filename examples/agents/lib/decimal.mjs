// Exact decimal arithmetic on strings ("1234.56"), using BigInt fixed point.
// Money never goes through a JavaScript float.

const DECIMAL = /^-?\d+(\.\d+)?$/;

export function isDecimal(text) {
  return typeof text === 'string' && DECIMAL.test(text);
}

function scaleOf(text) {
  const dot = text.indexOf('.');
  return dot === -1 ? 0 : text.length - dot - 1;
}

/** "12.5" at scale 3 -> 12500n */
function toScaled(text, scale) {
  if (!isDecimal(text)) throw new Error(`not a decimal string: ${JSON.stringify(text)}`);
  const negative = text.startsWith('-');
  const [whole, frac = ''] = (negative ? text.slice(1) : text).split('.');
  const value = BigInt(whole + frac.padEnd(scale, '0'));
  return negative ? -value : value;
}

function fromScaled(value, scale) {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const frac = digits.slice(digits.length - scale);
  return (negative ? '-' : '') + whole + (scale > 0 ? '.' + frac : '');
}

/** Exact sum; the result keeps the largest number of decimals among the terms. */
export function addDecimals(terms) {
  const scale = Math.max(0, ...terms.map(scaleOf));
  return fromScaled(terms.reduce((sum, t) => sum + toScaled(t, scale), 0n), scale);
}

/** Exact difference a - b. */
export function subtractDecimals(a, b) {
  return addDecimals([a, b.startsWith('-') ? b.slice(1) : '-' + b]);
}

/** Exact product, rounded half away from zero to `scale` decimals. */
export function multiplyDecimals(a, b, scale) {
  const exact = toScaled(a, scaleOf(a)) * toScaled(b, scaleOf(b));
  const exactScale = scaleOf(a) + scaleOf(b);
  if (exactScale <= scale) return fromScaled(exact * 10n ** BigInt(scale - exactScale), scale);
  const divisor = 10n ** BigInt(exactScale - scale);
  const negative = exact < 0n;
  const magnitude = negative ? -exact : exact;
  let rounded = magnitude / divisor;
  if ((magnitude % divisor) * 2n >= divisor) rounded += 1n;
  return fromScaled(negative ? -rounded : rounded, scale);
}

/** -1, 0 or 1, comparing numerically ("2.50" equals "2.5"). */
export function compareDecimals(a, b) {
  const scale = Math.max(scaleOf(a), scaleOf(b));
  const x = toScaled(a, scale);
  const y = toScaled(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}
