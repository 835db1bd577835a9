/**
 * The gateway's edges, as a hostile agent, a careless user and MCP clients Holon did not write find them:
 * a human who answers a form in seconds, a dismissed form, inputs nested or sized to hurt, agents that
 * answer off their schema, too much, or never, a line too long for the stdio reader, and the demo
 * catalog's own examples. Each was a defect; each test fails on the code before its fix.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/client';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { readCatalog } from '../../src/core/market/catalog.ts';
import { JSON_LIMITS } from '../../src/core/kernel/util.ts';
import { createHolonServer } from '../../src/server/server.ts';
import { MAX_LINE_BYTES } from '../../src/server/transports/stdio.ts';
import { connect, demoRuntime, EXAMPLES, HOLON_BIN, INVOICES, MANDATE, servedState, until } from '../helpers.ts';
import type { CallResult } from './support.ts';
import { addEchoAgent, assertRefusalsOnly, callAgent, callTool, ECHO_AGENT, eventsAfter, money, problemOf, structured } from './support.ts';

const PIPELINE = 'holon-labs/invoice-pipeline';
const JOB = { agent: PIPELINE, input: { files: INVOICES } };

/** A seeded state folder the built binary serves, removed after the file's tests. */
let state: { dir: string; cleanup: () => void };
before(async () => {
  state = await servedState();
});
after(() => state.cleanup());

/** `holon mcp` over stdio, with a client that answers elicitation forms with `answer`. */
async function stdioWithForms(extra: string[], answer: () => Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string> }>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [HOLON_BIN, 'mcp', '--mandate', MANDATE, '--state', state.dir, ...extra], stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'human-paced', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', () => answer());
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('elicitation, as a person answers it', () => {
  test('holon mcp with its default wait: a form answered Approve three seconds later runs the call', { timeout: 60_000 }, async () => {
    let asked = 0;
    const { client, stderr } = await stdioWithForms([], async () => {
      asked += 1;
      // A person reads the form, then clicks.
      await new Promise((r) => setTimeout(r, 3_000));
      return { action: 'accept', content: { decision: 'Approve' } };
    });
    try {
      const r = structured<CallResult>((await client.callTool({ name: 'call_agent', arguments: JOB }, { timeout: 60_000 })) as CallToolResult);
      assert.equal(r.status, 'succeeded', stderr());
      assert.equal(r.delegated_calls, 4);
      assert.equal(asked, 1);
    } finally {
      await client.close();
    }
  });

  test('a dismissed form ends the wait at once: the agent gets the pending approval to tell the human about', { timeout: 60_000 }, async () => {
    // It waits up to ten minutes for a form: were the dismissal ignored, the client's own 30 s timeout would fail this.
    const { client, stderr } = await stdioWithForms(['--elicitation-wait', '600'], async () => ({ action: 'cancel' }));
    try {
      const r = structured<CallResult>((await client.callTool({ name: 'call_agent', arguments: JOB }, { timeout: 30_000 })) as CallToolResult);
      assert.equal(r.status, 'pending_approval', stderr());
      assert.match(r.approval ?? '', /^apr_/);
      const check = structured<{ status: string }>(await callTool(client, 'check_approval', { approval: r.approval }));
      assert.equal(check.status, 'pending', 'dismissing a form decides nothing');
    } finally {
      await client.close();
    }
  });

  test('a form the human answered is never cancelled afterwards', async () => {
    const { runtime, cleanup } = await demoRuntime();
    try {
      const server = createHolonServer(runtime.deps, MANDATE);
      const client = new Client({ name: 'spy', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { decision: 'Approve' } }));
      const [c, s] = InMemoryTransport.createLinkedPair();
      const fromServer: JSONRPCMessage[] = [];
      const send = s.send.bind(s);
      s.send = async (message, options) => {
        fromServer.push(message);
        return send(message, options);
      };
      await Promise.all([server.connect(s), client.connect(c)]);
      const r = await callAgent(client, JOB);
      assert.equal(r.status, 'succeeded');
      await new Promise((resolve) => setImmediate(resolve));
      const methods = fromServer.map((m) => ('method' in m ? m.method : 'response'));
      assert.equal(methods.filter((m) => m === 'elicitation/create').length, 1);
      assert.equal(methods.filter((m) => m === 'notifications/cancelled').length, 0, methods.join(', '));
      await client.close();
    } finally {
      await cleanup();
    }
  });
});

