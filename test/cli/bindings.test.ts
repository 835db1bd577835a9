/**
 * Workspace bindings through the built CLI: a workspace bound to a mandate (`holon mandate bind` at a
 * real terminal) gets a `.mcp.json` written the way Holon: Connect Claude Code writes it, and its server
 * is started from that file's command, arguments and environment, in the workspace, as Claude Code
 * starts a project's server. An agent that edits the file (a file edit, no shell) gets no other mandate,
 * state or store; an artifact it publishes is never opened as a state.
 *
 * Bindings live in the real user's home (there is deliberately no override): every test binds only
 * temporary folders of its own and removes their bindings when it ends, pass or fail.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestContext } from 'node:test';
import { before, test } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { bindingPath } from '../../src/core/local/bindings.ts';
import { cleanEnv, ensureBuilt, HOLON_BIN, holon, inTerminal, journalFile, ledgerBytes, mcpSession, ok, seededState, structured, tempDir } from './cliHarness.ts';

before(ensureBuilt);

const NARROW = 'demo/sandbox';
const WIDE = 'demo/wide';
/** The one line a bound workspace's server refuses with, and how it tells a human to change it. */
const REFUSAL = `is bound to the mandate ${NARROW}`;
const HOW_TO_CHANGE = 'holon mandate bind ACCOUNT/NAME --workspace';

/** A temporary folder (its real path); its binding, and those of its subfolders named in `inner`, go when the test ends. */
function workspace(t: TestContext, inner: string[] = []): string {
  const { dir, cleanup } = tempDir('holon-bind-ws-');
  const real = fs.realpathSync(dir);
  const files = [real, ...inner.map((p) => path.join(real, p))].map((p) => bindingPath(p));
  t.after(() => {
    for (const f of files) fs.rmSync(f, { force: true });
    cleanup();
  });
  return real;
}

/** The demo world (narrow demo/sandbox, threshold 0.50) with a wider mandate of the same state beside it. */
async function stateWithWide(t: TestContext): Promise<string> {
  const s = await seededState();
  t.after(s.cleanup);
  await ok(s.dir, ['mandate', 'create', WIDE, '--threshold', '5', '--total', '5', '--per-call', '5', '--capabilities', 'extraction.*,pipeline.*']);
  return s.dir;
}

/** `holon mandate bind MANDATE --workspace WS --state STATE` at a real terminal, answering yes. */
async function bind(state: string, mandate: string, ws: string): Promise<void> {
  const r = await inTerminal(['mandate', 'bind', mandate, '--workspace', ws, '--state', state], { answer: 'y' });
  assert.equal(r.code, 0, r.output);
  assert.ok(fs.existsSync(bindingPath(ws)), r.output);
}

/** A `.mcp.json` server entry. */
interface Entry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** Writes `<ws>/.mcp.json` as Connect Claude Code does (src/editor/commands.ts); returns the server's name. */
async function writeMcpJson(ws: string, state: string, mandate: string): Promise<string> {
  const name = `holon-${mandate.replace('/', '-')}`;
  const args = [HOLON_BIN, 'mcp', '--mandate', mandate, '--state', state, '--workspace', ws];
  fs.writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { [name]: { command: 'node', args } } }, null, 2) + '\n');
  return name;
}

/** An edit of the file, as an agent's file-edit tool makes it: read, change the entry, write back. */
function editMcpJson(ws: string, name: string, change: (e: Entry) => Entry): void {
  const file = path.join(ws, '.mcp.json');
  const config = JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers: Record<string, Entry> };
  config.mcpServers[name] = change(config.mcpServers[name] as Entry);
  fs.writeFileSync(file, JSON.stringify(config, null, 2) + '\n');
}

