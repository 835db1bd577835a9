import * as vscode from 'vscode';
import { loadMandateKey } from '../core/local/mandateKey.ts';
import type { ReceiptsCommand, ReceiptsState } from '../webview/protocol/receipts.ts';
import type { EditorState } from './editorState.ts';
import type { ReceiptsFilter, SpendBar } from './views.ts';
import { receiptsState } from './views.ts';
import type { WebviewDeps } from './webviewHost.ts';
import { WebviewHost } from './webviewHost.ts';

/** The view type of the receipts panel (also its serializer's key). */
export const RECEIPTS_VIEW_TYPE = 'holon.receipts';

/**
 * The receipts panel: every spend of the accounts (calls, payments, intents, purchases), one receipt
 * tree and the recent calls of every client on this state (the editor's servers, Claude Code, the CLI),
 * of every mandate or of one; refreshed on every journal change.
 */
export class ReceiptsPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private host: WebviewHost<ReceiptsState, ReceiptsCommand> | undefined;
  /** Every mandate's spends and calls until the human narrows it; calls of every status. */
  private filter: ReceiptsFilter = { mandate: null, status: 'all' };
  private selected: string | null = null;
  /** What the panel showed before a bar of the chart narrowed it. */
  private beforeBar: ReceiptsFilter = { mandate: null, status: 'all' };
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly state: EditorState,
    private readonly webviews: WebviewDeps,
  ) {
    this.subscriptions.push(
      state.onDidChange(() => this.host?.push()),
      vscode.window.registerWebviewPanelSerializer(RECEIPTS_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel) => this.attach(panel),
      }),
    );
  }

  /**
   * Opens the panel on the spends behind one bar of the Holon view's chart (of `mandate`): until the human
   * shows every spend again, or picks another mandate.
   */
  showBar(mandate: string | null, bar: SpendBar): void {
    const known = mandate !== null && this.state.state.mandates[mandate] ? mandate : null;
    // Show All Spends goes back to what the panel showed before the bar.
    if (!this.filter.bar) this.beforeBar = this.filter;
    this.filter = { mandate: known, status: 'all', bar };
    this.selected = null;
    this.show(null);
  }

  /** Opens (or reveals) the panel on a receipt, or on the newest one. */
  show(receipt: string | null): void {
    if (receipt) this.selected = receipt;
    if (this.panel) {
      this.panel.reveal();
      this.host?.push();
      return;
    }
    this.attach(vscode.window.createWebviewPanel(RECEIPTS_VIEW_TYPE, 'Holon Receipts', vscode.ViewColumn.Active));
  }

  private attach(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    this.host = new WebviewHost({
      ...this.webviews,
      owner: panel,
      entry: 'receipts',
      title: 'Holon Receipts',
      name: 'receipts panel',
      protocol: async () => (await import('../webview/protocol/receipts.ts')).receiptsProtocol,
      state: () => this.current(),
      handle: (command) => {
        switch (command.type) {
          case 'select':
            this.selected = command.id;
            return;
          case 'filter':
            this.filter = { ...this.filter, status: command.filter };
            return;
          case 'mandate':
            // Only a mandate this state has: anything else the view sent narrows nothing.
            if (command.mandate === null || this.state.state.mandates[command.mandate])
              this.filter = { ...this.filter, mandate: command.mandate, bar: null };
            return;
          case 'clearNarrow':
            this.filter = { ...this.beforeBar, bar: null };
            return;
        }
      },
    });
    panel.onDidDispose(() => {
      if (this.panel !== panel) return;
      this.panel = undefined;
      this.host = undefined;
    });
  }

  /** The state the panel shows now. */
  async current(): Promise<ReceiptsState> {
    // The human's key, from the state folder: every chain of consent is re-verified against it.
    const human = loadMandateKey(this.state.dir)?.publicJwk;
    return receiptsState(await this.state.store(), this.filter, this.selected, 50, this.state.clock.now(), human);
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.subscriptions.reverse()) d.dispose();
  }
}
