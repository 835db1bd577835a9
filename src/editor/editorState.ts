import * as vscode from 'vscode';
import { setApprovalChannels } from '../core/approvals/flow.ts';
import { approvalEvent } from '../core/approvals/slice.ts';
import type { Answer, Ceremony } from '../core/ceremony/page.ts';
import type { AskHuman } from '../core/decisions/asserted.ts';
import { humanStore } from '../core/decisions/asserted.ts';
import type { HeldClock, Logger } from '../core/kernel/deps.ts';
import { holdableClock } from '../core/kernel/deps.ts';
import { openStoreOffThread } from '../core/holon.ts';
import { lazySigner } from '../core/store/keys.ts';
import { recoverOrphanedHolds } from '../core/money/spend.ts';
import type { HolonState } from '../core/fold/state.ts';
import { initialState } from '../core/fold/state.ts';
import type { EventStore, RefusedTx, Signer } from '../core/store/store.ts';
import { unseenRefusals } from '../core/store/store.ts';
import type { HostRecord } from './hostRecord.ts';
import type { PageUi } from './passkey.ts';
import { askInEditor, atPageInEditor, editorPageUi } from './passkey.ts';
import { hostRecordFile, readHostRecord, writeHostRecord } from './hostRecord.ts';
import type { ApprovalConfig } from './settings.ts';
import { approvalConfig, storeSetting } from './settings.ts';
import type { StoreInUse, TeamStore } from './storeSetting.ts';
import { teamStoreFromSetting, withPassword } from './storeSetting.ts';

/** Where the selection was kept before: workspace state, read once to carry it over. */
const OLD_SELECTED = 'holon.selectedMandate';

/** What the settings choose now: a store, or why the one named cannot be used. */
interface StoreChoice {
  where: StoreInUse;
  team: TeamStore | undefined;
  problem: Error | undefined;
}

/** Two choices with the same key open the same store (or fail the same way). */
function choiceKey(c: StoreChoice): string {
  return c.problem ? `problem:${c.problem.message}` : (c.team?.url ?? '');
}

function chooseStore(): StoreChoice {
  try {
    const team = teamStoreFromSetting(storeSetting());
    return { where: team ? { kind: 'team', url: team.url, label: team.label } : { kind: 'journal' }, team, problem: undefined };
  } catch (err) {
    // The value may hold a password: name the setting, never its value.
    return { where: { kind: 'team', url: '', label: 'holon.store' }, team: undefined, problem: err as Error };
  }
}

/**
 * The editor's view of the ledger: the journal in one state folder (workspace storage), or the team store
 * the human named in `holon.store`, tailed so that a change appended by any process (a server, the CLI)
 * fires `onDidChange`; and the selected mandate, kept in a record of the extension host's own (see
 * `selected`) — never in a workspace file or the state folder, which an agent can write.
 *
 * The store is opened after activation returns, so that activating costs the same whatever the journal's
 * size (and loads no PostgreSQL client); a journal that would take more than a moment to fold is folded
 * in the journal's worker first (openStoreOffThread), so the extension host's thread, which every other
 * extension shares, never waits on it. Until then the state is empty (the view says it is opening),
 * and `onDidChange` fires once it has loaded. When the team store's setting or password changes, `reopen`
 * closes it and opens the one chosen now. A team store that cannot be opened is a failure shown to the human, never a quiet fall
 * back to the local journal: two ledgers would each hold half of the team's spending.
 *
 * Every command, panel and view writes through `store()`, which asks the human's passkey, on its page,
 * for what only they decide once a passkey guards the state (decisions/asserted.ts); anything else is
 * written as it is. So a decision needs no code of its own to be asserted.
 */