describe('inputs sized or nested to hurt', () => {
  test('nested 3,000 levels deep, or 8 MB: invalid_input, before anything is hashed or held; only the refusals are appended', async () => {
    const { runtime, cleanup } = await demoRuntime();
    try {
      const client = await connect(runtime);
      const seq = runtime.store.seq;
      let deep: unknown = 'x';
      for (let i = 0; i < 3000; i++) deep = { d: deep };
      const huge = { files: INVOICES, note: 'x'.repeat(8 * 1024 * 1024) };
      for (const input of [{ files: INVOICES, deep }, huge]) {
        const p = problemOf(await callTool(client, 'call_agent', { agent: PIPELINE, input }));
        assert.equal(p.reason, 'invalid_input');
        assert.ok(p['limit'] === 'depth' || p['limit'] === 'bytes', JSON.stringify(p));
      }
      await assertRefusalsOnly(runtime, seq, ['call_failed', 'call_failed']);
      await client.close();
    } finally {
      await cleanup();
    }
  });

  test('an approval keeps the input\'s hash and what the human reads, never the whole input', async () => {
    const { runtime, cleanup } = await demoRuntime();
    try {
      const client = await connect(runtime);
      const seq = runtime.store.seq;
      const input = { files: INVOICES, note: 'n'.repeat(JSON_LIMITS.bytes - 1000) };
      const r = await callAgent(client, { agent: PIPELINE, input });
      assert.equal(r.status, 'pending_approval');
      const requested = (await eventsAfter(runtime, seq)).find((e) => e.type === 'approval.requested');
      assert.ok(requested);
      assert.ok(JSON.stringify(requested).length < 10_000, `the approval event is ${JSON.stringify(requested).length} bytes for a ${JSON.stringify(input).length}-byte input`);
      const a = runtime.store.state.approvals[r.approval ?? ''];
      assert.ok(a?.subject.kind === 'agent_call');
      assert.equal(a.subject.input_bytes, JSON.stringify(input).length);
      await client.close();
    } finally {
      await cleanup();
    }
  });
});

describe('agents that answer badly, or never', () => {
  let env: Awaited<ReturnType<typeof demoRuntime>>;
  let client: Client;
  before(async () => {
    env = await demoRuntime();
    await addEchoAgent(env.runtime, env.clock);
    await addEchoAgent(env.runtime, env.clock, { id: 'test/echo-hasty', timeout_seconds: 1 });
    client = await connect(env.runtime);
  });
  after(async () => {
    await client.close();
    await env.cleanup();
  });

  const record = (agent: string): { runs: number; succeeded: number } | undefined => env.runtime.store.state.records[agent];

  test('an output outside the declared output schema is a failure: not charged, counted against the agent', async () => {
    const before = money(env.runtime);
    const runs = record(ECHO_AGENT)?.runs ?? 0;
    const r = await callAgent(client, { agent: ECHO_AGENT, input: { text: 'x', mode: 'off-schema' } });
    assert.equal(r.status, 'failed');
    assert.deepEqual([r.error?.code, r.error?.charged], ['invalid_output', false]);
    assert.equal(r.output, null, 'the off-schema output does not reach the caller');
    assert.deepEqual(money(env.runtime), before);
    assert.deepEqual([record(ECHO_AGENT)?.runs, record(ECHO_AGENT)?.succeeded], [runs + 1, (record(ECHO_AGENT)?.succeeded ?? 0)]);
  });

  test('an output over the size cap is a failure: not charged, never passed on', async () => {
    const before = money(env.runtime);
    const r = await callAgent(client, { agent: ECHO_AGENT, input: { text: 'y'.repeat(1024), mode: 'repeat', times: 1100 } });
    assert.equal(r.status, 'failed');
    assert.deepEqual([r.error?.code, r.error?.charged], ['output_too_large', false]);
    assert.equal(r.output, null);
    assert.deepEqual(money(env.runtime), before);
    const ok = await callAgent(client, { agent: ECHO_AGENT, input: { text: 'y'.repeat(1024), mode: 'repeat', times: 100 } });
    assert.equal(ok.status, 'succeeded', 'under the cap it passes');
  });

  test('a hung agent is given up on after its declared timeout, and its hold is released', async () => {
    const gate = path.join(env.dir, 'never-created');
    const described = structured<{ timeout_seconds: number }>(await callTool(client, 'get_agent', { agent: 'test/echo-hasty' }));
    assert.equal(described.timeout_seconds, 1);
    assert.equal(structured<{ timeout_seconds: number }>(await callTool(client, 'get_agent', { agent: ECHO_AGENT })).timeout_seconds, 120, 'the default');
    const before = money(env.runtime);
    try {
      const r = await callAgent(client, { agent: 'test/echo-hasty', input: { text: gate, mode: 'hold' } });
      assert.equal(r.status, 'failed');
      assert.deepEqual([r.error?.code, r.error?.charged], ['timeout', false]);
      assert.deepEqual(money(env.runtime), before, 'nothing spent, nothing left held');
      assert.deepEqual([record('test/echo-hasty')?.runs, record('test/echo-hasty')?.succeeded], [1, 0]);
    } finally {
      fs.writeFileSync(gate, '');
    }
  });
});

