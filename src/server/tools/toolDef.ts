import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { HolonError } from '../../core/errors.ts';
import type { ServerDeps } from '../serverDeps.ts';

/** What one tool call may use: the server's deps, its mandate, and the request's own context. */
export interface ToolContext {
  deps: ServerDeps;
  mandate: string;
  /** The low-level server, to ask the client for elicitation. */
  server: Server;
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
}

/** A handler's answer: structured content (matching the output schema unless it is an error) and text. */
export interface ToolAnswer {
  /** Absent only on an error. */
  structured?: Record<string, unknown>;
  text: string;
  isError?: boolean;
}

/** One tool: its contract and a thin handler (parse → core → shape). */
export interface ToolDef<I extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  inputSchema: I;
  outputSchema: z.ZodRawShape;
  annotations: ToolAnnotations;
  handler: (args: z.infer<z.ZodObject<I>>, ctx: ToolContext) => Promise<ToolAnswer>;
}

/** Keeps a tool's input type when it is put in a list. */
export function defineTool<I extends z.ZodRawShape>(def: ToolDef<I>): ToolDef {
  return def as unknown as ToolDef;
}

/**
 * An expected failure as a tool error: `isError`, and the problem as JSON text with a stable `reason`.
 * It carries no structuredContent, since that must match the tool's output schema and a failure does not.
 */
export function errorAnswer(err: HolonError): ToolAnswer {
  const problem = { error: { reason: err.reason, message: err.message, ...err.details } };
  return { isError: true, text: `${err.reason}: ${err.message}\n${JSON.stringify(problem)}` };
}

/**
 * The one place tools are registered with the SDK. Expected failures become `isError` results;
 * anything else is logged and thrown, so the client sees a protocol error, not a made-up result.
 */
export function registerTools(server: McpServer, tools: ToolDef[], deps: ServerDeps, mandate: string): void {
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: tool.annotations },
      async (args: Record<string, unknown>, extra: RequestHandlerExtra<ServerRequest, ServerNotification>): Promise<CallToolResult> => {
        let answer: ToolAnswer;
        try {
          answer = await tool.handler(args as never, { deps, mandate, server: server.server, extra });
        } catch (err) {
          if (!HolonError.is(err)) {
            deps.logger.error(`${tool.name} failed: ${(err as Error).stack ?? String(err)}`);
            throw err;
          }
          answer = errorAnswer(err);
        }
        return {
          content: [{ type: 'text', text: answer.text }],
          ...(answer.structured ? { structuredContent: answer.structured } : {}),
          ...(answer.isError ? { isError: true } : {}),
        };
      },
    );
  }
}