export class EditorState implements vscode.Disposable {
  readonly dir: string;
  /** Held still while a decision is built twice, to be shown to the passkey and then written. */
  readonly clock: HeldClock = holdableClock();
  /** The installation key of this state folder: the human's decisions in the editor are signed with it. */
  readonly signer: Signer;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires after any change to the ledger or to the selection, once a store has loaded, and when one fails. */
  readonly onDidChange = this.changed.event;
  private readonly failed = new vscode.EventEmitter<string>();
  /** Fires with a sentence for the human when the chosen store cannot be opened, or broke. */
  readonly onDidFail = this.failed.event;
  private readonly refusing = new vscode.EventEmitter<RefusedTx[]>();
  /**
   * Fires with the team store's rows that were not folded and that this human has not been shown yet
   * (remembered per store in the extension's own storage, never a workspace file): each is shown once.
   */
  readonly onDidRefuse = this.refusing.event;
  private opened: EventStore<HolonState> | undefined;
  private readonly empty = initialState();
  private loading: Promise<EventStore<HolonState>>;
  private closers: (() => void)[] = [];
  /** Counts opens, so that a store that finishes opening after a newer one was asked for is closed unused. */
  private generation = 0;
  private choice: StoreChoice = { where: { kind: 'journal' }, team: undefined, problem: undefined };
  private failure: string | undefined;
  /** The opened store's URL with its password, for the server the editor starts; undefined on the journal. */
  private serverUrl: string | undefined;
  /** Whether a password was kept for the team store being opened (a refusal without one says what to do). */
  private passwordKept = false;
  private disposed = false;
  /** The host's record for this state folder (see `selected`). */
  private readonly recordFile: string;
  private record: HostRecord;
  /** The browser and the notifications the passkey's page uses. */
  private readonly pageUi: PageUi;
  /** Asks the human's passkey on its page, for what only they decide. */
  private readonly ask: AskHuman<HolonState>;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly logger: Logger,
  ) {
    this.dir = (context.storageUri ?? context.globalStorageUri).fsPath;
    this.pageUi = editorPageUi(vscode, logger);
    this.ask = askInEditor(this.pageUi);
    this.signer = lazySigner(this.dir);
    this.recordFile = hostRecordFile(context.globalStorageUri.fsPath, this.dir);
    this.record = readHostRecord(this.recordFile);
    const old = context.workspaceState.get<string>(OLD_SELECTED);
    if (this.record.selected === undefined && old) this.remember({ selected: old });
    this.loading = this.open(new Promise<void>((resolve) => setImmediate(resolve)));
  }

  /** The store, once it has loaded; rejects when the chosen store cannot be opened. */
  store(): Promise<EventStore<HolonState>> {
    return this.loading;
  }

  /** True once the store has loaded. */
  get loaded(): boolean {
    return this.opened !== undefined;
  }

  /** The latest state (empty until the store has loaded, and while the chosen one cannot be opened). */
  get state(): HolonState {
    return this.opened?.state ?? this.empty;
  }

  /** Which store the ledger is in (or is being opened). */
  get storeInUse(): StoreInUse {
    return this.choice.where;
  }

  /** Why the chosen store could not be opened, or undefined. */
  get storeFailure(): string | undefined {
    return this.failure;
  }

  /** Counts the stores opened, so that a server definition changes with the store (or its password). */
  get storeGeneration(): number {
    return this.generation;
  }

  /** The SecretStorage key of the chosen team store's password, or undefined on the journal. */
  get storeSecretKey(): string | undefined {
    return this.choice.team?.secretKey;
  }

  /** The URL, password included, of the store the server must open (the one this editor opened); undefined on the journal. */
  async storeForServer(): Promise<string | undefined> {
    await this.loading;
    return this.serverUrl;
  }

  /**
   * True when the user's settings now choose another store than the one in use: a change to a workspace's
   * settings fires the same event as the user's, and must neither reopen the ledger nor repeat an error.
   */
  storeChoiceChanged(): boolean {
    return choiceKey(chooseStore()) !== choiceKey(this.choice);
  }

  /** Closes the store and opens the one the settings choose now (after a new password, say). */
  reopen(): Promise<EventStore<HolonState>> {
    this.loading = this.open(Promise.resolve());
    return this.loading;
  }

  private open(after: Promise<void>): Promise<EventStore<HolonState>> {
    const generation = ++this.generation;
    this.closeStore();
    this.choice = chooseStore();
    this.failure = undefined;
    const { team, problem } = this.choice;
    const loading = after.then(async () => {
      if (this.disposed) throw new Error('Holon was deactivated before its state loaded');
      if (problem) throw problem;
      const password = team ? await this.context.secrets.get(team.secretKey) : undefined;
      this.passwordKept = password !== undefined && password !== '';
      const url = team ? withPassword(team.url, password) : undefined;
      const real = await openStoreOffThread(this.dir, { clock: this.clock, logger: this.logger, store: url });
      if (generation !== this.generation || this.disposed) {
        // A newer choice was made while this one opened: what waited for this store gets that one.
        real.close();
        if (this.disposed) throw new Error('Holon was deactivated before its state loaded');
        return this.loading;
      }
      // Wrapped whether guarded or not: the first passkey can be added while the store is open.
      const store = humanStore(real, this.clock, this.ask);
      this.opened = store;
      this.serverUrl = url;
      const shownKey = `holon.refusalsShown:${team?.label ?? 'journal'}`;
      const tell = (refused: readonly RefusedTx[]): void => {
        const { unseen, through } = unseenRefusals(refused, this.context.globalState.get<number>(shownKey) ?? 0);
        if (unseen.length === 0) return;
        void this.context.globalState.update(shownKey, through);
        this.refusing.fire(unseen);
      };
      tell(real.refused);
      this.closers.push(
        real.subscribe(() => this.changed.fire()),
        real.onBroken((err) => this.fail(generation, err)),
        real.onRefused((tx) => tell([tx])),
        // Housekeeping, never a decision: it must not open a page nobody asked for.
        recoverOrphanedHolds(real, this.logger),
        () => real.close(),
      );
      this.changed.fire();
      return store;
    });
    loading.catch((err: unknown) => this.fail(generation, err));
    this.changed.fire();
    return loading;
  }

  private fail(generation: number, err: unknown): void {
    if (generation !== this.generation || this.disposed) return;
    const { where, problem } = this.choice;
    const message = (err as Error).message;
    // Say which store failed; a refused setting's own message already names holon.store.
    const hint = this.passwordKept ? '' : ' (no password is kept for it: Holon: Set Team Store Password)';
    this.failure = problem
      ? message
      : where.kind === 'team'
        ? `the team store ${where.label} cannot be used: ${message}${hint}`
        : `the journal in ${this.dir} cannot be used: ${message}`;
    this.logger.error(this.failure);
    this.changed.fire();
    this.failed.fire(this.failure);
  }

  private closeStore(): void {
    for (const close of this.closers.reverse()) close();
    this.closers = [];
    this.opened = undefined;
    this.serverUrl = undefined;
  }

  /**
   * The selected mandate, if it still exists. It decides which mandate the editor's server acts for, so it
   * is kept where the extension host keeps its own files: a record in the extension's global storage, on
   * the machine the extension host runs on. VS Code's workspace state would do on the desktop, but in a
   * browser (code-server, Codespaces) it lives in the browser's storage, and a new browser profile would
   * forget the choice. The record is outside the workspace and the state folder, and no server or tool is
   * told where it is; whatever it says, only a mandate the human made in the ledger can be selected.
   */
  get selected(): string | undefined {
    const id = this.record.selected;
    return id && this.state.mandates[id] ? id : undefined;
  }

  select(id: string | undefined): Promise<void> {
    this.remember({ selected: id });
    this.changed.fire();
    return Promise.resolve();
  }

  /** Whether the human has opened the receipts (kept in the host's record, like the selection). */
  get receiptsShown(): boolean {
    return this.record.receiptsShown === true;
  }

  /** Records that the human has seen the receipts; once is enough. */
  markReceiptsShown(): void {
    if (this.record.receiptsShown) return;
    this.remember({ receiptsShown: true });
    this.changed.fire();
  }

  private remember(change: { selected?: string | undefined; receiptsShown?: true }): void {
    const { selected, ...rest } = { ...this.record, ...change };
    const next: HostRecord = selected === undefined ? rest : { ...rest, selected };
    this.record = next;
    try {
      writeHostRecord(this.recordFile, next);
    } catch (err) {
      // Kept for this session at least; the human is told why it will not outlive it.
      this.logger.error(`could not keep the selection in ${this.recordFile}: ${(err as Error).message}`);
    }
  }

  /** Serves a passkey's page (a new passkey, say) until the human answers it or cancels. */
  atPage(ceremony: Ceremony): Promise<Answer> {
    return atPageInEditor(this.pageUi, ceremony);
  }

  /** Which channels the human accepts, and how long a server waits (the user's settings only). */
  approvalConfig(): ApprovalConfig {
    return approvalConfig();
  }

  /**
   * Writes the accepted channels into the journal, where `holon approve` and the servers read them. On a
   * team store they are its owners' to set: an editor whose installation may not leaves them as they are.
   */
  async syncChannels(): Promise<void> {
    const store = await this.store();
    const channels = this.approvalConfig().channels;
    if (store.mayWrite([approvalEvent('settings.updated', { approval_channels: channels })])) return;
    await setApprovalChannels(store, channels);
  }

  dispose(): void {
    this.disposed = true;
    this.closeStore();
    this.changed.dispose();
    this.failed.dispose();
    this.refusing.dispose();
  }
}
