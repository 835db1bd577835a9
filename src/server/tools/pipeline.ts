/**
 * The one middleware chain every tool call goes through, whatever its toolset:
 * parse the input → ledger the call → check the capability (any refusal ledgered) → run the handler →
 * render a failure in the toolset's seed's words. Handlers stay thin: they never check, ledger or word a failure themselves.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { denial } from '../../core/denials.ts';
import { HolonError } from '../../core/errors.ts';
import type { LedgerEvents } from '../../core/ledger.ts';
import { ledgerToolCall } from '../../core/ledger.ts';
import { grantsNow } from '../../core/office/colleagues.ts';
import { mandateDenials, mandateOf } from '../../core/mandates.ts';
import { denialTexts } from '../../core/present.ts';
import type { ToolContext, ToolDef, Toolset } from './toolDef.ts';

/** One call on its way through the chain. */
export interface ToolCall {
  tool: ToolDef;
  toolset: Toolset;
  /** The arguments as the client sent them, then as the input schema parsed them. */
  args: unknown;
  ctx: ToolContext;
}

/** A step of the chain: does its part, and hands on to the next. */
export type Middleware = (call: ToolCall, next: (call: ToolCall) => Promise<CallToolResult>) => Promise<CallToolResult>;

/** Any failure a later step throws that is expected becomes the toolset's own failure result. */
export const renderFailures: Middleware = async (call, next) => {
  try {
    return await next(call);
  } catch (err) {
    if (!HolonError.is(err)) {
      call.ctx.deps.logger.error(`${call.tool.name} failed: ${(err as Error).stack ?? String(err)}`);
      throw err;
    }
    return call.toolset.renderFailure(err, call.tool);
  }
};

/** Arguments that do not fit the input schema are refused before anything else looks at them. */
export const parseInput: Middleware = async (call, next) => {
  const parsed = call.tool.input.safeParse(call.args ?? {});
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first && first.path.length > 0 ? `${first.path.join('.')}: ` : '';
    throw new HolonError('invalid_input', `invalid arguments for ${call.tool.name}: ${where}${first?.message ?? 'invalid input'}`);
  }
  return next({ ...call, args: parsed.data });
};

function summaryOf(call: ToolCall): Record<string, unknown> {
  return call.tool.summary ? call.tool.summary(call.args as never) : {};
}

/**
 * A tool whose capability the mandate does not grant — itself, or through a window a human opened and
 * that is open right now — is refused.
 */
export const checkCapability: Middleware = async (call, next) => {
  if (call.tool.capability === null) return next(call);
  const s = call.ctx.deps.store.state;
  const mandate = mandateOf(s, call.ctx.mandate);
  const anyOf = typeof call.tool.capability === 'string' ? [call.tool.capability] : call.tool.capability;
  const now = call.ctx.deps.clock.now();
  // A suspended, revoked or expired mandate grants nothing, whatever its list of capabilities says.
  const inactive = mandateDenials(mandate, now);
  if (inactive.length > 0) throw new HolonError('denied', denialTexts(inactive).join('; '), { mandate: mandate.id }, inactive);
  if (anyOf.some((c) => grantsNow(s, mandate, c, now).length > 0)) return next(call);
  const refused = denial('capability_missing', { capability: anyOf.join(' or ') });
  throw new HolonError('denied', denialTexts([refused]).join('; '), { capability: refused.params.capability }, [refused]);
};

function entryOf(call: ToolCall): LedgerEvents['tool.called'] {
  const actor = call.ctx.deps.store.state.mandates[call.ctx.mandate]?.grantee.slug ?? null;
  return { mandate: call.ctx.mandate, toolset: call.toolset.name, tool: call.tool.name, actor, summary: summaryOf(call) };
}

/** Every refusal (a missing capability, a target outside its scope) is on the record, whatever refused it. */
export const ledgerDenials: Middleware = async (call, next) => {
  try {
    return await next(call);
  } catch (err) {
    if (HolonError.is(err, 'denied') && err.denials.length > 0) await ledgerToolCall(call.ctx.deps.store, entryOf(call), err.denials);
    throw err;
  }
};

/** Toolsets that ledger every call, allowed or not (seed 004), do it here, before anything can refuse it. */
export const ledgerCall: Middleware = async (call, next) => {
  if (call.toolset.ledgerCalls) await ledgerToolCall(call.ctx.deps.store, entryOf(call));
  return next(call);
};

/** The last step: the handler, its output checked against the tool's own output schema. */
async function runHandler(call: ToolCall): Promise<CallToolResult> {
  const reply = await call.tool.handler(call.args as never, call.ctx);
  const checked = call.tool.output.safeParse(reply.output);
  if (!checked.success) throw new Error(`${call.tool.name} produced output outside its schema: ${checked.error.message}`);
  return {
    content: [{ type: 'text', text: reply.text }],
    structuredContent: reply.output as Record<string, unknown>,
    ...(reply.isError ? { isError: true } : {}),
  };
}

/** The chain, in order. */
export const TOOL_PIPELINE: Middleware[] = [renderFailures, parseInput, ledgerCall, ledgerDenials, checkCapability];

/** Runs one call through the chain. */
export function runTool(call: ToolCall, chain: Middleware[] = TOOL_PIPELINE): Promise<CallToolResult> {
  const step = (i: number) => (c: ToolCall): Promise<CallToolResult> => {
    const mw = chain[i];
    return mw ? mw(c, step(i + 1)) : runHandler(c);
  };
  return step(0)(call);
}
