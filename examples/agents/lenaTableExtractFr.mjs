#!/usr/bin/env node
// lena/table-extract-fr — MCP server (stdio), tool `extract_table`.
// Reads the line-item table of an invoice PDF in French notation (1 234,56 ;
// 12,50 €) or English notation (1,234.56) and returns every amount as a
// decimal string, plus the invoice total in `invoice_total`.
// Price: 0.035 EUR per call, flat.

import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { findInvoiceTable } from './lib/invoice.mjs';
import { detectCurrency, documentFormat, looksNumeric, parseAmount } from './lib/numbers.mjs';
import { AgentError, handler, isMain, logger, readPdfInput, serveStdio, success, toolOutputSchema } from './lib/protocol.mjs';

export const ID = 'lena/table-extract-fr';
export const VERSION = '0.9.2';
export const TOOL = 'extract_table';
export const MAX_PAGES = 20;

export const input = {
  file: z.string().min(1).describe('Handle of the invoice PDF, e.g. holon://files/facture.pdf'),
};

const Decimal = z.string().regex(/^-?\d+(\.\d+)?$/);

export const output = z.object({
  pages: z.number().int().min(1),
  format: z.enum(['fr', 'en']).describe('Number notation detected in the document'),
  header: z.array(z.string()).describe('Header row of the line-item table'),
  lines: z
    .array(
      z.object({
        cells: z.array(z.string()).describe('One string per column, as printed'),
        numbers: z.array(Decimal.nullable()).describe('Each cell as a decimal string, null for text'),
      }),
    )
    .describe('Line items'),
  summary: z
    .array(
      z.object({
        kind: z.enum(['subtotal', 'tax', 'total']),
        label: z.string(),
        printed: z.string(),
        amount: Decimal,
      }),
    )
    .describe('Summary lines below the items (e.g. Total HT, TVA, Total TTC)'),
  invoice_total: Decimal.describe('The amount due, as a decimal string (e.g. "3860.88")'),
  currency: z.string().nullable().describe('ISO code of the invoice currency, if printed'),
});

const log = logger(ID);

/** Extract the table of an already-read PDF. Returns { data }. */
export function extractTable(doc) {
  if (doc.pageCount > MAX_PAGES) {
    throw new AgentError('too_many_pages', `the file has ${doc.pageCount} pages; at most ${MAX_PAGES} are accepted`);
  }
  const table = findInvoiceTable(doc);
  if (!table || table.items.length === 0) throw new AgentError('no_table_found', 'no line-item table with a header row was found');
  const numericTexts = [...table.items.flat(), ...table.summary.map((line) => line.text)].filter(looksNumeric);
  const detected = documentFormat(numericTexts);
  const format = detected === 'fr' ? 'fr' : 'en';
  const read = (text) => (looksNumeric(text) ? parseAmount(text, ['fr', 'en'], format) : null);
  const summary = [];
  for (const line of table.summary) {
    const amount = read(line.text);
    if (amount !== null) summary.push({ kind: line.kind, label: line.label, printed: line.text, amount });
  }
  const total = summary.filter((line) => line.kind === 'total').at(-1);
  if (!total) throw new AgentError('no_total_found', 'the table has no readable total line (Total, Total TTC, Amount due, ...)');
  return {
    data: {
      pages: doc.pageCount,
      format,
      header: table.columns,
      lines: table.items.map((cells) => ({ cells, numbers: cells.map(read) })),
      summary,
      invoice_total: total.amount,
      currency: detectCurrency(table.texts),
    },
  };
}

export function createServer() {
  const server = new McpServer({ name: ID, version: VERSION });
  server.registerTool(
    TOOL,
    {
      description:
        'Extract the line-item table of an invoice PDF written in French (1 234,56 €) or English (1,234.56) notation; ' +
        'every amount is returned as a decimal string, the amount due in invoice_total. Price: 0.035 EUR per call.',
      inputSchema: z.object(input),
      outputSchema: toolOutputSchema(output),
    },
    handler(async ({ file }, extra) => {
      const doc = await readPdfInput(extra, file);
      const { data } = extractTable(doc);
      log(`${file}: ${data.pages} page(s), ${data.lines.length} line(s), ${data.format} notation, total ${data.invoice_total}`);
      return success(data);
    }, log),
  );
  return server;
}

if (isMain(import.meta.url)) await serveStdio(createServer(), log);
