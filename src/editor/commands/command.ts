/**
 * What every command feature is written with: the deps the commands share, the shape of a command and of
 * the complete table of them, and the mandate picker three features ask with.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds.ts';
import type { EditorState } from '../editorState.ts';
import type { MandateEditorPanels } from '../mandateEditorPanel.ts';
import type { ProposalPanels } from '../proposalPanel.ts';
import type { ReceiptsPanel } from '../receiptsPanel.ts';
import type { EditorWallet } from '../wallet.ts';

/** What the commands need. */
export interface CommandDeps {
  state: EditorState;
  wallet: EditorWallet;
  holonJs: string;
  demoCatalog: string;
  receipts: ReceiptsPanel;
  mandateEditor: MandateEditorPanels;
  proposals: ProposalPanels;
  secrets: vscode.SecretStorage;
  log: vscode.LogOutputChannel;
}

/**
 * One command: what it does with the arguments it was run with (another extension or a test may pass
 * some; from the palette there are none). What it returns goes back to `executeCommand`.
 */
export type Command = (...args: unknown[]) => Promise<unknown>;

/** A command's name in COMMANDS (its id is `COMMANDS[name]`). */
export type CommandName = keyof typeof COMMANDS;

/** Every command of the palette, by name: a command package.json contributes and nobody implements does not compile. */
export type HolonCommands = Record<CommandName, Command>;

/** The commands one feature implements. */
export type FeatureCommands<K extends CommandName> = Pick<HolonCommands, K>;

/** The string another extension (or a test) ran the command with, else what the human types in an input box. */
export async function givenOrTyped(arg: unknown, input: vscode.InputBoxOptions): Promise<string | undefined> {
  return typeof arg === 'string' ? arg : vscode.window.showInputBox(input);
}

/** Asks for a mandate; with none yet, offers to create one and answers nothing. */
export async function pickMandate(deps: CommandDeps, placeHolder: string): Promise<string | undefined> {
  const items = Object.values(deps.state.state.mandates).map((m) => ({
    label: m.id,
    description: `${m.status} · threshold ${m.approval_threshold} ${m.currency}`,
    detail: m.grantee.name,
  }));
  if (items.length === 0) {
    const create = 'Create Mandate';
    const answer = await vscode.window.showInformationMessage('Holon: there is no mandate yet.', create);
    if (answer === create) await vscode.commands.executeCommand(COMMANDS.createMandate);
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { placeHolder }))?.label;
}
