import path from 'node:path';
import { findBinding, serveBound } from '../../core/local/bindings.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import type { Forge } from '../../core/office/forge.ts';
import { recordServer } from '../../core/accounts/presence.ts';
import { refuseArtifactState } from '../../core/local/stateFolder.ts';
import type { MerchantConfig } from '../../server/commerce/merchants.ts';
import { parseMerchants } from '../../server/commerce/merchants.ts';
import { openRuntime } from '../../server/runtime.ts';
import { openStore } from '../../core/holon.ts';
import { createHolonServer } from '../../server/server.ts';
import { StdioServerTransport } from '../../server/transports/stdio.ts';
import type { Command, CommandContext } from '../args.ts';
import { str } from '../args.ts';
import { clock, hasState, logger } from '../context.ts';
import { CHAIN_OPTIONS, chainOf } from '../chainOptions.ts';

/** Seconds from a flag (or the fallback, in seconds), as milliseconds; bounded: a server never waits for a human forever. */
export function secondsFlag(value: string | undefined, name: string, fallbackSeconds: number): number {
  const n = value === undefined ? fallbackSeconds : Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 3600) throw new HolonError('invalid_input', `--${name} takes seconds between 0 and 3600`);
  return Math.round(n * 1000);
}

/** How long a server waits by default: at once headless, two minutes when it asked by a form. */
export const DEFAULT_WAIT_SECONDS = { approval: 0, elicitation: 120 } as const;

/** How long a server waits for a human, shared by `holon mcp` and `holon serve`. */
export const WAIT_OPTIONS: Command['options'] = {
  'approval-wait': {
    type: 'string',
    help: `how long a call over the threshold waits for your decision (default ${DEFAULT_WAIT_SECONDS.approval})`,
  },
  'elicitation-wait': {
    type: 'string',
    help: `how long it waits when it asked by elicitation (default ${DEFAULT_WAIT_SECONDS.elicitation})`,
  },
};

/** The waits a server was given: for a decision, and for a form when it asks by elicitation. */
export function waitsOf(opts: Record<string, string | boolean | undefined>): { waitMs: number; elicitationWaitMs: number } {
  return {
    waitMs: secondsFlag(str(opts, 'approval-wait'), 'approval-wait', DEFAULT_WAIT_SECONDS.approval),
    elicitationWaitMs: secondsFlag(str(opts, 'elicitation-wait'), 'elicitation-wait', DEFAULT_WAIT_SECONDS.elicitation),
  };
}

/** Who the terms and commerce tools may reach, shared by `holon mcp` and `holon serve`. */
export const SELLER_OPTIONS: Command['options'] = {
  'allow-private-sellers': {
    type: 'boolean',
    help: "let sellers' links reach private addresses (loopback, your network): only for a seller you run yourself",
  },
  merchant: {
    type: 'string',
    help:
      'merchants the commerce tools buy from: [ID=]acp:URL or [ID=]ucp:URL, ' + 'comma-separated (your choice of URL, so it may be local)',
  },
};

/** The sellers a server was given: whether sellers' links may reach private addresses, and the merchants. */
export function sellersOf(opts: Record<string, string | boolean | undefined>): {
  allowPrivateSellers: boolean;
  merchants: MerchantConfig[];
} {
  const merchant = str(opts, 'merchant');
  return { allowPrivateSellers: opts['allow-private-sellers'] === true, merchants: merchant !== undefined ? parseMerchants(merchant) : [] };
}

/** The environment variable the GitHub token is read from: never a flag, which shell history and `ps` would show. */
export const GITHUB_TOKEN_ENV = 'HOLON_GITHUB_TOKEN';

/** The options that make GitHub the forge, shared by `holon mcp` and `holon serve`. */
export const GITHUB_OPTIONS: Command['options'] = {
  'github-owner': {
    type: 'string',
    help: `open and list pull requests on GitHub, in this org's (or user's) repos; the token is read from $${GITHUB_TOKEN_ENV}`,
  },
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
  if (!token)
    throw new HolonError(
      'invalid_input',
      `--github-owner needs a GitHub token in $${GITHUB_TOKEN_ENV} (it is never taken from the command line)`,
    );
  // Read once: the processes this server starts (agents, git) do not inherit it.
  delete process.env[GITHUB_TOKEN_ENV];
  // Loaded only when asked for: a server whose forge is the workspace's git never evaluates the GitHub client.
  const { GitHubForge } = await import('../../server/forge/github.ts');
  return new GitHubForge({ owner, token, ...(api !== undefined ? { baseUrl: api } : {}), logger });
}

