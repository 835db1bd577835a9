import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/kernel/deps.ts';
import type { AgentRunner, AgentRunResult } from '../core/market/gateway.ts';
import type { Endpoint } from '../core/kernel/model.ts';
import { HOLON_VERSION } from '../core/kernel/version.ts';

type McpEndpoint = Exclude<Endpoint, { type: 'x402' }>;

function key(e: McpEndpoint): string {
  return e.type === 'stdio' ? `stdio:${e.cwd ?? ''}:${e.command}:${e.args.join('\u0000')}` : `http:${e.url}`;
}

/**
 * Reaches agents as a real MCP client (the SDK's). One connection per endpoint is kept for the life of
 * the process — starting a stdio agent costs far more than a call — and replaced if it closes.
 */
export class McpAgentRunner implements AgentRunner {
  private readonly clients = new Map<string, Promise<Client>>();

  constructor(
    private readonly logger: Logger,
    /** Agents that are HTTP resources answering 402: paid through the terms pairings. */
    private readonly x402?: AgentRunner,
  ) {}

  async run(request: Parameters<AgentRunner['run']>[0]): Promise<AgentRunResult> {
    const endpoint = request.endpoint;
    if (endpoint.type === 'x402') {
      if (!this.x402) return { isError: true, structured: null, text: '', units: 0, errorCode: 'payment_refused' };
      return this.x402.run(request);
    }
    const client = await this.connect(endpoint);
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      // The agent's own timeout, however it reports progress: a hung agent's hold is released in time.
      result = await client.callTool(
        { name: endpoint.tool, arguments: (request.input ?? {}) as Record<string, unknown>, _meta: request.meta },
        undefined,
        {
          timeout: request.timeoutMs,
          maxTotalTimeout: request.timeoutMs,
          ...(request.signal ? { signal: request.signal } : {}),
        },
      );
    } catch (err) {
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout)
        return { isError: true, structured: null, text: '', units: 0, errorCode: 'timeout' };
      throw err;
    }
    const text = Array.isArray(result.content)
      ? result.content.map((c) => (c && typeof c === 'object' && 'text' in c && typeof c.text === 'string' ? c.text : '')).join('\n')
      : '';
    const usage = (result._meta?.['holon/usage'] ?? {}) as { units?: unknown };
    const units = typeof usage.units === 'number' && Number.isFinite(usage.units) ? usage.units : 0;
    const structured = result.structuredContent ?? null;
    if (result.isError) {
      const err = (structured as { error?: { code?: unknown; message?: unknown } } | null)?.error;
      return {
        isError: true,
        structured,
        text,
        units,
        errorCode: typeof err?.code === 'string' ? err.code : 'agent_error',
      };
    }
    return { isError: false, structured, text, units };
  }

  private connect(endpoint: McpEndpoint): Promise<Client> {
    const k = key(endpoint);
    const known = this.clients.get(k);
    if (known) return known;
    const pending = (async () => {
      const client = new Client({ name: 'holon-gateway', version: HOLON_VERSION });
      const transport =
        endpoint.type === 'stdio'
          ? new StdioClientTransport({
              // "node" means the Node that runs Holon (inside VS Code there may be no node on PATH).
              command: endpoint.command === 'node' ? process.execPath : endpoint.command,
              args: endpoint.args,
              ...(endpoint.cwd ? { cwd: endpoint.cwd } : {}),
              env: { ...getDefaultEnvironment(), ...(process.env['ELECTRON_RUN_AS_NODE'] ? { ELECTRON_RUN_AS_NODE: '1' } : {}) },
              stderr: 'pipe',
            })
          : new StreamableHTTPClientTransport(new URL(endpoint.url));
      if (transport instanceof StdioClientTransport) {
        transport.stderr?.on('data', (d: Buffer) => this.logger.info(`[${endpoint.tool}] ${d.toString().trimEnd()}`));
      }
      client.onclose = () => this.clients.delete(k);
      await client.connect(transport);
      return client;
    })();
    this.clients.set(k, pending);
    pending.catch(() => this.clients.delete(k));
    return pending;
  }

  async close(): Promise<void> {
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.allSettled(all.map(async (c) => (await c).close()));
  }
}
