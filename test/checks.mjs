// The checks `npm test` runs before the suites — types, lint, the build — at once rather than one after
// another: each is a process of its own, and together they keep both cores of a small machine busy. Each
// one's output is printed when it ends, whole; the exit code is the first failure's.
import { spawn } from 'node:child_process';

const checks = [
  ['typecheck', 'npm', ['run', '-s', 'typecheck']],
  ['lint', 'npm', ['run', '-s', 'lint']],
  ['build', process.execPath, ['esbuild.mjs']],
];

const started = Date.now();
const results = await Promise.all(
  checks.map(
    ([name, command, args]) =>
      new Promise((resolve) => {
        const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (d) => (output += d));
        child.stderr.on('data', (d) => (output += d));
        child.on('error', (err) => resolve({ name, code: 1, output: `${output}${err.message}\n` }));
        child.on('close', (code) => {
          const result = { name, code: code ?? 1, output };
          process.stdout.write(`${result.output}${result.code === 0 ? '✔' : '✖'} ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
          resolve(result);
        });
      }),
  ),
);
const failed = results.filter((r) => r.code !== 0);
if (failed.length > 0) {
  process.stderr.write(`failed: ${failed.map((r) => r.name).join(', ')}\n`);
  process.exit(failed[0].code);
}
