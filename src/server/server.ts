import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { HolonError } from '../core/errors.ts';
import type { ServerDeps } from './serverDeps.ts';
import { MARKET_INSTRUCTIONS, marketTools } from './tools/market.ts';
import type { ToolDef } from './tools/toolDef.ts';
import { registerTools } from './tools/toolDef.ts';
import { HOLON_VERSION } from '../core/version.ts';


/** Toolsets by name; later issues add terms, money, commerce, memory, records and office. */
const TOOLSETS: Record<string, { tools: ToolDef[]; instructions: string }> = {
  market: { tools: marketTools, instructions: MARKET_INSTRUCTIONS },
};

/**
 * One MCP server for exactly one mandate: the agent has no parameter to name another. It offers the
 * toolsets the mandate lists; each call is checked against the mandate when it is made.
 */
export function createHolonServer(deps: ServerDeps, mandateId: string): McpServer {
  const mandate = deps.gateway.state.mandates[mandateId];
  if (!mandate) throw new HolonError('not_found', `no mandate "${mandateId}"; create it with \`holon mandate create ${mandateId}\``);
  const sets = mandate.toolsets.map((t) => TOOLSETS[t]).filter((t) => t !== undefined);
  const unknown = mandate.toolsets.filter((t) => !TOOLSETS[t]);
  if (unknown.length > 0) deps.logger.warn(`toolsets not available in this version: ${unknown.join(', ')}`);
  const server = new McpServer(
    { name: 'holon', title: `Holon · ${mandateId}`, version: HOLON_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: [`This server acts for mandate ${mandateId}.`, ...sets.map((s) => s.instructions)].join('\n') },
  );
  registerTools(server, sets.flatMap((s) => s.tools), deps, mandateId);
  return server;
}
