/**
 * The snapshot worker: folds the journal from the last snapshot to the position it was given, files
 * the keys of what is read on demand, and signs the result — in a worker thread, so no process ever
 * pauses its event loop for it.
 */
import * as path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { JOURNAL_FILE } from './journal.ts';
import { buildSnapshot } from './journalIndex.ts';
import { loadOrCreateSigner } from './keys.ts';
import type { Position } from './snapshot.ts';
import { holonReducer } from './state.ts';

const { dir, at } = workerData as { dir: string; at: Position };
buildSnapshot(dir, path.join(dir, JOURNAL_FILE), holonReducer, at, loadOrCreateSigner(dir)).then(
  (written) => parentPort?.postMessage({ ok: true, written }),
  (err: unknown) => parentPort?.postMessage({ ok: false, error: (err as Error).message }),
);
