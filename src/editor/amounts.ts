// Amounts as the editor shows them: at the currency's precision ("4.58 EUR"), with the exact amount Holon
// keeps ("4.5824 EUR") for the hover. Holon counts in millionths, so a cost per page reads 0.0238 EUR; a
// person reading a budget wants cents, and the exact figure one hover away. Pure: no vscode.
import type { Money, MoneyJson } from '../core/kernel/amount.ts';
import * as M from '../core/kernel/amount.ts';
import type { Amount } from '../webview/protocol/messages.ts';

const digits = new Map<string, number | null>();

/**
 * The decimals a currency is written with: ISO 4217's (EUR 2, JPY 0, BHD 3) as the runtime's Intl data
 * knows them; null for a code that is not an ISO currency (USDC), which is shown exactly.
 */
export function currencyDigits(code: string): number | null {
  let d = digits.get(code);
  if (d === undefined) {
    try {
      d = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? null;
    } catch {
      d = null;
    }
    digits.set(code, d);
  }
  return d;
}

/**
 * An amount at its currency's precision, rounded half away from zero, with the exact amount beside it.
 * An amount that is not zero never reads as zero: 0.004 EUR is "< 0.01 EUR".
 */
export function displayMoney(m: Money): Amount {
  const exact = M.format(m);
  const d = currencyDigits(m.currency);
  if (d === null || d >= M.SCALE) return { text: exact, exact };
  const step = 10n ** BigInt(M.SCALE - d);
  const negative = m.units < 0n;
  const abs = negative ? -m.units : m.units;
  const rounded = (abs + step / 2n) / step;
  const written = (n: bigint): string => {
    const unit = 10n ** BigInt(d);
    const frac = d > 0 ? `.${(n % unit).toString().padStart(d, '0')}` : '';
    return `${n / unit}${frac}`;
  };
  if (rounded === 0n && abs !== 0n) return { text: `${negative ? '> -' : '< '}${written(1n)} ${m.currency}`, exact };
  return { text: `${negative && rounded !== 0n ? '-' : ''}${written(rounded)} ${m.currency}`, exact };
}

/** `displayMoney` of a wire amount. */
export function displayJson(m: MoneyJson): Amount {
  return displayMoney(M.fromJson(m));
}

/** `displayJson`, or null for no amount. */
export function displayOrNull(m: MoneyJson | null | undefined): Amount | null {
  return m ? displayJson(m) : null;
}
