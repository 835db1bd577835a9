import * as vscode from 'vscode';
import { pendingApprovals } from '../core/approvals/flow.ts';
import { approvalView } from '../core/present.ts';
import { COMMANDS } from './commandIds.ts';
import { decideInEditor } from './decisions.ts';
import type { EditorState } from './editorState.ts';
import { budgetInfo } from './views.ts';

/**
 * `<mandate> · <remaining>` in the status bar, with a count while something waits for the human, and a
 * notification (Approve / Reject / Details) the first time each approval is seen.
 */
export function registerStatusBar(state: EditorState): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('holon.status', vscode.StatusBarAlignment.Left, 50);
  item.name = 'Holon';
  const notified = new Set<string>();
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
    const base = budget ? `$(shield) ${budget.mandate} · ${budget.remaining}` : '$(shield) Holon: select a mandate';
    item.text = waiting.length > 0 ? `${base}  $(bell-dot) ${waiting.length}` : base;
    item.tooltip = `${
      budget
        ? `Holon — ${budget.mandate}: spent ${budget.spent}, held ${budget.held}, ` +
          `remaining ${budget.remaining}; approval above ${budget.threshold}` +
          `${waiting.length > 0 ? `\n${waiting.length} approval(s) waiting` : ''}`
        : 'Holon: no mandate selected'
    }\n${ledger}`;
    item.command = budget ? COMMANDS.showPanel : COMMANDS.selectMandate;
    item.backgroundColor = waiting.length > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    item.show();
    for (const a of waiting) {
      if (notified.has(a.id)) continue;
      notified.add(a.id);
      const v = approvalView(a);
      notify(
        state,
        a.id,
        `Holon: ${a.mandate} asks you to approve: ${v.title}` +
          `${v.amount ? ` — up to ${v.amount}${v.threshold ? ` (threshold ${v.threshold})` : ''}` : ''}.`,
      ).catch((err: unknown) => state.logger.error(`approval notification for ${a.id}: ${String(err)}`));
    }
  };
  update();
  return vscode.Disposable.from(item, state.onDidChange(update));
}

async function notify(state: EditorState, id: string, message: string): Promise<void> {
  const answer = await vscode.window.showWarningMessage(message, 'Approve', 'Reject', 'Details');
  if (answer === 'Approve') await decideInEditor(state, id, 'approved');
  if (answer === 'Reject') await decideInEditor(state, id, 'rejected');
  if (answer === 'Details') await vscode.commands.executeCommand(COMMANDS.showPanel);
}
