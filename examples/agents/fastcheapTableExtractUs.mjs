#!/usr/bin/env node
// fastcheap/table-extract-us — MCP server (stdio), tool `extract_table`.
// The cheapest table extractor of the catalog: header + rows as a grid of
// strings and the grand total. English notation only. Its publisher processes
// data in the US and may train on it, which the demo mandate does not allow.
// Price: 0.006 EUR per call, flat.

import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { findInvoiceTable } from './lib/invoice.mjs';
import { detectCurrency, looksNumeric, parseAmount } from './lib/numbers.mjs';
import { AgentError, handler, isMain, logger, readPdfInput, serveStdio, success, toolOutputSchema } from './lib/protocol.mjs';

export const ID = 'fastcheap/table-extract-us';
export const VERSION = '3.0.1';
export const TOOL = 'extract_table';

export const input = {
  file: z.string().min(1).describe('Handle of the invoice PDF'),
};

export const output = z.object({
  pages: z.number().int().min(1),
  table: z.array(z.array(z.string())).describe('The header row followed by the line items, as printed'),
  grand_total: z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .nullable()
    .describe('The amount due as a decimal string; null when it is not in English notation'),
  currency: z.string().nullable(),
});

const log = logger(ID);

export function extractTable(doc) {
  const table = findInvoiceTable(doc);
  if (!table || table.items.length === 0) throw new AgentError('no_table_found', 'no line-item table with a header row was found');
  const total = table.summary.filter((line) => line.kind === 'total').at(-1);
  const grandTotal = total && looksNumeric(total.text) ? parseAmount(total.text, ['en'], 'en') : null;
  return {
    data: {
      pages: doc.pageCount,
      table: [table.columns, ...table.items],
      grand_total: grandTotal,
      currency: detectCurrency(table.texts),
    },
  };
}

export function createServer() {
  const server = new McpServer({ name: ID, version: VERSION });
  server.registerTool(
    TOOL,
    {
      description: 'Extract an invoice table (grid of strings) and its grand total. English notation. Price: 0.006 EUR per call.',
      inputSchema: z.object(input),
      outputSchema: toolOutputSchema(output),
    },
    handler(async ({ file }, extra) => {
      const doc = await readPdfInput(extra, file);
      const { data } = extractTable(doc);
      log(`${file}: ${data.table.length - 1} line(s), grand total ${data.grand_total ?? 'unread'}`);
      return success(data);
    }, log),
  );
  return server;
}

if (isMain(import.meta.url)) await serveStdio(createServer(), log);
