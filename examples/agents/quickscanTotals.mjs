#!/usr/bin/env node
// quickscan/totals — MCP server (stdio), tool `read_total`.
// Reads the amount due of an invoice PDF and cross-checks it against the line
// items (items -> subtotal -> subtotal + tax = total). It answers only when the
// check is possible and passes; otherwise it fails with the declared error
// `low_confidence` (charged): French notation, more than 5 line items, no
// total line, or totals that do not add up. A file that is not a readable PDF
// fails with `unreadable_file` (not charged).
// Price: 0.01 USD per call, flat.

import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { addDecimals, compareDecimals, subtractDecimals } from './lib/decimal.mjs';
import { findInvoiceTable } from './lib/invoice.mjs';
import { detectCurrency, documentFormat, looksNumeric, parseAmount } from './lib/numbers.mjs';
import { AgentError, handler, isMain, logger, readPdfInput, serveStdio, success, toolOutputSchema } from './lib/protocol.mjs';

export const ID = 'quickscan/totals';
export const VERSION = '0.3.0';
export const TOOL = 'read_total';
export const MAX_LINE_ITEMS = 5;

export const input = {
  file: z.string().min(1).describe('Handle of the invoice PDF'),
};

const Decimal = z.string().regex(/^-?\d+(\.\d+)?$/);

export const output = z.object({
  total: Decimal.describe('The amount due, as a decimal string'),
  currency: z.string().nullable(),
  subtotal: Decimal.nullable(),
  tax: Decimal.nullable(),
  line_items: z.number().int().min(1).describe('Number of line items the total was checked against'),
});

const log = logger(ID);
const doubt = (message) => new AgentError('low_confidence', message);

export function readTotal(doc) {
  const table = findInvoiceTable(doc);
  if (!table || table.items.length === 0) throw doubt('no line-item table found to check the total against');
  const numericTexts = [...table.items.flat(), ...table.summary.map((line) => line.text)].filter(looksNumeric);
  if (documentFormat(numericTexts) === 'fr') throw doubt('amounts are not in English notation (1,234.56)');
  if (table.items.length > MAX_LINE_ITEMS) {
    throw doubt(`${table.items.length} line items; the total can be cross-checked for at most ${MAX_LINE_ITEMS}`);
  }
  const read = (text) => (looksNumeric(text) ? parseAmount(text, ['en'], 'en') : null);
  const find = (kind) => {
    const line = table.summary.filter((l) => l.kind === kind).at(-1);
    return line ? read(line.text) : null;
  };
  const total = find('total');
  if (total === null) throw doubt('no readable total line');
  const subtotal = find('subtotal');
  const tax = find('tax');
  const amounts = table.items.map((cells) => read(cells[cells.length - 1]));
  if (amounts.includes(null)) throw doubt('a line item has no readable amount in the last column');
  const itemsSum = addDecimals(amounts);
  const beforeTax = subtotal ?? (tax === null ? total : subtractDecimals(total, tax));
  if (compareDecimals(itemsSum, beforeTax) !== 0) throw doubt(`line items add up to ${itemsSum}, not ${beforeTax}`);
  if (subtotal !== null && compareDecimals(addDecimals([subtotal, tax ?? '0']), total) !== 0) {
    throw doubt(`subtotal ${subtotal} + tax ${tax ?? '0'} is not the total ${total}`);
  }
  return { total, currency: detectCurrency(table.texts), subtotal, tax, line_items: table.items.length };
}

export function createServer() {
  const server = new McpServer({ name: ID, version: VERSION });
  server.registerTool(
    TOOL,
    {
      description:
        'Read the amount due of an invoice PDF, cross-checked against its line items (at most 5, English notation). ' +
        'Fails with low_confidence (charged) when it cannot check the total. Price: 0.01 USD per call.',
      inputSchema: z.object(input),
      outputSchema: toolOutputSchema(output),
    },
    handler(async ({ file }, extra) => {
      const doc = await readPdfInput(extra, file);
      const data = readTotal(doc);
      log(`${file}: total ${data.total} ${data.currency ?? ''} (${data.line_items} line items checked)`);
      return success(data);
    }, log),
  );
  return server;
}

if (isMain(import.meta.url)) await serveStdio(createServer(), log);
