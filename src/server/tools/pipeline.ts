/**
 * The one middleware chain every tool call goes through, whatever its toolset:
 * render a failure in the toolset's seed's words → ledger any refusal or expected failure → refuse a
 * tool listed but not offered → check the capability → parse the input → ledger the call (the toolsets
 * that ledger every call) → run the handler.
 * The capability comes before the arguments, so a call without it is refused as missing it (seed 004)
 * whatever it sent, and every call, allowed or not, leaves its line in the ledger. Handlers stay thin:
 * they never check, ledger or word a failure themselves.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { core, z } from 'zod';
import { denial } from '../../core/kernel/denials.ts';
import type { Denial } from '../../core/kernel/denials.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import { FOREIGN_META_KEY, foreignPaths } from '../../core/kernel/foreign.ts';
import type { LedgerEvents } from '../../core/accounts/ledger.ts';
import { ledgerRefusal, ledgerToolCall } from '../../core/accounts/ledger.ts';
import { grantsNow } from '../../core/office/colleagues.ts';
import { mandateDenials, mandateOf } from '../../core/accounts/mandates.ts';
import { denialTexts } from '../../core/kernel/words.ts';
import type { ToolContext, ToolDef, Toolset } from './toolDef.ts';

/** One call on its way through the chain. */
export interface ToolCall {
  tool: ToolDef;
  toolset: Toolset;
  /** The arguments as the client sent them. */
  sent: unknown;
  /** The arguments as the input schema parsed them (parseInput sets them; before it, none). */
  args: Args;
  ctx: ToolContext;
  /**
   * False for a tool the server lists but the mandate does not offer (seed 003: quote and buy on every money
   * server): it answers not_found.
   */
  offered: boolean;
  /** What of this call is on the record so far: one object, shared by every step. */
  record: { called: boolean };
}

/** A step of the chain: does its part, and hands on to the next. */
export type Middleware = (call: ToolCall, next: (call: ToolCall) => Promise<CallToolResult>) => Promise<CallToolResult>;

/** Arguments as a tool's input schema parses them (its handler's own type, erased in a list of tools). */
type Args = z.output<z.ZodObject>;

/** Arguments as the input schema read them: parsed, or which fields are wrong and why the first is. */
type Parsed = { ok: true; args: Args } | { ok: false; fields: string[]; first: string };

/** How many wrong fields the ledger names, and how much of each name (a record's keys are the agent's). */
const FIELDS_MAX = { count: 20, chars: 64 } as const;

/** The paths of the fields the issues are about — names, never the values sent in them. */
function fieldsOf(issues: readonly core.$ZodIssue[]): string[] {
  const paths = issues.flatMap((i) => {
    const at = i.path.map(String);
    return i.code === 'unrecognized_keys' ? i.keys.map((k) => [...at, k].join('.')) : [at.join('.') || '(arguments)'];
  });
  return [...new Set(paths.map((p) => p.slice(0, FIELDS_MAX.chars)))].slice(0, FIELDS_MAX.count);
}

function parseArguments(tool: ToolDef, sent: unknown): Parsed {
  let parsed;
  try {
    parsed = tool.input.safeParse(sent ?? {});
  } catch (err) {
    // A refinement that refuses by throwing (a core parser inside it) refuses the arguments as a whole.
    if (HolonError.is(err)) return { ok: false, fields: ['(arguments)'], first: err.message };
    throw err;
  }
  if (parsed.success) return { ok: true, args: parsed.data };
  const first = parsed.error.issues[0];
  const where = first && first.path.length > 0 ? `${first.path.join('.')}: ` : '';
  return { ok: false, fields: fieldsOf(parsed.error.issues), first: `${where}${first?.message ?? 'invalid input'}` };
}

/** The tool's own safe summary of arguments that parsed; of any that did not, only which fields were wrong. */
function summaryOf(tool: ToolDef, parsed: Parsed): Record<string, unknown> {
  if (!parsed.ok) return { invalid_arguments: parsed.fields };
  return tool.summary ? tool.summary(parsed.args) : {};
}

function entryOf(call: ToolCall, summary: Record<string, unknown>): LedgerEvents['tool.called'] {
  const actor = call.ctx.deps.store.state.mandates[call.ctx.mandate]?.grantee.slug ?? null;
  return { mandate: call.ctx.mandate, toolset: call.toolset.name, tool: call.tool.name, actor, summary };
}

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

