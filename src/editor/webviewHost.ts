// The host side of every webview, written once: the HTML shell and its CSP, the ready handshake, state
// pushes, validation of what the view sends, and catching whatever a handler throws. It imports `vscode`
// for types only, so unit tests run it against a small fake of the webview.
import { randomBytes } from 'node:crypto';
import type * as vscode from 'vscode';
import { HolonError } from '../core/kernel/errors.ts';
import type { PanelProtocol, ReadyCommand, StateNotification } from '../webview/protocol/messages.ts';

/** The part of a webview a host uses. */
export type HostedWebview = Pick<vscode.Webview, 'options' | 'html' | 'cspSource' | 'asWebviewUri' | 'postMessage' | 'onDidReceiveMessage'>;

/** A webview panel or view: its webview, and when it goes away. */
export interface WebviewOwner {
  readonly webview: HostedWebview;
  readonly onDidDispose: vscode.Event<void>;
}

/** Where the webviews' files are (see webviewAssets.ts). */
export interface WebviewAssets {
  /** Everything a webview may load from. */
  roots: vscode.Uri[];
  /** The bundle of one panel. */
  script(entry: string): vscode.Uri;
  /** The shared stylesheet. */
  stylesheet: vscode.Uri;
}

/** Where a host reports a failure: the details to the log, one sentence to the human. */
export interface HostReport {
  log: Pick<vscode.LogOutputChannel, 'warn' | 'error'>;
  showError(message: string): void;
}

/** What every panel's host needs from the composition root. */
export interface WebviewDeps {
  assets: WebviewAssets;
  report: HostReport;
}

/** One panel's host. */
export interface WebviewHostOptions<S, C extends { type: string }> extends WebviewDeps {
  owner: WebviewOwner;
  /** The panel's bundle, dist/webview/<entry>.js. */
  entry: string;
  /** The page's title. */
  title: string;
  /** How the human calls the panel in a message: "Holon view", "receipts panel". */
  name: string;
  /**
   * The panel's protocol, loaded when the first message arrives: its schemas (zod) are not needed to
   * activate the extension, only to check what a view sends.
   */
  protocol: () => Promise<PanelProtocol<S, C>>;
  /** The state the view should show now (read back from the journal, it may take a moment). */
  state(): S | Promise<S>;
  /** Acts on one well-formed command of the human (never `ready`: the host answers that itself). */
  handle(command: Exclude<C, ReadyCommand>): void | Promise<void>;
}

/**
 * Serves one webview: sets its HTML, validates every message it sends with the panel's protocol, pushes
 * the state once the view said it is ready (and after each command, so the view sees what the command
 * did), and runs each command inside a catch. Stops listening when its owner is disposed.
 */
export class WebviewHost<S, C extends { type: string }> implements vscode.Disposable {
  private ready = false;
  private disposed = false;
  /** Pushes asked for, and the newest whose state was posted. */
  private requested = 0;
  private posted = 0;
  private readonly listeners: vscode.Disposable[];

  constructor(private readonly options: WebviewHostOptions<S, C>) {
    const { owner, assets } = options;
    owner.webview.options = { enableScripts: true, localResourceRoots: assets.roots };
    owner.webview.html = webviewHtml(owner.webview, assets, options.entry, options.title);
    this.listeners = [
      // The listener returns the handling's promise, which never rejects: everything is caught in receive.
      owner.webview.onDidReceiveMessage((message: unknown) => this.receive(message)),
      owner.onDidDispose(() => this.dispose()),
    ];
  }

  /**
   * Sends the current state, if the view is listening (a message posted before `ready` may be lost). A
   * state read from disk arrives later: one built for an older push never replaces a newer one.
   */
  push(): void {
    if (!this.ready || this.disposed) return;
    const { log } = this.options.report;
    const n = ++this.requested;
    const failed = (err: unknown): void => log.error(`${this.options.name}: could not build the state: ${details(err)}`);
    let built: S | Promise<S>;
    try {
      built = this.options.state();
    } catch (err) {
      return failed(err);
    }
    if (built instanceof Promise) built.then((state) => this.post(n, state), failed);
    else this.post(n, built);
  }

  private post(n: number, state: S): void {
    if (this.disposed || n <= this.posted) return;
    this.posted = n;
    const message: StateNotification<S> = { type: 'state', state };
    this.options.owner.webview
      .postMessage(message)
      .then(undefined, (err: unknown) => this.options.report.log.warn(`${this.options.name}: the state was not delivered: ${String(err)}`));
  }

  private async receive(message: unknown): Promise<void> {
    const { report, name } = this.options;
    const [protocol, { parse }] = await Promise.all([this.options.protocol(), import('../webview/protocol/messages.ts')]);
    const command = parse(protocol.command, message);
    if (command === undefined) {
      report.log.warn(`${name}: ignored a malformed message`);
      return;
    }
    if (command.type === 'ready') {
      this.ready = true;
    } else {
      try {
        await this.options.handle(command as Exclude<C, ReadyCommand>);
      } catch (err) {
        report.log.error(`${name}: ${command.type} failed: ${details(err)}`);
        const reason = HolonError.is(err)
          ? err.message
          : `${err instanceof Error ? err.message : String(err)} (details in the Holon output)`;
        report.showError(`Holon: could not ${command.type} in the ${name}: ${reason}`);
      }
    }
    this.push();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const l of this.listeners.reverse()) l.dispose();
  }
}

function details(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/**
 * The HTML shell of a webview: a strict CSP (no inline script but the nonce'd bundles, styles only from
 * the extension and the elements' constructed style sheets), the shared stylesheet, and one root. The
 * libraries every page uses come first, in their own bundle (esbuild.mjs), then the page's.
 */
/** The bundle of the libraries every page shares (dist/webview/shared.js). */
const SHARED_SCRIPT = 'shared';

function webviewHtml(webview: HostedWebview, assets: WebviewAssets, entry: string, title: string): string {
  const nonce = randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${webview.asWebviewUri(assets.stylesheet).toString()}">
<title>${title}</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${webview.asWebviewUri(assets.script(SHARED_SCRIPT)).toString()}"></script>
<script nonce="${nonce}" src="${webview.asWebviewUri(assets.script(entry)).toString()}"></script>
</body>
</html>`;
}
