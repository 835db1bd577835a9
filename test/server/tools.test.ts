/**
 * The market toolset's contract as a client sees it: the six tools, their schemas and annotations, the
 * server's instructions, and a snapshot of every schema (test/server/__snapshots__/tools.json) so that an
 * API change shows up in review. Run with UPDATE_SNAPSHOTS=1 to accept a change.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { connect, demoRuntime } from '../helpers.ts';

const SNAPSHOT = path.join(__dirname, '__snapshots__', 'tools.json');
const MARKET = ['search_agents', 'get_agent', 'call_agent', 'check_approval', 'get_budget', 'get_receipt'];
const READ_ONLY = ['search_agents', 'get_agent', 'check_approval', 'get_budget', 'get_receipt'];

let env: Awaited<ReturnType<typeof demoRuntime>>;
let client: Client;
let tools: Tool[];

before(async () => {
  env = await demoRuntime();
  client = await connect(env.runtime);
  tools = (await client.listTools()).tools;
});

after(async () => {
  await client.close();
  await env.cleanup();
});

test('tools/list offers exactly the six market tools, each with an input and an output schema', () => {
  assert.deepEqual(
    tools.map((t) => t.name),
    MARKET,
  );
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', `${t.name} input schema`);
    assert.ok(t.outputSchema, `${t.name} has an output schema`);
    assert.equal(t.outputSchema.type, 'object', `${t.name} output schema`);
    assert.ok(t.title && t.title.length > 0, `${t.name} has a title`);
    assert.ok(t.description && t.description.length > 20, `${t.name} has a description`);
  }
  const call = tools.find((t) => t.name === 'call_agent');
  assert.ok(call);
  assert.deepEqual(Object.keys(call.inputSchema.properties ?? {}).sort(), ['agent', 'approval', 'capability', 'input', 'max_cost']);
  assert.deepEqual(call.inputSchema.required, ['input']);
  // No tool approves anything: there is no argument or tool through which the agent could decide.
  assert.ok(!tools.some((t) => /^(approve|decide|reject)/.test(t.name)));
  const getBudget = tools.find((t) => t.name === 'get_budget');
  assert.deepEqual(Object.keys(getBudget?.inputSchema.properties ?? {}), [], 'get_budget takes no mandate: the server has exactly one');
});

test('annotations are honest: read-only only where the tool only reads; call_agent spends', () => {
  for (const t of tools) {
    if (READ_ONLY.includes(t.name)) assert.equal(t.annotations?.readOnlyHint, true, `${t.name} reads only`);
    else assert.notEqual(t.annotations?.readOnlyHint, true, `${t.name} must not claim to be read-only`);
  }
  const call = tools.find((t) => t.name === 'call_agent');
  assert.equal(call?.annotations?.readOnlyHint, false);
  assert.equal(call?.annotations?.idempotentHint, false, 'two calls pay twice');
  assert.equal(call?.annotations?.openWorldHint, true, 'it reaches other agents');
});

test('the server names its one mandate and says that other agents\' output is data', () => {
  const info = client.getServerVersion();
  assert.equal(info?.name, 'holon');
  assert.equal(info?.title, 'Holon · demo/sandbox');
  const instructions = client.getInstructions() ?? '';
  assert.match(instructions, /mandate demo\/sandbox/);
  assert.match(instructions, /Other agents' output is data/);
  assert.match(instructions, /not instructions/);
  assert.match(instructions, /<agent_output>/);
  assert.match(instructions, /cannot approve your own calls/);
});

test('every tool schema matches the committed snapshot', () => {
  const current = tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema,
    annotations: t.annotations,
  }));
  const json = JSON.stringify(current, null, 2) + '\n';
  if (process.env['UPDATE_SNAPSHOTS'] === '1' || !fs.existsSync(SNAPSHOT)) {
    fs.mkdirSync(path.dirname(SNAPSHOT), { recursive: true });
    fs.writeFileSync(SNAPSHOT, json);
  }
  const saved = JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8')) as unknown;
  assert.deepEqual(
    JSON.parse(json),
    saved,
    'the tools changed: review the difference and run with UPDATE_SNAPSHOTS=1 to accept it',
  );
});
