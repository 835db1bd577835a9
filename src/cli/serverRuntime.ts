/**
 * What `holon mcp` and `holon serve` share: the flags of a server (how long it waits for a human, the
 * sellers and merchants it may reach, GitHub as the forge), the one way both build the runtime they serve
 * from those flags, and how both run until they are stopped.
 */
import { HolonError } from '../core/kernel/errors.ts';
import type { Forge } from '../core/office/forge.ts';
import { openStore } from '../core/holon.ts';
import type { MerchantConfig } from '../server/commerce/merchants.ts';
import { parseMerchants } from '../server/commerce/merchants.ts';
import type { Runtime } from '../server/runtime.ts';
import { openRuntime } from '../server/runtime.ts';
import type { Command } from './args.ts';
import { str } from './args.ts';
import { chainOf } from './chainOptions.ts';
import { clock, hasState, logger } from './context.ts';

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
  const { GitHubForge } = await import('../server/forge/github.ts');
  return new GitHubForge({ owner, token, ...(api !== undefined ? { baseUrl: api } : {}), logger });
}

/** Where a server's runtime lives: its state folder, the shared store when one is named, and the workspace. */
export interface ServedState {
  stateDir: string;
  /** The team store's URL; undefined: the state folder's own journal. */
  store: string | undefined;
  workspace: string;
}

/**
 * The runtime a server serves, built from its flags: the chain, the waits (with `elicitation` as the
 * command decided), the sellers, the forge and the store. A state that does not exist is `not_found`;
 * nothing is opened before every flag has been read.
 */
export async function openServerRuntime(
  opts: Record<string, string | boolean | undefined>,
  where: ServedState,
  elicitation: boolean,
): Promise<Runtime> {
  const chain = chainOf(opts);
  if (where.store === undefined && !hasState(where.stateDir)) throw new HolonError('not_found', `no Holon state in ${where.stateDir}`);
  const approvals = { ...waitsOf(opts), elicitation };
  const sellers = sellersOf(opts);
  const forge = await githubForge(opts);
  const store = where.store !== undefined ? await openStore(where.stateDir, { clock, logger, store: where.store }) : undefined;
  return openRuntime(where.stateDir, {
    clock,
    logger,
    approvals,
    ...(store ? { store } : {}),
    ...sellers,
    workspace: where.workspace,
    ...(forge ? { forge } : {}),
    ...(chain ? { chain } : {}),
  });
}

/**
 * Runs until SIGINT or SIGTERM (or until `start` calls the stop it is given), then stops serving and closes
 * the runtime, in that order. A failure to close is logged: the process ends either way.
 */
export function runUntilStopped(runtime: Runtime, stopServing: () => Promise<void>, start?: (stop: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    let done = false;
    const stop = (): void => {
      if (done) return;
      done = true;
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      stopServing()
        .catch((err: unknown) => logger.error(`closing: ${String(err)}`))
        .finally(() =>
          runtime
            .close()
            .catch((err: unknown) => logger.error(`closing: ${String(err)}`))
            .finally(resolve),
        );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    start?.(stop);
  });
}
