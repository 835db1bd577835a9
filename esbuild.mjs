// One build script, one base, one build per target. Only the extension bundle may mark `vscode`
// external, so a stray `vscode` import anywhere else fails the CLI/server build.
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {import('esbuild').BuildOptions} */
const base = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
};

/** @type {import('esbuild').BuildOptions[]} */
const targets = [
  {
    ...base,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/holon.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
  // The extension (node, cjs, `vscode` external) and the webviews (browser, iife) join this list.
];

if (watch) {
  for (const t of targets) await (await esbuild.context(t)).watch();
} else {
  await Promise.all(targets.map((t) => esbuild.build(t)));
}
