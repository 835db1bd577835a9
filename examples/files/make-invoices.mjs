#!/usr/bin/env node
// Writes the demo invoices of examples/files/: facture.pdf (French notation),
// invoice-01.pdf .. invoice-04.pdf (English notation) and notes.txt (not a PDF).
// Deterministic: same bytes on every run (no dates from the clock, no random IDs).
//
//   node examples/files/make-invoices.mjs            # write the files
//   node examples/files/make-invoices.mjs --check    # exit 1 if a committed file differs
//
// Each PDF is a minimal PDF 1.4 file: one page, Helvetica (WinAnsiEncoding),
// one uncompressed content stream where every cell is drawn by its own
// `BT /F1 <size> Tf <x> <y> Td (<text>) Tj ET`, and a classic xref table.
// Line amounts, subtotal, tax and total are computed here, exactly.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { textWidth } from '../agents/lib/helvetica.mjs';
import { encodeWinAnsi } from '../agents/lib/pdf.mjs';
import { addDecimals, multiplyDecimals } from '../agents/lib/decimal.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const NBSP = '\u00a0';

// ---------------------------------------------------------------------------
// Number notation

function group(whole, separator) {
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, separator);
}
function formatEn(decimal) {
  const [whole, frac] = decimal.split('.');
  return group(whole, ',') + (frac ? '.' + frac : '');
}
function formatFr(decimal) {
  const [whole, frac] = decimal.split('.');
  return group(whole, NBSP) + (frac ? ',' + frac : '');
}

// ---------------------------------------------------------------------------
// The invoices

const ENGLISH = {
  format: formatEn,
  header: ['Description', 'Qty', 'Unit price', 'Amount'],
  subtotal: 'Subtotal',
  tax: (rate) => `VAT ${rate}%`,
  total: 'Total due',
  money: (text) => text,
};
const FRENCH = {
  format: formatFr,
  header: ['Désignation', 'Qté', 'Prix unitaire HT', 'Montant HT'],
  subtotal: 'Total HT',
  tax: (rate) => `TVA ${rate}${NBSP}%`,
  total: 'Total TTC',
  money: (text) => `${text}${NBSP}€`,
};

const INVOICES = [
  {
    file: 'invoice-01.pdf',
    lang: ENGLISH,
    seller: ['Brightline Stationery Ltd', '14 Wharf Road, Bristol BS1 4RN, United Kingdom'],
    info: [
      ['Invoice no.: INV-1001', 'Date: 2024-03-04'],
      ['Bill to: Holon Demo Ltd', 'Due: 2024-04-03'],
      ['Currency: EUR', 'Ref: PO\\2024\\017'],
    ],
    vat: '20',
    items: [
      ['A4 copy paper, 80 g (box of 5 reams)', '4', '23.90'],
      ['Gel pens, blue (pack of 12)', '6', '8.45'],
      ['Desk organiser', '2', '17.25'],
    ],
    footer: 'Payment within 30 days by bank transfer. Thank you for your business.',
  },
  {
    file: 'invoice-02.pdf',
    lang: ENGLISH,
    seller: ['Northbeam IT Services', '2 Canal Street, Manchester M1 3HE, United Kingdom'],
    info: [
      ['Invoice no.: NB-24-0311', 'Date: 2024-03-11'],
      ['Bill to: Holon Demo Ltd', 'Due: 2024-04-10'],
      ['Currency: EUR', 'Ref: PO-2024-021'],
    ],
    vat: '20',
    items: [
      ['Laptop docking station', '3', '189.00'],
      ['27-inch monitor', '2', '329.99'],
      ['USB-C cable (2 m)', '10', '12.40'],
      ['On-site installation (hours)', '5', '85.00'],
    ],
    footer: 'Payment within 30 days. Late payments incur interest at 8% per year.',
  },
  {
    file: 'invoice-03.pdf',
    lang: ENGLISH,
    seller: ['Harbour Catering Co.', 'Quay 7, 1011 AB Amsterdam, Netherlands'],
    info: [
      ['Invoice no.: HC-5530', 'Date: 2024-03-15'],
      ['Bill to: Holon Demo Ltd', 'Due: 2024-03-29'],
      ['Currency: EUR', 'Event: team day (25 people)'],
    ],
    vat: '10',
    items: [
      ['Sandwich platter', '4', '42.50'],
      ['Fruit basket', '2', '28.00'],
      ['Coffee service (per person)', '25', '3.20'],
      ['Still water, 1.5 L', '24', '0.95'],
      ['Pastry selection', '3', '19.90'],
      ['Delivery', '1', '15.00'],
    ],
    footer: 'Payment within 14 days.',
  },
  {
    file: 'invoice-04.pdf',
    lang: ENGLISH,
    seller: ['Keystone Office Furniture', 'Industrieweg 12, 5651 GH Eindhoven, Netherlands'],
    info: [
      ['Invoice no.: KOF-88412', 'Date: 2024-03-20'],
      ['Bill to: Holon Demo Ltd', 'Due: 2024-04-19'],
      ['Currency: EUR', 'Delivery: 2024-03-18'],
    ],
    vat: '20',
    items: [
      ['Height-adjustable desk', '2', '1149.00'],
      ['Ergonomic chair', '2', '489.50'],
      ['Monitor arm', '2', '74.90'],
      ['Cable tray', '4', '21.35'],
      ['Assembly service', '1', '120.00'],
    ],
    footer: 'Payment within 30 days. Goods remain our property until paid in full.',
  },
  {
    file: 'facture.pdf',
    lang: FRENCH,
    seller: ['Atelier Lumière SARL', '18 rue des Tanneurs, 69001 Lyon, France'],
    info: [
      ['Facture n° F-2024-0042', 'Date : 05/03/2024'],
      ['Client : Holon Demo SAS', 'Échéance : 04/04/2024'],
      ['Devise : EUR', 'Commande : BC-2024-118'],
    ],
    vat: '20',
    items: [
      ['Lampe de bureau LED', '6', '48.90'],
      ['Ampoules E27 (lot de 10)', '4', '23.50'],
      ['Suspension en laiton', '2', '1189.00'],
      ['Câble textile, 5 m', '8', '12.75'],
      ['Installation (forfait)', '1', '350.00'],
    ],
    footer: 'Paiement à 30 jours. Pénalités de retard : 3 fois le taux d\u2019intérêt légal.',
  },
];

