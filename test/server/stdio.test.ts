/** The built server, as an MCP client starts it: `node dist/holon.js mcp --mandate demo/sandbox --state DIR`. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as readline from 'node:readline';
import { after, before, test } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { silentLogger, systemClock } from '../../src/core/kernel/deps.ts';
import { openState } from '../../src/core/holon.ts';
import { FACTURE, HOLON_BIN, INVOICES, MANDATE, servedState, until } from '../helpers.ts';
import { callAgent, callTool, structured } from './support.ts';
import { pidAlive as alive } from '../../src/core/store/file/lock.ts';
import { recentRootReceipts } from '../../src/core/market/receiptTree.ts';

let state: { dir: string; cleanup: () => void };

before(async () => {
  state = await servedState();
});

after(() => state.cleanup());

test('the built holon mcp serves the market tools over stdio: list, search, one call', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [HOLON_BIN, 'mcp', '--mandate', MANDATE, '--state', state.dir],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  try {
    assert.equal(client.getServerVersion()?.title, `Holon · ${MANDATE}`);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['search_agents', 'get_agent', 'call_agent', 'check_approval', 'get_budget', 'get_receipt'],
    );
    const search = structured<{ agents: { agent: string }[]; excluded: { agent: string }[] }>(
      await callTool(client, 'search_agents', { capability: 'extraction.table' }),
    );
    assert.deepEqual(
      search.agents.map((a) => a.agent),
      ['acme/table-extract', 'lena/table-extract-fr'],
    );
    assert.deepEqual(
      search.excluded.map((a) => a.agent),
      ['fastcheap/table-extract-us'],
    );
    const r = await callAgent(client, { agent: 'acme/table-extract', input: { file: FACTURE } });
    assert.equal(r.status, 'succeeded', stderr);
    assert.deepEqual(r.cost, { amount: '0.0238', currency: 'EUR' });
    assert.ok(r.output?.startsWith('<agent_output agent="acme/table-extract">'));
    const b = structured<{ spent: { amount: string } }>(await callTool(client, 'get_budget'));
    assert.equal(b.spent.amount, '0.0238');
  } finally {
    await client.close();
  }
  // The server stops when its client goes, and what it did is in the journal every process reads.
  if (pid !== null) await until(() => !alive(pid), 'the server process to exit');
  const store = openState(state.dir, { clock: systemClock, logger: silentLogger, durable: false, watch: false });
  try {
    const receipts = await recentRootReceipts(store, { mandate: MANDATE, limit: 100 });
    assert.deepEqual(
      receipts.map((x) => [x.agent, x.status, x.cost?.amount]),
      [['acme/table-extract', 'succeeded', '0.0238']],
    );
  } finally {
    store.close();
  }
});

/** One JSON-RPC message as a raw client reads it off the server's stdout. */
type Message = { id?: number | string; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown };

test('a client that never answers pings gets the approval form while the ping is still unanswered', async () => {
  // A raw JSON-RPC client, as some MCP clients are: it declares form elicitation and answers no ping.
  const child = spawn(process.execPath, [HOLON_BIN, 'mcp', '--mandate', MANDATE, '--state', state.dir], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const seen: Message[] = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => seen.push(JSON.parse(line) as Message));
  const send = (m: Record<string, unknown>): boolean => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
  const next = (what: string, match: (m: Message) => boolean): Promise<Message> => until(() => seen.find(match), `${what}\n${stderr}`);
  try {
    send({
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'no-ping', version: '1' } },
    });
    await next('the initialize result', (m) => m.id === 'init');
    send({ method: 'notifications/initialized' });
    send({
      id: 'call',
      method: 'tools/call',
      params: { name: 'call_agent', arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICES } } },
    });

    const form = await next('the approval form', (m) => m.method === 'elicitation/create');
    const before = seen.slice(0, seen.indexOf(form));
    const ping = before.find((m) => m.method === 'ping');
    assert.ok(ping, 'the server pinged first, spending request id 0');
    assert.equal(ping.id, 0);
    assert.notEqual(form.id, 0, 'the form is never request 0, which SDK clients cannot cancel');
    // Had the server waited for the ping's answer, the ping would have timed out and been cancelled first.
    assert.ok(!before.some((m) => m.method === 'notifications/cancelled'), 'the form came while the ping was still unanswered');
    assert.ok(!before.some((m) => m.id === 'call'), 'the call is still waiting for the human');

    send({ id: form.id, result: { action: 'accept', content: { decision: 'Reject' } } });
    const result = await next('the call result', (m) => m.id === 'call');
    const r = (result.result as { structuredContent?: { status?: string } }).structuredContent;
    assert.equal(r?.status, 'rejected', JSON.stringify(result));
  } finally {
    child.stdin.end();
    await new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
  }
});
