// One activation of the built extension in a fresh process, with bench/vscodeStub.cjs as `vscode`:
// `node activateProbe.cjs EXTENSION_ROOT STATE_DIR` prints {"require_ms", "activate_ms", "loaded_ms"}
// (loaded_ms: until the journal has been opened, after activate() returned; longest_stall_ms: the longest
// the thread was held meanwhile).
'use strict';
const Module = require('node:module');
const path = require('node:path');
const fs = require('node:fs');

const [root, stateDir] = process.argv.slice(2);
const stub = path.join(__dirname, 'vscodeStub.cjs');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? stub : resolve.call(this, request, ...rest);
};

const global = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'holon-bench-global-'));
const memento = new Map();
const context = {
  subscriptions: [],
  extensionUri: { fsPath: root, path: root, scheme: 'file' },
  storageUri: { fsPath: stateDir, path: stateDir, scheme: 'file' },
  globalStorageUri: { fsPath: global, path: global, scheme: 'file' },
  asAbsolutePath: (p) => path.join(root, p),
  workspaceState: { get: (k) => memento.get(k), update: async (k, v) => void memento.set(k, v), keys: () => [...memento.keys()] },
  globalState: { get: (k) => memento.get(`global:${k}`), update: async (k, v) => void memento.set(`global:${k}`, v), keys: () => [], setKeysForSync() {} },
  environmentVariableCollection: { replace() {}, prepend() {}, append() {}, get() { return undefined; } },
  secrets: { get: async () => undefined, store: async () => {}, delete: async () => {}, onDidChange: () => ({ dispose() {} }) },
};

const t0 = process.hrtime.bigint();
const ext = require(path.join(root, 'dist', 'extension.js'));
const t1 = process.hrtime.bigint();
const api = ext.activate(context);
const t2 = process.hrtime.bigint();
// How long the extension host's thread, which every other extension shares, was held at once while the
// journal opened: the longest delay of a 10 ms timer.
const stalls = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 10 });
stalls.enable();
const ms = (a, b) => Number(b - a) / 1e6;
const done = () => {
  const t3 = process.hrtime.bigint();
  stalls.disable();
  const longest_stall_ms = stalls.max / 1e6;
  process.stdout.write(JSON.stringify({ require_ms: ms(t0, t1), activate_ms: ms(t1, t2), loaded_ms: ms(t2, t3), longest_stall_ms }) + '\n');
  for (const d of context.subscriptions) d.dispose();
  fs.rmSync(global, { recursive: true, force: true });
  process.exit(0);
};
api.loaded().then(done, (err) => {
  process.stderr.write(`the journal did not load: ${err && err.message}\n`);
  process.exit(1);
});
