import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, StreamableHTTPClientTransport, SdkErrorCode, SdkError } from '@modelcontextprotocol/client';
import type { Logger } from '../core/kernel/deps.ts';
import type { AgentRunner, AgentRunResult } from '../core/market/gateway.ts';
import type { Endpoint } from '../core/kernel/model.ts';
import { HOLON_VERSION } from '../core/kernel/version.ts';
import type { X402Payer } from './x402/payer.ts';
import { settlementOf } from './x402/payer.ts';

type McpEndpoint = Exclude<Endpoint, { type: 'x402' }>;

type ToolResult = Awaited<ReturnType<Client['callTool']>>;

const failed = (errorCode: string): AgentRunResult => ({ isError: true, structured: null, text: '', units: 0, errorCode });

const isRequired = (v: unknown): boolean =>
  !!v &&
  typeof v === 'object' &&
  (v as { x402Version?: unknown }).x402Version !== undefined &&
  Array.isArray((v as { accepts?: unknown }).accepts);

/**
 * The `PaymentRequired` a paid MCP tool answered with, where it did (x402's MCP transport): an error result
 * carrying it as `structuredContent`, wrapped there as `x402/error`'s data, or as the JSON of its first text.
 */
export function paymentRequiredOf(result: ToolResult): unknown {
  if (!result.isError) return undefined;
  const wrapped = (v: unknown): unknown => (v as { 'x402/error'?: { data?: unknown } } | null)?.['x402/error']?.data;
  const structured = result.structuredContent;
  if (isRequired(structured)) return structured;
  if (isRequired(wrapped(structured))) return wrapped(structured);
  const first = Array.isArray(result.content) ? (result.content[0] as { type?: string; text?: unknown } | undefined) : undefined;
  if (first?.type !== 'text' || typeof first.text !== 'string' || first.text.length > 64 * 1024) return undefined;
  try {
    const parsed: unknown = JSON.parse(first.text);
    return isRequired(parsed) ? parsed : isRequired(wrapped(parsed)) ? wrapped(parsed) : undefined;
  } catch {
    return undefined;
  }
}

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
    /** Agents that are HTTP resources answering 402. */
    private readonly x402?: AgentRunner,
    /** Pays a tool that answers x402's `PaymentRequired` (the same payer as the HTTP resources'); none: never paid. */
    private readonly payer?: X402Payer,
  ) {}

  async run(request: Parameters<AgentRunner['run']>[0]): Promise<AgentRunResult> {
    const endpoint = request.endpoint;
    if (endpoint.type === 'x402') {
      if (!this.x402) return { isError: true, structured: null, text: '', units: 0, errorCode: 'payment_refused' };
      return this.x402.run(request);
    }
    const client = await this.connect(endpoint);
    const call = (meta: Record<string, unknown>): Promise<ToolResult> =>
      // The agent's own timeout, however it reports progress: a hung agent's hold is released in time.
      client.callTool(
        { name: endpoint.tool, arguments: (request.input ?? {}) as Record<string, unknown>, _meta: meta },
        {
          timeout: request.timeoutMs,
          maxTotalTimeout: request.timeoutMs,
          ...(request.signal ? { signal: request.signal } : {}),
        },
      );
    let result: ToolResult;
    let paid: AgentRunResult['paid'];
    try {
      result = await call(request.meta);
      const required = paymentRequiredOf(result);
      if (required !== undefined) {
        // x402's MCP transport: the same call again, the payment in its `_meta`, the settlement in the answer's.
        const payment = this.payer ? await this.payer.pay(required, request.pay, endpoint.payee) : {};
        if (!('paid' in payment)) return { ...failed('payment_refused'), ...(payment.refusal ? { refusal: payment.refusal } : {}) };
        paid = payment.paid;
        let answer: ToolResult | undefined;
        try {
          answer = await call({ ...request.meta, 'x402/payment': payment.payload });
        } finally {
          // Answered or not, the chain says whether it landed (the payment keeps its own hold meanwhile).
          await this.payer?.landed(paid.settlement, settlementOf(answer?._meta?.['x402/payment-response']));
        }
        result = answer;
        if (paymentRequiredOf(result) !== undefined) return { ...failed('payment_not_taken'), paid };
      }
    } catch (err) {
      if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) return { ...failed('timeout'), ...(paid ? { paid } : {}) };
      if (paid) return { ...failed('unreachable'), paid };
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
        ...(paid ? { paid } : {}),
      };
    }
    return { isError: false, structured, text, units, ...(paid ? { paid } : {}) };
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
