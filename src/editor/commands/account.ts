import * as vscode from 'vscode';
import { HolonError } from '../../core/kernel/errors.ts';
import { ACCOUNT_ID, ID_RULES } from '../../core/kernel/ids.ts';
import * as M from '../../core/kernel/amount.ts';
import { fund } from '../../core/money/spend.ts';
import type { CommandDeps, FeatureCommands } from './command.ts';
import { givenOrTyped } from './command.ts';

/** What an input box says of the amount typed; VS Code shows it only once something was typed, or on Enter. */
function validAmount(text: string, currency: string): string | undefined {
  if (text.trim() === '') return `Required: the amount to add, in ${currency}`;
  try {
    if (M.parseUnits(text) <= 0n) return 'The amount must be more than zero';
    return undefined;
  } catch (err) {
    return HolonError.is(err) ? err.message : 'Not an amount';
  }
}

/** Funding an account, in the selected mandate's currency. */
export function accountCommands({ state }: CommandDeps): FeatureCommands<'fundAccount'> {
  return {
    fundAccount: async (accountArg) => {
      const selected = state.selected ? state.state.mandates[state.selected] : undefined;
      // Two prompts in a row: neither closes when the focus moves (the walkthrough's page takes it back
      // after its button ran this command, and the second prompt vanished before anyone could type).
      const account = await givenOrTyped(accountArg, {
        ignoreFocusOut: true,
        title: 'Holon: Fund Account',
        prompt: 'Account to fund',
        value: selected?.account ?? 'demo',
        validateInput: (v) => (ACCOUNT_ID.test(v) ? undefined : ID_RULES.account),
      });
      if (!account) return;
      const currency = selected?.currency ?? 'EUR';
      const amount = await vscode.window.showInputBox({
        ignoreFocusOut: true,
        title: `Holon: Fund ${account}`,
        // No placeholder: a grey "5.00" in the box read as a value, and Enter then sent nothing.
        prompt: `Amount in ${currency}, e.g. 5.00`,
        validateInput: (v) => validAmount(v, currency),
      });
      if (!amount) return;
      const m = await fund(await state.store(), account, amount, currency);
      void vscode.window.showInformationMessage(`Holon: funded ${account} with ${M.format(m)}.`);
    },
  };
}
