import path from 'node:path';
import { HolonError } from '../../core/errors.ts';
import type { Forge } from '../../core/office/forge.ts';
import { parseMerchants } from '../../server/commerce/merchants.ts';
import { openRuntime } from '../../server/runtime.ts';
import { openStore } from '../../core/holon.ts';
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

/** The environment variable the GitHub token is read from: never a flag, which shell history and `ps` would show. */
export const GITHUB_TOKEN_ENV = 'HOLON_GITHUB_TOKEN';

/** The options that make GitHub the forge, shared by `holon mcp` and `holon serve`. */
export const GITHUB_OPTIONS: Command['options'] = {
  'github-owner': { type: 'string', help: `open and list pull requests on GitHub, in this org's (or user's) repos; the token is read from $${GITHUB_TOKEN_ENV}` },
  'github-api': { type: 'string', help: 'the GitHub API URL, for GitHub Enterprise (default https://api.github.com)' },
};

/** GitHub as the forge when --github-owner is given; undefined otherwise, and the workspace's git is the forge. */
export async function githubForge(opts: Record<string, string | boolean | undefined>): Promise<Forge | undefined> {
  const owner = str(opts, 'github-owner');
  const api = str(opts, 'github-api');
  if (owner === undefined) {
    if (api !== undefined) throw new HolonError('invalid_input', '--github-api goes with --github-owner ORG');
    return undefined;
  }
  const token = process.env[GITHUB_TOKEN_ENV]?.trim();
  if (!token) throw new HolonError('invalid_input', `--github-owner needs a GitHub token in $${GITHUB_TOKEN_ENV} (it is never taken from the command line)`);
  // Read once: the processes this server starts (agents, git) do not inherit it.
  delete process.env[GITHUB_TOKEN_ENV];
  // Loaded only when asked for: a server whose forge is the workspace's git never evaluates the GitHub client.
  const { GitHubForge } = await import('../../server/forge/github.ts');
  return new GitHubForge({ owner, token, ...(api !== undefined ? { baseUrl: api } : {}), logger });
}

const mcpCmd: Command = {
  name: 'mcp',
  usage: 'mcp --mandate ACCOUNT/NAME [--approval-wait SECONDS] [--elicitation-wait SECONDS] [--no-elicitation] [--allow-private-sellers] [--workspace DIR] [--github-owner ORG [--github-api URL]] [--merchant [ID=]PROTOCOL:URL,…]',
  summary: 'Runs the MCP server for one mandate over stdio (stdout is the protocol; logs go to stderr).',
  options: {
    mandate: { type: 'string', help: 'the mandate this server acts for (required)' },
    'approval-wait': { type: 'string', help: `how long a call over the threshold waits for your decision (default ${DEFAULT_WAIT_SECONDS.approval})` },
    'elicitation-wait': { type: 'string', help: `how long it waits when it asked by elicitation (default ${DEFAULT_WAIT_SECONDS.elicitation})` },
    'no-elicitation': { type: 'boolean', help: 'never ask by MCP elicitation' },
    'allow-private-sellers': { type: 'boolean', help: "let sellers' links reach private addresses (loopback, your network): only for a seller you run yourself" },
    workspace: { type: 'string', help: 'the folder office artifacts are published into, and whose git is the forge (default: the current folder)' },
    ...GITHUB_OPTIONS,
    merchant: { type: 'string', help: 'merchants the commerce tools buy from: [ID=]acp:URL or [ID=]ucp:URL, comma-separated (your choice of URL, so it may be local)' },
  },
  positionals: [0, 0],
  async run(ctx) {
    const mandate = str(ctx.opts, 'mandate');
    if (!mandate) throw new HolonError('invalid_input', 'holon mcp needs --mandate ACCOUNT/NAME');
    if (ctx.store === undefined && !hasState(ctx.stateDir)) throw new HolonError('not_found', `no Holon state in ${ctx.stateDir}`);
    const approvals = {
      waitMs: secondsFlag(str(ctx.opts, 'approval-wait'), 'approval-wait', DEFAULT_WAIT_SECONDS.approval),
      elicitation: !ctx.opts['no-elicitation'],
      elicitationWaitMs: secondsFlag(str(ctx.opts, 'elicitation-wait'), 'elicitation-wait', DEFAULT_WAIT_SECONDS.elicitation),
    };
    const workspace = path.resolve(str(ctx.opts, 'workspace') ?? process.cwd());
    const forge = await githubForge(ctx.opts);
    const merchantFlag = str(ctx.opts, 'merchant');
    const merchants = merchantFlag !== undefined ? parseMerchants(merchantFlag) : [];
    const store = ctx.store !== undefined ? await openStore(ctx.stateDir, { clock, logger, store: ctx.store }) : undefined;
    const runtime = openRuntime(ctx.stateDir, { clock, logger, approvals, ...(store ? { store } : {}), allowPrivateSellers: ctx.opts['allow-private-sellers'] === true, workspace, ...(forge ? { forge } : {}), merchants });
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
