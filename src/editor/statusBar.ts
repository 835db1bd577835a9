import * as vscode from 'vscode';
import { pendingApprovals } from '../core/approvals/flow.ts';
import { COMMANDS } from './commandIds.ts';
import type { EditorState } from './editorState.ts';
import { budgetInfo } from './views.ts';

/** `<mandate> · <remaining>` in the status bar, with a count while something waits for the human. */
export function registerStatusBar(state: EditorState): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('holon.status', vscode.StatusBarAlignment.Left, 50);
  item.name = 'Holon';
  const update = (): void => {
    const where = state.storeInUse;
    const ledger = where.kind === 'team' ? `Team store: ${where.label}` : "Ledger: this workspace's journal";
    const failure = state.storeFailure;
    if (failure !== undefined) {
      item.text = '$(error) Holon';
      item.tooltip = `Holon: ${failure}`;
      item.command = COMMANDS.showPanel;
      item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
      item.show();
      return;
    }
    if (!state.loaded) {
      item.text = '$(loading~spin) Holon';
      item.tooltip = where.kind === 'team' ? `Holon: connecting to the team store ${where.label}` : 'Holon: loading the state';
      item.backgroundColor = undefined;
      item.show();
      return;
    }
    const now = state.clock.now();
    const waiting = pendingApprovals(state.state, now);
    const budget = state.selected ? budgetInfo(state.state, state.selected, now) : null;
    const base = budget ? `$(shield) ${budget.mandate} · ${budget.remaining.text}` : '$(shield) Holon: select a mandate';
    item.text = waiting.length > 0 ? `${base}  $(bell-dot) ${waiting.length}` : base;
    // The tooltip has room for the exact amounts; the bar shows the currency's precision.
    item.tooltip = `${
      budget
        ? `Holon — ${budget.mandate}: spent ${budget.spent.exact}, held ${budget.held.exact}, ` +
          `remaining ${budget.remaining.exact} (account ${budget.account.id}: ${budget.account.available.exact} left); ` +
          `approval above ${budget.threshold.exact}` +
          `${waiting.length > 0 ? `\n${waiting.length} approval(s) waiting` : ''}`
        : 'Holon: no mandate selected'
    }\n${ledger}`;
    item.command = budget ? COMMANDS.showPanel : COMMANDS.selectMandate;
    item.backgroundColor = waiting.length > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    item.show();
  };
  update();
  return vscode.Disposable.from(item, state.onDidChange(update));
}
