/**
 * The one tool pipeline every toolset shares: the input is parsed, the capability checked (a refusal is
 * ledgered, with a safe summary), a toolset that ledgers every call does so before its handler runs,
 * and failures come back in the toolset's own words. Driven through a real SDK client.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { CAP } from '../../src/core/capabilities.ts';
import { patchMandate } from '../../src/core/mandates.ts';
import { officeFailure } from '../../src/server/render/office.ts';
import { createToolServer } from '../../src/server/server.ts';
import type { Toolset } from '../../src/server/tools/toolDef.ts';
import { defineTool } from '../../src/server/tools/toolDef.ts';
import { demoRuntime, MANDATE } from '../helpers.ts';
import { eventsAfter } from './support.ts';

const sent: string[] = [];
const mailSend = defineTool({
  name: 'mail_send',
  title: 'Send mail',
  description: 'A stand-in of an office tool, for the pipeline.',
  toolset: 'office',
  capability: CAP.mailSend,
  input: z.object({ to: z.string().min(1), subject: z.string().max(200), body: z.string() }),
  output: z.object({ sent: z.boolean() }),
  annotations: { readOnlyHint: false },
  // The ledger keeps who and what about, never the body.
  summary: (a) => ({ to: a.to, subject: a.subject, body_length: a.body.length }),
  handler: async (args) => {
    sent.push(args.to);
    return { output: { sent: true }, text: `sent to ${args.to}` };
  },
});
const broken = defineTool({
  name: 'broken',
  title: 'Broken',
  description: 'A tool whose handler breaks its own output schema.',
  toolset: 'office',
  capability: null,
  input: z.object({}),
  output: z.object({ n: z.number() }),
  annotations: { readOnlyHint: true },
  handler: async () => ({ output: { n: 'one' } as unknown as { n: number }, text: 'one' }),
});
const office: Toolset = { name: 'office', instructions: '', tools: [mailSend, broken], ledgerCalls: true, renderFailure: officeFailure };

let env: Awaited<ReturnType<typeof demoRuntime>>;
let client: Client;

before(async () => {
  env = await demoRuntime();
  const server = createToolServer(env.runtime.deps, MANDATE, [office], { name: 'holon-test', title: 'pipeline' });
  client = new Client({ name: 'test-agent', version: '1.0.0' });
  const [c, s] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(s), client.connect(c)]);
});

after(async () => {
  await client.close();
  await env.cleanup();
});

const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> => (await client.callTool({ name, arguments: args })) as CallToolResult;
const text = (r: CallToolResult): string => (r.content[0] as { text: string }).text;
const MAIL = { to: 'ada', subject: 'Hello', body: 'a private body that must not be ledgered' };

test('without the capability: refused in the toolset\'s words, ledgered as the call and as tool.denied with a safe summary, the handler never runs', async () => {
  const seq = env.runtime.store.seq;
  const r = await call('mail_send', MAIL);
  assert.equal(r.isError, true);
  assert.equal(text(r), 'Not permitted: needs capability mail.send — use approval_request');
  const events = (await eventsAfter(env.runtime, seq)).filter((e) => e.type !== 'checkpoint');
  assert.deepEqual(
    events.map((e) => [e.type, e.data]),
    [
      ['tool.called', { mandate: MANDATE, toolset: 'office', tool: 'mail_send', actor: 'sandbox', summary: { to: 'ada', subject: 'Hello', body_length: MAIL.body.length } }],
      [
        'tool.denied',
        { mandate: MANDATE, toolset: 'office', tool: 'mail_send', actor: 'sandbox', via: 'mcp', summary: { to: 'ada', subject: 'Hello', body_length: MAIL.body.length }, denials: [{ code: 'capability_missing', params: { capability: 'mail.send' } }] },
      ],
    ],
  );
  assert.ok(!JSON.stringify(events).includes('private body'));
  assert.deepEqual(sent, []);
});

test('with the capability: ledgered as tool.called before the handler runs, then answered', async () => {
  await patchMandate(env.runtime.store, env.clock, MANDATE, { grants: [{ name: CAP.mailSend, params: { to: ['ada'] } }] });
  assert.ok(env.runtime.store.state.mandates[MANDATE]?.capabilities.some((c) => c.name === CAP.marketCall), 'granting mail.send kept market.call');
  const seq = env.runtime.store.seq;
  const r = await call('mail_send', MAIL);
  assert.notEqual(r.isError, true);
  assert.deepEqual(r.structuredContent, { sent: true });
  assert.deepEqual(
    (await eventsAfter(env.runtime, seq)).filter((e) => e.type !== 'checkpoint').map((e) => [e.type, e.data]),
    [['tool.called', { mandate: MANDATE, toolset: 'office', tool: 'mail_send', actor: 'sandbox', summary: { to: 'ada', subject: 'Hello', body_length: MAIL.body.length } }]],
  );
  assert.deepEqual(sent, ['ada']);
});

test('arguments outside the input schema are refused before the capability check or the ledger', async () => {
  const seq = env.runtime.store.seq;
  const r = await call('mail_send', { to: '', subject: 'x'.repeat(201) });
  assert.equal(r.isError, true);
  assert.ok(text(r).startsWith('invalid_input: '), text(r));
  assert.equal(env.runtime.store.seq, seq, 'nothing is appended');
});

test('an output outside the tool\'s own schema is a protocol error, never a made-up result', async () => {
  await assert.rejects(call('broken', {}), /outside its schema/);
});
