/**
 * Calls above the approval threshold (the pipeline on 4 invoices, worst case 3.10 EUR): the human answers
 * by MCP elicitation, out of band (another process appending to the same journal), or not yet. The agent
 * can never approve; the first decision wins; a re-submission reuses the receipt it was asked for.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, ElicitRequest, ElicitResult, Progress } from '@modelcontextprotocol/client';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import type { Approval } from '../../src/core/approvals/model.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import { APPROVAL_FORM_SCHEMA } from '../../src/server/approvalWait.ts';
import { createHolonServer } from '../../src/server/server.ts';
import { approvalMessage } from '../../src/core/views/present.ts';
import { connect, demoRuntime, INVOICES, MANDATE, openAgain, until } from '../helpers.ts';
import type { CallResult } from './support.ts';
import { assertNothingAppended, assertRefusalsOnly, callAgent, callTool, money, structured, textOf, typesAfter, unwrap } from './support.ts';

const PIPELINE = 'holon-labs/invoice-pipeline';
const JOB = { agent: PIPELINE, input: { files: INVOICES } };

interface ApprovalView {
  approval: string;
  status: string;
  agent: string;
  version: string;
  worst_case: { amount: string; currency: string };
  threshold: { amount: string; currency: string };
  channel: string | null;
  receipt: string;
  used_by: string | null;
}

async function checkApproval(client: Client, id: string): Promise<ApprovalView> {
  return structured<ApprovalView>(await callTool(client, 'check_approval', { approval: id }));
}

/** The pipeline's real run: its own 0.0954 EUR and four acme extractions of 0.0238 EUR. */
function assertPipelineRan(r: CallResult): void {
  assert.equal(r.status, 'succeeded', JSON.stringify(r));
  assert.equal(r.agent, PIPELINE);
  assert.deepEqual(r.worst_case, { amount: '3.10', currency: 'EUR' });
  assert.deepEqual(r.cost, { amount: '0.1906', currency: 'EUR' });
  assert.equal(r.delegated_calls, 4);
  const out = JSON.parse(unwrap(r.output ?? '', PIPELINE).body) as { total: { amount: string } };
  assert.equal(out.total.amount, '7150.63');
}

function pendingApproval(runtime: Runtime): Approval | undefined {
  return Object.values(runtime.store.state.approvals).find((a) => a.status === 'pending');
}

test('elicitation: Approve runs the call with its 4 delegated calls; the form has no default', async () => {
  const { runtime, cleanup } = await demoRuntime();
  try {
    const asked: ElicitRequest[] = [];
    const client = await connect(runtime, {
      elicit: (req) => {
        asked.push(req);
        return { action: 'accept', content: { decision: 'Approve' } };
      },
    });
    const before = money(runtime);
    const r = await callAgent(client, JOB);
    assertPipelineRan(r);
    assert.match(r.approval ?? '', /^apr_/);
    assert.equal(money(runtime).spent, '0.1906');
    assert.equal(money(runtime).held, '0.00');
    assert.equal(before.spent, '0.00');

    assert.equal(asked.length, 1, 'the human is asked once');
    const params = asked[0]?.params as { mode?: string; message: string; requestedSchema: Record<string, unknown> };
    assert.equal(params.mode, 'form');
    // The human reads what the panel and the terminal show: the exact version, the worst case, the input.
    const approval = runtime.store.state.approvals[r.approval ?? ''];
    assert.ok(approval);
    assert.equal(params.message, approvalMessage(approval));
    for (const fact of ['holon-labs/invoice-pipeline 2.1.0', '3.10 EUR', '0.50 EUR', 'extraction.table × 4', INVOICES[3] ?? '', approval.id]) assert.ok(params.message.includes(fact), fact);
    assert.deepEqual(params.requestedSchema, APPROVAL_FORM_SCHEMA);
    assert.deepEqual(params.requestedSchema['required'], ['decision']);
    assert.ok(!JSON.stringify(params.requestedSchema).includes('default'), 'only a human choosing Approve approves');

    const a = await checkApproval(client, r.approval ?? '');
    assert.equal(a.status, 'used');
    assert.equal(a.channel, 'elicitation');
    assert.equal(a.used_by, r.receipt);
    assert.equal(a.receipt, r.receipt, 'the call ran under the receipt the approval was asked for');
    await client.close();
  } finally {
    await cleanup();
  }
});

