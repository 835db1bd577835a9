/**
 * The CLI tests' harness: the built `dist/holon.js` run as a user types it (a child process each time),
 * seeded state folders, SDK clients on `holon mcp`, and `holon approve` given a real terminal by
 * util-linux `script`. No fixed sleeps: everything that waits polls, with a deadline that only stops a hang.
 */
import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after } from 'node:test';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Client } from '@modelcontextprotocol/client';
import { silentLogger, systemClock } from '../../src/core/kernel/deps.ts';
import { openStore } from '../../src/core/holon.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import type { EventStore } from '../../src/core/store/store.ts';
import { copyExampleFiles, EXAMPLES, HANG_MS, HOLON_BIN, PatientClient, ROOT, tempDir, until } from '../helpers.ts';
import { withLockFolder } from '../lockFolder.ts';
import { CEREMONY_ROUTES } from '../../src/shared/ceremony.ts';
import type { PasskeyBrowser, VirtualCredential } from '../helpers/passkeyBrowser.ts';

export { EXAMPLES, HANG_MS, HOLON_BIN, PatientClient, ROOT, tempDir, until };

export const FIXTURES = path.join(__dirname, 'fixtures');
export const SLOW_CATALOG = path.join(FIXTURES, 'slowCatalog.json');
export const SLOW_AGENT = 'test/slow-agent';

/** Builds dist/holon.js once if it is missing; concurrent test files wait for the one that builds. */
export async function ensureBuilt(): Promise<void> {
  if (fs.existsSync(HOLON_BIN)) return;
  const lock = path.join(os.tmpdir(), `holon-cli-build-${Buffer.from(ROOT).toString('hex').slice(-24)}.lock`);
  let mine = false;
  try {
    fs.mkdirSync(lock);
    mine = true;
  } catch {
    // Another test file is building: wait for it below.
  }
  if (mine) {
    try {
      if (!fs.existsSync(HOLON_BIN)) {
        const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`node esbuild.mjs failed:\n${r.stdout}\n${r.stderr}`);
      }
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
    return;
  }
  await until(() => !fs.existsSync(lock) && fs.existsSync(HOLON_BIN), 'another test file to build dist/holon.js');
}

/** What one run of the CLI printed and returned. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a user's shell would give, without a HOLON_STATE that could point at real state. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (!('HOLON_STATE' in extra)) delete env['HOLON_STATE'];
  return env;
}

/** Runs `holon ARGS…` (stdin is not a terminal) and collects its output. */
export async function holon(args: string[], options: { env?: Record<string, string>; cwd?: string; input?: string } = {}): Promise<Run> {
  const cwd = options.cwd ?? os.tmpdir();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOLON_BIN, ...args], {
      cwd,
      env: cleanEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      // A safety net against a hung child, never an assertion on time.
      timeout: HANG_MS,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // stdin is closed at once, with `input` first when given: a piped answer, never a terminal.
    child.stdin.end(options.input ?? '');
  });
}

/** `args` with `--state DIR`: before a `--`, after which every word is a positional (an id that begins with '-'). */
function onState(args: string[], state: string): string[] {
  const end = args.indexOf('--');
  return end < 0 ? [...args, '--state', state] : [...args.slice(0, end), '--state', state, ...args.slice(end)];
}

/** Runs `holon ARGS… --state DIR`. */
export function holonIn(state: string, args: string[]): Promise<Run> {
  return holon(onState(args, state));
}

