/** What the server tests share beyond test/helpers.ts: reading results, the budget and the journal. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import { addAgent } from '../../src/core/market/catalog.ts';
import type { Clock } from '../../src/core/kernel/deps.ts';
import type { JournalEvent } from '../../src/core/store/store.ts';
import { JOURNAL_FILE } from '../../src/core/store/file/journal.ts';
import * as M from '../../src/core/kernel/amount.ts';
import { budgetOf } from '../../src/core/money/spend.ts';
import type { Manifest } from '../../src/core/kernel/model.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import { MANDATE } from '../helpers.ts';

export type Money = { amount: string; currency: string };

/** call_agent's structured result. */
export interface CallResult {
  receipt: string;
  status: 'succeeded' | 'failed' | 'pending_approval' | 'denied' | 'rejected';
  agent: string | null;
  version: string | null;
  worst_case: Money | null;
  cost: Money | null;
  delegated_calls: number;
  approval: string | null;
  reasons: string[];
  denials: { code: string; params: Record<string, unknown>; agent?: string }[];
  error: { code: string; message: string; charged: boolean } | null;
  output: string | null;
}

/** A tool's result, with the SDK's loose type narrowed to what a tools/call answers. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The structured content of a result that must have one. */
export function structured<T>(r: CallToolResult): T {
  assert.ok(r.structuredContent, `expected structuredContent, got ${JSON.stringify(r.content)}`);
  return r.structuredContent as T;
}

/** The text of a result's first content block. */
export function textOf(r: CallToolResult): string {
  const c = r.content[0];
  assert.ok(c && c.type === 'text', 'expected a text content block');
  return c.text;
}

/** call_agent, returning its structured result and the raw answer. */
export async function callAgent(client: Client, args: Record<string, unknown>): Promise<CallResult & { raw: CallToolResult }> {
  const raw = await callTool(client, 'call_agent', args);
  return { ...structured<CallResult>(raw), raw };
}

/** A tool error: `isError`, no structured content, and the problem as JSON on the text's last line. */
export function problemOf(r: CallToolResult): { reason: string; message: string } & Record<string, unknown> {
  assert.equal(r.isError, true, `expected a tool error, got ${JSON.stringify(r)}`);
  assert.equal(r.structuredContent, undefined, 'a tool error carries no structuredContent');
  const lines = textOf(r).trim().split('\n');
  const parsed = JSON.parse(lines[lines.length - 1] ?? '') as { error: { reason: string; message: string } & Record<string, unknown> };
  return parsed.error;
}

/** The mandate's money as strings, read from the folded state (no tool call, so nothing can change). */
export function money(runtime: Runtime, mandate = MANDATE): { spent: string; held: string; remaining: string; accountSpent: string; accountHeld: string } {
  const m = runtime.store.state.mandates[mandate];
  assert.ok(m, `no mandate ${mandate}`);
  const b = budgetOf(runtime.store.state, m, runtime.deps.clock.now());
  return {
    spent: M.formatUnits(b.spent.units),
    held: M.formatUnits(b.held.units),
    remaining: M.formatUnits(b.remaining.units),
    accountSpent: M.formatUnits(b.account.spent.units),
    accountHeld: M.formatUnits(b.account.held.units),
  };
}

/** a + b for decimal amount strings, formatted as the tools format them. */
export function plus(a: string, ...more: string[]): string {
  return M.formatUnits(more.reduce((n, b) => n + M.parseUnits(b), M.parseUnits(a)));
}

/** Events appended to the state after `seq`, read from the journal file, not from the store that wrote them. */
export async function eventsAfter(runtime: Runtime, seq: number): Promise<JournalEvent[]> {
  const text = fs.readFileSync(path.join(runtime.stateDir, JOURNAL_FILE), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as JournalEvent)
    .filter((e) => e.seq > seq);
}

/** The types of those events, signed checkpoints left out (the journal adds them on its own schedule). */
export async function typesAfter(runtime: Runtime, seq: number): Promise<string[]> {
  return (await eventsAfter(runtime, seq)).map((e) => e.type).filter((t) => t !== 'checkpoint');
}

/** Asserts that a bad request left the journal exactly as it was. */
export async function assertNothingAppended(runtime: Runtime, seq: number): Promise<void> {
  assert.equal(runtime.store.seq, seq, 'the journal must not grow');
  assert.deepEqual(await eventsAfter(runtime, seq), []);
}

/**
 * Asserts that refused calls left their refusals on the record and nothing else: a `tool.denied` each,
 * with these denial codes (several codes of one refusal joined by +), beside the `tool.called` of a
 * toolset that ledgers every call.
 */
export async function assertRefusalsOnly(runtime: Runtime, seq: number, codes: string[], what = 'the refusals'): Promise<JournalEvent[]> {
  const events = (await eventsAfter(runtime, seq)).filter((e) => e.type !== 'checkpoint');
  assert.deepEqual(events.filter((e) => e.type !== 'tool.denied' && e.type !== 'tool.called').map((e) => e.type), [], `${what}: nothing but the calls and their refusals`);
  assert.deepEqual(events.filter((e) => e.type === 'tool.denied').map((e) => (e.data as { denials: { code: string }[] }).denials.map((d) => d.code).join('+')), codes, what);
  return events;
}

/** Asserts that a denial appended its receipt and moved no money. */
export async function assertDeniedOnly(runtime: Runtime, seq: number, before: ReturnType<typeof money>, mandate = MANDATE): Promise<void> {
  assert.deepEqual(await typesAfter(runtime, seq), ['call.denied']);
  assert.deepEqual(money(runtime, mandate), before);
}

export const ECHO_AGENT = 'test/echo';
export const ECHO_SCRIPT = path.join(__dirname, 'fixtures', 'echoAgent.mjs');

/** Adds the echo fixture to the catalog: a real stdio MCP agent in an extraction.* capability. */
export async function addEchoAgent(runtime: Runtime, clock: Clock, over: Partial<Manifest> = {}): Promise<void> {
  await addAgent(
    runtime.store,
    clock,
    {
      id: ECHO_AGENT,
      version: '1.0.0',
      name: 'Echo',
      description: 'Answers with the text it was given (a test fixture).',
      publisher: 'test',
      capabilities: ['extraction.echo'],
      input_schema: {
        type: 'object',
        properties: { text: { type: 'string' }, mode: { type: 'string', enum: ['text', 'structured', 'error', 'hold', 'repeat', 'off-schema'] }, times: { type: 'integer' } },
        required: ['text'],
      },
      // It answers in text, or as {text} in structured mode.
      output_schema: { anyOf: [{ type: 'string' }, { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }] },
      errors: [],
      price: { currency: 'EUR', per_call: '0.001' },
      data_policy: { regions: ['EU'], retention_days: 0, training: false },
      models: [],
      delegated_calls: [],
      examples: [{ input: { text: 'hello' }, output: { text: 'hello' } }],
      ...over,
    },
    { type: 'stdio', command: 'node', args: [ECHO_SCRIPT], tool: 'echo' },
    'test',
  );
}

/** The text between the wrapper's opening tag and its closing tag, and what follows the close. */
export function unwrap(output: string, agent: string): { body: string; after: string } {
  const open = `<agent_output agent="${agent}">\n`;
  assert.ok(output.startsWith(open), `output must start with ${open}: ${output.slice(0, 80)}`);
  const close = output.lastIndexOf('\n</agent_output>\n');
  assert.ok(close > 0, 'the wrapper must be closed');
  return { body: output.slice(open.length, close), after: output.slice(close + '\n</agent_output>\n'.length) };
}
