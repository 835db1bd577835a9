#!/usr/bin/env node
// holon-labs/invoice-pipeline — MCP server (stdio), tool `process_invoices`.
// For each invoice (1 to 4 file handles) it hires one `extraction.table` agent
// through the delegation grant Holon passes in _meta["holon/grant"] (one
// call_agent per file), reads each invoice total from the child's output and
// adds them up exactly (decimal strings, BigInt fixed point).
// Price: 0.036 EUR per call + 0.01485 EUR per page processed (at most 160),
// plus the delegated extractions, which Holon bills separately.

import { McpServer } from '@modelcontextprotocol/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { addDecimals, isDecimal } from './lib/decimal.mjs';
import {
  AgentError, FILES_META, GRANT_META, handler, isMain, logger, serveStdio, success, toolOutputSchema,
} from './lib/protocol.mjs';

export const ID = 'holon-labs/invoice-pipeline';
export const VERSION = '2.1.0';
export const TOOL = 'process_invoices';
export const CAPABILITY = 'extraction.table';
export const MAX_FILES = 4;

export const input = {
  files: z
    .array(z.string().min(1))
    .min(1)
    .max(MAX_FILES)
    .describe('Handles of the invoice PDFs (1 to 4), e.g. ["holon://files/invoice-01.pdf"]'),
};

const Decimal = z.string().regex(/^-?\d+(\.\d+)?$/);
const Money = z.object({ amount: Decimal, currency: z.string() });

export const output = z.object({
  invoices: z
    .array(
      z.object({
        file: z.string().describe('The handle, as given'),
        total: Decimal.describe('The invoice total, as read by the extraction agent'),
        currency: z.string(),
        pages: z.number().int().min(1),
        receipt: z.string().describe('Holon receipt of the delegated extraction'),
        extraction_cost: Money.nullable().describe('What Holon billed for the delegated extraction'),
      }),
    )
    .describe('One entry per file, in input order'),
  total: Money.describe('Exact sum of the invoice totals'),
  pages: z.number().int().min(1).describe('Pages processed (the billed units)'),
  delegated_receipts: z.array(z.string()).describe('Receipts of every delegated call, in order'),
});

const log = logger(ID);

/**
 * The invoice total in the output of an extraction.table agent. Each publisher
 * has its own format; the known ones are read here.
 */
export function readExtraction(data) {
  if (!data || typeof data !== 'object') return null;
  const candidates = [
    data.invoice_total, // lena/table-extract-fr
    data.totals?.total?.value, // acme/table-extract
    data.grand_total, // fastcheap/table-extract-us
    typeof data.total === 'object' ? data.total?.amount : data.total, // generic
  ];
  const total = candidates.find((value) => isDecimal(value)) ?? null;
  const currency = typeof data.currency === 'string' ? data.currency : typeof data.total?.currency === 'string' ? data.total.currency : null;
  const pages = Number.isInteger(data.pages) && data.pages > 0 ? data.pages : 1;
  return { total, currency, pages };
}

function grantOf(extra, count) {
  const grant = extra?.mcpReq?._meta?.[GRANT_META];
  if (!grant || typeof grant.url !== 'string' || typeof grant.token !== 'string') {
    throw new AgentError('no_grant', `this agent delegates table extraction and needs a delegation grant in _meta["${GRANT_META}"]`);
  }
  if (Array.isArray(grant.capabilities) && !grant.capabilities.includes(CAPABILITY)) {
    throw new AgentError('no_grant', `the grant does not allow the capability ${CAPABILITY}`);
  }
  if (Number.isInteger(grant.max_calls) && grant.max_calls < count) {
    throw new AgentError('no_grant', `${count} files need ${count} delegated calls; the grant allows ${grant.max_calls}`);
  }
  return grant;
}

