#!/usr/bin/env node
// acme/table-extract — MCP server (stdio), tool `extract_table`.
// Reads the line-item table of an invoice PDF. Understands English number
// notation only (1,234.56); numbers written otherwise (1 234,56) are returned
// as text, with value null and number_format "unsupported".
// Price: 0.02 EUR per call + 0.0038 EUR per page (at most 40 pages).

import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { findInvoiceTable } from './lib/invoice.mjs';
import { detectCurrency, looksNumeric, parseAmount } from './lib/numbers.mjs';
import { AgentError, handler, isMain, logger, readPdfInput, serveStdio, success, toolOutputSchema } from './lib/protocol.mjs';

export const ID = 'acme/table-extract';
export const VERSION = '1.4.0';
export const TOOL = 'extract_table';
export const MAX_PAGES = 40;

export const input = {
  file: z.string().min(1).describe('Handle of the invoice PDF, e.g. holon://files/invoice-01.pdf'),
};

const Total = z.object({
  label: z.string().describe('The label as printed, e.g. "Subtotal"'),
  text: z.string().describe('The amount as printed'),
  value: z.string().nullable().describe('The amount as a decimal string, null if not in English notation'),
});

export const output = z.object({
  pages: z.number().int().min(1).describe('Pages read (the billed units)'),
  columns: z.array(z.string()).describe('Header row of the line-item table'),
  rows: z.array(z.array(z.string())).describe('Line items, one string per column, as printed'),
  values: z
    .array(z.array(z.string().nullable()))
    .describe('For each cell of rows: its number as a decimal string; null for text and for numbers not in English notation'),
  totals: z
    .object({ subtotal: Total.optional(), tax: Total.optional(), total: Total.optional() })
    .describe('Summary lines found below the items; total is the amount due'),
  currency: z.string().nullable().describe('ISO code of the invoice currency, if printed'),
  number_format: z
    .enum(['en', 'unsupported'])
    .describe('"unsupported" when some numbers use a notation this agent does not read (their values are null)'),
});

const log = logger(ID);

/** Extract the table of an already-read PDF. Returns { data, units }. */
export function extractTable(doc) {
  if (doc.pageCount > MAX_PAGES) {
    throw new AgentError('too_many_pages', `the file has ${doc.pageCount} pages; at most ${MAX_PAGES} are accepted`);
  }
  const units = doc.pageCount;
  const table = findInvoiceTable(doc);
  if (!table || table.items.length === 0) {
    throw new AgentError('no_table_found', 'no line-item table with a header row was found', units);
  }
  let unsupported = false;
  const read = (text) => {
    if (!looksNumeric(text)) return null;
    const value = parseAmount(text, ['en'], 'en');
    if (value === null) unsupported = true;
    return value;
  };
  const values = table.items.map((row) => row.map(read));
  const totals = {};
  for (const line of table.summary) totals[line.kind] = { label: line.label, text: line.text, value: read(line.text) };
  const data = {
    pages: units,
    columns: table.columns,
    rows: table.items,
    values,
    totals,
    currency: detectCurrency(table.texts),
    number_format: unsupported ? 'unsupported' : 'en',
  };
  return { data, units };
}

export function createServer() {
  const server = new McpServer({ name: ID, version: VERSION });
  server.registerTool(
    TOOL,
    {
      description:
        'Extract the line-item table (columns, rows, totals) of an invoice PDF. English number notation only. ' +
        'Price: 0.02 EUR per call + 0.0038 EUR per page, at most 40 pages.',
      inputSchema: z.object(input),
      outputSchema: toolOutputSchema(output),
    },
    handler(async ({ file }, extra) => {
      const doc = await readPdfInput(extra, file);
      const { data, units } = extractTable(doc);
      log(`${file}: ${units} page(s), ${data.rows.length} line(s), total ${data.totals.total?.value ?? 'unread'}`);
      return success(data, units);
    }, log),
  );
  return server;
}

if (isMain(import.meta.url)) await serveStdio(createServer(), log);
