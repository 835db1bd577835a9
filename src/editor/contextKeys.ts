import * as vscode from 'vscode';
import { pendingApprovals } from '../core/approvals/flow.ts';
import { CONTEXT_KEYS } from './commandIds.ts';
import { RECEIPTS_VIEW_TYPE } from './receiptsPanel.ts';
import type { EditorState } from './editorState.ts';
import { setupInfo } from './views.ts';

/** Whether a receipts panel is open in any tab (a tab's view type may carry a prefix VS Code adds). */
function receiptsOpen(): boolean {
  return vscode.window.tabGroups.all.some((g) =>
    g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith(RECEIPTS_VIEW_TYPE)),
  );
}

/**
 * Keeps the context keys in step with the ledger, the settings and the host's record. The walkthrough's
 * ticks are these keys, so they come from the workspace's state each time the extension starts, never
 * from what one browser remembers.
 */
export function registerContextKeys(state: EditorState): vscode.Disposable {
  const last = new Map<string, boolean>();
  const set = (key: string, value: boolean): void => {
    if (last.get(key) === value) return;
    last.set(key, value);
    void vscode.commands.executeCommand('setContext', key, value);
  };
  const update = (): void => {
    const s = state.state;
    set(CONTEXT_KEYS.approvalsWaiting, pendingApprovals(s, state.clock.now()).length > 0);
    set(CONTEXT_KEYS.teamStore, state.storeInUse.kind === 'team');
    set(
      CONTEXT_KEYS.proposalsOpen,
      Object.values(s.office.proposals).some((p) => p.status === 'open'),
    );
    set(CONTEXT_KEYS.hasMandates, Object.keys(s.mandates).length > 0);
    set(CONTEXT_KEYS.hasFunds, setupInfo(s).funded);
    set(CONTEXT_KEYS.mandateSelected, state.selected !== undefined && s.mandates[state.selected] !== undefined);
    // What happened once stays done: the journal only grows, so these are read until they are true, then never again.
    if (!last.get(CONTEXT_KEYS.hasSpends))
      set(
        CONTEXT_KEYS.hasSpends,
        Object.values(s.activity.spends).some((list) => list.length > 0),
      );
    if (!last.get(CONTEXT_KEYS.approvedOnce))
      set(
        CONTEXT_KEYS.approvedOnce,
        Object.values(s.approvals).some((a) => a.status === 'approved' || a.status === 'used'),
      );
    set(CONTEXT_KEYS.receiptsShown, state.receiptsShown);
  };
  // However the receipts were opened (the command, the view's links, a restored tab), the human saw them.
  const watchTabs = (): void => {
    if (!state.receiptsShown && receiptsOpen()) state.markReceiptsShown();
  };
  update();
  watchTabs();
  return vscode.Disposable.from(state.onDidChange(update), vscode.window.tabGroups.onDidChangeTabs(watchTabs));
}
