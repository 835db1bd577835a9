/**
 * An approval is bound to the mandate, the exact agent version and the input, is single use and expires:
 * every other use is refused with its reason, and no money moves.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { addAgent } from '../../src/core/market/catalog.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { APPROVAL_TTL_MS } from '../../src/core/approvals/kinds/kind.ts';
import { connect, demoRuntime, INVOICES } from '../helpers.ts';
import type { CallResult } from './support.ts';
import { assertDeniedOnly, callAgent, callTool, money, plus, structured, textOf, typesAfter } from './support.ts';

const PIPELINE = 'holon-labs/invoice-pipeline';
const OTHER = 'demo/other';
const JOB = { agent: PIPELINE, input: { files: INVOICES } };

let env: Awaited<ReturnType<typeof demoRuntime>>;
let client: Client;
let other: Client;
/** Approved by the human for JOB under demo/sandbox, and not used yet. */
let approved: { id: string; receipt: string };

async function askAndApprove(job: Record<string, unknown> = JOB): Promise<{ id: string; receipt: string }> {
  const pending = await callAgent(client, job);
  assert.equal(pending.status, 'pending_approval');
  const id = pending.approval ?? '';
  await decideApproval(env.runtime.store, env.clock, id, 'approved', 'cli');
  return { id, receipt: pending.receipt };
}

/** The bound fields a refused re-use names as different. */
function mismatchedFields(r: CallResult): string[] {
  const d = r.denials[0];
  assert.equal(r.denials.length, 1, JSON.stringify(r.denials));
  assert.equal(d?.code, 'approval_mismatch');
  return (d.params['mismatches'] as { field: string }[]).map((m) => m.field);
}

async function status(id: string): Promise<string> {
  return structured<{ status: string }>(await callTool(client, 'check_approval', { approval: id })).status;
}

before(async () => {
  env = await demoRuntime();
  await createMandate(env.runtime.store, env.clock, OTHER, {
    approval_threshold: '0.50',
    budget: { total: '5.00', per_day: '4.00', per_call: '3.50' },
    capabilities: [{ name: 'market.call', params: { capabilities: ['extraction.*', 'pipeline.*'] } }],
    data: { regions: ['EU'], retention_days: 30, training: false },
  });
  client = await connect(env.runtime);
  other = await connect(env.runtime, { mandate: OTHER });
  approved = await askAndApprove();
});

after(async () => {
  await client.close();
  await other.close();
  await env.cleanup();
});

test('an approval is refused for another input', async () => {
  const seq = env.runtime.store.seq;
  const before = money(env.runtime);
  for (const input of [{ files: INVOICES.slice(0, 3) }, { files: [...INVOICES].reverse() }, { files: INVOICES, note: 'x' }]) {
    const r = await callAgent(client, { agent: PIPELINE, input, approval: approved.id });
    assert.equal(r.status, 'denied', JSON.stringify(input));
    assert.deepEqual(mismatchedFields(r), ['input_sha256']);
    assert.notEqual(r.receipt, approved.receipt, 'a refusal gets its own receipt');
  }
  assert.deepEqual(await typesAfter(env.runtime, seq), ['call.denied', 'call.denied', 'call.denied']);
  assert.deepEqual(money(env.runtime), before);
  assert.equal(await status(approved.id), 'approved', 'a refused use does not spend the approval');
});

test('an approval is refused for another agent, even one under the threshold', async () => {
  const seq = env.runtime.store.seq;
  const before = money(env.runtime);
  const r = await callAgent(client, { agent: 'acme/table-extract', input: { file: INVOICES[0] }, approval: approved.id });
  assert.equal(r.status, 'denied');
  assert.deepEqual(mismatchedFields(r), ['agent', 'version', 'input_sha256']);
  await assertDeniedOnly(env.runtime, seq, before);
});

test('an approval is refused under another mandate, which cannot even see it', async () => {
  const seq = env.runtime.store.seq;
  const before = { sandbox: money(env.runtime), other: money(env.runtime, OTHER) };
  const r = await callAgent(other, { ...JOB, approval: approved.id });
  assert.equal(r.status, 'denied');
  assert.deepEqual(r.denials, [{ code: 'approval_not_found', params: { approval: approved.id } }]);
  assert.deepEqual(await typesAfter(env.runtime, seq), ['call.denied']);
  assert.deepEqual(money(env.runtime), before.sandbox);
  assert.deepEqual(money(env.runtime, OTHER), before.other);
  const check = await callTool(other, 'check_approval', { approval: approved.id });
  assert.equal(check.isError, true);
  assert.match(textOf(check), /^not_found: /);
  const receipt = await callTool(other, 'get_receipt', { receipt: approved.receipt });
  assert.equal(receipt.isError, true);
  assert.match(textOf(receipt), /^not_found: /);
  assert.equal(await status(approved.id), 'approved');
});

