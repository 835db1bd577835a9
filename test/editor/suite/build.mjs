// Compiles the in-host suites to CommonJS under .cache/editor-suite/ (or the folder given), where the extension host loads them:
// runSuite.js (the extensionTestsPath entry: mocha over extension.test.js), extension.test.js (also the file
// @vscode/test-cli loads with its own mocha), and driver.js (the main of the browser test's helper extension).
// Only `vscode` (given by the host) and `mocha` (resolved from the repository's node_modules) stay external.
import * as esbuild from 'esbuild';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const defaultOutdir = path.resolve(here, '..', '..', '..', '.cache', 'editor-suite');

/** Builds into `outdir` (a folder of the repository's, for `mocha`), .cache/editor-suite by default. */
export async function buildSuite(outdir = defaultOutdir) {
  await esbuild.build({
    entryPoints: {
      runSuite: path.join(here, 'runSuite.ts'),
      'extension.test': path.join(here, 'extension.test.ts'),
      driver: path.join(here, 'driver.ts'),
    },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    external: ['vscode', 'mocha'],
    logLevel: 'warning',
  });
  return outdir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildSuite(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
