import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { Server } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { DelegationHost, Grant } from '../../core/market/gateway.ts';
import { MoneySchema } from '../../core/kernel/schemas.ts';
import { summarize } from '../../core/kernel/util.ts';
import { createToolServer } from '../server.ts';
import type { ServerDeps } from '../serverDeps.ts';
import { callAnswer, CallOutput, marketToolset } from '../tools/market.ts';
import { requestOf, sendResponse } from './webFetch.ts';
import type { Toolset } from '../tools/toolDef.ts';
import { defineTool } from '../tools/toolDef.ts';

/** The one tool a delegating agent sees: a call by capability, drawn from its parent's hold. */
function delegatedCall(grant: Grant): Toolset {
  const tool = defineTool({
    name: 'call_agent',
    title: 'Delegated call',
    description:
      `Call an agent for one of the capabilities your parent call declared (${grant.capabilities.join(', ')}). Paid ` +
      `from the parent call's hold; at most ${grant.max_calls} calls.`,
    toolset: 'market',
    // The grant is the authority here: it exists only while the parent call the mandate allowed runs.
    capability: null,
    input: z.object({
      capability: z.string().min(1).max(100),
      input: z.record(z.string(), z.unknown()),
      max_cost: MoneySchema.nullish(),
    }),
    output: CallOutput.extend({ data: z.json().describe("The child agent's structured output").nullable() }),
    annotations: { readOnlyHint: false, openWorldHint: true },
    summary: (a) => ({ capability: a.capability, input: summarize(a.input) }),
    handler: async (args, ctx) => {
      const outcome = await ctx.deps.gateway.call(
        grant.mandate,
        { capability: args.capability, input: args.input, max_cost: args.max_cost ?? undefined },
        { grant, signal: ctx.extra.mcpReq.signal },
      );
      const answer = await callAnswer(ctx, outcome);
      // The delegating agent is a program that needs the child's structured output, beside the wrapped text.
      const data = outcome.kind === 'done' ? ((outcome.result?.structured ?? null) as z.core.util.JSONType | null) : null;
      return { ...answer, output: { ...answer.output, data } };
    },
  });
  return { ...marketToolset, tools: [tool], instructions: '' };
}

/**
 * The loopback MCP endpoint delegated calls come back through (Streamable HTTP, stateless). Each
 * request must carry the bearer token of a live grant; the Host header must be the loopback address
 * it listens on, so a web page cannot reach it by DNS rebinding.
 */
export class LoopbackDelegationHost implements DelegationHost {
  private server: http.Server | undefined;
  private starting: Promise<string> | undefined;

  constructor(private readonly deps: () => ServerDeps) {}

  url(): Promise<string> {
    this.starting ??= new Promise<string>((resolve, reject) => {
      const server = http.createServer((req, res) => {
        this.handle(req, res).catch((err: unknown) => this.deps().logger.error(`delegation endpoint: ${(err as Error).message}`));
      });
      server.on('error', reject);
      server.listen(0, '127.0.0.1', () => {
        this.server = server;
        server.unref();
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
      });
    });
    return this.starting;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const port = (this.server?.address() as AddressInfo | undefined)?.port;
    const deny = (code: number, message: string): void => {
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify({ error: message }));
    };
    if (req.headers.host !== `127.0.0.1:${port}` || req.headers.origin !== undefined) return deny(403, 'loopback only');
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/mcp') return deny(404, 'not found');
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const deps = this.deps();
    const grant = token ? deps.gateway.grants.resolve(token) : undefined;
    if (!grant) return deny(401, 'no live grant for this token');
    // Stateless at every revision (the SDK's per-request entry): a server of its own for this one request.
    const build = (): Server =>
      createToolServer(deps, grant.mandate, [delegatedCall(grant)], { name: 'holon-delegation', title: 'Holon delegation' });
    const handler = createMcpHandler(build, { onerror: (err) => deps.logger.info(`delegation endpoint: ${err.message}`) });
    res.on('close', () => void handler.close().catch(() => {}));
    try {
      await sendResponse(res, await handler.fetch(requestOf(req, res, false)));
    } catch (err) {
      deps.logger.error(`delegation endpoint: ${(err as Error).message}`);
      if (!res.headersSent) deny(500, 'internal error');
    }
  }

  close(): void {
    this.server?.close();
    this.server?.closeAllConnections();
  }
}