/** Runs `holon ARGS… --state DIR --json`, requires exit 0 and returns the parsed JSON. */
export async function json<T = unknown>(state: string, args: string[]): Promise<T> {
  const r = await holonIn(state, [...args, '--json']);
  if (r.code !== 0) throw new Error(`holon ${args.join(' ')} --json exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Runs the CLI and requires exit 0; returns stdout. */
export async function ok(state: string, args: string[]): Promise<string> {
  const r = await holonIn(state, args);
  if (r.code !== 0) throw new Error(`holon ${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/**
 * Runs `fn` over `items` with at most `limit` at a time. A failure stops new items from starting but is
 * thrown only once every started one has finished, so no child process outlives the test's clean-up.
 */
export async function pool<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed) {
      const i = next++;
      if (i >= items.length) return;
      try {
        out[i] = await fn(items[i] as T, i);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) throw failure.reason;
  return out;
}

/** The commands a human types to set up the demo world, in order. */
export const SEED_COMMANDS: string[][] = [
  ['fund', 'demo', '5'],
  ['fx', 'USD', 'EUR', '0.92'],
  [
    'mandate',
    'create',
    'demo/sandbox',
    '--threshold',
    '0.50',
    '--total',
    '5',
    '--per-day',
    '4',
    '--per-call',
    '3.50',
    '--capabilities',
    'extraction.*,pipeline.*',
    '--regions',
    'EU',
    '--retention',
    '30',
    '--training',
    'no',
  ],
  ['agents', 'add', path.join(EXAMPLES, 'catalog.json')],
];

let template: Promise<string> | undefined;

/**
 * What the seeded state is made of: the CLI that made it, what it typed, the catalog and files it added;
 * and the day, so that no test runs on a ledger written on another day than its own.
 */
function seedInputs(): string {
  const h = createHash('sha256')
    .update(ROOT)
    .update(fs.readFileSync(HOLON_BIN))
    .update(JSON.stringify(SEED_COMMANDS))
    .update(new Date().toISOString().slice(0, 10));
  h.update(fs.readFileSync(path.join(EXAMPLES, 'catalog.json')));
  const files = path.join(EXAMPLES, 'files');
  for (const f of fs.readdirSync(files).sort()) h.update(f).update(fs.readFileSync(path.join(files, f)));
  return h.digest('hex').slice(0, 16);
}

/**
 * A state made by the CLI itself (SEED_COMMANDS) plus the example invoices, once for this build of the
 * CLI and these examples (under `.cache/`), and never changed after: every test file copies it
 * (`seededState`) instead of typing the same commands again, each a process.
 */
function seededTemplate(): Promise<string> {
  template ??= (async () => {
    const cache = path.join(ROOT, '.cache', 'cli-seeded');
    const key = seedInputs();
    const done = path.join(cache, key);
    const state = path.join(done, 'state');
    if (fs.existsSync(path.join(done, 'ready'))) return state;
    fs.mkdirSync(cache, { recursive: true });
    await withLockFolder(path.join(cache, 'making.lock'), async () => {
      if (fs.existsSync(path.join(done, 'ready'))) return;
      // Made aside and renamed into place whole, once it is complete.
      const made = fs.mkdtempSync(path.join(cache, 'making-'));
      for (const cmd of SEED_COMMANDS) await ok(path.join(made, 'state'), cmd);
      copyExampleFiles(path.join(made, 'state'));
      fs.writeFileSync(path.join(made, 'ready'), '');
      // What earlier builds seeded is of no more use.
      for (const old of fs.readdirSync(cache))
        if (old !== 'making.lock' && path.join(cache, old) !== made) fs.rmSync(path.join(cache, old), { recursive: true, force: true });
      fs.renameSync(made, done);
    });
    return state;
  })();
  return template;
}

/** A copy of the state in `src` in a new temporary folder. */
export function copyState(src: string): { dir: string; root: string; cleanup: () => void } {
  const { dir: root, cleanup } = tempDir('holon-cli-');
  const dir = path.join(root, 'state');
  fs.cpSync(src, dir, { recursive: true });
  return { dir, root, cleanup };
}

/** A fresh temporary state with the demo world (a copy of this file's seeded template). */
export async function seededState(): Promise<{ dir: string; root: string; cleanup: () => void }> {
  return copyState(await seededTemplate());
}

/** Opens a state's ledger in this process, as another process on the same state (the human's CLI) would. */
export async function openLedger(state: string): Promise<EventStore<HolonState>> {
  return openStore(state, { clock: systemClock, logger: silentLogger, durable: false, watch: false });
}

/** Whether a command made the state in `state`: its journal. */
export function stateMade(state: string): boolean {
  return fs.existsSync(journalFile(state));
}

/** The journal file of a state. */
export const journalFile = (state: string): string => path.join(state, 'journal.jsonl');

/** The ledger's bytes, to compare before and after: the journal file's. */
export async function ledgerBytes(state: string): Promise<Buffer> {
  return fs.readFileSync(journalFile(state));
}

/** One journal event, as the file holds it. */
export interface Event {
  seq: number;
  time: string;
  type: string;
  data: Record<string, unknown>;
  prev: string;
  hash: string;
  /** On the last event of each transaction: its seal. */
  tx?: { from: number; key: string; sig: string };
}

/** Every whole event of a state's ledger (a journal line another process is still writing is left out). */
export async function readEvents(state: string): Promise<Event[]> {
  const lines = fs.readFileSync(journalFile(state), 'utf8').split('\n');
  lines.pop(); // what follows the last newline: nothing, or a line being appended right now
  return lines.filter((l) => l.length > 0).map((l) => JSON.parse(l) as Event);
}

/** A decimal amount as millionths (exact, no float). */
export function units(amount: string): bigint {
  const m = /^(-)?(\d+)(?:\.(\d{1,6}))?$/.exec(amount);
  if (!m) throw new Error(`not an amount: ${amount}`);
  const v = BigInt(m[2] ?? '0') * 1_000_000n + BigInt((m[3] ?? '').padEnd(6, '0'));
  return m[1] ? -v : v;
}

/**
 * The servers this file's tests started and have not stopped. A test that fails before it stops its
 * server would otherwise leave it running (a call that never ends, say), and the file would never end.
 */
const running = new Set<() => Promise<void>>();
after(async () => {
  await Promise.allSettled([...running].map((stop) => stop()));
});

/** An SDK client connected over stdio to `holon mcp --mandate M --state DIR …`. */
export interface McpSession {
  client: Client;
  /** The server's process id. */
  pid: number | null;
  log: () => string;
  close: () => Promise<void>;
}

/** Starts `node dist/holon.js mcp` as an MCP client would, and connects to it. */
export async function mcpSession(state: string, mandate: string, extra: string[] = [], env?: Record<string, string>): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [HOLON_BIN, 'mcp', '--mandate', mandate, '--state', state, ...extra],
    stderr: 'pipe',
    // Without `env` the SDK gives the server its default environment only, as an MCP client does.
    env: env ? (cleanEnv(env) as Record<string, string>) : getDefaultEnvironment(),
  });
  let log = '';
  transport.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const client = new PatientClient({ name: 'holon-cli-test', version: '1.0.0' });
  await client.connect(transport);
  const close = async (): Promise<void> => {
    running.delete(close);
    await client.close();
  };
  running.add(close);
  return { client, pid: transport.pid, log: () => log, close };
}

