import * as vscode from 'vscode';
import { WALKTHROUGH } from '../commandIds.ts';
import type { CommandDeps, FeatureCommands } from './command.ts';

/** Getting started: the walkthrough, from the palette and from the Holon view's first steps. */
export function startCommands(_deps: CommandDeps): FeatureCommands<'getStarted'> {
  return {
    getStarted: async () => vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false),
  };
}
