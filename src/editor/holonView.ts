import * as vscode from 'vscode';
import { channelAccepted } from '../core/admin.ts';
import type { HolonViewState } from '../webview/protocol/holonView.ts';
import { holonViewProtocol } from '../webview/protocol/holonView.ts';
import { parse } from '../webview/protocol/messages.ts';
import { decideInEditor } from './decisions.ts';
import type { EditorState } from './editorState.ts';
import { holonViewState } from './views.ts';
import { webviewHtml, webviewRoots } from './webviewHtml.ts';
import { COMMANDS } from './commandIds.ts';

/** The id of the activity-bar view in package.json. */
export const HOLON_VIEW_ID = 'holon.view';

/**
 * The Holon view: the budget and the approvals that wait for the human. It pushes the whole state on
 * every journal change (from any process) once the view said it is ready, and acts only on validated
 * commands that a click in the view sent.
 */
export class HolonViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly state: EditorState,
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions.push(state.onDidChange(() => this.push()));
  }

  /** The state the view shows now. */
  current(): HolonViewState {
    return holonViewState(this.state.state, this.state.selected ?? null, this.state.clock.now(), channelAccepted(this.state.state, 'panel'));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    view.webview.options = { enableScripts: true, localResourceRoots: webviewRoots(this.extensionUri) };
    view.webview.html = webviewHtml(view.webview, this.extensionUri, 'holonView', 'Holon');
    this.subscriptions.push(
      view.webview.onDidReceiveMessage((m: unknown) => void this.receive(m)),
      view.onDidDispose(() => {
        this.view = undefined;
        this.ready = false;
      }),
    );
    this.updateBadge();
  }

  private async receive(message: unknown): Promise<void> {
    const cmd = parse(holonViewProtocol.command, message);
    if (!cmd) {
      this.log.warn(`Holon view: ignored a malformed message`);
      return;
    }
    switch (cmd.type) {
      case 'ready':
        this.ready = true;
        this.push();
        return;
      case 'approve':
        await decideInEditor(this.state, cmd.id, 'approved');
        return;
      case 'reject':
        await decideInEditor(this.state, cmd.id, 'rejected');
        return;
      case 'run': {
        const id = { selectMandate: COMMANDS.selectMandate, fundAccount: COMMANDS.fundAccount, showReceipts: COMMANDS.showReceipts, createMandate: COMMANDS.createMandate }[cmd.command];
        await vscode.commands.executeCommand(id);
        return;
      }
    }
  }

  private push(): void {
    this.updateBadge();
    if (!this.view || !this.ready) return;
    void this.view.webview.postMessage({ type: 'state', state: this.current() });
  }

  private updateBadge(): void {
    if (!this.view) return;
    const n = this.current().approvals.length;
    this.view.badge = n > 0 ? { value: n, tooltip: `${n} approval(s) waiting for you` } : undefined;
  }

  dispose(): void {
    for (const d of this.subscriptions.reverse()) d.dispose();
  }
}