/** A running `holon serve`. */
export interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  log: () => string;
  exited: Promise<number | null>;
}

/** Starts `holon serve --port 0 --state DIR EXTRA…` and waits for the URL it prints. */
export async function serveIn(state: string, extra: string[] = []): Promise<Served> {
  const child = spawn(process.execPath, [HOLON_BIN, 'serve', '--port', '0', '--state', state, ...extra], {
    cwd: os.tmpdir(),
    env: cleanEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
    // A safety net against a hung child, never an assertion on time.
    timeout: HANG_MS,
  });
  let log = '';
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const url = await until(() => {
    const printed = /serving MCP on (http:\/\/\S+\/mcp)/.exec(log)?.[1];
    if (!printed && (child.exitCode !== null || child.signalCode !== null))
      throw new Error(`holon serve exited before printing its URL: ${log}`);
    return printed;
  }, 'holon serve to print its URL');
  const stop = async (): Promise<void> => {
    running.delete(stop);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  running.add(stop);
  void exited.then(() => running.delete(stop));
  return { child, url, log: () => log, exited };
}

/** The structured content of a tool result. */
export function structured<T = Record<string, unknown>>(result: unknown): T {
  return ((result as { structuredContent?: unknown }).structuredContent ?? {}) as T;
}

/** The text of a tool result. */
export function textOf(result: unknown): string {
  return ((result as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('\n');
}

const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Strips what a terminal adds: carriage returns and escape sequences. */
export const clean = (s: string): string => s.replace(/\r/g, '').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

/** A `holon` command that opens pages: the URLs it prints, in order, and how it ends. */
export interface PageCommand {
  /** The first page's URL. */
  url: Promise<string>;
  /** The `n`th page's URL (0 is the first): a command may ask more than once (a mandate, then its delegation). */
  page(n: number): Promise<string>;
  done: Promise<Run>;
  child: ChildProcessWithoutNullStreams;
}

/**
 * Starts `holon ARGS… --state STATE` as a human would, except that no browser is opened (the test is the
 * browser, on the URLs the command prints).
 */
export function atPage(state: string, args: string[], env: Record<string, string> = {}): PageCommand {
  const child = spawn(process.execPath, [HOLON_BIN, ...onState(args, state)], {
    cwd: os.tmpdir(),
    env: cleanEnv({ HOLON_NO_BROWSER: '1', ...env }),
    stdio: ['pipe', 'pipe', 'pipe'],
    // A safety net against a hung child, never an assertion on time.
    timeout: HANG_MS,
  });
  let stdout = '';
  let stderr = '';
  const urls = (): string[] => [...stderr.matchAll(/open (http:\/\/localhost:\d+\/c\/[\w-]+\/)/g)].map((m) => m[1]!);
  let ended: Run | undefined;
  const waiting: (() => void)[] = [];
  const wake = (): void => {
    for (const w of waiting.splice(0)) w();
  };
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    wake();
  });
  const done = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      ended = { code, stdout, stderr };
      wake();
      resolve(ended);
    });
  });
  const page = async (n: number): Promise<string> => {
    for (;;) {
      const found = urls()[n];
      if (found) return found;
      if (ended) throw new Error(`holon ${args.join(' ')} opened no page ${n + 1}: exited ${ended.code}: ${ended.stderr}`);
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  const url = page(0);
  // A command that ends without a page rejects `url`; a caller that never asks for it is not told so twice.
  url.catch(() => undefined);
  return { url, page, done, child };
}

/** What page `n` of `cmd` shows the human: its title and lines, as the page itself reads them. */
export async function pageWords(cmd: PageCommand, n: number): Promise<string> {
  const page = (await (await fetch(`${await cmd.page(n)}${CEREMONY_ROUTES.ceremony}`)).json()) as { title: string; lines: string[] };
  return [page.title, ...page.lines].join('\n');
}

/**
 * Runs `holon ARGS… --state STATE`, the human answering each of its `pages` pages with `credential` in
 * `browser`; requires exit 0. Returns what each page showed, and the command's output.
 */
export async function decidedAt(
  browser: PasskeyBrowser,
  state: string,
  credential: VirtualCredential,
  args: string[],
  pages = 1,
): Promise<{ pages: string[]; stdout: string }> {
  const cmd = atPage(state, args);
  const words: string[] = [];
  for (let n = 0; n < pages; n++) {
    words.push(await pageWords(cmd, n));
    const outcome = await browser.decideAt(await cmd.page(n), credential, 'confirm');
    assert.equal(outcome.state, 'done', `${args.join(' ')}, page ${n + 1}: ${outcome.status}`);
  }
  const r = await cmd.done;
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  return { pages: words, stdout: r.stdout };
}

/**
 * `holon ARGS… --state STATE` in a pseudo-terminal (util-linux `script`), as an agent with a shell runs it,
 * opening no browser: resolves once it waits on its page, having asked nothing at the terminal. The agent
 * types into it with `type`; `stop` ends it and waits until it closed.
 */
export async function waitingOnPageInPty(state: string, args: string[]): Promise<{ type(text: string): void; stop(): Promise<void> }> {
  const pty = spawn('script', ['-qec', [process.execPath, HOLON_BIN, ...onState(args, state)].join(' '), '/dev/null'], {
    cwd: os.tmpdir(),
    env: cleanEnv({ TERM: 'dumb', HOLON_NO_BROWSER: '1' }),
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: HANG_MS,
  });
  let output = '';
  pty.stdout.on('data', (d: Buffer) => (output += d.toString()));
  pty.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const closed = new Promise<void>((resolve) => pty.on('close', () => resolve()));
  await until(() => /open http:\/\/localhost/.test(output), `holon ${args.join(' ')} waiting on its page`);
  assert.ok(!output.includes('[y/N]'), 'nobody is asked at the terminal');
  return {
    type: (text) => pty.stdin.write(text),
    stop: async () => {
      pty.kill('SIGTERM');
      await closed;
    },
  };
}

/**
 * Runs `holon ARGS…` in a real terminal (util-linux `script`), as a human at their shell. When the
 * prompt "[y/N]" shows, types `answer` and Enter. `shellSuffix` is appended to the shell command (e.g.
 * "< /dev/null" to take the terminal away from stdin again); `cwd` is the shell's folder (default the OS temp dir).
 */
export async function inTerminal(
  args: string[],
  options: { answer?: string; shellSuffix?: string; cwd?: string } = {},
): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, HOLON_BIN, ...args].map(shq).join(' ') + (options.shellSuffix ? ` ${options.shellSuffix}` : '');
  const cwd = options.cwd ?? os.tmpdir();
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd,
      env: cleanEnv({ TERM: 'dumb' }),
      stdio: ['pipe', 'pipe', 'pipe'],
      // A safety net against a hung child, never an assertion on time.
      timeout: HANG_MS,
    });
    let output = '';
    let answered = false;
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (!answered && options.answer !== undefined && /\[y\/N\]/.test(output)) {
        answered = true;
        child.stdin.write(`${options.answer}\n`);
      }
    });
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      child.stdin.end();
      resolve({ code, output: clean(output) });
    });
  });
}