// ---------------------------------------------------------------------------
// Page layout (A4, points)

const LEFT = 50;
const RIGHT = { qty: 330, price: 440, amount: 545 };

function pdfString(text) {
  let out = '';
  for (const ch of encodeWinAnsi(text)) {
    const code = ch.charCodeAt(0);
    if (ch === '\\' || ch === '(' || ch === ')') out += '\\' + ch;
    else if (code < 32 || code > 126) out += '\\' + code.toString(8).padStart(3, '0');
    else out += ch;
  }
  return `(${out})`;
}

const num = (n) => String(Math.round(n * 100) / 100);

function contentStream(invoice) {
  const { lang } = invoice;
  const ops = [];
  const text = (x, y, s, size = 10) => ops.push(`BT /F1 ${size} Tf ${num(x)} ${num(y)} Td ${pdfString(s)} Tj ET`);
  const right = (xRight, y, s, size = 10) => text(xRight - textWidth(s, size), y, s, size);
  const rule = (y, width = 0.5) => ops.push(`${width} w ${LEFT} ${y} m ${RIGHT.amount} ${y} l S`);

  text(LEFT, 790, invoice.seller[0], 16);
  text(LEFT, 774, invoice.seller[1], 9);
  right(RIGHT.amount, 790, lang === FRENCH ? 'FACTURE' : 'INVOICE', 16);
  let y = 740;
  for (const [a, b] of invoice.info) {
    text(LEFT, y, a);
    text(330, y, b);
    y -= 14;
  }

  y = 680;
  const [hDesc, hQty, hPrice, hAmount] = lang.header;
  text(LEFT, y, hDesc);
  right(RIGHT.qty, y, hQty);
  right(RIGHT.price, y, hPrice);
  right(RIGHT.amount, y, hAmount);
  rule(y - 6);

  const amounts = [];
  y -= 22;
  for (const [description, qty, unitPrice] of invoice.items) {
    const amount = multiplyDecimals(qty, unitPrice, 2);
    amounts.push(amount);
    text(LEFT, y, description);
    right(RIGHT.qty, y, qty);
    right(RIGHT.price, y, lang.money(lang.format(unitPrice)));
    right(RIGHT.amount, y, lang.money(lang.format(amount)));
    y -= 16;
  }
  rule(y + 8);

  const subtotal = addDecimals(amounts);
  const tax = multiplyDecimals(subtotal, `0.${invoice.vat.padStart(2, '0')}`, 2);
  const total = addDecimals([subtotal, tax]);
  y -= 10;
  for (const [label, value] of [[lang.subtotal, subtotal], [lang.tax(invoice.vat), tax], [lang.total, total]]) {
    right(RIGHT.price, y, label);
    right(RIGHT.amount, y, lang.money(lang.format(value)));
    y -= 16;
  }
  text(LEFT, 60, invoice.footer, 8);
  return { stream: ops.join('\n') + '\n', subtotal, tax, total };
}

function pdfFile(invoice) {
  const { stream, ...sums } = contentStream(invoice);
  const title = `${invoice.seller[0]} - ${invoice.info[0][0]}`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}endstream`,
    `<< /Title ${pdfString(title)} /Producer (Holon examples make-invoices.mjs) >>`,
  ];
  let body = '%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info ${objects.length} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return { bytes: Buffer.from(body, 'latin1'), ...sums };
}

const NOTES = `Notes for the Holon demo
========================

This is a plain text file, not an invoice PDF. Agents that expect a PDF
refuse it with the declared error "unreadable_file" (not charged).

Invoice total: 1,000.00 EUR   <- text, not a table; do not trust it.
`;

// ---------------------------------------------------------------------------

const outputs = INVOICES.map((invoice) => {
  const pdf = pdfFile(invoice);
  return { name: invoice.file, bytes: pdf.bytes, summary: `${invoice.items.length} items, subtotal ${pdf.subtotal}, tax ${pdf.tax}, total ${pdf.total}` };
});
outputs.push({ name: 'notes.txt', bytes: Buffer.from(NOTES, 'utf8'), summary: 'not a PDF' });

const check = process.argv.includes('--check');
let differs = false;
for (const { name, bytes, summary } of outputs) {
  const path = join(HERE, name);
  if (check) {
    let current = null;
    try {
      current = readFileSync(path);
    } catch {
      // missing
    }
    const same = current !== null && current.equals(bytes);
    differs ||= !same;
    console.log(`${same ? 'ok     ' : 'DIFFERS'} ${name}`);
  } else {
    writeFileSync(path, bytes);
    console.log(`wrote ${name} (${bytes.length} bytes): ${summary}`);
  }
}
if (differs) process.exit(1);