test('elicitation: Reject or decline rejects the call; nothing is held or charged, and re-submitting changes nothing', async () => {
  const { runtime, cleanup } = await demoRuntime();
  try {
    let answer: ElicitResult = { action: 'accept', content: { decision: 'Reject' } };
    const client = await connect(runtime, { elicit: () => answer });
    for (const a of [{ action: 'accept', content: { decision: 'Reject' } }, { action: 'decline' }] as ElicitResult[]) {
      answer = a;
      const before = money(runtime);
      const r = await callAgent(client, JOB);
      assert.equal(r.raw.isError, true);
      assert.equal(r.status, 'rejected', a.action);
      assert.equal(r.cost, null);
      assert.match(textOf(r.raw), /The human rejected this call .* Do not retry it\./);
      assert.deepEqual(money(runtime), before);
      const receipt = structured<{ tree: { status: string; denials: unknown[] } }>(await callTool(client, 'get_receipt', { receipt: r.receipt }));
      assert.equal(receipt.tree.status, 'rejected');
      assert.deepEqual(receipt.tree.denials, [{ code: 'rejected', params: { approval: r.approval } }]);
      const view = await checkApproval(client, r.approval ?? '');
      assert.deepEqual([view.status, view.channel], ['rejected', 'elicitation']);

      const seq = runtime.store.seq;
      const again = await callAgent(client, { ...JOB, approval: r.approval });
      assert.equal(again.status, 'rejected');
      assert.equal(again.receipt, r.receipt);
      await assertNothingAppended(runtime, seq);
    }
    assert.deepEqual(money(runtime).spent, '0.00');
    await client.close();
  } finally {
    await cleanup();
  }
});

test('elicitation: cancel, or an answer that is not a decision, leaves the approval pending', async () => {
  const { runtime, cleanup } = await demoRuntime({ approvals: { waitMs: 300, elicitationWaitMs: 300 } });
  try {
    let answer: ElicitResult = { action: 'cancel' };
    let asked = 0;
    const client = await connect(runtime, {
      elicit: () => {
        asked += 1;
        return answer;
      },
    });
    for (const a of [{ action: 'cancel' }, { action: 'accept', content: {} }, { action: 'accept', content: { decision: 'Approve please' } }] as ElicitResult[]) {
      answer = a;
      const before = money(runtime);
      const r = await callAgent(client, JOB);
      assert.notEqual(r.raw.isError, true);
      assert.equal(r.status, 'pending_approval', JSON.stringify(a));
      assert.match(r.approval ?? '', /^apr_/);
      assert.equal(runtime.store.state.approvals[r.approval ?? '']?.status, 'pending');
      assert.equal((await checkApproval(client, r.approval ?? '')).status, 'pending');
      assert.deepEqual(money(runtime), before);
    }
    assert.equal(asked, 3);
    await client.close();
  } finally {
    await cleanup();
  }
});

test('a server set not to elicit never asks by form, even a client that could answer', async () => {
  const { runtime, cleanup } = await demoRuntime({ approvals: { elicitation: false } });
  try {
    let asked = 0;
    const client = await connect(runtime, {
      elicit: () => {
        asked += 1;
        return { action: 'accept', content: { decision: 'Approve' } };
      },
    });
    const r = await callAgent(client, JOB);
    assert.equal(r.status, 'pending_approval');
    assert.equal(asked, 0);
    await client.close();
  } finally {
    await cleanup();
  }
});

test('without elicitation: pending at once, the human approves out of band, the re-submission runs under the same receipt', async () => {
  const { runtime, clock, cleanup } = await demoRuntime();
  try {
    const client = await connect(runtime);
    const seq = runtime.store.seq;
    const pending = await callAgent(client, JOB);
    assert.notEqual(pending.raw.isError, true);
    assert.equal(pending.status, 'pending_approval');
    assert.match(pending.approval ?? '', /^apr_/);
    assert.deepEqual(pending.worst_case, { amount: '3.10', currency: 'EUR' });
    assert.deepEqual(pending.denials, [{ code: 'over_threshold', params: { amount: { amount: '3.10', currency: 'EUR' }, threshold: { amount: '0.50', currency: 'EUR' } } }]);
    assert.equal(pending.cost, null);
    const id = pending.approval ?? '';
    assert.match(textOf(pending.raw), new RegExp(`Approval ${id} is pending .*approval: "${id}"\\. You cannot approve it yourself\\.`));
    assert.deepEqual(await typesAfter(runtime, seq), ['approval.requested', 'call.pending', 'approval.released']);
    assert.deepEqual(money(runtime), { spent: '0.00', held: '0.00', remaining: '5.00', accountSpent: '0.00', accountHeld: '0.00' }, 'nothing is held while the human decides');

    const view = await checkApproval(client, id);
    assert.equal(view.status, 'pending');
    assert.equal(view.agent, PIPELINE);
    assert.equal(view.version, '2.1.0');
    assert.deepEqual(view.worst_case, { amount: '3.10', currency: 'EUR' });
    assert.deepEqual(view.threshold, { amount: '0.50', currency: 'EUR' });
    assert.equal(view.receipt, pending.receipt);
    assert.equal(view.channel, null);

    // Re-submitting before the human decided changes nothing and returns the same pending approval.
    const seq2 = runtime.store.seq;
    const early = await callAgent(client, { ...JOB, approval: id });
    assert.equal(early.status, 'pending_approval');
    assert.equal(early.approval, id);
    assert.equal(early.receipt, pending.receipt);
    await assertNothingAppended(runtime, seq2);

    await decideApproval(runtime.store, clock, id, 'approved', 'cli');
    const approved = await checkApproval(client, id);
    assert.deepEqual([approved.status, approved.channel], ['approved', 'cli']);

    const done = await callAgent(client, { ...JOB, approval: id });
    assertPipelineRan(done);
    assert.equal(done.receipt, pending.receipt, 'the same receipt id');
    assert.equal(done.approval, id);
    const used = await checkApproval(client, id);
    assert.deepEqual([used.status, used.used_by], ['used', pending.receipt]);
    assert.equal(money(runtime).spent, '0.1906');
    assert.equal(money(runtime).held, '0.00');
    await client.close();
  } finally {
    await cleanup();
  }
});

