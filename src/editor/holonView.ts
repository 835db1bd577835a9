import * as vscode from 'vscode';
import { loadMandateKey } from '../core/local/mandateKey.ts';
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
import { chainSettings } from './settings.ts';
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
  /** What the wallet holds on the configured chain, as last read (reading is async; the view shows the last). */
  private holdings: HolonViewState['holdings'] = null;
  private reading = false;

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
        // A payment may have moved the wallet's money: read it again.
        this.readHoldings();
      }),
      wallet.onDidChange(() => {
        this.host?.push();
        this.readHoldings();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('holon.chain')) this.readHoldings();
      }),
    );
  }

  /** Reads the wallet's balances on the chain the human configured, then shows them (or why they could not be read). */
  private readHoldings(): void {
    const address = this.wallet.address;
    const { config, error } = chainSettings();
    if (!address || !config) {
      this.holdings = address && error ? { network: 'the chain', token: '', native: '', error } : null;
      this.host?.push();
      return;
    }
    if (this.reading || !this.host) return;
    this.reading = true;
    // viem's client is loaded when a balance is first read (from dist/holon.js, esbuild.mjs's LAZY), never on activation.
    import('../core/rails/chain.ts')
      .then(({ chainReader, walletBalances }) => walletBalances(chainReader(config), address))
      .then(
        (b) => {
          this.holdings = {
            network: b.network,
            token: `${b.token.amount} ${b.token.currency}`,
            native: `${b.native.amount} ETH`,
            error: null,
          };
        },
        (err: unknown) => {
          this.holdings = {
            network: config.network,
            token: '',
            native: '',
            error: `its balances could not be read: ${(err as Error).message}`,
          };
        },
      )
      .finally(() => {
        this.reading = false;
        this.host?.push();
      });
  }

  /** The state the view shows now. */
  current(): HolonViewState {
    const s = this.state;
    // The public half only: the private key never leaves the state folder's file.
    const key = loadMandateKey(s.dir)?.publicJwk;
    const mandateKey = key ? { kid: key.kid, jwk: JSON.stringify(key) } : null;
    return {
      mandateKey,
      ...holonViewState(
        s.state,
        s.selected ?? null,
        s.clock.now(),
        channelAccepted(s.state, 'panel'),
        this.wallet.address ?? null,
        s.signer,
        storeInfo(s.storeInUse, s.storeFailure, !s.loaded),
        this.holdings,
      ),
    };
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
    this.readHoldings();
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
