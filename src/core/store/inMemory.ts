import type { Clock } from '../kernel/deps.ts';
import { stderrLogger } from '../kernel/deps.ts';
import { HolonError } from '../kernel/errors.ts';
import type { EventStore, JournalEvent, NewEvent, Reducer, Refusal, RefusedTx, TxResult } from './store.ts';
import { linkEvents, ListenedStore, wouldAdmit } from './store.ts';

/**
 * The store interface held in memory: one process, no file, no lock. For unit tests of the domain, and
 * a reminder of how little a store must do. Its transactions count as sealed by `signer` (nothing is on
 * disk to sign); `as(key)` writes as another installation, and `receive` takes a transaction the way a
 * shared store takes another process's rows, so the fold's rules can be tried without a database.
 */
export class InMemoryStore<S> extends ListenedStore implements EventStore<S> {
  readonly events: JournalEvent[] = [];
  private current: S;
  private readonly keyed = new Map<string, number[]>();

  constructor(
    private readonly reducer: Reducer<S>,
    private readonly clock: Clock,
    private readonly signer = 'memory',
  ) {
    super(stderrLogger, 'memory store');
    this.current = reducer.initial();
  }

  get state(): S {
    return this.current;
  }

  get seq(): number {
    return this.events.length;
  }

  transact<T>(fn: (state: S) => TxResult<T>): Promise<T> {
    return this.transactAs(this.signer, fn);
  }

  /** This store as another installation writes to it: the same state, its transactions sealed by `key`. */
  as(key: string): EventStore<S> {
    const state = (): S => this.current;
    const seq = (): number => this.events.length;
    const refused = (): readonly RefusedTx[] => this.refused;
    return {
      get state() {
        return state();
      },
      get seq() {
        return seq();
      },
      get refused() {
        return refused();
      },
      transact: (fn) => this.transactAs(key, fn),
      mayWrite: (events) => wouldAdmit(this.reducer, this.current, this.events.length, key, events),
      readKey: (k, o) => this.readKey(k, o),
      refresh: () => [],
      subscribe: (l) => this.subscribe(l),
      onBroken: (l) => this.onBroken(l),
      onRefused: (l) => this.onRefused(l),
      flush: async () => {},
      close: () => {},
    };
  }

  private async transactAs<T>(key: string, fn: (state: S) => TxResult<T>): Promise<T> {
    const { events, result } = fn(this.current);
    const chained = this.chained(events);
    // The same rule as every store: a transaction its signer may not write is refused, and nothing lands.
    const refused = chained.length > 0 ? this.reducer.admit?.(this.current, chained, key) : undefined;
    if (refused) throw new HolonError('denied', `not written: ${refused.message}`, { reason: refused.code });
    this.fold(chained, key);
    return result;
  }

  /**
   * Takes `events` as a transaction sealed by `key` that another process appended, as a shared store
   * reads it: folded if the fold admits it, otherwise kept in `refused` (and nothing of it folded).
   */
  receive(key: string, events: NewEvent[]): RefusedTx | undefined {
    const chained = this.chained(events);
    const refusal = chained.length > 0 ? this.reducer.admit?.(this.current, chained, key) : undefined;
    // Its seqs are taken whether it is folded or not, as a row's are.
    if (refusal) {
      this.events.push(...chained);
      const tx = { ...refusal, from: chained[0]?.seq ?? 0, to: chained.at(-1)?.seq ?? 0, signer: key };
      this.listening.refuse(tx);
      return tx;
    }
    this.fold(chained, key);
    return undefined;
  }

  private chained(events: NewEvent[]): JournalEvent[] {
    const last = this.events.at(-1);
    return linkEvents(events, { seq: this.events.length, hash: last?.hash ?? '' }, new Date(this.clock.now()).toISOString()).map(
      (x) => x.e,
    );
  }

  private fold(chained: JournalEvent[], key: string): void {
    if (chained.length === 0) return;
    this.reducer.sealed?.(this.current, key);
    for (const full of chained) {
      for (const k of this.reducer.keys?.(this.current, full) ?? []) {
        const list = this.keyed.get(k.key) ?? [];
        list.push(this.events.length);
        this.keyed.set(k.key, list);
      }
      this.events.push(full);
      this.reducer.apply(this.current, full);
    }
    this.listening.notify(chained);
  }

  mayWrite(events: NewEvent[]): Refusal | undefined {
    return wouldAdmit(this.reducer, this.current, this.events.length, this.signer, events);
  }

  async readKey(key: string, options: { newest?: number } = {}): Promise<JournalEvent[]> {
    const all = this.keyed.get(key) ?? [];
    const wanted = options.newest === undefined ? all : all.slice(Math.max(0, all.length - options.newest));
    return wanted.map((i) => this.events[i] as JournalEvent);
  }

  refresh(): JournalEvent[] {
    return [];
  }

  async flush(): Promise<void> {}

  close(): void {
    this.listening.clear();
  }
}
