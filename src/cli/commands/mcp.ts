import path from 'node:path';
import { findBinding, serveBound } from '../../core/local/bindings.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import { recordServer } from '../../core/accounts/presence.ts';
import { checkBindingDecided } from '../../core/accounts/workspaces.ts';
import { refuseArtifactState } from '../../core/local/stateFolder.ts';
import { createHolonServer } from '../../server/server.ts';
import { serveEveryRevision, StdioServerTransport } from '../../server/transports/stdio.ts';
import type { Command, CommandContext } from '../args.ts';
import { str } from '../args.ts';
import { clock, logger } from '../context.ts';
import { CHAIN_OPTIONS } from '../chainOptions.ts';
import { GITHUB_OPTIONS, openServerRuntime, runUntilStopped, SELLER_OPTIONS, WAIT_OPTIONS } from '../serverRuntime.ts';

/**
 * The mandate, state, store and workspace this server serves. In a bound workspace (the current folder or
 * its nearest bound ancestor) they are the binding's, and what the command line or the environment named
 * must agree with it: the client's config file that started this process is in the workspace, where an
 * agent may have edited it. The current folder, not --workspace, is looked up: a process cannot know which
 * file started it, but a client starts a project's server in the project's folder. Unbound, the command
 * line decides, as for any command.
 */
function whatToServe(ctx: CommandContext): {
  mandate: string;
  stateDir: string;
  store: string | undefined;
  workspace: string;
  bound: boolean;
} {
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
    return { mandate: bound.mandate, stateDir: bound.state, store: bound.store, workspace: bound.workspace, bound: true };
  }
  if (!mandate) throw new HolonError('invalid_input', 'holon mcp needs --mandate ACCOUNT/NAME');
  return { mandate, stateDir: ctx.stateDir, store: ctx.store, workspace: path.resolve(workspace ?? process.cwd()), bound: false };
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
    const served = whatToServe(ctx);
    const { mandate } = served;
    const runtime = await openServerRuntime(ctx.opts, served, !ctx.opts['no-elicitation']);
    let server;
    try {
      // A binding file is the user's, and so an agent's with a shell: in a guarded state it counts only as the human decided it.
      if (served.bound) checkBindingDecided(runtime.store.state, served.workspace, mandate);
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
    let serving: { close(): Promise<void> } | undefined;
    const stopServing = async (): Promise<void> => {
      await serving?.close().catch(() => {});
      await leave?.().catch((err: unknown) => logger.warn(`could not record that this server stopped: ${String(err)}`));
    };
    await runUntilStopped(runtime, stopServing, (stop) => {
      void transport.done.then(stop);
      serving = serveEveryRevision(server, () => createHolonServer(runtime.deps, mandate), transport, logger);
    });
    return 0;
  },
};

export const commands: Command[] = [mcpCmd];
