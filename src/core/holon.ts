import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EventStore } from './store/store.ts';
import type { FileJournal } from './store/file/journal.ts';
import type { WorkerSpec } from './store/file/worker.ts';
import { runWorker } from './store/file/worker.ts';
import type { OpenOptions, StoreFold } from './store/open.ts';
import { openJournalAt, openStoreAt } from './store/open.ts';
import { thisProcess } from './store/owner.ts';
import type { HolonState } from './fold/state.ts';
import { holonReducer } from './fold/state.ts';
import { registration } from './accounts/team.ts';
import type { VerifyReport } from './store/verify.ts';

/** Options for opening a state folder. */
export type OpenStateOptions = OpenOptions;

/** Holon's state as a store holds it: its fold, the worker for whole-journal jobs, and the team registration. */
function holonFold(): StoreFold<HolonState> {
  const machine = thisProcess().host;
  return { reducer: holonReducer, worker: journalWorker(), introduce: (s, signer) => registration(s, signer, machine) };
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
export function openStore(dir: string, options: OpenStateOptions & { store?: string | undefined }): Promise<EventStore<HolonState>> {
  return openStoreAt(dir, holonFold(), options);
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
  return openJournalAt(dir, holonFold(), options);
}

/** `<state>/files`, where holon://files/ handles resolve. */
export function filesRoot(stateDir: string): string {
  return path.join(path.resolve(stateDir), 'files');
}
