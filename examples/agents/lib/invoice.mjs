// Finding the line-item table of an invoice among positioned text cells:
// cells are grouped into rows by their y position, the header row is found by
// its vocabulary, body cells are assigned to the header's columns, and the
// summary lines (subtotal, tax, total) are read below the items.
// Numbers are left as printed; each agent decides which notations it reads.

import { looksNumeric } from './numbers.mjs';

const HEADER_WORDS = [
  /^(description|item|items|product|service|article|d[ée]signation|libell[ée]|prestation)\b/i,
  /^(qty|quantity|qt[ée]|quantit[ée]|units?)\b/i,
  /(unit price|price|rate|prix|p\.?\s?u\.?\b|tarif)/i,
  /^(amount|total|line total|montant|total ligne)\b/i,
];
const SUMMARY_KINDS = [
  ['subtotal', /^(sub-?\s?total|sous-total|total\s+h\.?t\.?|total hors taxes|net total|montant\s+h\.?t\.?)\b/i],
  ['tax', /^(vat|tva|tax|sales tax|taxe)\b/i],
  ['total', /^(total|grand total|amount due|balance due|total due|net [àa] payer|montant d[ûu]|total\s+t\.?t\.?c\.?)\b/i],
];

/** Group cells into rows (top to bottom, page after page); cells in a row sorted by x. */
export function rowsOf(pages, tolerance = 2) {
  const rows = [];
  for (const page of pages) {
    const cells = [...page.cells].sort((a, b) => b.y - a.y || a.x - b.x);
    let current = null;
    for (const cell of cells) {
      if (current && Math.abs(current.y - cell.y) <= tolerance) {
        current.cells.push(cell);
      } else {
        current = { page: page.number, y: cell.y, cells: [cell] };
        rows.push(current);
      }
    }
  }
  for (const row of rows) row.cells.sort((a, b) => a.x - b.x);
  return rows;
}

function headerScore(row) {
  if (row.cells.length < 3) return 0;
  return HEADER_WORDS.filter((re) => row.cells.some((cell) => re.test(cell.text))).length;
}

export function summaryKind(label) {
  for (const [kind, re] of SUMMARY_KINDS) if (re.test(label.trim())) return kind;
  return null;
}

function columnOf(cell, columns) {
  let best = 0;
  let bestScore = -Infinity;
  columns.forEach((column, index) => {
    const overlap = Math.min(cell.x + cell.width, column.x1) - Math.max(cell.x, column.x0);
    const distance = Math.abs(cell.x + cell.width / 2 - (column.x0 + column.x1) / 2);
    const score = overlap > 0 ? overlap : -distance;
    if (score > bestScore) {
      bestScore = score;
      best = index;
    }
  });
  return best;
}

/**
 * The line-item table of an invoice:
 * { columns: [names], items: [[cell text per column]], summary: [{kind, label, text}], texts: [all cell texts] }
 * or null when no header row is found.
 */
export function findInvoiceTable(doc) {
  const rows = rowsOf(doc.pages);
  const texts = rows.flatMap((row) => row.cells.map((cell) => cell.text));
  const headerIndex = rows.findIndex((row) => headerScore(row) >= 2);
  if (headerIndex === -1) return null;
  const header = rows[headerIndex];
  const headerText = header.cells.map((cell) => cell.text).join('|');
  const columns = header.cells.map((cell) => ({ name: cell.text, x0: cell.x, x1: cell.x + cell.width }));

  const items = [];
  const summary = [];
  for (const row of rows.slice(headerIndex + 1)) {
    if (row.cells.map((cell) => cell.text).join('|') === headerText) continue; // header repeated on a later page
    const numeric = row.cells.filter((cell) => looksNumeric(cell.text));
    const label = row.cells.filter((cell) => !looksNumeric(cell.text)).map((cell) => cell.text).join(' ');
    const kind = summaryKind(label);
    if (kind || summary.length > 0) {
      // Summary block: a label and an amount, until something else starts.
      if (kind && numeric.length > 0) summary.push({ kind, label, text: numeric[numeric.length - 1].text });
      else if (summary.length > 0 && !kind) break;
      continue;
    }
    if (row.cells.length === 1 && !looksNumeric(row.cells[0].text) && items.length > 0 && row.page === items.at(-1).page) {
      // A wrapped description: continue the previous line's first text cell.
      const previous = items.at(-1).cells;
      const at = columnOf(row.cells[0], columns);
      previous[at] = previous[at] ? `${previous[at]} ${row.cells[0].text}` : row.cells[0].text;
      continue;
    }
    if (row.cells.length < 2 || numeric.length === 0) continue;
    const cells = columns.map(() => '');
    for (const cell of row.cells) {
      const at = columnOf(cell, columns);
      cells[at] = cells[at] ? `${cells[at]} ${cell.text}` : cell.text;
    }
    items.push({ page: row.page, cells });
  }
  return { columns: columns.map((c) => c.name), items: items.map((item) => item.cells), summary, texts };
}