/**
 * The mandate, state, store and workspace this server serves. In a bound workspace (the current folder or
 * its nearest bound ancestor) they are the binding's, and what the command line or the environment named
 * must agree with it: the client's config file that started this process is in the workspace, where an
 * agent may have edited it. The current folder, not --workspace, is looked up: a process cannot know which
 * file started it, but a client starts a project's server in the project's folder. Unbound, the command
 * line decides, as for any command.
 */
function whatToServe(ctx: CommandContext): { mandate: string; stateDir: string; store: string | undefined; workspace: string } {
  const mandate = str(ctx.opts, 'mandate');
  const workspace = str(ctx.opts, 'workspace');
  const binding = findBinding(process.cwd());
  if (binding) {
    const bound = serveBound(binding, {
      mandate,
      state: ctx.named.state ? ctx.stateDir : undefined,
      store: ctx.named.store ? (ctx.store ?? null) : undefined,
      workspace,
    });
    refuseArtifactState(bound.state);
    return { mandate: bound.mandate, stateDir: bound.state, store: bound.store, workspace: bound.workspace };
  }
  if (!mandate) throw new HolonError('invalid_input', 'holon mcp needs --mandate ACCOUNT/NAME');
  return { mandate, stateDir: ctx.stateDir, store: ctx.store, workspace: path.resolve(workspace ?? process.cwd()) };
}

const mcpCmd: Command = {
  name: 'mcp',
  usage:
    'mcp --mandate ACCOUNT/NAME [--approval-wait SECONDS] [--elicitation-wait ' +
    'SECONDS] [--no-elicitation] [--allow-private-sellers] [--workspace DIR] ' +
    '[--github-owner ORG [--github-api URL]] [--merchant [ID=]PROTOCOL:URL,…] ' +
    '[--rpc-url URL --chain-id N --token ADDRESS [--facilitator URL]]',
  summary:
    'Runs the MCP server for one mandate over stdio (stdout is the protocol; logs go ' +
    'to stderr). Started in a bound workspace (holon mandate bind), it serves the ' +
    'bound mandate, state and store, and refuses a --mandate, --state, --store or ' +
    '--workspace that disagrees.',
  options: {
    mandate: {
      type: 'string',
      help: 'the mandate this server acts for (required, unless the current folder is bound: then the bound one, and another is refused)',
    },
    ...WAIT_OPTIONS,
    'no-elicitation': { type: 'boolean', help: 'never ask by MCP elicitation' },
    ...SELLER_OPTIONS,
    workspace: {
      type: 'string',
      help:
        'the folder office artifacts are published into, and whose git is the forge ' +
        '(default: the bound workspace, else the current folder)',
    },
    ...GITHUB_OPTIONS,
    ...CHAIN_OPTIONS,
  },
  positionals: [0, 0],
  async run(ctx) {
    const { mandate, stateDir, store: storeUrl, workspace } = whatToServe(ctx);
    const chain = chainOf(ctx.opts);
    if (storeUrl === undefined && !hasState(stateDir)) throw new HolonError('not_found', `no Holon state in ${stateDir}`);
    const approvals = { ...waitsOf(ctx.opts), elicitation: !ctx.opts['no-elicitation'] };
    const sellers = sellersOf(ctx.opts);
    const forge = await githubForge(ctx.opts);
    const store = storeUrl !== undefined ? await openStore(stateDir, { clock, logger, store: storeUrl }) : undefined;
    const runtime = openRuntime(stateDir, {
      clock,
      logger,
      approvals,
      ...(store ? { store } : {}),
      ...sellers,
      workspace,
      ...(forge ? { forge } : {}),
      ...(chain ? { chain } : {}),
    });
    let server;
    try {
      server = createHolonServer(runtime.deps, mandate);
    } catch (err) {
      await runtime.close();
      throw err;
    }
    // Its presence, for office_overview's `running`: a server killed without a word is judged by its process.
    let leave: (() => Promise<void>) | undefined;
    try {
      leave = await recordServer(runtime.store, clock, mandate);
    } catch (err) {
      logger.warn(`could not record that this server runs (office_overview will not show it): ${(err as Error).message}`);
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
          .then(() => leave?.())
          .catch((err: unknown) => logger.warn(`could not record that this server stopped: ${String(err)}`))
          .finally(() =>
            runtime
              .close()
              .catch((err: unknown) => logger.error(`closing: ${String(err)}`))
              .finally(resolve),
          );
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
