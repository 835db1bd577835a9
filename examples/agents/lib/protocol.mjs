// The Holon agent protocol, shared by the demo agents:
//  - file inputs are handles ("holon://files/..."); Holon maps each handle of the
//    input to an absolute path in the request's _meta["holon/files"];
//  - success: structuredContent (+ the same JSON as text), and the units consumed
//    in the result's _meta["holon/usage"];
//  - declared failure: isError with structuredContent {error: {code, message}}.

import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { readPdf, UnreadablePdf } from './pdf.mjs';

export const FILES_META = 'holon/files';
export const USAGE_META = 'holon/usage';
export const GRANT_META = 'holon/grant';

/** A failure the agent declares in its manifest (`errors[].code`). */
export class AgentError extends Error {
  constructor(code, message, units) {
    super(message);
    this.code = code;
    this.units = units;
  }
}

/** The absolute path Holon gave for a file handle, or the declared error `unreadable_file`. */
export function filePath(extra, handle) {
  const files = extra?.mcpReq?._meta?.[FILES_META];
  const path = files && typeof files === 'object' ? files[handle] : undefined;
  if (typeof path !== 'string' || path === '') {
    throw new AgentError('unreadable_file', `no file was provided for ${handle} (missing from _meta["${FILES_META}"])`);
  }
  return path;
}

/** Read the PDF behind a file handle; any failure is the declared error `unreadable_file`. */
export async function readPdfInput(extra, handle) {
  const path = filePath(extra, handle);
  try {
    return await readPdf(path);
  } catch (err) {
    const reason = err instanceof UnreadablePdf ? err.message : `could not parse the PDF (${err.message})`;
    throw new AgentError('unreadable_file', `${handle}: ${reason}`);
  }
}

function withUsage(result, units) {
  return units === undefined ? result : { ...result, _meta: { [USAGE_META]: { units } } };
}

export function success(data, units) {
  return withUsage({ content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data }, units);
}

export function failure(code, message, units) {
  const data = { error: { code, message } };
  return withUsage({ isError: true, content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data }, units);
}

/** Wrap a tool handler so that an AgentError becomes a declared failure result. */
export function handler(fn, log) {
  return async (args, extra) => {
    try {
      return await fn(args, extra);
    } catch (err) {
      if (err instanceof AgentError) {
        log(`declared error ${err.code}: ${err.message}`);
        return failure(err.code, err.message, err.units);
      }
      log(`unexpected error: ${err?.stack ?? err}`);
      throw err;
    }
  };
}

const ErrorShape = z.object({ code: z.string(), message: z.string() });

/**
 * The outputSchema to register on the MCP tool. The SDK's server skips output
 * validation when isError is true, but an SDK *client* that listed the tools
 * validates any structuredContent it receives, error results included. So the
 * schema published to MCP accepts either the success object or {error}; the
 * refinement keeps the server-side check of successes as strict as `output`.
 * (The catalog's manifest carries the strict success schema.)
 */
export function toolOutputSchema(output) {
  return output
    .partial()
    .extend({ error: ErrorShape.optional() })
    .superRefine((value, ctx) => {
      if (value.error !== undefined) {
        if (Object.keys(value).length > 1) ctx.addIssue({ code: 'custom', message: 'an error result has only the field "error"' });
        return;
      }
      const parsed = output.safeParse(value);
      if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom' });
    })
    .describe('The success object, or {error: {code, message}} with isError: true');
}

export function logger(name) {
  return (message) => process.stderr.write(`[${name}] ${message}\n`);
}

/** True when `moduleUrl` is the script node was started with (not merely imported). */
export function isMain(moduleUrl) {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}

/** Serve `server` over stdio (stdout carries the protocol; logs go to stderr). */
export async function serveStdio(server, log) {
  await server.connect(new StdioServerTransport());
  log('ready on stdio');
}
