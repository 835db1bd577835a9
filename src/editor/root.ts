import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../core/kernel/deps.ts';
import { registerApprovalNotices } from './approvalNotices.ts';
import { registerCommands } from './commands.ts';
import { registerContextKeys } from './contextKeys.ts';
import { EditorState } from './editorState.ts';
import { HOLON_VIEW_ID, HolonViewProvider } from './holonView.ts';
import { MandateEditorPanels } from './mandateEditorPanel.ts';
import { registerProvider } from './provider.ts';
import { ProposalPanels } from './proposalPanel.ts';
import { ReceiptsPanel } from './receiptsPanel.ts';
import { registerStatusBar } from './statusBar.ts';
import type { StoreInUse } from './storeSetting.ts';
import { registerTeamStore } from './teamStore.ts';
import { registerTerminals } from './terminals.ts';
import { EditorWallet } from './wallet.ts';
import { webviewAssets } from './webviewAssets.ts';
import type { WebviewDeps } from './webviewHost.ts';

/**
 * The composition root: everything the extension runs, created in order and disposed in reverse.
 * Returns the one disposable extension.ts pushes.
 */
/** What the extension exports to other extensions (and its own tests). */
export interface HolonApi {
  /** The state folder this window's servers, panel and terminals share. */
  stateDir: string;
  /** Which store the ledger is in now: this workspace's journal, or the team store of `holon.store`. */
  storeInUse(): StoreInUse;
  /** Resolves once the ledger has loaded (rejects when the chosen store cannot be opened). */
  loaded(): Promise<void>;
}

export function activateHolon(context: vscode.ExtensionContext): { disposable: vscode.Disposable; api: HolonApi } {
  const started = Date.now();
  const log = vscode.window.createOutputChannel('Holon', { log: true });
  const logger: Logger = { info: (m) => log.info(m), warn: (m) => log.warn(m), error: (m) => log.error(m) };
  const holonJs = context.asAbsolutePath(path.join('dist', 'holon.js'));
  const demoCatalog = context.asAbsolutePath(path.join('dist', 'examples', 'catalog.json'));
  const state = new EditorState(context, logger);
  const wallet = new EditorWallet(state.dir, context.secrets, context.globalState, (message) => {
    vscode.window.showInformationMessage(message).then(undefined, () => undefined);
  });
  // Read after activation returns, like the journal: the view shows the address once it is known.
  wallet.load().catch((err: unknown) => log.error(`could not read the wallet: ${String(err)}`));
  const disposables: vscode.Disposable[] = [log, state, wallet];
  state.syncChannels().catch((err: unknown) => log.error(`could not record approval channels: ${String(err)}`));
  const webviews: WebviewDeps = {
    assets: webviewAssets(context.extensionUri),
    report: {
      log,
      showError: (message) => {
        vscode.window.showErrorMessage(message).then(undefined, (err: unknown) => log.error(`could not show "${message}": ${String(err)}`));
      },
    },
  };
  const receipts = new ReceiptsPanel(state, webviews);
  const mandateEditor = new MandateEditorPanels(state, webviews);
  const proposals = new ProposalPanels(state, webviews);
  const view = new HolonViewProvider(state, webviews, wallet, proposals);
  disposables.push(
    receipts,
    mandateEditor,
    proposals,
    view,
    vscode.window.registerWebviewViewProvider(HOLON_VIEW_ID, view),
    registerProvider(state, holonJs, wallet),
    registerCommands({ state, wallet, holonJs, demoCatalog, receipts, mandateEditor, proposals, secrets: context.secrets, log }),
    registerStatusBar(state),
    registerApprovalNotices(state, wallet),
    registerContextKeys(state),
    registerTeamStore(state, context.secrets, log),
    registerTerminals(context, state, holonJs),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('holon.approvals'))
        state.syncChannels().catch((err: unknown) => log.error(`could not record approval channels: ${String(err)}`));
    }),
  );
  log.info(`Holon activated in ${Date.now() - started} ms; state in ${state.dir}`);
  const disposable = new vscode.Disposable(() => {
    for (const d of disposables.reverse()) d.dispose();
  });
  return {
    disposable,
    api: { stateDir: state.dir, storeInUse: () => state.storeInUse, loaded: () => state.store().then(() => undefined) },
  };
}
