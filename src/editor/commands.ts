/**
 * The palette's commands as one table: each feature (commands/*.ts) builds its own commands from the
 * deps, createCommands puts them together, and registerCommands registers each under its id with the one
 * error handling every command shares.
 */
import * as vscode from 'vscode';
import { HolonError } from '../core/kernel/errors.ts';
import { COMMANDS } from './commandIds.ts';
import { accountCommands } from './commands/account.ts';
import { agentCommands } from './commands/agents.ts';
import { approvalCommands } from './commands/approvals.ts';
import { claudeCodeCommands } from './commands/claudeCode.ts';
import type { Command, CommandDeps, CommandName, HolonCommands } from './commands/command.ts';
import { ledgerCommands } from './commands/ledger.ts';
import { mandateCommands } from './commands/mandates.ts';
import { passkeyCommands } from './commands/passkey.ts';
import { runTokenCommands } from './commands/runTokens.ts';
import { startCommands } from './commands/start.ts';
import { teamStoreCommands } from './commands/teamStore.ts';
import { walletCommands } from './commands/wallet.ts';

export type { CommandDeps } from './commands/command.ts';

/** Every command, by name; one left out of a feature, or a feature left out here, does not compile. */
export function createCommands(deps: CommandDeps): HolonCommands {
  return {
    ...accountCommands(deps),
    ...mandateCommands(deps),
    ...approvalCommands(deps),
    ...ledgerCommands(deps),
    ...agentCommands(deps),
    ...claudeCodeCommands(deps),
    ...walletCommands(deps),
    ...runTokenCommands(deps),
    ...teamStoreCommands(deps),
    ...startCommands(deps),
    ...passkeyCommands(deps),
  };
}

/** Every command of the palette. Each validates its input in the quick input and explains failures. */
export function registerCommands(deps: CommandDeps): vscode.Disposable {
  // A failure is logged once, with its stack, and told to the human in one sentence; the command answers nothing.
  const run =
    (fn: Command): Command =>
    async (...args) => {
      try {
        return await fn(...args);
      } catch (err) {
        const message = HolonError.is(err) ? err.message : (err as Error).message;
        deps.log.error(`command failed: ${(err as Error).stack ?? message}`);
        void vscode.window.showErrorMessage(`Holon: ${message}`);
        return undefined;
      }
    };
  const commands = createCommands(deps);
  const names = Object.keys(commands) as CommandName[];
  return vscode.Disposable.from(...names.map((name) => vscode.commands.registerCommand(COMMANDS[name], run(commands[name]))));
}
