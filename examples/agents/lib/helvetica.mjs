// Glyph widths of the standard Helvetica font (Adobe AFM, 1/1000 em), keyed by
// Unicode character. Used by make-invoices.mjs to right-align amounts and by
// pdf.mjs to estimate how wide a drawn string is (to assign it to a column).

const ASCII = [
  // 32..126
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
  1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
  667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
  333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
  556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];

const EXTRA = {
  '\u00a0': 278, '\u00b0': 400, '\u00e0': 556, '\u00e2': 556, '\u00e7': 500, '\u00e8': 556,
  '\u00e9': 556, '\u00ea': 556, '\u00eb': 556, '\u00ee': 278, '\u00ef': 278, '\u00f4': 556,
  '\u00f9': 556, '\u00fb': 556, '\u00c9': 667, '\u00c0': 667, '\u00c7': 722, '\u20ac': 556,
  '\u00a3': 556, '\u2013': 556, '\u2014': 1000, '\u2019': 222,
};

export function glyphWidth(ch) {
  const code = ch.codePointAt(0);
  if (code >= 32 && code <= 126) return ASCII[code - 32];
  return EXTRA[ch] ?? 556;
}

/** Width in points of `text` drawn in Helvetica at `size` points. */
export function textWidth(text, size) {
  let units = 0;
  for (const ch of text) units += glyphWidth(ch);
  return (units * size) / 1000;
}
