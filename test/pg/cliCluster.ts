/**
 * What a test file that drives the built CLI against a throwaway PostgreSQL shares: the cluster, started
 * before its tests and stopped after them, `holon` run without a HOLON_STORE from the environment, and
 * state folders removed when the file ends.
 */
import { after, before } from 'node:test';
import type { Run } from '../cli/cliHarness.ts';
import { ensureBuilt, holon as run, tempDir } from '../cli/cliHarness.ts';
import type { TestPostgres } from './harness.ts';
import { startPostgres } from './harness.ts';

export interface CliCluster {
  /** The cluster (started before the file's first test). */
  readonly pg: TestPostgres;
  /** Run last to first when the file ends. */
  cleanups: (() => void | Promise<void>)[];
  holon(args: string[]): Promise<Run>;
  /** A new state folder. */
  stateDir(): string;
}

export function cliCluster(prefix: string): CliCluster {
  let started: TestPostgres | undefined;
  const cleanups: (() => void | Promise<void>)[] = [];
  before(async () => {
    await ensureBuilt();
    started = await startPostgres();
  });
  after(async () => {
    for (const c of cleanups.reverse()) await c();
    started?.stop();
  });
  return {
    get pg(): TestPostgres {
      if (!started) throw new Error('the cluster is started before the first test');
      return started;
    },
    cleanups,
    holon: (args) => run(args, { env: { HOLON_STORE: '' } }),
    stateDir: () => {
      const t = tempDir(prefix);
      cleanups.push(t.cleanup);
      return t.dir;
    },
  };
}