/**
 * Makes the installation of `member` (a state folder) a `role` of `account` on the store `store`, as its
 * owner `owner` (the store's root, say) does it: `holon team whoami` on the member's side, then
 * `holon team add` at the owner's terminal, answered yes.
 */
export async function joinTeam(
  owner: string,
  member: string,
  options: { store: string; account?: string; name?: string; role?: 'member' | 'approver' | 'owner' },
): Promise<string> {
  const who = await holon(['team', 'whoami', '--json', '--state', member, '--store', options.store]);
  assert.equal(who.code, 0, who.stderr);
  const key = (JSON.parse(who.stdout) as { key: string }).key;
  const added = await inTerminal(
    [
      'team',
      'add',
      key,
      '--account',
      options.account ?? 'demo',
      '--name',
      options.name ?? 'Member',
      '--role',
      options.role ?? 'member',
      '--state',
      owner,
      '--store',
      options.store,
    ],
    { answer: 'y' },
  );
  assert.equal(added.code, 0, added.output);
  return key;
}

/** `holon approve ID [--no-run] --state DIR` at a terminal, answering `answer` to its question. */
export function approveAtTerminal(
  state: string,
  id: string,
  answer: string,
  extra: string[] = [],
): Promise<{ code: number | null; output: string }> {
  return inTerminal(['approve', id, ...extra, '--state', state], { answer });
}

