/**
 * The CLI on the team store: --store and HOLON_STORE reach one PostgreSQL database; the state folder keeps
 * only the key. The one end-to-end pass of the CLI on PostgreSQL: a typical session, as a user types it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { promisify } from 'node:util';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { ApprovalJson, McpSession } from '../cli/cliHarness.ts';
import { ensureBuilt, holon as run, inTerminal, INVOICE_FILES, lastJson, mcpSession, requestApproval, SEED_COMMANDS, structured } from '../cli/cliHarness.ts';
import { copyExampleFiles, HANG_MS, HOLON_BIN, ROOT, tempDir } from '../helpers.ts';
import type { TestPostgres } from './harness.ts';
import { sqlAt, startPostgres } from './harness.ts';

let pg: TestPostgres;
before(async () => {
  if (!fs.existsSync(HOLON_BIN)) await promisify(execFile)(process.execPath, ['esbuild.mjs'], { cwd: ROOT });
  pg = await startPostgres();
});
after(() => pg.stop());

async function holon(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [HOLON_BIN, ...args], { env: { ...process.env, HOLON_STORE: '', ...env } });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

test('two state folders share one account through --store and HOLON_STORE', async () => {
  const url = await pg.createDatabase('cli');
  const a = tempDir();
  const b = tempDir();
  try {
    const first = await holon(['fund', 'demo', '5', '--state', a.dir, '--store', url]);
    assert.equal(first.code, 0, first.out);
    const second = await holon(['fund', 'demo', '2', '--state', a.dir, '--json'], { HOLON_STORE: url });
    assert.equal(second.code, 0, second.out);
    assert.match(second.out, /7\.00/);
    // The first to write owns the store: another installation reads it, and may not fund it until made an owner.
    const other = await holon(['fund', 'demo', '2', '--state', b.dir], { HOLON_STORE: url });
    assert.equal(other.code, 1, other.out);
    assert.match(other.out, /needs an owner of account demo/);
    const listed = await holon(['team', 'list', '--state', b.dir, '--json'], { HOLON_STORE: url });
    assert.equal(listed.code, 0, listed.out);
    assert.deepEqual(fs.readdirSync(a.dir), ['keys'], 'no journal in the state folder: the events are in the database');
    const wrong = await holon(['fund', 'demo', '1', '--state', a.dir, '--store', 'mysql://x']);
    assert.equal(wrong.code === 0, false);
    assert.match(wrong.out, /postgres:\/\//);
  } finally {
    a.cleanup();
    b.cleanup();
  }
});

test('a store that cannot be reached is one clear error, soon, and nothing is written', { timeout: 120_000 }, async () => {
  // A port nobody listens on, and a server that takes the connection and never answers (a host that drops packets).
  const closed = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
  const sockets: net.Socket[] = [];
  const silent = net.createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const state = tempDir();
  try {
    for (const port of [closed, (silent.address() as net.AddressInfo).port]) {
      const url = `postgres://holon:secret@127.0.0.1:${port}/team`;
      const r = await holon(['fund', 'demo', '5', '--state', state.dir, '--store', url]);
      assert.equal(r.code, 1, r.out);
      const lines = r.out.split('\n').filter((l) => l.length > 0);
      assert.equal(lines.length, 1, r.out);
      assert.match(lines[0] ?? '', new RegExp(`^holon: could not reach the team store at postgres://holon:\\*\\*\\*@127\\.0\\.0\\.1:${port}/team \\(`));
      assert.ok(!r.out.includes('secret'), 'the password is never shown');
    }
    assert.deepEqual(fs.readdirSync(state.dir), [], 'nothing was written, not even a key');
  } finally {
    for (const s of sockets) s.destroy();
    silent.close();
    state.cleanup();
  }
});

type MoneyJson = { amount: string; currency: string };
type Tree = { receipt: string; agent: string; status: string; approval: string | null; children: Tree[] };

/** `holon ARGS… --state STATE` on the team store `url` (as HOLON_STORE, as a member's shell names it); requires exit 0. */
async function onStore(url: string, state: string, args: string[]): Promise<string> {
  const r = await run([...args, '--state', state], { env: { HOLON_STORE: url } });
  assert.equal(r.code, 0, `holon ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

test('a session on the team store: funds, a mandate, agents, a call, one over the threshold approved at a terminal, receipts, verify', { timeout: HANG_MS }, async () => {
  await ensureBuilt();
  const url = await pg.createDatabase('session');
  const s = tempDir();
  const sessions: McpSession[] = [];
  try {
    // The invoices the agent names by holon://files/ handles are the human's files, in the state folder.
    copyExampleFiles(s.dir);
    for (const cmd of SEED_COMMANDS) await onStore(url, s.dir, cmd);
    const agent = await mcpSession(s.dir, 'demo/sandbox', ['--approval-wait', '0', '--no-elicitation'], { HOLON_STORE: url });
    sessions.push(agent);
    const small = structured<{ status: string; cost: MoneyJson }>(await agent.client.callTool({ name: 'call_agent', arguments: { agent: 'lena/table-extract-fr', input: { file: 'holon://files/examples/facture.pdf' } } }));
    assert.equal(small.status, 'succeeded', JSON.stringify(small));
    // Over the threshold: the server does not wait, the agent gets the pending approval; the human approves at a terminal.
    const id = await requestApproval(agent);
    const approved = await inTerminal(['approve', id, '--no-run', '--json', '--state', s.dir, '--store', url], { answer: 'y' });
    assert.equal(approved.code, 0, approved.output);
    assert.deepEqual(lastJson(approved.output), { approval: id, status: 'approved', waiting_server: false });
    const again = structured<{ status: string; delegated_calls: number }>(await agent.client.callTool({ name: 'call_agent', arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICE_FILES }, approval: id } }));
    assert.equal(again.status, 'succeeded', JSON.stringify(again));
    assert.equal(again.delegated_calls, 4);
    const listed = JSON.parse(await onStore(url, s.dir, ['approvals', '--all', '--json'])) as ApprovalJson[];
    assert.deepEqual(listed.map((a) => [a.id, a.status, a.channel]), [[id, 'used', 'cli']]);
    // The receipts: the small call, and the pipeline with its four delegated calls.
    const roots = JSON.parse(await onStore(url, s.dir, ['receipts', '--json'])) as Tree[];
    assert.deepEqual(roots.map((t) => [t.agent, t.status]).sort(), [['holon-labs/invoice-pipeline', 'succeeded'], ['lena/table-extract-fr', 'succeeded']]);
    const pipeline = roots.find((t) => t.agent === 'holon-labs/invoice-pipeline');
    assert.equal(pipeline?.approval, id);
    assert.deepEqual(pipeline?.children.map((c) => c.status), ['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    const [budget] = JSON.parse(await onStore(url, s.dir, ['budget', 'demo/sandbox', '--json'])) as { spent: MoneyJson; held: MoneyJson }[];
    assert.ok(budget && Number(budget.spent.amount) > 0 && Number(budget.held.amount) === 0, JSON.stringify(budget));
    // Every row verifies, from this state folder and from the store's URL alone; the folder holds no journal.
    const report = JSON.parse(await onStore(url, s.dir, ['verify', '--json'])) as { ok: boolean; refused: unknown[]; events: number };
    assert.deepEqual([report.ok, report.refused], [true, []], JSON.stringify(report));
    const byUrl = await run(['verify', '--store', url, '--state', tempDir().dir, '--json'], { env: { HOLON_STORE: '' } });
    assert.equal(byUrl.code, 0, byUrl.stderr);
    assert.equal((JSON.parse(byUrl.stdout) as { events: number }).events, report.events);
    assert.deepEqual(fs.readdirSync(s.dir).sort(), ['files', 'keys']);
  } finally {
    for (const session of sessions) await session.close().catch(() => undefined);
    s.cleanup();
  }
});

test("a team member's shell names the team store: the demo keeps its own journal, says so, and writes nothing there", { timeout: HANG_MS }, async () => {
  await ensureBuilt();
  const url = await pg.createDatabase('demo');
  const { dir: root, cleanup } = tempDir();
  try {
    const state = path.join(root, 'demo-state');
    const r = await run(['demo', '--state', state], { env: { HOLON_STORE: url } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /never the team store/, r.stdout.slice(0, 400));
    // The commands it suggests read its journal, not the store the shell names.
    assert.match(r.stdout, /holon receipts --state \S+ --store ''/);
    assert.ok(fs.existsSync(path.join(state, 'journal.jsonl')));
    const [table] = await sqlAt<{ t: string | null }>(url, "SELECT to_regclass('holon_events')::text AS t");
    assert.equal(table?.t, null, 'the demo never opened the team store');
    const receipts = await run(['receipts', '--json', '--state', state, '--store', ''], { env: { HOLON_STORE: url } });
    assert.equal(receipts.code, 0, receipts.stderr);
    const calls = (JSON.parse(receipts.stdout) as { kind: string }[]).filter((r) => r.kind === 'call');
    assert.equal(calls.length, 4, "the small call, the pipeline, the buyer's call priced upto and its paid tool");
  } finally {
    cleanup();
  }
});

test('on a team store a read needs no state folder: it answers from the database, writes nothing and makes no folder', { timeout: HANG_MS }, async () => {
  await ensureBuilt();
  const url = await pg.createDatabase('reads');
  const { dir: root, cleanup } = tempDir();
  try {
    const reads = [['mandate', 'list'], ['agents', 'list'], ['agents', 'search', 'table'], ['approvals'], ['receipts'], ['verify']];
    for (const [i, args] of reads.entries()) {
      const state = path.join(root, `missing-${i}`);
      const what = `holon ${args.join(' ')}`;
      const onTeam = await run([...args, '--state', state], { env: { HOLON_STORE: url } });
      assert.equal(onTeam.code, 0, `${what}: ${onTeam.stderr}`);
      // On the journal the same command is refused for want of a state.
      const onJournal = await run([...args, '--state', state], { env: { HOLON_STORE: '' } });
      assert.equal(onJournal.code, 1, `${what} on the journal: ${onJournal.stdout}`);
      assert.match(onJournal.stderr, /no Holon state|no journal/, `${what}: on the journal, refused only for want of a state`);
      assert.equal(fs.existsSync(state), false, `${what} created ${state}`);
    }
    const rows = await sqlAt<{ n: string }>(url, "SELECT CASE WHEN to_regclass('holon_events') IS NULL THEN 0 ELSE (SELECT count(*) FROM holon_events) END AS n");
    assert.equal(Number(rows[0]?.n), 0, 'the reads wrote nothing');
  } finally {
    cleanup();
  }
});
