import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EventStore } from './store/store.ts';
import type { FileJournal } from './store/file/journal.ts';
import type { WorkerSpec } from './store/file/worker.ts';
import { runWorker } from './store/file/worker.ts';
import { JOURNAL_FILE } from './store/file/journal.ts';
import { openSnapshot } from './store/file/snapshot.ts';
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
 * The journal worker's script: dist/holon.js, beside the bundle that runs (it runs journalWorker.ts when
 * started as a worker with a job), or, run from the sources, the TypeScript module through tsx.
 */
export function journalWorker(): WorkerSpec {
  const bundled = path.join(__dirname, 'holon.js');
  if (fs.existsSync(bundled)) return { file: bundled };
  const source = path.join(__dirname, 'journalWorker.ts');
  return { eval: `require('tsx/cjs'); require(${JSON.stringify(source)});` };
}

/**
 * Journal a process would fold itself at open beyond which the fold is done in the worker first: about a
 * thousand events, some milliseconds of a thread that others wait on.
 */
const FOLD_HERE_BYTES = 1 << 20;

/** How many bytes of the journal in `dir` an open would fold itself: past a usable snapshot, else all of it. */
export function unfoldedBytes(dir: string): number {
  const journal = path.join(dir, JOURNAL_FILE);
  let size: number;
  try {
    size = fs.statSync(journal).size;
  } catch {
    return 0;
  }
  const read = openSnapshot(dir, journal);
  if (!read.ok) return size;
  read.snap.close();
  return Math.max(0, size - read.snap.header.offset);
}

/**
 * The store, as openStore gives it, for a thread that must not wait on the journal (the extension host,
 * where every other extension waits too): when an open would fold more than a little of it (no snapshot
 * yet, one from before an upgrade, a long way behind), the journal's worker first folds it to its end
 * and writes the snapshot there, so the open here reads a header and a short tail. If the worker cannot,
 * the open folds as it always did.
 */
export async function openStoreOffThread(
  dir: string,
  options: OpenStateOptions & { store?: string | undefined },
): Promise<EventStore<HolonState>> {
  if (options.store === undefined && unfoldedBytes(dir) > FOLD_HERE_BYTES) {
    await runWorker(journalWorker(), { job: 'snapshot', dir: path.resolve(dir), at: 'end' }).catch((err: unknown) =>
      options.logger.warn(`journal: the worker could not fold the journal ahead of the open (${(err as Error).message}); folding it here`),
    );
  }
  return openStore(dir, options);
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
