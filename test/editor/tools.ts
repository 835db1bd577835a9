/**
 * Installs what the editor tests need (Node 24, code-server, Chromium) when it is missing, and nothing
 * else: `.ci/run` starts it beside the checks on a clean clone, so that the editor tests find their
 * tools ready instead of waiting minutes for them.
 */
import { ensureTools } from './harness.ts';

ensureTools().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