function entryOf(ws: string, name: string): Entry {
  return (JSON.parse(fs.readFileSync(path.join(ws, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, Entry> }).mcpServers[name] as Entry;
}

/** Replaces the value after `flag` in an entry's arguments. */
function setArg(flag: string, value: string): (e: Entry) => Entry {
  return (e) => {
    const i = e.args.indexOf(flag);
    assert.ok(i >= 0, `${flag} is in ${e.args.join(' ')}`);
    return { ...e, args: [...e.args.slice(0, i + 1), value, ...e.args.slice(i + 2)] };
  };
}

/** Takes `flag` and its value out of an entry's arguments. */
function dropArg(flag: string): (e: Entry) => Entry {
  return (e) => {
    const i = e.args.indexOf(flag);
    return i < 0 ? e : { ...e, args: [...e.args.slice(0, i), ...e.args.slice(i + 2)] };
  };
}

/** The environment Claude Code gives a project's server: its own (no HOLON_STATE here) plus the entry's `env`. */
function serverEnv(e: Entry): Record<string, string> {
  return cleanEnv(e.env ?? {}) as Record<string, string>;
}

/**
 * Starts the server of `.mcp.json`'s entry in `cwd`, sends what a client sends first (initialize), then
 * closes its stdin: a server that starts answers and exits 0 once its client goes; one that refuses exits
 * non-zero without answering.
 */
function startFromFile(entry: Entry, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(entry.command, entry.args, { cwd, env: serverEnv(entry), stdio: ['pipe', 'pipe', 'pipe'], timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bindings-test', version: '1.0.0' } } };
    // A server that refuses may be gone before it reads: its stdin then fails, which is no test failure.
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(initialize) + '\n');
  });
}

/** Asserts that the entry's server, started in `cwd`, refuses with the binding's line and changes nothing. */
async function assertRefused(state: string, entry: Entry, cwd: string, says: string[] = [REFUSAL, HOW_TO_CHANGE]): Promise<string> {
  const before = await ledgerBytes(state);
  const r = await startFromFile(entry, cwd);
  assert.equal(r.stdout, '', `the server answered: it served ${entry.args.join(' ')}\n${r.stderr}`);
  assert.equal(r.code, 1, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  for (const s of says) assert.ok(r.stderr.includes(s), `"${s}" in: ${r.stderr}`);
  assert.deepEqual(await ledgerBytes(state), before, 'the ledger is as it was');
  return r.stderr;
}

/** A real SDK client on the entry's server, started in `cwd` as Claude Code starts it. */
async function connectFromFile(entry: Entry, cwd: string): Promise<{ client: Client; log: () => string }> {
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, cwd, env: serverEnv(entry), stderr: 'pipe' });
  let log = '';
  transport.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const client = new Client({ name: 'bindings-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, log: () => log };
}

test('editing .mcp.json to a wider mandate of the same state gets a refusal in a bound workspace, and no spend', async (t) => {
  const state = await stateWithWide(t);
  const ws = workspace(t);
  await bind(state, NARROW, ws);
  const name = await writeMcpJson(ws, state, NARROW);

  // The file as written: the server serves demo/sandbox, whose threshold makes the pipeline wait for a human.
  const served = await connectFromFile(entryOf(ws, name), ws);
  try {
    assert.equal(served.client.getServerVersion()?.title, `Holon · ${NARROW}`);
    const r = await served.client.callTool({ name: 'call_agent', arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: ['holon://files/examples/invoice-01.pdf'] } } });
    assert.equal(structured<{ status: string }>(r).status, 'pending_approval', served.log());
  } finally {
    await served.client.close();
  }

  // The agent edits the file to the wider mandate: the next server refuses it, before it opens anything.
  editMcpJson(ws, name, setArg('--mandate', WIDE));
  const said = await assertRefused(state, entryOf(ws, name), ws);
  assert.ok(said.includes(`refuses the mandate ${WIDE}`), said);

  // Started from a folder inside the workspace it is bound the same way.
  fs.mkdirSync(path.join(ws, 'src'));
  await assertRefused(state, entryOf(ws, name), path.join(ws, 'src'));

  // No --mandate at all in the bound workspace: the bound one.
  editMcpJson(ws, name, dropArg('--mandate'));
  const bare = await connectFromFile(entryOf(ws, name), ws);
  try {
    assert.equal(bare.client.getServerVersion()?.title, `Holon · ${NARROW}`);
  } finally {
    await bare.client.close();
  }
});

