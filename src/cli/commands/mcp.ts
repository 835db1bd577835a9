import path from 'node:path';
import { HolonError } from '../../core/errors.ts';
import { openRuntime } from '../../server/runtime.ts';
import { createHolonServer } from '../../server/server.ts';
import { StdioServerTransport } from '../../server/transports/stdio.ts';
import type { Command } from '../args.ts';
import { str } from '../args.ts';
import { clock, hasState, logger } from '../context.ts';

/** Seconds from a flag (or the fallback, in seconds), as milliseconds; bounded: a server never waits for a human forever. */
export function secondsFlag(value: string | undefined, name: string, fallbackSeconds: number): number {
  const n = value === undefined ? fallbackSeconds : Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 3600) throw new HolonError('invalid_input', `--${name} takes seconds between 0 and 3600`);
  return Math.round(n * 1000);
}

/** How long a server waits by default: at once headless, two minutes when it asked by a form. */
export const DEFAULT_WAIT_SECONDS = { approval: 0, elicitation: 120 } as const;

const mcpCmd: Command = {
  name: 'mcp',
  usage: 'mcp --mandate ACCOUNT/NAME [--approval-wait SECONDS] [--elicitation-wait SECONDS] [--no-elicitation] [--allow-private-sellers] [--workspace DIR]',
  summary: 'Runs the MCP server for one mandate over stdio (stdout is the protocol; logs go to stderr).',
  options: {
    mandate: { type: 'string', help: 'the mandate this server acts for (required)' },
    'approval-wait': { type: 'string', help: `how long a call over the threshold waits for your decision (default ${DEFAULT_WAIT_SECONDS.approval})` },
    'elicitation-wait': { type: 'string', help: `how long it waits when it asked by elicitation (default ${DEFAULT_WAIT_SECONDS.elicitation})` },
    'no-elicitation': { type: 'boolean', help: 'never ask by MCP elicitation' },
    'allow-private-sellers': { type: 'boolean', help: "let sellers' links reach private addresses (loopback, your network): only for a seller you run yourself" },
    workspace: { type: 'string', help: 'the folder office artifacts are published into, and whose git is the forge (default: the current folder)' },
  },
  positionals: [0, 0],
  async run(ctx) {
    const mandate = str(ctx.opts, 'mandate');
    if (!mandate) throw new HolonError('invalid_input', 'holon mcp needs --mandate ACCOUNT/NAME');
    if (!hasState(ctx.stateDir)) throw new HolonError('not_found', `no Holon state in ${ctx.stateDir}`);
    const approvals = {
      waitMs: secondsFlag(str(ctx.opts, 'approval-wait'), 'approval-wait', DEFAULT_WAIT_SECONDS.approval),
      elicitation: !ctx.opts['no-elicitation'],
      elicitationWaitMs: secondsFlag(str(ctx.opts, 'elicitation-wait'), 'elicitation-wait', DEFAULT_WAIT_SECONDS.elicitation),
    };
    const workspace = path.resolve(str(ctx.opts, 'workspace') ?? process.cwd());
    const runtime = openRuntime(ctx.stateDir, { clock, logger, approvals, allowPrivateSellers: ctx.opts['allow-private-sellers'] === true, workspace });
    let server;
    try {
      server = createHolonServer(runtime.deps, mandate);
    } catch (err) {
      await runtime.close();
      throw err;
    }
    const transport = new StdioServerTransport(logger);
    await new Promise<void>((resolve) => {
      let done = false;
      const stop = (): void => {
        if (done) return;
        done = true;
        server
          .close()
          .catch(() => {})
          .finally(() => runtime.close().catch((err: unknown) => logger.error(`closing: ${String(err)}`)).finally(resolve));
      };
      transport.onclose = stop;
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      server.connect(transport).catch((err: unknown) => {
        logger.error(`could not start: ${String(err)}`);
        stop();
      });
    });
    return 0;
  },
};

export const commands: Command[] = [mcpCmd];