test('check_approval of an unknown approval is not_found, and only that is on the record', async () => {
  const { runtime, cleanup } = await demoRuntime();
  try {
    const client = await connect(runtime);
    const seq = runtime.store.seq;
    const r = await callTool(client, 'check_approval', { approval: 'apr_nothing' });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^not_found: /);
    await assertRefusalsOnly(runtime, seq, ['call_failed']);
    await client.close();
  } finally {
    await cleanup();
  }
});

test('a waiting call sees a decision another process appends to the same journal; the first decision wins', async () => {
  const { runtime, clock, cleanup } = await demoRuntime({ approvals: { waitMs: 30_000 } });
  const panel = await openAgain(runtime.stateDir, clock);
  try {
    const client = await connect(runtime);
    const progress: Progress[] = [];
    const call = client.callTool({ name: 'call_agent', arguments: JOB }, { onprogress: (p) => progress.push(p) }).then((r) => structured<CallResult>(r as CallToolResult));
    const asked = await until(() => pendingApproval(runtime), 'the approval to be requested');
    assert.equal(runtime.store.state.open_receipts[asked.ref ?? '']?.status, 'pending_approval');
    // Meanwhile the client hears that the call waits for the human (progress notifications).
    const first = await until(() => progress[0], 'a progress notification');
    assert.equal(first.total, 30);
    for (const fact of [asked.id, '3.10 EUR']) assert.ok(first.message?.includes(fact), fact);
    const decided = await decideApproval(panel, clock, asked.id, 'approved', 'panel');
    assert.equal(decided.status, 'approved');
    // A second decision, from any channel, is refused with the one already made.
    await assert.rejects(decideApproval(runtime.store, clock, asked.id, 'rejected', 'cli'), (err: unknown) => HolonError.is(err, 'conflict'));
    await assert.rejects(decideApproval(panel, clock, asked.id, 'approved', 'panel'), (err: unknown) => HolonError.is(err, 'conflict'));
    const r = await call;
    assertPipelineRan(r);
    assert.equal(r.receipt, asked.ref ?? '');
    const view = await checkApproval(client, asked.id);
    assert.deepEqual([view.status, view.channel], ['used', 'panel']);
    await client.close();
  } finally {
    panel.close();
    await cleanup();
  }
});

test('a waiting call sees a rejection appended by another process and returns rejected', async () => {
  const { runtime, clock, cleanup } = await demoRuntime({ approvals: { waitMs: 30_000 } });
  const panel = await openAgain(runtime.stateDir, clock);
  try {
    const client = await connect(runtime);
    const call = callAgent(client, JOB);
    const asked = await until(() => pendingApproval(runtime), 'the approval to be requested');
    await decideApproval(panel, clock, asked.id, 'rejected', 'panel');
    const r = await call;
    assert.equal(r.status, 'rejected');
    assert.equal(r.receipt, asked.ref ?? '');
    assert.deepEqual(money(runtime), { spent: '0.00', held: '0.00', remaining: '5.00', accountSpent: '0.00', accountHeld: '0.00' });
    await client.close();
  } finally {
    panel.close();
    await cleanup();
  }
});

test('when the panel decides first, the elicitation form is withdrawn and a late answer changes nothing', async () => {
  const { runtime, clock, cleanup } = await demoRuntime({ approvals: { waitMs: 30_000, elicitationWaitMs: 30_000 } });
  const panel = await openAgain(runtime.stateDir, clock);
  // A client whose human never answers the form: the request stays open until the server withdraws it.
  const client = new Client({ name: 'slow-human', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  let form: AbortSignal | undefined;
  client.setRequestHandler('elicitation/create', (_req, ctx) => {
    form = ctx.mcpReq.signal;
    return new Promise<ElicitResult>((resolve) => ctx.mcpReq.signal.addEventListener('abort', () => resolve({ action: 'accept', content: { decision: 'Reject' } })));
  });
  try {
    const server = createHolonServer(runtime.deps, MANDATE);
    const [c, s] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(s), client.connect(c)]);
    const call = callAgent(client, JOB);
    const asked = await until(() => pendingApproval(runtime), 'the approval to be requested');
    const signal = await until(() => form, 'the form to be shown');
    assert.equal(signal.aborted, false);
    await decideApproval(panel, clock, asked.id, 'approved', 'panel');
    const r = await call;
    assertPipelineRan(r);
    await until(() => signal.aborted, 'the form to be withdrawn');
    const view = await checkApproval(client, asked.id);
    assert.deepEqual([view.status, view.channel], ['used', 'panel']);
  } finally {
    await client.close();
    panel.close();
    await cleanup();
  }
});