test('an unbound folder still serves what its file names: the invariant is per folder', async (t) => {
  const state = await stateWithWide(t);
  const ws = workspace(t);
  const name = await writeMcpJson(ws, state, NARROW);
  editMcpJson(ws, name, setArg('--mandate', WIDE));
  const served = await connectFromFile(entryOf(ws, name), ws);
  try {
    assert.equal(served.client.getServerVersion()?.title, `Holon · ${WIDE}`);
  } finally {
    await served.client.close();
  }
});

test('in a bound workspace the file cannot name another genuine state, another store or another workspace', async (t) => {
  const state = await stateWithWide(t);
  const other = await seededState();
  t.after(other.cleanup);
  const ws = workspace(t);
  const elsewhere = workspace(t);
  await bind(state, NARROW, ws);
  const name = await writeMcpJson(ws, state, NARROW);
  const written = entryOf(ws, name);

  // Another state folder, with a demo/sandbox of its own: refused, and that state is untouched too.
  const otherBefore = await ledgerBytes(other.dir);
  const s = await assertRefused(state, setArg('--state', other.dir)(written), ws);
  assert.ok(s.includes(`the state ${other.dir}`), s);
  assert.deepEqual(await ledgerBytes(other.dir), otherBefore);
  // The same, through the environment the file gives the server.
  await assertRefused(state, { ...dropArg('--state')(written), env: { HOLON_STATE: other.dir } }, ws);

  // Another store, by flag or by environment; its password is never repeated.
  const withStore = (url: string) => (e: Entry): Entry => (e.args.includes('--store') ? setArg('--store', url)(e) : { ...e, args: [...e.args, '--store', url] });
  const byFlag = await assertRefused(state, withStore('postgres://holon:hunter2@db.invalid/elsewhere')(written), ws);
  assert.ok(byFlag.includes('the store postgres://holon@db.invalid/elsewhere'), byFlag);
  assert.ok(!byFlag.includes('hunter2'), byFlag);
  const byEnv = await assertRefused(state, { ...dropArg('--store')(written), env: { HOLON_STORE: 'postgres://holon:hunter2@db.invalid/elsewhere' } }, ws);
  assert.ok(!byEnv.includes('hunter2'), byEnv);

  // Another workspace (where artifacts would go and whose git would be the forge).
  const w = await assertRefused(state, setArg('--workspace', elsewhere)(written), ws);
  assert.ok(w.includes(`the workspace ${elsewhere}`), w);
});

test('a journal.jsonl an agent publishes as an artifact is never opened as a state', async (t) => {
  const state = await stateWithWide(t);
  await ok(state, ['mandate', 'create', 'demo/writer', '--toolsets', 'office', '--grant', 'artifact.publish']);
  const ws = workspace(t);
  const aside = workspace(t);
  // The agent publishes a journal of its making (here a copy of a real one, where the state has a journal file).
  const journal = fs.existsSync(journalFile(state)) ? fs.readFileSync(journalFile(state), 'utf8') : '{}\n';
  const session = await mcpSession(state, 'demo/writer', ['--workspace', ws]);
  let published: string;
  try {
    const r = await session.client.callTool({ name: 'artifact_publish', arguments: { title: 'journal', filename: 'journal.jsonl', content: journal } });
    assert.notEqual(r.isError, true, session.log());
    published = path.join(ws, path.dirname(structured<{ path: string }>(r).path));
  } finally {
    await session.close();
  }
  assert.ok(fs.existsSync(path.join(published, 'journal.jsonl')) && fs.existsSync(path.join(published, 'artifact.json')));
  fs.mkdirSync(path.join(published, 'inner'));
  fs.symlinkSync(published, path.join(aside, 'state'));
  const artifacts = path.join(ws, '.holon', 'artifacts');

  // No store in the environment: a team store's database must not stand in for the folder being refused.
  const noStore = { HOLON_STORE: '' };
  const refusedAsState = async (args: string[], env: Record<string, string> = {}): Promise<void> => {
    const r = await holon(args, { cwd: ws, env: { ...noStore, ...env } });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /office artifact folder \(or inside one\)/);
    assert.equal(r.stdout, '');
  };
  await refusedAsState(['mcp', '--mandate', NARROW, '--state', path.relative(ws, published)]);
  await refusedAsState(['receipts', '--state', published]);
  await refusedAsState(['mandate', 'list'], { HOLON_STATE: published });
  await refusedAsState(['fund', 'demo', '5', '--state', path.join(published, 'inner')]);
  await refusedAsState(['fund', 'demo', '5', '--state', path.join(artifacts, 'new-one')]);
  await refusedAsState(['budget', '--state', path.join(aside, 'state')]);
  await refusedAsState(['mandate', 'bind', NARROW, '--workspace', ws, '--state', published]);
  assert.ok(!fs.existsSync(bindingPath(ws)), 'nothing was bound');
  assert.ok(!fs.existsSync(path.join(artifacts, 'new-one')), 'nothing was made');
  assert.ok(!fs.existsSync(path.join(published, 'inner', 'journal.jsonl')));
});

