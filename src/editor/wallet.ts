import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

/** Where versions before one wallet per state kept the editor's key: in SecretStorage, shared by every workspace. */
const OLD_SECRET = 'holon.wallet.key';

/**
 * The state's wallet, as the editor shows and keeps it. One state has one wallet: its key is in the state
 * folder (`<state>/keys/wallet.key`, core/local/wallet.ts), where every process on this state reads it — the
 * server the editor starts, `holon` in the editor's terminals, Claude Code's `holon mcp` — so the
 * address the view shows is the one that signs, whoever asks. (An editor-only key in SecretStorage made
 * the terminal sign with another wallet than the view named; handing that key to the terminals instead
 * would have put it in every shell's environment, where an agent's `env` reads it.) The key never leaves
 * the state folder: not to a server's environment, the journal or a log. The signing code (viem) loads
 * only when a wallet is read or made.
 */
export class EditorWallet implements vscode.Disposable {
  private known: string | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the state's wallet appears or changes (here, or from `holon wallet` in a terminal). */
  readonly onDidChange = this.changed.event;
  private watcher: fs.FSWatcher | undefined;

  constructor(
    private readonly dir: string,
    private readonly secrets: vscode.SecretStorage,
    /** The extension's own memory (never a workspace file): which notice was given for which state. */
    private readonly memory: vscode.Memento,
    private readonly tell: (message: string) => void,
  ) {}

  /** The state's wallet's address, once `load` found one. */
  get address(): string | undefined {
    return this.known;
  }

  /**
   * Reads the state's wallet, takes up the key an older version kept in SecretStorage when the state has
   * none, and follows the keys folder, so that a wallet `holon wallet create` makes in a terminal shows.
   */
  async load(): Promise<string | undefined> {
    try {
      await this.adoptOldKey();
    } finally {
      // An old key that cannot be taken up (the caller logs why) leaves the state's own wallet shown.
      this.follow();
      await this.refresh();
    }
    return this.known;
  }

  /** Reads the address again; fires a change when it is not the one known. */
  async refresh(): Promise<string | undefined> {
    const { stateWalletAddress } = await import('../core/local/wallet.ts');
    const address = stateWalletAddress(this.dir);
    if (address !== this.known) {
      this.known = address;
      this.changed.fire();
    }
    return address;
  }

  /** Makes a wallet for the state (no key given) or keeps the human's key as it; never replaces one. Returns the address. */
  async keep(key: string | undefined): Promise<string> {
    const { createWallet, saveWallet } = await import('../core/local/wallet.ts');
    const address = key === undefined ? createWallet(this.dir) : saveWallet(this.dir, key);
    await this.refresh();
    return address;
  }

  /**
   * The editor's wallet of older versions becomes the state's, when the state has none: the address the
   * view showed keeps signing. The key stays in SecretStorage too (every workspace shared it, and another
   * workspace's state may take it up the same way); one the state's own wallet differs from is not used,
   * and the human is told so once.
   */
  private async adoptOldKey(): Promise<void> {
    const old = await this.secrets.get(OLD_SECRET);
    if (!old) return;
    const { stateWalletAddress, saveWallet, walletFromKey } = await import('../core/local/wallet.ts');
    const mine = stateWalletAddress(this.dir);
    if (mine === undefined) {
      const address = saveWallet(this.dir, old);
      this.tell(
        `Holon: the wallet ${address} VS Code kept is now this workspace's wallet, in its state folder: the Holon view, ` +
          'its servers and `holon` in its terminals all sign with it.',
      );
      return;
    }
    let theirs: string;
    try {
      theirs = walletFromKey(old.trim() as `0x${string}`).address;
    } catch {
      return;
    }
    const told = `holon.walletNotice:${this.dir}:${theirs}`;
    if (theirs === mine || this.memory.get<boolean>(told)) return;
    await this.memory.update(told, true);
    this.tell(
      `Holon: this workspace's wallet is ${mine} (its state folder's, the one \`holon\` in its terminals signs with); ` +
        `the wallet ${theirs} VS Code kept before is not used here.`,
    );
  }

  private follow(): void {
    if (this.watcher) return;
    const keys = path.join(this.dir, 'keys');
    try {
      fs.mkdirSync(keys, { recursive: true, mode: 0o700 });
      this.watcher = fs.watch(keys, () => void this.refresh().catch(() => undefined));
    } catch {
      // No watch (a file system without it): the address is read again when the view is shown.
    }
  }

  dispose(): void {
    this.watcher?.close();
    this.changed.dispose();
  }
}
