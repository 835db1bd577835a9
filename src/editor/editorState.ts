import * as vscode from 'vscode';
import { setApprovalChannels } from '../core/approvals/flow.ts';
import type { Clock, Logger } from '../core/deps.ts';
import { systemClock } from '../core/deps.ts';
import type { EventStore } from '../core/store.ts';
import { openState } from '../core/holon.ts';
import { recoverOrphanedHolds } from '../core/spend.ts';
import type { HolonState } from '../core/state.ts';
import type { ApprovalConfig } from './settings.ts';
import { approvalConfig } from './settings.ts';

const SELECTED = 'holon.selectedMandate';

/**
 * The editor's view of one state folder (workspace storage): the journal, tailed so that a change
 * appended by any process (a server, the CLI) fires `onDidChange`; and the selected mandate, kept in
 * workspace state — never in a workspace file an agent could edit.
 */
export class EditorState implements vscode.Disposable {
  readonly dir: string;
  readonly store: EventStore<HolonState>;
  readonly clock: Clock = systemClock;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires after any change to the journal or to the selection. */
  readonly onDidChange = this.changed.event;
  private readonly unsubscribe: () => void;
  private readonly stopRecovery: () => void;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly logger: Logger,
  ) {
    this.dir = (context.storageUri ?? context.globalStorageUri).fsPath;
    this.store = openState(this.dir, { clock: this.clock, logger });
    this.unsubscribe = this.store.subscribe(() => this.changed.fire());
    this.stopRecovery = recoverOrphanedHolds(this.store, logger);
  }

  get state(): HolonState {
    return this.store.state;
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
    await setApprovalChannels(this.store, this.approvalConfig().channels);
  }

  dispose(): void {
    this.stopRecovery();
    this.unsubscribe();
    this.store.close();
    this.changed.dispose();
  }
}
