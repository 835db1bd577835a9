import * as vscode from 'vscode';
import { channelAccepted } from '../core/approvals/flow.ts';
import type { ProposalCommand, ProposalState } from '../webview/protocol/proposal.ts';
import { decideInEditor } from './decisions.ts';
import type { EditorState } from './editorState.ts';
import { proposalState } from './views.ts';
import type { WebviewDeps } from './webviewHost.ts';
import { WebviewHost } from './webviewHost.ts';

/** The view type of the personnel change diff panel. */
export const PROPOSAL_VIEW_TYPE = 'holon.proposal';

/**
 * Personnel change diff panels, one per proposal: what an agent proposes for a colleague's personnel
 * file, removals first and in red, the file side by side, and Merge / Reject. Merging is the human's
 * decision on the proposal's approval (the panel channel); the core applies it to the mandate.
 */
export class ProposalPanels implements vscode.Disposable {
  private readonly open = new Map<string, { panel: vscode.WebviewPanel; host: WebviewHost<ProposalState, ProposalCommand> }>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly state: EditorState,
    private readonly webviews: WebviewDeps,
  ) {
    this.subscription = state.onDidChange(() => {
      for (const { host } of this.open.values()) host.push();
    });
  }

  /** Opens (or reveals) the panel of a proposal. */
  show(proposal: string): void {
    const known = this.open.get(proposal);
    if (known) {
      known.panel.reveal();
      return;
    }
    const p = this.state.state.office.proposals[proposal];
    const panel = vscode.window.createWebviewPanel(
      PROPOSAL_VIEW_TYPE,
      p ? `Proposal: ${p.slug}` : 'Holon Proposal',
      vscode.ViewColumn.Active,
    );
    const host = new WebviewHost<ProposalState, ProposalCommand>({
      ...this.webviews,
      owner: panel,
      entry: 'proposal',
      title: 'Holon Proposal',
      name: 'proposal panel',
      protocol: async () => (await import('../webview/protocol/proposal.ts')).proposalProtocol,
      state: () => proposalState(this.state.state, proposal, this.state.clock.now(), channelAccepted(this.state.state, 'panel')),
      handle: async (command) => {
        // Only the approval of the proposal this panel shows can be decided from it.
        if (this.state.state.office.proposals[proposal]?.approval !== command.approval) return;
        await decideInEditor(this.state, command.approval, command.type === 'merge' ? 'approved' : 'rejected');
      },
    });
    this.open.set(proposal, { panel, host });
    panel.onDidDispose(() => {
      host.dispose();
      this.open.delete(proposal);
    });
  }

  dispose(): void {
    for (const { panel } of [...this.open.values()]) panel.dispose();
    this.subscription.dispose();
  }
}