describe('a stdio line too long to read', () => {
  test('is refused with a JSON-RPC error naming the limit, said on stderr, and the server keeps serving', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, [HOLON_BIN, 'mcp', '--mandate', MANDATE, '--state', state.dir], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const responses = (): { id?: unknown; result?: unknown; error?: { code: number; message: string } }[] =>
      out
        .split('\n')
        .filter((l) => l.trim().length > 0)
        .map((l) => JSON.parse(l) as { id?: unknown });
    const send = (m: object): boolean => child.stdin.write(JSON.stringify(m) + '\n');
    try {
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      await until(() => responses().some((r) => r.id === 1), 'the initialize response');
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      // The SDK's clients write the id last: the reader finds it at either end of the line.
      const big = JSON.stringify({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'call_agent', arguments: { agent: PIPELINE, input: { files: INVOICES, note: 'z'.repeat(MAX_LINE_BYTES) } } }, id: 7 });
      child.stdin.write(big + '\n');
      send({ jsonrpc: '2.0', id: 8, method: 'tools/list' });
      await until(() => responses().some((r) => r.id === 8), 'the next request answered', 30_000);
      const refused = responses().find((r) => r.id === 7);
      assert.equal(refused?.error?.code, -32600);
      assert.ok(refused?.error?.message.includes(String(MAX_LINE_BYTES)), refused?.error?.message);
      assert.ok(Array.isArray((responses().find((r) => r.id === 8)?.result as { tools?: unknown[] } | undefined)?.tools));
      assert.equal(child.exitCode, null, 'still serving');
      assert.ok(err.includes(String(big.length)), `said on stderr: ${err}`);
    } finally {
      child.kill();
    }
  });
});

describe('the demo catalog\'s examples', () => {
  test('every example of every agent runs against the demo state: none is refused for its input', { timeout: 120_000 }, async () => {
    const { runtime, clock, cleanup } = await demoRuntime();
    try {
      const client = await connect(runtime);
      for (const { manifest } of await readCatalog(path.join(EXAMPLES, 'catalog.json'))) {
        for (const example of manifest.examples) {
          const args = { agent: manifest.id, input: example.input as Record<string, unknown> };
          let r = await callAgent(client, args);
          if (r.status === 'pending_approval') {
            await decideApproval(runtime.store, clock, r.approval ?? '', 'approved', 'panel');
            r = await callAgent(client, { ...args, approval: r.approval });
          }
          const what = `${manifest.id} ${JSON.stringify(example.input)}`;
          assert.notEqual(r.raw.isError && r.receipt === undefined, true, what);
          assert.ok(!r.denials.some((d) => d.code === 'input_schema'), `${what}: ${JSON.stringify(r.denials)}`);
          // The mandate excludes fastcheap (US, training): that is its decision, not the example's fault.
          if (manifest.id === 'fastcheap/table-extract-us') assert.equal(r.status, 'denied', what);
          else assert.ok(r.status === 'succeeded' || (r.status === 'failed' && manifest.errors.some((e) => e.code === r.error?.code)), `${what}: ${r.status} ${JSON.stringify(r.error)}`);
        }
      }
      await client.close();
    } finally {
      await cleanup();
    }
  });
});