test('a damaged or foreign binding file is refused, never read as "unbound"', async (t) => {
  const state = await stateWithWide(t);
  const ws = workspace(t);
  const other = workspace(t);
  await bind(state, NARROW, ws);
  const name = await writeMcpJson(ws, state, NARROW);
  editMcpJson(ws, name, setArg('--mandate', WIDE));
  const file = bindingPath(ws);
  const good = fs.readFileSync(file, 'utf8');
  const parsed = JSON.parse(good) as Record<string, unknown>;
  const put = (text: string, mode = 0o600): void => {
    fs.rmSync(file, { force: true });
    fs.writeFileSync(file, text, { mode });
    fs.chmodSync(file, mode);
  };
  const cases: [string, () => void, string][] = [
    ['not JSON', () => put(good.slice(0, 20)), 'is not JSON'],
    ['a field more', () => put(JSON.stringify({ ...parsed, toolsets: ['market'] })), 'its fields must be exactly'],
    ['no mandate', () => put(JSON.stringify({ ...parsed, mandate: 'Not A Mandate' })), 'is not a binding (mandate)'],
    ['a store with its password', () => put(JSON.stringify({ ...parsed, store: 'postgres://u:pw@h/db' })), 'is not a binding (store)'],
    ["another folder's binding", () => put(JSON.stringify({ ...parsed, workspace: other })), `names the workspace ${other}`],
    ['writable by others', () => put(good, 0o666), 'may be written by other users'],
    [
      'a link to a file an agent can write',
      () => {
        const planted = path.join(ws, 'binding.json');
        fs.writeFileSync(planted, JSON.stringify({ ...parsed, mandate: WIDE }), { mode: 0o600 });
        fs.rmSync(file, { force: true });
        fs.symlinkSync(planted, file);
      },
      'is a link, not a file',
    ],
  ];
  for (const [what, damage, says] of cases) {
    damage();
    await t.test(what, async () => {
      await assertRefused(state, entryOf(ws, name), ws, [says, 'nor treat its workspace as unbound']);
      const shown = await holon(['mandate', 'binding', '--workspace', ws]);
      assert.equal(shown.code, 1, shown.stdout);
      assert.ok(shown.stderr.includes(says), shown.stderr);
    });
  }
  await t.test('owned by another user', { skip: process.getuid?.() !== 0 && 'only root can give a file to another user' }, async () => {
    put(good);
    fs.chownSync(file, 65534, 65534);
    await assertRefused(state, entryOf(ws, name), ws, ['belongs to the user with id 65534']);
  });
  // A human clears a damaged binding at a terminal; the folder is then unbound, as the file says.
  put(good.slice(0, 20));
  const r = await inTerminal(['mandate', 'unbind', '--workspace', ws], { answer: 'y' });
  assert.equal(r.code, 0, r.output);
  assert.match(r.output, /Unbound the damaged binding of/);
  assert.ok(!fs.existsSync(file));
});

