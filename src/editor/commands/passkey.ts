import * as os from 'node:os';
import * as vscode from 'vscode';
import { addPasskey, isGuarded, registrationSubject } from '../../core/accounts/passkeys.ts';
import type { CommandDeps, FeatureCommands } from './command.ts';

/** What a new passkey means, said before it is made and on its page. */
function meaning(first: boolean): string {
  return first
    ? 'From now on, only this passkey decides for this Holon state: approvals, mandates, funding, rates, the catalog, settings. ' +
        'Each decision opens a page in your browser where the passkey confirms it.'
    : 'A further passkey that decides for this Holon state; one you already have confirms it next.';
}

/** The human's passkeys: the first one makes every decision the passkey's. */
export function passkeyCommands({ state }: CommandDeps): FeatureCommands<'addPasskey'> {
  return {
    addPasskey: async (labelArg) => {
      const store = await state.store();
      const first = !isGuarded(store.state);
      const label =
        typeof labelArg === 'string'
          ? labelArg
          : await vscode.window.showInputBox({
              ignoreFocusOut: true,
              title: 'Holon: Add Passkey',
              prompt: `A name for the passkey. ${meaning(first)}`,
              value: os.hostname(),
              validateInput: (v) => (v.trim().length > 0 && v.trim().length <= 80 ? undefined : 'A passkey is named in 1 to 80 characters'),
            });
      if (!label) return;
      const answer = await state.atPage({
        kind: 'register',
        title: 'Holon: add a passkey',
        lines: [meaning(first), `Its name: ${label}`],
        user: `Holon on ${os.hostname()}`,
        subject: registrationSubject,
      });
      if (answer.kind !== 'registered') {
        void vscode.window.showInformationMessage('Holon: no passkey was added.');
        return;
      }
      // A further passkey is itself a decision: the store asks one the human has, on another page.
      const added = await addPasskey(store, answer.credential, label, answer.assertion);
      void vscode.window.showInformationMessage(
        `Holon: passkey "${added.label}" added.${first ? ' From now on, only your passkey decides for this state.' : ''}`,
      );
    },
  };
}
