import * as vscode from 'vscode';
import { pendingApprovals } from '../core/approvals/flow.ts';
import { COMMANDS } from './commandIds.ts';
import type { EditorState } from './editorState.ts';
import { pendingApprovalView } from './views.ts';
import type { EditorWallet } from './wallet.ts';

/** Text another party chose, where a notification would read `[text](link)` as a link: its brackets become parentheses. */
function plain(text: string): string {
  return text.replace(/\[/g, '(').replace(/\]/g, ')');
}

/** The notification's buttons, in order: the first is the one VS Code draws as primary. */
const NOTICE_ACTIONS = ['Approve…', 'Reject', 'Details'] as const;

/**
 * A notification the first time each approval this installation may decide is seen, with Approve…,
 * Reject and Details as its buttons. Approve… opens the Approve command's dialog (the card's
 * presentation, and a human's click); Reject decides; Details shows the Holon view.
 *
 * It is a message notification, because only those have buttons: a progress notification (which code can
 * close) has none but Cancel, and a Cancel beside an approval reads as "cancel the call". Code cannot close
 * a message notification, so one may outlive its approval (decided in the view, a terminal, a form, or
 * expired); its buttons then say so and decide nothing (the Approve and Reject commands check first).
 */
export function registerApprovalNotices(state: EditorState, wallet: EditorWallet): vscode.Disposable {
  const seen = new Set<string>();

  const show = async (id: string): Promise<void> => {
    const a = state.state.approvals[id];
    if (!a) return;
    const p = pendingApprovalView(state.state, a, { decider: state.signer, wallet: wallet.address ?? null });
    // On a team's account, what waits for another approver is shown in the view, not announced here.
    if (!p.mayDecide) return;
    const amount = p.amount ? ` — ${p.amountLabel.toLowerCase()} ${p.amount.text}${p.threshold ? `, above ${p.threshold.text}` : ''}` : '';
    const message = `Holon: ${plain(p.askedBy)} asks you to approve: ${plain(p.title)}${amount}; expires ${p.expires}.`;
    const [approve, reject, details] = NOTICE_ACTIONS;
    const answer = await vscode.window.showWarningMessage(message, approve, reject, details);
    if (answer === approve) await vscode.commands.executeCommand(COMMANDS.approve, id);
    else if (answer === reject) await vscode.commands.executeCommand(COMMANDS.reject, id);
    else if (answer === details) await vscode.commands.executeCommand(COMMANDS.showPanel);
  };

  const update = (): void => {
    if (!state.loaded) return;
    const waiting = new Set(pendingApprovals(state.state, state.clock.now()).map((a) => a.id));
    for (const id of waiting) {
      if (seen.has(id)) continue;
      seen.add(id);
      show(id).catch((err: unknown) => state.logger.error(`the notification of approval ${id}: ${String(err)}`));
    }
  };
  update();
  return state.onDidChange(update);
}