test('bind, unbind and binding: bad input and no terminal change nothing; a human at a terminal binds and unbinds', async (t) => {
  const state = await stateWithWide(t);
  const ws = workspace(t, ['inner']);
  const before = await ledgerBytes(state);
  const bound = (): boolean => fs.existsSync(bindingPath(ws));
  const refused = async (args: string[], code: number, says: RegExp): Promise<void> => {
    const r = await holon([...args, '--state', state]);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, says);
    assert.equal(bound(), false, `${args.join(' ')} bound nothing`);
  };
  await refused(['mandate', 'bind', 'demo/nope', '--workspace', ws], 1, /no mandate "demo\/nope" on the journal in|no mandate "demo\/nope" on the store/);
  await refused(['mandate', 'bind', 'Demo/Sandbox', '--workspace', ws], 2, /is not a mandate id/);
  await refused(['mandate', 'bind', NARROW, '--workspace', path.join(ws, 'missing')], 1, /does not exist/);
  await refused(['mandate', 'bind', NARROW, '--workspace', ws, '--threshold', '9'], 2, /takes only --workspace, --state and --store, not --threshold/);
  await refused(['mandate', 'bind', NARROW, '--workspace', path.parse(ws).root], 2, /root of the file system/);
  await refused(['mandate', 'bind', '--workspace', ws], 2, /usage: holon mandate bind ACCOUNT\/NAME/);
  await refused(['mandate', 'unbind', NARROW, '--workspace', ws], 2, /usage: holon mandate unbind/);
  await refused(['mandate', 'create', 'demo/other', '--workspace', ws], 2, /--workspace is for holon mandate bind, unbind and binding/);
  // No terminal (an agent's shell, a server a config file started): refused after every check passed.
  await refused(['mandate', 'bind', NARROW, '--workspace', ws], 1, /binding a workspace needs a human at a terminal/);
  // At a terminal, an unknown mandate is refused before anything is asked; "no" binds nothing.
  const unknown = await inTerminal(['mandate', 'bind', 'demo/nope', '--workspace', ws, '--state', state], { answer: 'y' });
  assert.equal(unknown.code, 1, unknown.output);
  assert.doesNotMatch(unknown.output, /\[y\/N\]/);
  const no = await inTerminal(['mandate', 'bind', NARROW, '--workspace', ws, '--state', state], { answer: 'n' });
  assert.equal(no.code, 1, no.output);
  assert.match(no.output, /Not changed\./);
  assert.equal(bound(), false);
  const unboundShown = await holon(['mandate', 'binding', '--workspace', ws, '--json']);
  assert.equal(unboundShown.code, 0, unboundShown.stderr);
  assert.equal(JSON.parse(unboundShown.stdout), null);

  // Bound from the workspace itself (the default --workspace), and shown from a folder inside it.
  const yes = await inTerminal(['mandate', 'bind', NARROW, '--state', state], { answer: 'y', cwd: ws });
  assert.equal(yes.code, 0, yes.output);
  fs.mkdirSync(path.join(ws, 'inner', 'deeper'), { recursive: true });
  const shown = JSON.parse((await holon(['mandate', 'binding', '--workspace', path.join(ws, 'inner', 'deeper'), '--json'])).stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(shown).sort(), ['bound_at', 'mandate', 'state', 'store', 'workspace']);
  assert.equal(shown['workspace'], ws);
  assert.equal(shown['mandate'], NARROW);
  assert.equal(shown['state'], fs.realpathSync(state));
  // Bound to the state's own journal (no store named); a store's password is never kept (test/core/bindings.test.ts).
  assert.equal(shown['store'], null);
  const st = fs.statSync(bindingPath(ws));
  assert.equal(st.mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.dirname(bindingPath(ws))).mode & 0o777, 0o700);

  // The nearest binding wins: a folder inside, bound to the wide mandate, is that mandate's.
  const inner = await inTerminal(['mandate', 'bind', WIDE, '--workspace', path.join(ws, 'inner'), '--state', state], { answer: 'y' });
  assert.equal(inner.code, 0, inner.output);
  const nearest = JSON.parse((await holon(['mandate', 'binding', '--workspace', path.join(ws, 'inner', 'deeper'), '--json'])).stdout) as { mandate: string };
  assert.equal(nearest.mandate, WIDE);

  // Unbinding needs a terminal too.
  const r = await holon(['mandate', 'unbind', '--workspace', ws]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /unbinding a workspace needs a human at a terminal/);
  assert.equal(bound(), true);
  const un = await inTerminal(['mandate', 'unbind', '--workspace', ws], { answer: 'y' });
  assert.equal(un.code, 0, un.output);
  assert.equal(bound(), false);
  assert.deepEqual(await ledgerBytes(state), before, 'binding never writes the ledger');
});
