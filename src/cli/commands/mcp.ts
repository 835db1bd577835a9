import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as fs from 'node:fs';
import { stderrLogger, systemClock } from '../core/deps.ts';
import { HolonError } from '../core/errors.ts';
import { JOURNAL_FILE } from '../core/journal.ts';
import { openRuntime } from '../server/runtime.ts';
import { createHolonServer } from '../server/server.ts';
import type { Command } from './args.ts';
import { str } from './args.ts';

/** Seconds from a flag, bounded: a server never waits for a human forever. */
export function secondsFlag(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 3600) throw new HolonError('invalid_input', `--${name} takes seconds between 0 and 3600`);
  return Math.round(n * 1000);
}

export const mcpCmd: Command = {
  name: 'mcp',
  usage: 'mcp --mandate ACCOUNT/NAME [--approval-wait SECONDS] [--no-elicitation]',
  summary: 'Runs the MCP server for one mandate over stdio (stdout is the protocol; logs go to stderr).',
  options: {
    mandate: { type: 'string', help: 'the mandate this server acts for (required)' },
    'approval-wait': { type: 'string', help: 'how long a call over the threshold waits for your decision (default 0)' },
    'elicitation-wait': { type: 'string', help: 'how long it waits when it asked by elicitation (default 120)' },
    'no-elicitation': { type: 'boolean', help: 'never ask by MCP elicitation' },
  },
  positionals: [0, 0],
  async run(ctx) {
    const mandate = str(ctx.opts, 'mandate');
    if (!mandate) throw new HolonError('invalid_input', 'holon mcp needs --mandate ACCOUNT/NAME');
    if (!fs.existsSync(`${ctx.stateDir}/${JOURNAL_FILE}`)) throw new HolonError('not_found', `no Holon state in ${ctx.stateDir}`);
    const approvals = {
      waitMs: secondsFlag(str(ctx.opts, 'approval-wait'), 'approval-wait', 0),
      elicitation: !ctx.opts['no-elicitation'],
      elicitationWaitMs: secondsFlag(str(ctx.opts, 'elicitation-wait'), 'elicitation-wait', 120),
    };
    const runtime = openRuntime(ctx.stateDir, { clock: systemClock, logger: stderrLogger, approvals });
    let server;
    try {
      server = createHolonServer(runtime.deps, mandate);
    } catch (err) {
      await runtime.close();
      throw err;
    }
    const transport = new StdioServerTransport();
    await new Promise<void>((resolve) => {
      let done = false;
      const stop = (): void => {
        if (done) return;
        done = true;
        void server.close().finally(() => void runtime.close().finally(resolve));
      };
      transport.onclose = stop;
      process.stdin.on('end', stop);
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      void server.connect(transport);
    });
    return 0;
  },
};
