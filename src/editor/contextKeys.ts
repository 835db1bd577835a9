import * as vscode from 'vscode';
import { pendingApprovals } from '../core/approvals/flow.ts';
import { CONTEXT_KEYS, WALKTHROUGH, WALKTHROUGH_STEPS } from './commandIds.ts';
import { RECEIPTS_VIEW_TYPE } from './receiptsPanel.ts';
import type { EditorState } from './editorState.ts';
import { stateContextKeys } from './stateKeys.ts';

/** Whether a receipts panel is open in any tab (a tab's view type may carry a prefix VS Code adds). */
function receiptsOpen(): boolean {
  return vscode.window.tabGroups.all.some((g) =>
    g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith(RECEIPTS_VIEW_TYPE)),
  );
}

/**
 * Marks a walkthrough step done in the workbench. A step's `onContext` event is not enough: VS Code reads
 * the walkthroughs when it first needs them (often when one is opened), and a key that was already true
 * then never ticks its step — a new browser profile on a funded state showed nothing done. The workbench's
 * own "mark step complete" command records the step as done even before the walkthrough is read.
 */
function markStepDone(step: string): void {
  // It records the step, then fails when the walkthrough is not read yet: the record is what counts.
  vscode.commands.executeCommand('welcome.markStepComplete', `${WALKTHROUGH}#${step}`).then(undefined, () => {});
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
    const step = WALKTHROUGH_STEPS[key as keyof typeof WALKTHROUGH_STEPS];
    if (value && step !== undefined) markStepDone(step);
  };
  const update = (): void => {
    const s = state.state;
    set(CONTEXT_KEYS.approvalsWaiting, pendingApprovals(s, state.clock.now()).length > 0);
    set(CONTEXT_KEYS.teamStore, state.storeInUse.kind === 'team');
    for (const [key, value] of Object.entries(stateContextKeys(s))) set(key, value);
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
