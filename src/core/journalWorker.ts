/**
 * The journal's worker thread, for the jobs that read a whole journal, so that no process ever pauses its
 * event loop for them: folding from the last snapshot to a position, filing the keys of what is read on
 * demand and signing the result (a snapshot); or checking everything offline (`holon verify`).
 */
import * as path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { JOURNAL_FILE } from './store/file/journal.ts';
import { buildSnapshot } from './store/file/journalIndex.ts';
import { loadOrCreateSigner } from './store/keys.ts';
import type { Position } from './store/file/snapshot.ts';
import { holonReducer } from './fold/state.ts';
import { verifyJournal } from './verify.ts';

/** A job for the worker: a snapshot at a position, or at the journal's last whole transaction (`'end'`); or the offline check. */
export type JournalJob = { job: 'snapshot'; dir: string; at: Position | 'end' } | { job: 'verify'; dir: string };

const job = workerData as JournalJob;
const run = async (): Promise<unknown> =>
  job.job === 'verify'
    ? verifyJournal(job.dir)
    : buildSnapshot(job.dir, path.join(job.dir, JOURNAL_FILE), holonReducer, job.at, loadOrCreateSigner(job.dir));
run().then(
  (result) => parentPort?.postMessage({ ok: true, result }),
  (err: unknown) => parentPort?.postMessage({ ok: false, error: (err as Error).message }),
);
