import * as vscode from 'vscode';
import { channelAccepted } from '../core/approvals/flow.ts';
import type { HolonViewCommand, HolonViewState } from '../webview/protocol/holonView.ts';
import type { ReadyCommand } from '../webview/protocol/messages.ts';
import { COMMANDS } from './commandIds.ts';
import { decideInEditor } from './decisions.ts';
import type { EditorState } from './editorState.ts';
import type { EditorWallet } from './wallet.ts';
import type { ProposalPanels } from './proposalPanel.ts';
import { artifactFile } from './artifacts.ts';
import { holonViewState, proposalOfApproval, storeInfo } from './views.ts';
import type { WebviewDeps } from './webviewHost.ts';
import { WebviewHost } from './webviewHost.ts';

/** The id of the activity-bar view in package.json. */
export const HOLON_VIEW_ID = 'holon.view';

/**
 * The Holon view: the budget and the approvals that wait for the human, with a badge counting them. It
 * pushes the whole state on every journal change (from any process), and acts only on commands that a
 * click in the view sent.
 */
export class HolonViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private host: WebviewHost<HolonViewState, HolonViewCommand> | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly state: EditorState,
    private readonly webviews: WebviewDeps,
    private readonly wallet: EditorWallet,
    private readonly proposals: ProposalPanels,
  ) {
    this.subscription = vscode.Disposable.from(
      state.onDidChange(() => {
        this.host?.push();
        this.updateBadge();
      }),
      wallet.onDidChange(() => this.host?.push()),
    );
  }

  /** The state the view shows now. */
  current(): HolonViewState {
    const s = this.state;
    return holonViewState(
      s.state,
      s.selected ?? null,
      s.clock.now(),
      channelAccepted(s.state, 'panel'),
      this.wallet.address ?? null,
      s.signer,
      storeInfo(s.storeInUse, s.storeFailure),
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.host?.dispose();
    this.view = view;
    this.host = new WebviewHost({
      ...this.webviews,
      owner: view,
      entry: 'holonView',
      title: 'Holon',
      name: 'Holon view',
      protocol: async () => (await import('../webview/protocol/holonView.ts')).holonViewProtocol,
      state: () => this.current(),
      handle: (command) => this.handle(command),
    });
    // A wallet made at a terminal (`holon wallet create`) shows when the view does, if no watch saw it.
    this.wallet.refresh().catch(() => undefined);
    view.onDidDispose(() => {
      if (this.view !== view) return;
      this.view = undefined;
      this.host = undefined;
    });
    this.updateBadge();
  }

  private async handle(command: Exclude<HolonViewCommand, ReadyCommand>): Promise<void> {
    switch (command.type) {
      case 'approve':
        await decideInEditor(this.state, command.id, 'approved');
        return;
      case 'reject':
        await decideInEditor(this.state, command.id, 'rejected');
        return;
      case 'run':
        await vscode.commands.executeCommand(COMMANDS[command.command]);
        return;
      case 'openArtifact': {
        const file = artifactFile(this.state.state, command.id, vscode.workspace.workspaceFolders?.[0]?.uri);
        if (file) await vscode.commands.executeCommand('vscode.open', file);
        return;
      }
      case 'openSpend':
        await vscode.commands.executeCommand(COMMANDS.showReceipts, {
          mandate: this.state.selected ?? null,
          day: command.day,
          payee: command.payee,
        });
        return;
      case 'openProposal': {
        const proposal = proposalOfApproval(this.state.state, command.id);
        if (proposal) this.proposals.show(proposal);
        return;
      }
    }
  }

  private updateBadge(): void {
    if (!this.view) return;
    // On a team's account, what waits for someone else's decision is shown but not counted.
    const n = this.current().approvals.filter((a) => a.mayDecide).length;
    this.view.badge = n > 0 ? { value: n, tooltip: `${n} approval(s) waiting for you` } : undefined;
  }

  dispose(): void {
    this.host?.dispose();
    this.subscription.dispose();
  }
}
