import * as vscode from 'vscode';
import { pendingApprovals } from '../core/approvals/flow.ts';
import { COMMANDS } from './commandIds.ts';
import type { EditorState } from './editorState.ts';
import { pendingApprovalView } from './views.ts';
import type { EditorWallet } from './wallet.ts';

/** The longest a timer may wait (setTimeout's limit); an approval lives far less. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Text another party chose, where a notification would read `[text](link)` as a link: its brackets become parentheses. */
function plain(text: string): string {
  return text.replace(/\[/g, '(').replace(/\]/g, ')');
}

/** A link that runs one of Holon's commands, with its arguments, in a notification's message. */
function commandLink(label: string, command: string, args?: unknown[]): string {
  return `[${label}](command:${command}${args ? `?${encodeURIComponent(JSON.stringify(args))}` : ''})`;
}

/**
 * A notification the first time each approval this installation may decide is seen, which closes as soon
 * as the approval stops waiting: decided anywhere (the view, this notification, an elicitation form, a
 * terminal), or expired.
 *
 * VS Code cannot close a message notification (showWarningMessage) from code: one stayed up after its
 * approval was decided in the view, and its Approve then answered "already used". A progress notification
 * (withProgress) closes when its task ends, so each approval's notification is a cancellable progress
 * notification whose task ends when the approval stops waiting. A progress notification has no buttons
 * but Cancel, which closes it and decides nothing; its actions are links in its message: Approve… opens
 * the Approve command's dialog (the card's presentation, and a human's click), Reject decides, Details
 * shows the Holon view.
 */
export function registerApprovalNotices(state: EditorState, wallet: EditorWallet): vscode.Disposable {
  /** Approval id → what closes its notification. */
  const open = new Map<string, () => void>();
  const seen = new Set<string>();

  const show = (id: string): void => {
    const a = state.state.approvals[id];
    if (!a) return;
    const p = pendingApprovalView(state.state, a, { decider: state.signer, wallet: wallet.address ?? null });
    // On a team's account, what waits for another approver is shown in the view, not announced here.
    if (!p.mayDecide) return;
    const amount = p.amount ? ` — ${p.amountLabel.toLowerCase()} ${p.amount.text}${p.threshold ? `, above ${p.threshold.text}` : ''}` : '';
    const actions = [
      commandLink('Approve…', COMMANDS.approve, [id]),
      commandLink('Reject', COMMANDS.reject, [id]),
      commandLink('Details', COMMANDS.showPanel),
    ].join(' · ');
    const options = {
      location: vscode.ProgressLocation.Notification,
      title: `Holon: ${plain(p.askedBy)} asks you to approve`,
      cancellable: true,
    };
    void vscode.window.withProgress(options, (progress, token) => {
      progress.report({ message: `${plain(p.title)}${amount}; expires ${p.expires}. ${actions}` });
      return new Promise<void>((resolve) => {
        const left = Date.parse(p.expiresAt) - state.clock.now();
        const done = (): void => {
          clearTimeout(expiry);
          if (open.get(id) === done) open.delete(id);
          resolve();
        };
        // An approval that expires unanswered stops waiting without any event: its notification closes on time.
        const expiry = setTimeout(done, Math.max(0, Math.min(left, MAX_TIMER_MS)));
        open.set(id, done);
        token.onCancellationRequested(done);
      });
    });
  };

  const update = (): void => {
    if (!state.loaded) return;
    const waiting = new Set(pendingApprovals(state.state, state.clock.now()).map((a) => a.id));
    for (const [id, close] of [...open]) if (!waiting.has(id)) close();
    for (const id of waiting) {
      if (seen.has(id)) continue;
      seen.add(id);
      show(id);
    }
  };
  update();
  return vscode.Disposable.from(state.onDidChange(update), {
    dispose: () => {
      for (const close of [...open.values()]) close();
    },
  });
}
