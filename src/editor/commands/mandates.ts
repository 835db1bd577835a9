import * as vscode from 'vscode';
import { HolonError } from '../../core/kernel/errors.ts';
import type { CommandDeps, FeatureCommands } from './command.ts';
import { pickMandate } from './command.ts';

/** Choosing the mandate the agent acts for, creating and editing mandates, and the Holon view. */
export function mandateCommands(deps: CommandDeps): FeatureCommands<'selectMandate' | 'createMandate' | 'editMandate' | 'showPanel'> {
  const { state } = deps;
  return {
    selectMandate: async (idArg) => {
      const id = typeof idArg === 'string' ? idArg : await pickMandate(deps, 'Mandate the agent acts for');
      if (!id) return;
      if (!state.state.mandates[id]) throw new HolonError('not_found', `no mandate "${id}"`);
      await state.select(id);
    },
    createMandate: async () => deps.mandateEditor.open('create'),
    editMandate: async (idArg) => {
      const id = typeof idArg === 'string' ? idArg : await pickMandate(deps, 'Mandate to edit');
      if (id) deps.mandateEditor.open('edit', id);
    },
    showPanel: async () => vscode.commands.executeCommand('holon.view.focus'),
  };
}
