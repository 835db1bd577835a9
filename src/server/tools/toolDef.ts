/**
 * What a tool is: its toolset, the capability it needs, a typed input and output (the handler returns the
 * output schema's type), its annotations and a thin handler. What every tool needs — parsing, the
 * capability check, the ledger entry, rendering a failure in its seed's words — runs once, in the
 * pipeline (pipeline.ts), never in a handler.
 */
import type { Server, CallToolResult, ToolAnnotations, ServerContext } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { Approval } from '../../core/approvals/model.ts';
import type { HolonError } from '../../core/kernel/errors.ts';
import type { ToolsetName } from '../../core/kernel/model.ts';
import type { ServerDeps } from '../serverDeps.ts';

/**
 * The MCP App views (src/server/apps.ts serves them), one per kind of result: a receipt tree, a spend
 * chart, a comparison of agents, a call's card. A tool names the one its result is shown in.
 */
export const APP_VIEWS = ['receipt', 'spend', 'agents', 'call'] as const;
/** One of the views. */
export type AppView = (typeof APP_VIEWS)[number];

/** What one tool call may use: the server's deps, its mandate, and the request's own context. */
export interface ToolContext {
  deps: ServerDeps;
  mandate: string;
  /** The low-level server, to ask the client for elicitation; absent where nobody can be asked. */
  server?: Server;
  extra: ServerContext;
  /** Present on a call of the 2026-07-28 revision, where the human is asked in the answer, not by a request. */
  round?: ApprovalRound;
}

/** One tools/call of MCP 2026-07-28 (inBand.ts): what the approval waiter asks for, and what a retry resumes. */
export interface ApprovalRound {
  /** Set by the waiter: the approval to ask the human for in the call's answer, and how. */
  ask?: { approval: Approval; by: 'page' | 'form' };
  /** The approval a retry resumes, and how long it may wait for the decision (0: report it as it is). */
  resume?: { approval: string; waitMs: number };
}

/** A handler's answer: the structured output (of the output schema's type) and its text. */
export interface ToolReply<O> {
  output: O;
  text: string;
  /** A result that is a refusal or a failure in the seed's own shape (market's denied call, say). */
  isError?: boolean;
}

/** One tool: its contract and a thin handler (parse → core → shape). */
export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  toolset: ToolsetName;
  /**
   * The capability the mandate must grant (or, as a list, any one of them); null for a tool every grantee
   * may call (a read of its own record).
   */
  capability: string | readonly string[] | null;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** A safe summary of the arguments for the ledger: no bodies, no secrets (default: nothing). */
  summary?: (args: z.output<I>) => Record<string, unknown>;
  handler: (args: z.output<I>, ctx: ToolContext) => Promise<ToolReply<z.output<O>>>;
  /** Whether a server offers the tool at all (seed 002's signing tools: only with the human's wallet). */
  offered?: (deps: ServerDeps) => boolean;
  /**
   * The MCP App view that shows its result where the host renders apps (apps.ts): listed as the tool's
   * `_meta` link, and served as a `ui://holon/<view>` resource. The result itself stays as it is.
   */
  ui?: AppView;
}

/** Keeps a tool's types while checking it, and erases them for a list of tools. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(def: ToolDef<I, O>): ToolDef {
  return def as unknown as ToolDef;
}

/**
 * A toolset: its tools, what the server tells every client about it, and how it words a failure. Its name
 * is a literal type, so the server's table can check each toolset sits under its own name.
 */
export interface Toolset<N extends ToolsetName = ToolsetName> {
  name: N;
  instructions: string;
  tools: ToolDef[];
  /** True when every allowed call is ledgered (seed 004); a refused one always is. */
  ledgerCalls: boolean;
  /** An expected failure (invalid input, not found, denied…) in this toolset's seed's shape. */
  renderFailure(err: HolonError, tool: ToolDef): CallToolResult;
}
