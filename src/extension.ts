import * as vscode from 'vscode';
import type { HolonApi } from './editor/root.ts';
import { activateHolon } from './editor/root.ts';

/** Builds the composition root; if that fails, says so (VS Code itself would show nothing) and rethrows. */
export function activate(context: vscode.ExtensionContext): HolonApi {
  try {
    const { disposable, api } = activateHolon(context);
    context.subscriptions.push(disposable);
    return api;
  } catch (err) {
    void vscode.window.showErrorMessage(`Holon failed to start: ${(err as Error).message}`);
    throw err;
  }
}

export function deactivate(): void {}
