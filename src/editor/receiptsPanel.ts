import * as vscode from 'vscode';
import { parse } from '../webview/protocol/messages.ts';
import type { ReceiptsState } from '../webview/protocol/receipts.ts';
import { receiptsProtocol } from '../webview/protocol/receipts.ts';
import type { EditorState } from './editorState.ts';
import { receiptsState } from './views.ts';
import { webviewHtml, webviewRoots } from './webviewHtml.ts';

/** The view type of the receipts panel (also its serializer's key). */
export const RECEIPTS_VIEW_TYPE = 'holon.receipts';

/**
 * The receipts panel: one receipt tree and the recent calls of every client on this state (the editor's
 * servers, Claude Code, the CLI), refreshed on every journal change.
 */
export class ReceiptsPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private ready = false;
  private filter: ReceiptsState['filter'] = 'all';
  private selected: string | null = null;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly state: EditorState,
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions.push(
      state.onDidChange(() => this.push()),
      vscode.window.registerWebviewPanelSerializer(RECEIPTS_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel) => this.attach(panel),
      }),
    );
  }

  /** Opens (or reveals) the panel on a receipt, or on the newest one. */
  show(receipt: string | null): void {
    if (receipt) this.selected = receipt;
    if (this.panel) {
      this.panel.reveal();
      this.push();
      return;
    }
    const panel = vscode.window.createWebviewPanel(RECEIPTS_VIEW_TYPE, 'Holon Receipts', vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: webviewRoots(this.extensionUri),
    });
    this.attach(panel);
  }

  private attach(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    this.ready = false;
    panel.webview.options = { enableScripts: true, localResourceRoots: webviewRoots(this.extensionUri) };
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, 'receipts', 'Holon Receipts');
    const listeners = [
      panel.webview.onDidReceiveMessage((m: unknown) => this.receive(m)),
      panel.onDidDispose(() => {
        this.panel = undefined;
        this.ready = false;
        for (const l of listeners) l.dispose();
      }),
    ];
  }

  private receive(message: unknown): void {
    const cmd = parse(receiptsProtocol.command, message);
    if (!cmd) {
      this.log.warn('Receipts panel: ignored a malformed message');
      return;
    }
    if (cmd.type === 'ready') this.ready = true;
    if (cmd.type === 'select') this.selected = cmd.id;
    if (cmd.type === 'filter') this.filter = cmd.filter;
    this.push();
  }

  /** The state the panel shows now. */
  current(): ReceiptsState {
    return receiptsState(this.state.state, this.filter, this.selected);
  }

  private push(): void {
    if (!this.panel || !this.ready) return;
    void this.panel.webview.postMessage({ type: 'state', state: this.current() });
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.subscriptions.reverse()) d.dispose();
  }
}