/** An approval as `holon approvals --json` prints it. */
export interface ApprovalJson {
  id: string;
  kind: string;
  status: string;
  channel?: string;
  mandate: string;
  subject: { kind: string; agent?: string };
  released?: boolean;
}

/** The last JSON object a command printed after whatever it showed the human (a terminal session's output). */
export function lastJson(output: string): unknown {
  const start = output.lastIndexOf('\n{');
  return JSON.parse(output.slice(start + 1));
}

/** Approvals of a state (all of them). */
export async function approvals(state: string): Promise<ApprovalJson[]> {
  return json<ApprovalJson[]>(state, ['approvals', '--all']);
}

/** The invoices the pipeline reads, as handles. */
export const INVOICE_FILES = ['invoice-01.pdf', 'invoice-02.pdf', 'invoice-03.pdf', 'invoice-04.pdf'].map(
  (f) => `holon://files/examples/${f}`,
);

/** Asks for one over-threshold call (the invoice pipeline) through a server that does not wait: returns the pending approval id. */
export async function requestApproval(session: McpSession): Promise<string> {
  const r = await session.client.callTool({
    name: 'call_agent',
    arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICE_FILES } },
  });
  const s = structured<{ status: string; approval: string | null }>(r);
  if (s.status !== 'pending_approval' || !s.approval) throw new Error(`expected pending_approval, got ${s.status}: ${textOf(r)}`);
  return s.approval;
}
