import * as vscode from 'vscode';
import { pendingApprovals } from '../core/approvals/flow.ts';
import { COMMANDS } from './commandIds.ts';
import type { EditorState } from './editorState.ts';
import { budgetInfo, countdown, localTime } from './views.ts';

/**
 * `<mandate> · <remaining>` in the status bar, with a count while something waits for the human, and the
 * time left before the first of them expires, counted down each second while anything waits.
 */
export function registerStatusBar(state: EditorState): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('holon.status', vscode.StatusBarAlignment.Left, 50);
  item.name = 'Holon';
  let ticking: ReturnType<typeof setInterval> | undefined;
  const tick = (on: boolean): void => {
    if (on && ticking === undefined) ticking = setInterval(update, 1000);
    if (!on && ticking !== undefined) {
      clearInterval(ticking);
      ticking = undefined;
    }
  };
  const update = (): void => {
    const where = state.storeInUse;
    // A team store is worth a line (others share it); this workspace's own journal, the default, goes unsaid
    // as in the Holon view: "Ledger: this workspace's journal" told a newcomer nothing.
    const ledger = where.kind === 'team' ? `\nTeam store: ${where.label}` : '';
    const failure = state.storeFailure;
    if (failure !== undefined) {
      tick(false);
      item.text = '$(error) Holon';
      item.tooltip = `Holon: ${failure}`;
      item.command = COMMANDS.showPanel;
      item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
      item.show();
      return;
    }
    if (!state.loaded) {
      tick(false);
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
    // The approval that expires first: when it does, the agent is told to ask again.
    const first = waiting.reduce<(typeof waiting)[number] | undefined>(
      (a, b) => (a === undefined || b.expires_at < a.expires_at ? b : a),
      undefined,
    );
    const left = first ? countdown(Date.parse(first.expires_at) - now) : '';
    item.text = first ? `${base}  $(bell-dot) ${waiting.length} · $(watch) ${left}` : base;
    tick(first !== undefined);
    // The tooltip has room for the exact amounts; the bar shows the currency's precision.
    item.tooltip = `${
      budget
        ? `Holon — ${budget.mandate}: spent ${budget.spent.exact}, held ${budget.held.exact}, ` +
          `remaining ${budget.remaining.exact} (account ${budget.account.id}: ${budget.account.available.exact} left); ` +
          `approval above ${budget.threshold.exact}` +
          `${first ? `\n${waiting.length} approval(s) waiting; the first expires in ${left} (${localTime(first.expires_at)})` : ''}`
        : 'Holon: no mandate selected'
    }${ledger}`;
    item.command = budget ? COMMANDS.showPanel : COMMANDS.selectMandate;
    item.backgroundColor = waiting.length > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    item.show();
  };
  update();
  return vscode.Disposable.from(item, state.onDidChange(update), { dispose: () => tick(false) });
}
