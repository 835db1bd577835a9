import { createHash } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import * as M from '../core/kernel/amount.ts';
import { budgetOf } from '../core/money/spend.ts';
import { allowPrivateSellers, githubOwner, chainSettings } from './settings.ts';
import { serverStoreEnv } from './storeSetting.ts';
import type { EditorState } from './editorState.ts';
import type { EditorWallet } from './wallet.ts';

/** Where the server finds the GitHub token of the human's VS Code sign-in (read once, then dropped). */
const GITHUB_TOKEN_ENV = 'HOLON_GITHUB_TOKEN';

/**
 * The token of the human's GitHub sign-in in VS Code, when the office's forge is GitHub. `ask` lets VS
 * Code ask the human to sign in (when a server is about to start); otherwise only an existing session is used.
 */
async function githubToken(ask: boolean): Promise<string | undefined> {
  if (!githubOwner()) return undefined;
  const session = await vscode.authentication.getSession('github', ['repo'], ask ? { createIfNone: true } : { silent: true });
  return session?.accessToken;
}
import { COMMANDS } from './commandIds.ts';

/** The id under which package.json contributes the provider. */
export const PROVIDER_ID = 'holon.mandate';

/**
 * What a server definition is built from; its `version` changes when any of it does. The wallet's address
 * is in it: a server reads the state's wallet when it starts, so a new wallet restarts it.
 */
function fingerprint(state: EditorState, mandate: string, wallet: string | undefined): string {
  const m = state.state.mandates[mandate];
  const cfg = state.approvalConfig();
  // The store's URL (never its password) and how many times it was opened: a new store or password restarts the server.
  const store = state.storeInUse;
  return createHash('sha256')
    .update(
      JSON.stringify([
        mandate,
        m?.toolsets ?? [],
        cfg.channels.includes('elicitation'),
        cfg.waitSeconds,
        wallet ?? '',
        allowPrivateSellers(),
        githubOwner(),
        store.kind === 'team' ? store.url : '',
        state.storeGeneration,
        chainSettings().config,
      ]),
    )
    .digest('hex')
    .slice(0, 12);
}

/**
 * One MCP server, "Holon · <mandate>", for the selected mandate: `holon mcp` run by VS Code's own Node
 * (`process.execPath` with ELECTRON_RUN_AS_NODE), on the workspace-storage state.
 */
export function serverDefinition(
  state: EditorState,
  holonJs: string,
  mandate: string | undefined,
  wallet: string | undefined,
  githubKey?: string,
  storeUrl?: string,
): vscode.McpStdioServerDefinition {
  const cfg = state.approvalConfig();
  const args = [holonJs, 'mcp', '--state', state.dir, '--approval-wait', String(cfg.waitSeconds)];
  if (!cfg.channels.includes('elicitation')) args.push('--no-elicitation');
  if (mandate) args.push('--mandate', mandate);
  // The team store's URL (with its password) goes to the server in its environment, never its arguments
  // (which `ps` shows); it drops it at once (cli/args.ts). The URL is then part of the definition VS Code
  // holds for this server. The wallet is the state's: the server reads its key from the state folder.
  const env: Record<string, string> = {
    ELECTRON_RUN_AS_NODE: '1',
    ...serverStoreEnv(storeUrl),
  };
  if (allowPrivateSellers()) args.push('--allow-private-sellers');
  // The office publishes artifacts into the open folder, and its git is the office's forge.
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (folder?.scheme === 'file') args.push('--workspace', folder.fsPath);
  // The chain the human configured, in the environment (an RPC URL may carry the provider's key): the server
  // reads payments back from it, shows the wallet's balances, and pays eip155: accounts on it.
  const chain = chainSettings().config;
  if (chain) {
    env['HOLON_RPC_URL'] = chain.rpcUrl;
    env['HOLON_CHAIN_ID'] = String(chain.chainId);
    env['HOLON_TOKEN'] = chain.token;
    if (chain.facilitator) env['HOLON_FACILITATOR'] = chain.facilitator;
  }
  const owner = githubOwner();
  if (owner && githubKey) {
    args.push('--github-owner', owner);
    env[GITHUB_TOKEN_ENV] = githubKey;
  }
  const definition = new vscode.McpStdioServerDefinition(
    mandate ? `Holon · ${mandate}` : 'Holon',
    process.execPath,
    args,
    env,
    mandate ? fingerprint(state, mandate, wallet) : '0',
  );
  // A server started in a bound workspace serves only its binding (core/local/bindings.ts), which guards
  // against a config file an agent edited. This one is started by VS Code from this definition, not from
  // a file, and names everything itself: it runs in the root of the file system, which is never bound,
  // so that no binding (of the open folder, or of a folder holding VS Code's storage) can refuse it.
  definition.cwd = vscode.Uri.file(path.parse(state.dir).root);
  return definition;
}

/** Registers the provider; it fires a change when the selection, the mandate's toolsets or a setting the server starts with change. */
export function registerProvider(state: EditorState, holonJs: string, wallet: EditorWallet): vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
  let last = '';
  const check = (): void => {
    const now = state.selected ? `${state.selected}:${fingerprint(state, state.selected, wallet.address)}` : '';
    if (now !== last) {
      last = now;
      changed.fire();
    }
  };
  check();
  const provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> = {
    onDidChangeMcpServerDefinitions: changed.event,
    // Which mandate is selected is known once the journal has loaded (just after activation).
    provideMcpServerDefinitions: async () => {
      // No server on a store the editor cannot open: it would fail the same way (the view says why).
      const storeUrl = await state.storeForServer().catch(() => null);
      if (storeUrl === null) return [];
      return [serverDefinition(state, holonJs, state.selected, wallet.address, await githubToken(false), storeUrl)];
    },
    resolveMcpServerDefinition: async () => {
      await state.store();
      if (!state.selected) {
        await vscode.commands.executeCommand(COMMANDS.selectMandate);
        if (!state.selected) return undefined;
      }
      const mandateId = state.selected;
      const m = state.state.mandates[mandateId];
      if (m) {
        const b = budgetOf(state.state, m, state.clock.now());
        if (b.account.available.units <= 0n) {
          const fund = 'Fund Account';
          const answer = await vscode.window.showWarningMessage(
            `Holon: account ${m.account} has no ${m.currency} to spend (${M.format(b.account.available)}).`,
            fund,
            'Start Anyway',
          );
          if (answer === fund) await vscode.commands.executeCommand(COMMANDS.fundAccount, m.account);
          if (answer === undefined) return undefined;
        }
      }
      const resolved = serverDefinition(state, holonJs, mandateId, wallet.address, await githubToken(true), await state.storeForServer());
      return resolved;
    },
  };
  return vscode.Disposable.from(
    changed,
    vscode.lm.registerMcpServerDefinitionProvider(PROVIDER_ID, provider),
    state.onDidChange(check),
    wallet.onDidChange(check),
    // Any Holon setting the server is started with (the chain, approvals, sellers, the office): the
    // fingerprint says whether the server must start again.
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('holon')) check();
    }),
  );
}
