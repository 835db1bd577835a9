// A small fake of the part of VS Code's webview API a WebviewHost uses: what the host sets (options, html),
// what it posts, and a way to deliver a message from the view and wait until the host has handled it.
import type * as vscode from 'vscode';
import type { HostReport, HostedWebview, WebviewAssets, WebviewOwner } from '../../src/editor/webviewHost.ts';

/** A Uri as far as a host uses one: its text. */
export function uri(text: string): vscode.Uri {
  return { toString: () => text } as unknown as vscode.Uri;
}

type Listener<T> = (value: T) => unknown;

/** A minimal vscode.Event: listeners, and how many are still subscribed. */
class FakeEmitter<T> {
  readonly listeners = new Set<Listener<T>>();
  readonly event = ((listener: Listener<T>) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }) as unknown as vscode.Event<T>;
  /** Calls every listener; resolves once what each returned has settled. */
  async fire(value: T): Promise<void> {
    await Promise.all(Array.from(this.listeners, (l) => l(value)));
  }
}

/** The webview of a panel or view. */
export class FakeWebview implements HostedWebview {
  options: vscode.WebviewOptions = {};
  html = '';
  readonly cspSource = 'https://webview.test';
  /** What the host posted, in order (copies, as VS Code serialises them). */
  readonly posted: unknown[] = [];
  readonly received = new FakeEmitter<unknown>();
  readonly onDidReceiveMessage = this.received.event;

  asWebviewUri(local: vscode.Uri): vscode.Uri {
    return uri(`https://webview.test/${local.toString()}`);
  }

  postMessage(message: unknown): Thenable<boolean> {
    this.posted.push(structuredClone(message));
    return Promise.resolve(true);
  }

  /** Delivers a message from the view; resolves when the host's handling of it is over. */
  async send(message: unknown): Promise<void> {
    await this.received.fire(message);
  }
}

/** A panel: its webview, and its disposal. */
export class FakePanel implements WebviewOwner {
  readonly webview = new FakeWebview();
  private readonly disposed = new FakeEmitter<void>();
  readonly onDidDispose = this.disposed.event;

  async dispose(): Promise<void> {
    await this.disposed.fire();
  }
}

/** Where the fake extension's webview files are. */
export const assets: WebviewAssets = {
  roots: [uri('ext/dist/webview'), uri('ext/media')],
  script: (entry) => uri(`ext/dist/webview/${entry}.js`),
  stylesheet: uri('ext/media/holon.css'),
};

/** A report that keeps what was logged and shown. */
export class FakeReport implements HostReport {
  readonly warnings: string[] = [];
  readonly errors: string[] = [];
  readonly shown: string[] = [];
  readonly log: HostReport['log'] = {
    warn: (message: string) => {
      this.warnings.push(message);
    },
    error: (message: string) => {
      this.errors.push(message);
    },
  };
  showError(message: string): void {
    this.shown.push(message);
  }
}
