import * as vscode from 'vscode';
import { pendingApprovals } from '../core/approvals/flow.ts';
import type { EditorState } from './editorState.ts';
import { setupInfo } from './views.ts';

/**
 * The context keys package.json's `when` clauses read (contributes.menus.commandPalette), so that the
 * palette offers only the commands that apply now. A command stays runnable (the view's buttons and the
 * notifications run it); the palette just does not list it.
 */
export const CONTEXT_KEYS = {
  /** Something waits for a human's decision: Approve… and Reject… apply. */
  approvalsWaiting: 'holon.approvalsWaiting',
  /** The user's settings name a team store: its password commands apply. */
  teamStore: 'holon.teamStore',
  /** A personnel proposal is open: Show Personnel Proposal has one to show. */
  proposalsOpen: 'holon.proposalsOpen',
  /** A mandate exists: Edit Mandate has one to edit (and the walkthrough's second step is done). */
  hasMandates: 'holon.hasMandates',
  /** Some account has money (the walkthrough's first step). */
  hasFunds: 'holon.hasFunds',
  /** The editor's server acts for a mandate: Copilot sees "Holon · <mandate>" (the walkthrough's third step). */
  mandateSelected: 'holon.mandateSelected',
  /** Some agent was called and paid (the walkthrough's fourth step). */
  hasSpends: 'holon.hasSpends',
  /** A human approved something once (the walkthrough's fifth step). */
  approvedOnce: 'holon.approvedOnce',
} as const;

/** Keeps the context keys in step with the ledger and the settings. */
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
  };
  update();
  return state.onDidChange(update);
}
