import * as vscode from 'vscode';
import { setApprovalChannels } from '../core/approvals/flow.ts';
import type { Clock, Logger } from '../core/deps.ts';
import { systemClock } from '../core/deps.ts';
import { openState } from '../core/holon.ts';
import { lazySigner } from '../core/keys.ts';
import { recoverOrphanedHolds } from '../core/spend.ts';
import type { HolonState } from '../core/state.ts';
import { initialState } from '../core/state.ts';
import type { EventStore, Signer } from '../core/store.ts';
import type { ApprovalConfig } from './settings.ts';
import { approvalConfig } from './settings.ts';

const SELECTED = 'holon.selectedMandate';

/**
 * The editor's view of one state folder (workspace storage): the journal, tailed so that a change
 * appended by any process (a server, the CLI) fires `onDidChange`; and the selected mandate, kept in
 * workspace state — never in a workspace file an agent could edit.
 *
 * The journal is opened after activation returns, so that activating costs the same whatever the
 * journal's size; until then the state is empty, and `onDidChange` fires once it has loaded.
 */
export class EditorState implements vscode.Disposable {
  readonly dir: string;
  readonly clock: Clock = systemClock;
  /** The installation key of this state folder: the human's decisions in the editor are signed with it. */
  readonly signer: Signer;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires after any change to the journal or to the selection, and once the journal has loaded. */
  readonly onDidChange = this.changed.event;
  private opened: EventStore<HolonState> | undefined;
  private readonly empty = initialState();
  private readonly loading: Promise<EventStore<HolonState>>;
  private readonly closers: (() => void)[] = [];
  private disposed = false;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly logger: Logger,
  ) {
    this.dir = (context.storageUri ?? context.globalStorageUri).fsPath;
    this.signer = lazySigner(this.dir);
    this.loading = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      if (this.disposed) throw new Error('Holon was deactivated before its state loaded');
      const store = openState(this.dir, { clock: this.clock, logger });
      this.opened = store;
      this.closers.push(store.subscribe(() => this.changed.fire()), recoverOrphanedHolds(store, logger), () => store.close());
      this.changed.fire();
      return store;
    });
    this.loading.catch((err: unknown) => logger.error(`could not open the state in ${this.dir}: ${(err as Error).message}`));
  }

  /** The store, once the journal has loaded. */
  store(): Promise<EventStore<HolonState>> {
    return this.loading;
  }

  /** True once the journal has loaded. */
  get loaded(): boolean {
    return this.opened !== undefined;
  }

  /** The latest state (empty until the journal has loaded). */
  get state(): HolonState {
    return this.opened?.state ?? this.empty;
  }

  /** The selected mandate, if it still exists. */
  get selected(): string | undefined {
    const id = this.context.workspaceState.get<string>(SELECTED);
    return id && this.state.mandates[id] ? id : undefined;
  }

  async select(id: string | undefined): Promise<void> {
    await this.context.workspaceState.update(SELECTED, id);
    this.changed.fire();
  }

  /** Which channels the human accepts, and how long a server waits (the user's settings only). */
  approvalConfig(): ApprovalConfig {
    return approvalConfig();
  }

  /** Writes the accepted channels into the journal, where `holon approve` and the servers read them. */
  async syncChannels(): Promise<void> {
    await setApprovalChannels(await this.store(), this.approvalConfig().channels);
  }

  dispose(): void {
    this.disposed = true;
    for (const close of this.closers.reverse()) close();
    this.changed.dispose();
  }
}
