/**
 * Opening a store from where the human said it is: a `postgres://` URL opens the team store on PostgreSQL,
 * none the file journal in the state folder. Both sign with the installation key of the state folder. The
 * fold and the worker are passed in, so the store knows nothing of what its events mean.
 */
import * as path from 'node:path';
import type { Clock, Logger } from '../kernel/deps.ts';
import { HolonError } from '../kernel/errors.ts';
import type { WorkerSpec } from './file/worker.ts';
import { FileJournal } from './file/journal.ts';
import { installationPublicKey, lazySigner } from './keys.ts';
import type { EventStore, NewEvent, Reducer, Signer } from './store.ts';
import { isPostgresUrl } from './url.ts';

/** Options for opening a state folder's store. */
export interface OpenOptions {
  clock: Clock;
  logger: Logger;
  durable?: boolean;
  watch?: boolean;
  snapshotEvery?: number;
}

/** What a store needs of the state it holds: its fold and the worker that folds a whole journal. */
export interface StoreFold<S> {
  reducer: Reducer<S>;
  worker: WorkerSpec;
  /**
   * The events that register this installation on a team store, written with its first write in the same
   * transaction (so a command that only reads, or is refused, writes nothing).
   */
  introduce?: (state: S, signer: Signer) => NewEvent[];
}

/** The state folder's journal file, folded and tailed, sealed by the folder's installation key alone. */
export function openJournalAt<S extends object>(dir: string, fold: StoreFold<S>, options: OpenOptions): FileJournal<S> {
  const abs = path.resolve(dir);
  return new FileJournal<S>({
    dir: abs,
    reducer: fold.reducer,
    clock: options.clock,
    logger: options.logger,
    signer: lazySigner(abs),
    // Only this installation seals its journal: a state folder without its key has nothing to read it with.
    sealKey: () => installationPublicKey(abs),
    worker: fold.worker,
    ...(options.durable !== undefined ? { durable: options.durable } : {}),
    ...(options.watch !== undefined ? { watch: options.watch } : {}),
    ...(options.snapshotEvery !== undefined ? { snapshotEvery: options.snapshotEvery } : {}),
  });
}

/** The store `url` names, or the state folder's journal when there is none. */
export async function openStoreAt<S extends object>(
  dir: string,
  fold: StoreFold<S>,
  options: OpenOptions & { store?: string | undefined },
): Promise<EventStore<S>> {
  if (options.store === undefined) return openJournalAt(dir, fold, options);
  if (!isPostgresUrl(options.store)) throw new HolonError('invalid_input', 'a store is a postgres:// (or postgresql://) URL');
  const signer = lazySigner(path.resolve(dir));
  // Loaded only for a team store: the extension takes it from dist/holon.js, so activating on the journal never reads it.
  const { PostgresStore } = await import('./pg/store.ts');
  const introduce = fold.introduce;
  return PostgresStore.open({
    url: options.store,
    reducer: fold.reducer,
    clock: options.clock,
    logger: options.logger,
    signer,
    ...(introduce ? { introduce: (s: S) => introduce(s, signer) } : {}),
    ...(options.watch !== undefined ? { watch: options.watch } : {}),
  });
}