export async function processInvoices(files, extra) {
  const map = extra?.mcpReq?._meta?.[FILES_META];
  if (map && typeof map === 'object') {
    const missing = files.filter((file) => typeof map[file] !== 'string');
    if (missing.length > 0) throw new AgentError('unreadable_file', `no file was provided for ${missing.join(', ')}`);
  }
  const grant = grantOf(extra, files.length);

  const client = new Client({ name: ID, version: VERSION });
  const transport = new StreamableHTTPClientTransport(new URL(grant.url), {
    requestInit: { headers: { Authorization: `Bearer ${grant.token}` } },
  });
  try {
    await client.connect(transport);
  } catch (err) {
    throw new AgentError('no_grant', `could not reach the delegation endpoint: ${err.message}`);
  }

  const invoices = [];
  const receipts = [];
  let pages = 0;
  try {
    for (const file of files) {
      let result;
      try {
        result = await client.callTool({ name: 'call_agent', arguments: { capability: CAPABILITY, input: { file } } });
      } catch (err) {
        throw new AgentError('extraction_failed', `${file}: the delegated call failed: ${err.message}`, pages);
      }
      const sc = result.structuredContent ?? {};
      if (typeof sc.receipt === 'string') receipts.push(sc.receipt);
      const receiptNote = sc.receipt ? ` (receipt ${sc.receipt})` : '';
      if (result.isError || sc.status !== 'succeeded') {
        const childError = sc.data?.error?.code ? `: ${sc.data.error.code}${sc.data.error.message ? ` (${sc.data.error.message})` : ''}` : '';
        const text = !sc.status && result.content?.[0]?.text ? `: ${result.content[0].text}` : '';
        throw new AgentError('extraction_failed', `${file}: delegated extraction ${sc.status ?? 'failed'}${childError}${text}${receiptNote}`, pages);
      }
      const read = readExtraction(sc.data);
      if (!read || read.total === null) {
        const hint = sc.data?.number_format === 'unsupported' ? ' (the extraction agent did not read its number notation)' : '';
        throw new AgentError('extraction_failed', `${file}: the extraction returned no readable invoice total${hint}${receiptNote}`, pages);
      }
      if (read.currency === null) {
        throw new AgentError('extraction_failed', `${file}: the extraction found no currency${receiptNote}`, pages);
      }
      pages += read.pages;
      const cost = sc.cost && isDecimal(sc.cost.amount) && typeof sc.cost.currency === 'string'
        ? { amount: sc.cost.amount, currency: sc.cost.currency }
        : null;
      invoices.push({ file, total: read.total, currency: read.currency, pages: read.pages, receipt: sc.receipt ?? '', extraction_cost: cost });
      log(`${file}: ${read.total} ${read.currency}${receiptNote}`);
    }
  } finally {
    await client.close().catch(() => {});
  }

  const currencies = [...new Set(invoices.map((invoice) => invoice.currency))];
  if (currencies.length > 1) {
    throw new AgentError('mixed_currencies', `the invoices are in different currencies (${currencies.join(', ')}); no sum was made`, pages);
  }
  const data = {
    invoices,
    total: { amount: addDecimals(invoices.map((invoice) => invoice.total)), currency: currencies[0] },
    pages,
    delegated_receipts: receipts,
  };
  return { data, units: pages };
}

export function createServer() {
  const server = new McpServer({ name: ID, version: VERSION });
  server.registerTool(
    TOOL,
    {
      description:
        'Add up the totals of 1 to 4 invoice PDFs: one extraction.table agent is hired per file through the Holon ' +
        'delegation grant, and the totals are summed exactly. Price: 0.036 EUR per call + 0.01485 EUR per page ' +
        '(at most 160), plus the delegated extractions.',
      inputSchema: z.object(input),
      outputSchema: toolOutputSchema(output),
    },
    handler(async ({ files }, extra) => {
      const { data, units } = await processInvoices(files, extra);
      log(`${files.length} invoice(s), ${units} page(s), total ${data.total.amount} ${data.total.currency}`);
      return success(data, units);
    }, log),
  );
  return server;
}

if (isMain(import.meta.url)) await serveStdio(createServer(), log);
