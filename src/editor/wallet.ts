import * as vscode from 'vscode';

const SECRET = 'holon.wallet.key';

/**
 * The human's wallet in the editor: its key in VS Code's SecretStorage (the OS keychain), never in a
 * file, the journal or the workspace. The server the editor starts gets it in its environment, and drops
 * it from there at once. The signing code (viem) loads only when a wallet is made or read.
 */
export class EditorWallet implements vscode.Disposable {
  private known: string | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when a wallet is created or imported. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly secrets: vscode.SecretStorage) {}

  /** The wallet's address, once `load` found one. */
  get address(): string | undefined {
    return this.known;
  }

  /** Reads the key from SecretStorage and derives its address. */
  async load(): Promise<string | undefined> {
    const key = await this.secrets.get(SECRET);
    if (!key) return undefined;
    const { walletFromKey } = await import('../core/wallet.ts');
    this.known = walletFromKey(key as `0x${string}`).address;
    this.changed.fire();
    return this.known;
  }

  /** The key, for the server the editor starts. */
  key(): Thenable<string | undefined> {
    return this.secrets.get(SECRET);
  }

  /** Keeps a new key (made here, or one the human pasted); never replaces one. Returns the address. */
  async keep(key: string | undefined): Promise<string> {
    if (await this.secrets.get(SECRET)) throw new Error('this window already has a wallet; Holon never replaces one');
    const { walletFromKey, newPrivateKey } = await import('../core/wallet.ts');
    const k = (key ?? newPrivateKey()).trim();
    if (!/^0x[0-9a-fA-F]{64}$/.test(k)) throw new Error('a private key is 0x and 64 hex digits');
    const address = walletFromKey(k as `0x${string}`).address;
    await this.secrets.store(SECRET, k);
    this.known = address;
    this.changed.fire();
    return address;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
