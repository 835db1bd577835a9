import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock, Logger } from './deps.ts';
import type { EventStore } from './store.ts';
import type { WorkerSpec } from './journal.ts';
import { FileJournal, runWorker } from './journal.ts';
import { installationPublicKey, lazySigner } from './keys.ts';
import { thisProcess } from './owner.ts';
import { isPostgresUrl } from './storeUrl.ts';
import { HolonError } from './errors.ts';
import type { HolonState } from './state.ts';
import { holonReducer } from './state.ts';
import { registration } from './team.ts';
import type { VerifyReport } from './verify.ts';

/** Options for opening a state folder. */
export interface OpenStateOptions {
  clock: Clock;
  logger: Logger;
  durable?: boolean;
  watch?: boolean;
  snapshotEvery?: number;
}

/** The state's store: the embedded default, the file journal in the state folder. */
export function openState(dir: string, options: OpenStateOptions): EventStore<HolonState> {
  return openFileJournal(dir, options);
}

/**
 * The state's store as chosen: a `postgres://` URL opens the team store on PostgreSQL (signing with the
 * installation key of `dir`, whose public half is registered there with this machine's name when this
 * installation first writes, so that teammates can name it and check what it signs); none, the file
 * journal in `dir`.
 */
export async function openStore(dir: string, options: OpenStateOptions & { store?: string | undefined }): Promise<EventStore<HolonState>> {
  if (options.store === undefined) return openState(dir, options);
  if (!isPostgresUrl(options.store)) throw new HolonError('invalid_input', 'a store is a postgres:// (or postgresql://) URL');
  const signer = lazySigner(path.resolve(dir));
  // Loaded only for a team store: the extension bundles it apart (dist/lazy.js), so activating on the journal never reads it.
  const { PostgresStore } = await import('./postgresStore.ts');
  const machine = thisProcess().host;
  return PostgresStore.open({
    url: options.store,
    reducer: holonReducer,
    clock: options.clock,
    logger: options.logger,
    signer,
    // Registered with its first write, in the same transaction: a command that only reads, or is refused, writes nothing.
    introduce: (s) => registration(s, signer, machine),
    ...(options.watch !== undefined ? { watch: options.watch } : {}),
  });
}

/**
 * The journal worker's script: beside the bundle that runs (dist/journalWorker.js), or, run from the
 * sources, the TypeScript module through tsx.
 */
export function journalWorker(): WorkerSpec {
  const bundled = path.join(__dirname, 'journalWorker.js');
  if (fs.existsSync(bundled)) return { file: bundled };
  const source = path.join(__dirname, 'journalWorker.ts');
  return { eval: `require('tsx/cjs'); require(${JSON.stringify(source)});` };
}

/** `holon verify` in a worker thread, for a process whose event loop must not wait for it (the editor). */
export function verifyInWorker(dir: string): Promise<VerifyReport> {
  return runWorker<VerifyReport>(journalWorker(), { job: 'verify', dir: path.resolve(dir) });
}

/** The state folder's journal file, folded and tailed, with the installation signer. */
export function openFileJournal(dir: string, options: OpenStateOptions): FileJournal<HolonState> {
  const abs = path.resolve(dir);
  return new FileJournal<HolonState>({
    dir: abs,
    reducer: holonReducer,
    clock: options.clock,
    logger: options.logger,
    signer: lazySigner(abs),
    // Only this installation seals its journal: a state folder without its key has nothing to read it with.
    sealKey: () => installationPublicKey(abs),
    worker: journalWorker(),
    ...(options.durable !== undefined ? { durable: options.durable } : {}),
    ...(options.watch !== undefined ? { watch: options.watch } : {}),
    ...(options.snapshotEvery !== undefined ? { snapshotEvery: options.snapshotEvery } : {}),
  });
}

/** `<state>/files`, where holon://files/ handles resolve. */
export function filesRoot(stateDir: string): string {
  return path.join(path.resolve(stateDir), 'files');
}
