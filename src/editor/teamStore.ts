import * as vscode from 'vscode';
import { refusalNotice } from '../core/store/store.ts';
import { COMMANDS } from './commandIds.ts';
import type { EditorState } from './editorState.ts';

/**
 * Keeps the editor on the store the human chose: reopens it when `holon.store` or its password changes
 * (a password set in another window included: SecretStorage is shared), and tells the human, with a way
 * out, when the chosen store cannot be used; and, once, of rows in it that were not folded.
 */
export function registerTeamStore(state: EditorState, secrets: vscode.SecretStorage, log: vscode.LogOutputChannel): vscode.Disposable {
  const reopen = (): void => {
    // A store that fails has its own notification (below); one that opens gets the human's approval channels.
    state
      .reopen()
      .then(
        () => state.syncChannels(),
        () => undefined,
      )
      .catch((err: unknown) => log.error(`could not record approval channels: ${String(err)}`));
  };
  return vscode.Disposable.from(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('holon.store') && state.storeChoiceChanged()) reopen();
    }),
    secrets.onDidChange((e) => {
      if (e.key === state.storeSecretKey) reopen();
    }),
    state.onDidRefuse((refused) => {
      const verify = 'Verify Ledger';
      void vscode.window.showWarningMessage(`Holon: ${refusalNotice(refused, 'Holon: Verify Ledger')}.`, verify).then(async (answer) => {
        if (answer === verify) await vscode.commands.executeCommand(COMMANDS.verifyLedger);
      });
    }),
    state.onDidFail((message) => {
      const team = state.storeInUse.kind === 'team';
      const password = 'Set Team Store Password';
      const retry = 'Retry';
      const settings = 'Open Settings';
      const text = team
        ? `Holon: ${message}. Holon does not fall back to this workspace's journal: the team's ledger would be split in two.`
        : `Holon: ${message}.`;
      void vscode.window.showErrorMessage(text, ...(team ? [password, retry, settings] : [retry])).then(async (answer) => {
        if (answer === password) await vscode.commands.executeCommand(COMMANDS.setStorePassword);
        if (answer === retry) reopen();
        if (answer === settings) await vscode.commands.executeCommand('workbench.action.openSettings', 'holon.store');
      });
    }),
  );
}
