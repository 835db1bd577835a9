// Reading amounts as printed on invoices.
//   English: 1,234.56   1234.56   12.50
//   French:  1 234,56   12,50 €   (thousands separated by a space, U+00A0 or U+202F)
// Parsed values are returned as plain decimal strings ("1234.56").

const SPACES = /[\s\u00a0\u202f]+/g;
const CURRENCY_SIGNS = { '€': 'EUR', $: 'USD', '£': 'GBP' };
const CURRENCY_CODES = ['EUR', 'USD', 'GBP', 'CHF'];

const EN_GROUPED = /^\d{1,3}(,\d{3})+(\.\d+)?$/;
const EN_DECIMAL = /^\d+\.\d+$/;
const FR_GROUPED = /^\d{1,3}( \d{3})+(,\d+)?$/;
const FR_DECIMAL = /^\d+,\d+$/;
const INTEGER = /^\d+$/;

/** Split "1 234,56 €" into the number part and the currency it names, if any. */
export function stripCurrency(text) {
  let core = text.replace(SPACES, ' ').trim();
  let currency = null;
  for (const [sign, code] of Object.entries(CURRENCY_SIGNS)) {
    if (core.startsWith(sign) || core.endsWith(sign)) {
      currency = code;
      core = (core.startsWith(sign) ? core.slice(sign.length) : core.slice(0, -sign.length)).trim();
    }
  }
  for (const code of CURRENCY_CODES) {
    if (core.startsWith(code + ' ') || core.endsWith(' ' + code)) {
      currency = code;
      core = (core.startsWith(code + ' ') ? core.slice(code.length) : core.slice(0, -code.length)).trim();
    }
  }
  return { core, currency };
}

/** Which notations could `text` be written in: subset of ['plain', 'en', 'fr'], [] if not a number. */
export function numberFormats(text) {
  const { core } = stripCurrency(text);
  const digits = core.startsWith('-') ? core.slice(1) : core;
  if (INTEGER.test(digits)) return ['plain'];
  const formats = [];
  if (EN_GROUPED.test(digits) || EN_DECIMAL.test(digits)) formats.push('en');
  if (FR_GROUPED.test(digits) || FR_DECIMAL.test(digits)) formats.push('fr');
  return formats;
}

/** True when the cell is meant as a number, whether or not we can read its notation. */
export function looksNumeric(text) {
  const { core } = stripCurrency(text);
  return /\d/.test(core) && /^-?[\d .,']+$/.test(core);
}

/**
 * Parse `text` as an amount written in one of the `accepted` notations
 * ('en', 'fr'; plain integers are always accepted). When the text fits several
 * accepted notations ("1,234"), `prefer` decides. Returns a decimal string or null.
 */
export function parseAmount(text, accepted, prefer) {
  const formats = numberFormats(text);
  if (formats.length === 0) return null;
  const { core } = stripCurrency(text);
  const negative = core.startsWith('-');
  const digits = negative ? core.slice(1) : core;
  let format = formats[0];
  if (format !== 'plain') {
    const usable = formats.filter((f) => accepted.includes(f));
    if (usable.length === 0) return null;
    format = usable.includes(prefer) ? prefer : usable[0];
  }
  let value = digits;
  if (format === 'en') value = digits.replaceAll(',', '');
  if (format === 'fr') value = digits.replaceAll(' ', '').replace(',', '.');
  return (negative ? '-' : '') + value;
}

/**
 * The notation a document uses, judged from its numeric cells:
 * 'en', 'fr', or 'plain' when no cell tells them apart.
 */
export function documentFormat(texts) {
  let en = 0;
  let fr = 0;
  for (const text of texts) {
    const formats = numberFormats(text);
    if (formats.length === 1 && formats[0] === 'en') en += 1;
    if (formats.length === 1 && formats[0] === 'fr') fr += 1;
  }
  if (en === 0 && fr === 0) return 'plain';
  return fr > en ? 'fr' : 'en';
}

/** The currency an invoice is in, from explicit codes or from currency signs. */
export function detectCurrency(texts) {
  const counts = new Map();
  for (const text of texts) {
    for (const code of CURRENCY_CODES) {
      if (new RegExp(`\\b${code}\\b`).test(text)) counts.set(code, (counts.get(code) ?? 0) + 2);
    }
    for (const [sign, code] of Object.entries(CURRENCY_SIGNS)) {
      if (text.includes(sign)) counts.set(code, (counts.get(code) ?? 0) + 1);
    }
  }
  let best = null;
  for (const [code, count] of counts) if (best === null || count > counts.get(best)) best = code;
  return best;
}