test('an approval is refused for another version of the same agent', async () => {
  const entry = env.runtime.store.state.agents[PIPELINE];
  assert.ok(entry);
  const original = entry.manifest;
  await addAgent(env.runtime.store, env.clock, { ...original, version: '2.1.1' }, entry.endpoint, 'test');
  try {
    const seq = env.runtime.store.seq;
    const before = money(env.runtime);
    const r = await callAgent(client, { ...JOB, approval: approved.id });
    assert.equal(r.status, 'denied');
    assert.deepEqual(r.denials, [{ code: 'approval_mismatch', params: { approval: approved.id, mismatches: [{ field: 'version', approved: '2.1.0', requested: '2.1.1' }] } }]);
    await assertDeniedOnly(env.runtime, seq, before);
  } finally {
    await addAgent(env.runtime.store, env.clock, original, entry.endpoint, 'test');
  }
  assert.equal(await status(approved.id), 'approved');
});

test('an unknown approval id is refused', async () => {
  const seq = env.runtime.store.seq;
  const before = money(env.runtime);
  const r = await callAgent(client, { ...JOB, approval: 'apr_madeup' });
  assert.equal(r.status, 'denied');
  assert.deepEqual(r.denials, [{ code: 'approval_not_found', params: { approval: 'apr_madeup' } }]);
  await assertDeniedOnly(env.runtime, seq, before);
});

test('an approval is used once: of two concurrent re-submissions one runs, and any later one is refused', async () => {
  const before = money(env.runtime);
  const [a, b] = await Promise.all([callAgent(client, { ...JOB, approval: approved.id }), callAgent(client, { ...JOB, approval: approved.id })]);
  const runs = [a, b].filter((r) => r.status === 'succeeded');
  const refused = [a, b].filter((r) => r.status === 'denied');
  assert.equal(runs.length, 1, JSON.stringify([a.status, b.status]));
  assert.equal(refused.length, 1);
  assert.equal(runs[0]?.receipt, approved.receipt);
  assert.deepEqual(runs[0]?.cost, { amount: '0.1906', currency: 'EUR' });
  // The first one marks the approval used when it holds, before the second is decided: the agent is told so.
  assert.deepEqual(refused[0]?.denials, [{ code: 'approval_used', params: { approval: approved.id, used_by: approved.receipt } }]);
  const after = money(env.runtime);
  assert.equal(after.held, '0.00');
  assert.equal(after.spent, plus(before.spent, '0.1906'), 'charged once');

  const seq = env.runtime.store.seq;
  const third = await callAgent(client, { ...JOB, approval: approved.id });
  assert.equal(third.status, 'denied');
  assert.deepEqual(third.denials, [{ code: 'approval_used', params: { approval: approved.id, used_by: approved.receipt } }]);
  await assertDeniedOnly(env.runtime, seq, after);
  assert.equal(await status(approved.id), 'used');
});

test('an approval expires 30 minutes after it was asked for, approved or not', async () => {
  const late = await askAndApprove();
  const undecided = await callAgent(client, JOB);
  assert.equal(undecided.status, 'pending_approval');
  env.clock.advance(APPROVAL_TTL_MS);
  assert.equal(await status(late.id), 'expired');
  assert.equal(await status(undecided.approval ?? ''), 'expired');
  // The human can no longer decide it…
  await assert.rejects(decideApproval(env.runtime.store, env.clock, undecided.approval ?? '', 'approved', 'cli'), (err: unknown) => HolonError.is(err, 'conflict'));
  // …and the agent can no longer use it.
  const seq = env.runtime.store.seq;
  const before = money(env.runtime);
  const r = await callAgent(client, { ...JOB, approval: late.id });
  assert.equal(r.status, 'denied');
  const expiresAt = env.runtime.store.state.approvals[late.id]?.expires_at;
  assert.deepEqual(r.denials, [{ code: 'approval_expired', params: { approval: late.id, expires_at: expiresAt } }]);
  await assertDeniedOnly(env.runtime, seq, before);
  env.clock.advance(60_000);
  assert.equal(await status(late.id), 'expired');
});
