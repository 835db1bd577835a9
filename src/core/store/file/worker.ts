/** The journal's worker thread (journalWorker.ts), which folds and writes snapshots off the event loop. */
import { Worker } from 'node:worker_threads';

/** How to run the journal's worker (journalWorker.ts): a script file, or (from sources) code to evaluate. */
export type WorkerSpec = { file: string } | { eval: string };

/** Runs one job in a worker thread that does not keep the process alive; resolves with its result. */
export function runWorker<T>(spec: WorkerSpec, job: { job: string; dir: string; [k: string]: unknown }): Promise<T> {
  return new Promise((resolve, reject) => {
    const data = { workerData: job };
    const worker = 'file' in spec ? new Worker(spec.file, data) : new Worker(spec.eval, { ...data, eval: true });
    worker.unref();
    worker.once('message', (m: { ok: true; result: T } | { ok: false; error: string }) =>
      m.ok ? resolve(m.result) : reject(new Error(m.error)),
    );
    worker.once('error', reject);
    worker.once('exit', () => reject(new Error(`the journal worker stopped before its ${job.job} was done`)));
  });
}
