/** A lock between test processes on one machine: a folder only one of them can make. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pidAlive } from '../src/core/store/file/lock.ts';

/**
 * Runs `fn` holding the lock folder `lock`, so that test files running at once install a tool only once.
 * A lock left by a process that died (killed mid-install) is taken over.
 */
export async function withLockFolder<T>(lock: string, fn: () => Promise<T> | T, timeoutMs = 600_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let owner = 0;
      try {
        owner = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
      } catch {
        // The lock is being made, or was just given back: look again.
      }
      if (owner > 0 && !pidAlive(owner)) {
        fs.rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock} (held by pid ${owner})`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
