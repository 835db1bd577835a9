/**
 * The baseline MCP server: one tool that echoes its arguments, nothing else. Imported for the
 * in-memory baseline; run as a script (`node --import tsx bench/echoServer.ts`) for the stdio one.
 */
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** An McpServer with one tool, `echo`, taking the same arguments as call_agent. */
export function createEchoServer(): McpServer {
  const server = new McpServer({ name: 'bench-echo', version: '0.0.0' }, { capabilities: { tools: { listChanged: false } } });
  server.registerTool(
    'echo',
    {
      description: 'Returns its arguments.',
      inputSchema: z.object({ agent: z.string().optional(), capability: z.string().optional(), input: z.record(z.string(), z.unknown()) }),
    },
    async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
  );
  return server;
}

if (require.main === module) {
  void createEchoServer().connect(new StdioServerTransport());
}
