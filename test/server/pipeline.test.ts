/**
 * The one tool pipeline every toolset shares: the capability is checked, then the input parsed (every
 * refusal and expected failure is ledgered, with a safe summary and a code), a toolset that ledgers
 * every call does so before its handler runs, and failures come back in the toolset's own words.
 * Driven through a real SDK client.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { CAP } from '../../src/core/kernel/capabilities.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { patchMandate } from '../../src/core/accounts/mandates.ts';
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
const lookup = defineTool({
  name: 'lookup',
  title: 'Lookup',
  description: 'A tool that finds nothing: an expected failure of its handler.',
  toolset: 'office',
  capability: null,
  input: z.object({ id: z.string().max(100) }),
  output: z.object({ found: z.boolean() }),
  annotations: { readOnlyHint: true },
  summary: (a) => ({ id: a.id }),
  handler: async () => {
    throw new HolonError('not_found', 'no such thing');
  },
});
const office: Toolset = { name: 'office', instructions: '', tools: [mailSend, broken, lookup], ledgerCalls: true, renderFailure: officeFailure };

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
const dataOf = (e: { data: unknown }): Record<string, unknown> => e.data as Record<string, unknown>;
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

test('without the capability and with bad arguments: refused as missing the capability, on the record without the values', async () => {
  const seq = env.runtime.store.seq;
  const r = await call('mail_send', { to: 'ada', subject: 'SUBJECT-VALUE\nSECOND LINE'.repeat(30), body: 42 });
  assert.equal(text(r), 'Not permitted: needs capability mail.send — use approval_request');
  const events = (await eventsAfter(env.runtime, seq)).filter((e) => e.type !== 'checkpoint');
  assert.deepEqual(
    events.map((e) => [e.type, dataOf(e)['summary'], dataOf(e)['denials']]),
    [
      ['tool.called', { invalid_arguments: ['subject', 'body'] }, undefined],
      ['tool.denied', { invalid_arguments: ['subject', 'body'] }, [{ code: 'capability_missing', params: { capability: 'mail.send' } }]],
    ],
  );
  assert.ok(!JSON.stringify(events).includes('VALUE'));
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

test('arguments outside the input schema are refused after the capability check, and the refusal is on the record without what was sent', async () => {
  const seq = env.runtime.store.seq;
  const r = await call('mail_send', { to: '', subject: 'SUBJECT-VALUE-'.repeat(20), body: 'BODY-VALUE' });
  assert.equal(r.isError, true);
  assert.ok(text(r).startsWith('invalid_input: '), text(r));
  const events = (await eventsAfter(env.runtime, seq)).filter((e) => e.type !== 'checkpoint');
  const summary = { invalid_arguments: ['to', 'subject'] };
  assert.deepEqual(
    events.map((e) => [e.type, e.data]),
    [
      ['tool.called', { mandate: MANDATE, toolset: 'office', tool: 'mail_send', actor: 'sandbox', summary }],
      ['tool.denied', { mandate: MANDATE, toolset: 'office', tool: 'mail_send', actor: 'sandbox', via: 'mcp', summary, denials: [{ code: 'invalid_arguments', params: { fields: ['to', 'subject'] } }] }],
    ],
    'one transaction: the call and its refusal',
  );
  assert.ok(!JSON.stringify(events).includes('VALUE'), 'no value the agent sent is ledgered');
  assert.deepEqual(sent, ['ada'], 'the handler never ran');
});

test('a handler\'s expected failure is on the record with its reason as a code', async () => {
  const seq = env.runtime.store.seq;
  const r = await call('lookup', { id: 'nothing-here' });
  assert.equal(text(r), 'not_found: no such thing');
  const denied = (await eventsAfter(env.runtime, seq)).filter((e) => e.type === 'tool.denied');
  assert.deepEqual(denied.map((e) => [dataOf(e)['summary'], dataOf(e)['denials']]), [[{ id: 'nothing-here' }, [{ code: 'call_failed', params: { reason: 'not_found' } }]]]);
});

test('a store that cannot take the refusal does not hide it: the agent still gets the refusal, and the failure is logged', async () => {
  const logged: string[] = [];
  const real = env.runtime.deps.store;
  // The same store, except that nothing can be appended to it.
  const brokenStore = new Proxy(real, {
    get: (target, key) => (key === 'transact' ? () => Promise.reject(new Error('disk full')) : (Reflect.get(target, key, target) as unknown)),
  });
  const deps = { ...env.runtime.deps, store: brokenStore, logger: { ...env.runtime.deps.logger, error: (m: string) => logged.push(m) } };
  const server = createToolServer(deps, MANDATE, [office], { name: 'holon-test', title: 'broken store' });
  const c = new Client({ name: 'test-agent', version: '1.0.0' });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(st), c.connect(ct)]);
  try {
    const seq = real.seq;
    const r = (await c.callTool({ name: 'lookup', arguments: { id: 'x'.repeat(500) } })) as CallToolResult;
    assert.equal(r.isError, true);
    assert.ok(text(r).startsWith('invalid_input: invalid arguments for lookup: id: '), text(r));
    assert.equal(logged.length, 1);
    assert.match(logged[0] ?? '', /^lookup: its refusal \(invalid_input\) could not be ledgered: disk full$/);
    assert.equal(real.seq, seq);
  } finally {
    await c.close();
  }
});

test('an output outside the tool\'s own schema is a protocol error, never a made-up result', async () => {
  await assert.rejects(call('broken', {}), /outside its schema/);
});