/**
 * Every call refused or failed with an expected error is on the record as `tool.denied`, with its
 * denials as codes: the refusal's own, else `invalid_arguments` for arguments that do not fit the input
 * schema, else `call_failed` with the error's reason. When the store cannot take the entry (it is broken
 * itself), the agent still gets the refusal: the ledger's failure is logged, never put in its place.
 */
export const ledgerRefusals: Middleware = async (call, next) => {
  try {
    return await next(call);
  } catch (err) {
    if (HolonError.is(err)) {
      try {
        const parsed = parseArguments(call.tool, call.sent);
        const denials: Denial[] =
          err.denials.length > 0
            ? err.denials
            : [parsed.ok ? denial('call_failed', { reason: err.reason }) : denial('invalid_arguments', { fields: parsed.fields })];
        const entry = entryOf(call, summaryOf(call.tool, parsed));
        await ledgerRefusal(call.ctx.deps.store, entry, denials, call.toolset.ledgerCalls && !call.record.called);
      } catch (ledgerErr) {
        call.ctx.deps.logger.error(`${call.tool.name}: its refusal (${err.reason}) could not be ledgered: ${(ledgerErr as Error).message}`);
      }
    }
    throw err;
  }
};

/**
 * A tool the server lists only so that the tool list has one shape, whose toolset the mandate does not
 * offer, is not there: `not_found` (seed 003), whatever it was sent, and on the record like any refusal.
 */
export const checkOffered: Middleware = async (call, next) => {
  if (call.offered) return next(call);
  const refused = denial('toolset_not_offered', { toolset: call.toolset.name });
  throw new HolonError('not_found', denialTexts([refused]).join('; '), { toolset: call.toolset.name }, [refused]);
};

/**
 * A tool whose capability the mandate does not grant — itself, or through a window a human opened and
 * that is open right now — is refused, before its arguments are looked at.
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

/** Arguments that do not fit the input schema are refused before the handler or the core sees them. */
export const parseInput: Middleware = async (call, next) => {
  const parsed = parseArguments(call.tool, call.sent);
  if (!parsed.ok) throw new HolonError('invalid_input', `invalid arguments for ${call.tool.name}: ${parsed.first}`);
  return next({ ...call, args: parsed.args });
};

/**
 * Toolsets that ledger every allowed call (seed 004) do it here, before the handler runs. The line is
 * group-committed: the call's own durable append, if it makes one (a payment's settlement, before the
 * payment leaves), makes it durable with itself, and at the latest it is flushed before the call answers
 * — one fdatasync per call where there were two, and never an answer whose line is not on disk.
 */
export const ledgerCall: Middleware = async (call, next) => {
  if (!call.toolset.ledgerCalls) return next(call);
  await ledgerToolCall(call.ctx.deps.store, entryOf(call, summaryOf(call.tool, { ok: true, args: call.args })));
  call.record.called = true;
  try {
    return await next(call);
  } finally {
    // Nothing to do when the handler's own durable append came after the line (the usual case).
    await call.ctx.deps.store.flush();
  }
};

/** The last step: the handler, its output checked against the tool's own output schema. */
async function runHandler(call: ToolCall): Promise<CallToolResult> {
  const reply = await call.tool.handler(call.args, call.ctx);
  const checked = call.tool.output.safeParse(reply.output);
  if (!checked.success) throw new Error(`${call.tool.name} produced output outside its schema: ${checked.error.message}`);
  const foreign = foreignPaths(reply.output);
  return {
    content: [{ type: 'text', text: reply.text }],
    structuredContent: reply.output as Record<string, unknown>,
    ...(reply.isError ? { isError: true } : {}),
    // Where another party's text sits, said beside the values rather than inside them (core/kernel/foreign.ts).
    ...(foreign.length > 0 ? { _meta: { [FOREIGN_META_KEY]: foreign } } : {}),
  };
}

/** The chain, in order. */
export const TOOL_PIPELINE: Middleware[] = [renderFailures, ledgerRefusals, checkOffered, checkCapability, parseInput, ledgerCall];

/** Runs one call, with the arguments as the client sent them, through the chain. */
export function runTool(
  call: Pick<ToolCall, 'tool' | 'toolset' | 'ctx'> & { args: unknown; offered?: boolean },
  chain: Middleware[] = TOOL_PIPELINE,
): Promise<CallToolResult> {
  const step =
    (i: number) =>
    (c: ToolCall): Promise<CallToolResult> => {
      const mw = chain[i];
      return mw ? mw(c, step(i + 1)) : runHandler(c);
    };
  return step(0)({ ...call, sent: call.args, args: {}, offered: call.offered ?? true, record: { called: false } });
}
