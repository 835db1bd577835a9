/**
 * `node dist/examples/sellers/paidTool.mjs --facilitator URL [--price '$0.002'] [--port N]`: the paid MCP tool
 * (paidTool.ts) on loopback, settling through the facilitator at URL (the one `node dist/examples/chain/chain.cjs`
 * prints). It prints where it serves MCP, its tool, the payee a catalog entry declares and what a call
 * asks, and serves until stopped.
 */
import { PAID_TOOL, startPaidTool } from './paidTool.ts';
import { untilStopped } from '../untilStopped.ts';
import { facilitatorOrExit, flag } from './args.ts';

const facilitator = facilitatorOrExit('paid-tool');
const price = flag('--price');
const port = flag('--port');
if (port !== undefined && !/^[0-9]{1,5}$/.test(port)) {
  process.stderr.write(`[paid-tool] --port is a port number, not ${port}\n`);
  process.exit(2);
}
void startPaidTool({ facilitator, ...(price ? { price } : {}), ...(port ? { port: Number(port) } : {}) }).then(
  (tool) => {
    process.stdout.write(`${JSON.stringify({ url: tool.url, tool: PAID_TOOL, payee: tool.payee, offer: tool.offer }, null, 2)}\n`);
    process.stderr.write(
      `[paid-tool] ${PAID_TOOL} on ${tool.url} (MCP, Streamable HTTP), settling through ${facilitator}; Ctrl-C to stop\n`,
    );
    untilStopped(() => tool.close());
  },
  (err: unknown) => {
    process.stderr.write(`[paid-tool] ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
