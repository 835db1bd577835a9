// The suites `npm test` runs after the checks, each file once, two at a time. A test must pass on a machine
// that is doing other work too (a shared runner, an editor, a build), so none may depend on how fast the
// machine is. That is a question only for tests that start processes, threads, servers or databases, or
// wait for something to happen: every CLI test does, and so do the store contract, the chain's suites (a
// node, a facilitator, a process killed under its node) and some core tests. Those run beside two busy
// processes, after the rest. Left with the rest: the chain's artifact suites, which compile and compare
// bytes in this process with nothing to wait for; the suites a real Chromium drives (the passkey's pages,
// and the demo, whose human is one), which already run beside another suite and whose waits are each for
// a page's own condition, never a duration; and a core test that folds events in memory with a clock it
// moves itself, which does the same on any machine. The exit code is the first failure's.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const read = (file) => fs.readFileSync(path.join(root, file), 'utf8');
const files = fs
  .readdirSync(path.join(root, 'test'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    fs
      .readdirSync(path.join(root, 'test', d.name))
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => `test/${d.name}/${f}`),
  )
  .sort();

const ARTIFACTS = new Set(['test/chain/artifact.test.ts', 'test/chain/delegationArtifact.test.ts']);
const paged = (f) => /passkeyBrowser|launchChromium/.test(read(f)) || f === 'test/cli/demo.test.ts';
const WAITS =
  /child_process|worker_threads|spawn\(|execFile|setTimeout|setInterval|until\(|openState|openFileJournal|openStore|startPostgres|demoRuntime|openAgain|servedState|cliHarness/;
const busy = (f) =>
  /^test\/(cli|store|chain)\//.test(f) ? !ARTIFACTS.has(f) && !paged(f) : f.startsWith('test/core/') && WAITS.test(read(f));

/** The test runner under way: a signal that ends this script ends it too. */
let running;
function suites(list) {
  return new Promise((resolve) => {
    running = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...list], { cwd: root, stdio: 'inherit' });
    running.on('error', () => resolve(1));
    running.on('close', (code) => resolve(code ?? 1));
  });
}

// A burner spins until this script is gone, however it ends (kill -9 included): its parent changes then.
const BURN = 'const parent = process.ppid; for (;;) if (process.ppid !== parent) process.exit(0);';
const burners = [];
const stopBurners = () => burners.splice(0).forEach((b) => b.kill());
process.on('exit', stopBurners);
const endWith = (signal, code) =>
  process.on(signal, () => {
    running?.kill(signal);
    process.exit(code);
  });
endWith('SIGINT', 130);
endWith('SIGTERM', 143);

const started = Date.now();
const took = () => `${Math.round((Date.now() - started) / 1000)} s`;
const count = (list) => `${list.length} file${list.length === 1 ? '' : 's'}`;
const besideBusy = files.filter(busy);
const quiet = files.filter((f) => !besideBusy.includes(f));
const first = await suites(quiet);
console.log(`[suites] ${count(quiet)}: ${first === 0 ? 'passed' : 'failed'} (${took()})`);
for (let i = 0; i < 2; i++) burners.push(spawn(process.execPath, ['-e', BURN], { stdio: 'ignore' }));
const second = await suites(besideBusy);
stopBurners();
console.log(`[suites] ${count(besideBusy)} beside two busy processes: ${second === 0 ? 'passed' : 'failed'} (${took()} in all)`);
process.exit(first !== 0 ? first : second);
