/** The built server, as an MCP client starts it: `node dist/holon.js mcp --mandate demo/sandbox --state DIR`. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { silentLogger, systemClock } from '../../src/core/deps.ts';
import { openState } from '../../src/core/holon.ts';
import { FACTURE, HOLON_BIN, MANDATE, servedState, until } from '../helpers.ts';
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
    const search = structured<{ agents: { agent: string }[]; excluded: { agent: string }[] }>(await callTool(client, 'search_agents', { capability: 'extraction.table' }));
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
