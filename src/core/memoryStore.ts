import type { Clock } from './deps.ts';
import type { EventStore, JournalEvent, Reducer, TxResult } from './store.ts';
import { eventHash } from './store.ts';

/**
 * The store interface held in memory: one process, no file, no lock. For unit tests of the domain, and
 * a reminder of how little a store must do.
 */
export class MemoryStore<S> implements EventStore<S> {
  readonly events: JournalEvent[] = [];
  private current: S;
  private readonly listeners = new Set<(events: JournalEvent[]) => void>();
  private readonly keyed = new Map<string, number[]>();

  constructor(
    private readonly reducer: Reducer<S>,
    private readonly clock: Clock,
  ) {
    this.current = reducer.initial();
  }

  get state(): S {
    return this.current;
  }

  get seq(): number {
    return this.events.length;
  }

  async transact<T>(fn: (state: S) => TxResult<T>): Promise<T> {
    const { events, result } = fn(this.current);
    const added: JournalEvent[] = [];
    for (const e of events) {
      const base = { seq: this.events.length + 1, time: new Date(this.clock.now()).toISOString(), type: e.type, data: e.data, prev: this.events.at(-1)?.hash ?? '' };
      const full = { ...base, hash: eventHash(base) };
      for (const k of this.reducer.keys?.(this.current, full) ?? []) {
        const list = this.keyed.get(k.key) ?? [];
        list.push(this.events.length);
        this.keyed.set(k.key, list);
      }
      this.events.push(full);
      this.reducer.apply(this.current, full);
      added.push(full);
    }
    if (added.length > 0) for (const l of this.listeners) l(added);
    return result;
  }

  async readKey(key: string, options: { newest?: number } = {}): Promise<JournalEvent[]> {
    const all = this.keyed.get(key) ?? [];
    const wanted = options.newest === undefined ? all : all.slice(Math.max(0, all.length - options.newest));
    return wanted.map((i) => this.events[i] as JournalEvent);
  }

  refresh(): JournalEvent[] {
    return [];
  }

  subscribe(listener: (events: JournalEvent[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onBroken(): () => void {
    return () => {};
  }

  async checkpoint(): Promise<void> {}

  async flush(): Promise<void> {}

  close(): void {
    this.listeners.clear();
  }
}
