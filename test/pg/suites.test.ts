/**
 * The suites that run on the file journal, run again on PostgreSQL, through HOLON_TEST_PG: every test
 * file that builds its state with `demoRuntime` (test/helpers.ts) gets a database of a throwaway cluster
 * in place of a journal file; every CLI suite (test/cli/cliHarness.ts) hands each `holon` it starts
 * the database of its state folder in HOLON_STORE; and the editor suites put the user's `holon.store`
 * on a database (test/editor/harness.ts). The same assertions must hold on either store; the few that
 * are about the journal file itself say so and are skipped there.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ensureBuilt } from '../cli/cliHarness.ts';
import { ROOT } from '../helpers.ts';
import type { TestPostgres } from './harness.ts';
import { startPostgres } from './harness.ts';

let pg: TestPostgres;
before(async () => {
  await ensureBuilt();
  pg = await startPostgres();
});
after(() => pg.stop());

/** The test files whose states come from demoRuntime, the CLI's, and the editor's (but the one already on a team store). */
function suitesOnTheStore(): string[] {
  const inDir = (dir: string): string[] => fs.readdirSync(path.join(ROOT, dir)).map((f) => path.join(dir, f)).filter((f) => f.endsWith('.test.ts'));
  const text = (f: string): string => fs.readFileSync(path.join(ROOT, f), 'utf8');
  const onRuntime = [...inDir('test/server'), ...inDir('test/core')].filter((f) => text(f).includes('demoRuntime('));
  const editor = inDir('test/editor').filter((f) => !text(f).includes('startPostgres('));
  return [...onRuntime, ...inDir('test/cli'), ...editor].sort();
}

test('the server, core, CLI and editor suites pass on PostgreSQL', { timeout: 1_500_000 }, async (t) => {
  const files = suitesOnTheStore();
  assert.ok(files.length >= 30, `found only ${files.length} suites`);
  assert.ok(files.includes('test/editor/browser.test.ts') && files.includes('test/editor/inHost.test.ts'));
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=tap', ...files], {
      cwd: ROOT,
      // Without NODE_TEST_CONTEXT, which would make the child report to this runner instead of running its own.
      env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')), HOLON_TEST_PG: pg.url('postgres') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (c) => resolve({ code: c, output }));
  });
  const count = (what: string): number => Number(new RegExp(`^# ${what} (\\d+)$`, 'm').exec(output)?.[1] ?? NaN);
  const failed = output.split('\n').filter((l) => /^\s*not ok \d+ - /.test(l));
  assert.equal(code, 0, `failed on PostgreSQL:\n${failed.join('\n')}\n\n${output.slice(-4000)}`);
  assert.equal(count('fail'), 0);
  assert.ok(count('pass') >= 220, `only ${count('pass')} tests ran`);
  t.diagnostic(`${files.length} files on PostgreSQL: ${count('pass')} passed, ${count('skipped')} skipped (about the journal file itself)`);
});
