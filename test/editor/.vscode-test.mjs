// @vscode/test-cli configuration (`npm run test:electron`): the same in-host suite that
// test/editor/inHost.test.ts runs inside code-server, here in a VS Code that test-cli downloads (Electron),
// on a machine that can reach update.code.visualstudio.com. The extension must be built first
// (`node esbuild.mjs`); the suite is compiled here, when the configuration is loaded.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@vscode/test-cli';
import { buildSuite } from './suite/build.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const outdir = await buildSuite();
// A fresh workspace each run: the extension keeps its state in the workspace's storage.
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'holon-electron-'));
fs.writeFileSync(path.join(workspace, 'README.md'), '# A workspace for the Holon editor tests\n');

export default defineConfig({
  label: 'holon-in-electron',
  files: path.join(outdir, 'extension.test.js'),
  version: 'stable',
  extensionDevelopmentPath: root,
  workspaceFolder: workspace,
  // Only Holon: no other installed extension, no trust prompt, no welcome page.
  launchArgs: ['--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
  mocha: { ui: 'bdd', timeout: 120_000, color: true },
});
