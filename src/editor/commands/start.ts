import * as vscode from 'vscode';
import type { CommandDeps, FeatureCommands } from './command.ts';

/** The walkthrough package.json contributes, as `publisher.name#id`. */
export const WALKTHROUGH = 'holon.holon#holon.start';

/** Getting started: the walkthrough, from the palette and from the Holon view's first steps. */
export function startCommands(_deps: CommandDeps): FeatureCommands<'getStarted'> {
  return {
    getStarted: async () => vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false),
  };
}
