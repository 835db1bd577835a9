/** The editor host's pure logic (no vscode): protocol states and the mandate form. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideApproval } from '../../src/core/admin.ts';
import type { Approval } from '../../src/core/model.ts';
import { formToInput, formValues } from '../../src/editor/mandateForm.ts';
import { approvalView, DETAIL_LIMIT, holonViewState, receiptsState } from '../../src/editor/views.ts';
import { HolonViewState, PendingApproval } from '../../src/webview/protocol/holonView.ts';
import { is } from '../../src/webview/protocol/messages.ts';
import { connect, demoRuntime, FACTURE, INVOICES, MANDATE } from '../helpers.ts';

describe('protocol states from the journal', () => {
  test('the Holon view shows the budget and a pending approval with its exact version and worst case; the receipts panel its tree', async () => {
    const { runtime, clock, cleanup } = await demoRuntime();
    try {
      const client = await connect(runtime);
      await client.callTool({ name: 'call_agent', arguments: { capability: 'extraction.table', input: { file: FACTURE } } });
      const pending = await client.callTool({ name: 'call_agent', arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICES } } });
      const approvalId = (pending.structuredContent as { approval: string }).approval;
      const s = holonViewState(runtime.store.state, MANDATE, clock.now(), true);
      assert.equal(s.budget?.spent, '0.0238 EUR');
      assert.equal(s.budget?.remaining, '4.9762 EUR');
      assert.equal(s.approvals.length, 1);
      assert.equal(is(HolonViewState, s), true, 'the state passes the view\'s own guard');
      const a = s.approvals[0]!;
      assert.deepEqual(
        { ...a, detail: null },
        {
          id: approvalId,
          kind: 'agent_call',
          mandate: MANDATE,
          title: 'Call holon-labs/invoice-pipeline 2.1.0',
          subject: 'holon-labs/invoice-pipeline',
          amount: '3.10 EUR',
          threshold: '0.50 EUR',
          facts: [
            { label: 'Version', value: '2.1.0' },
            { label: 'Delegated calls', value: 'up to 4 (extraction.table × 4)' },
          ],
          detail: null,
          removals: [],
          requestedAt: runtime.store.state.approvals[approvalId]?.requested_at,
          expiresAt: runtime.store.state.approvals[approvalId]?.expires_at,
        },
      );
      assert.equal(a.detail, JSON.stringify({ files: INVOICES }, null, 2));

      await decideApproval(runtime.store, clock, approvalId, 'approved', 'panel');
      const done = await client.callTool({ name: 'call_agent', arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICES }, approval: approvalId } });
      const receipt = (done.structuredContent as { receipt: string }).receipt;
      assert.equal(holonViewState(runtime.store.state, MANDATE, clock.now(), true).approvals.length, 0, 'a decided approval leaves the view');
      const r = receiptsState(runtime.store.state, 'all', receipt);
      assert.equal(r.selected?.id, receipt);
      assert.equal(r.selected?.children.length, 4);
      assert.equal(r.selected?.totalCost, '0.1906 EUR');
      assert.equal(r.selected?.approvalChannel, 'panel');
      assert.equal(r.recent.length, 2);
      assert.equal(receiptsState(runtime.store.state, 'failed', null).recent.length, 0);
      await client.close();
    } finally {
      await cleanup();
    }
  });
});

describe('the mandate form', () => {
  test('valid values become the core input; each bad field gets its own message', () => {
    const good = { ...formValues(undefined), id: 'demo/new', grantee: 'Copilot', perDay: '2', regions: 'EU, CH', retentionDays: '30' };
    const ok = formToInput(good, 'create');
    assert.deepEqual(ok.errors, {});
    assert.deepEqual(ok.input['data'], { regions: ['EU', 'CH'], retention_days: 30, training: false });
    const bad = formToInput({ ...good, id: 'Demo', total: '1.2345678', threshold: '', currency: 'eur', retentionDays: '-1', expiresAt: 'soon', toolsets: [] }, 'create');
    assert.deepEqual(Object.keys(bad.errors).sort(), ['currency', 'expiresAt', 'id', 'retentionDays', 'threshold', 'toolsets', 'total']);
  });
});

describe('an approval in the view\'s shape', () => {
  const base: Approval = {
    id: 'apr_1',
    mandate: 'demo/sandbox',
    agent: 'acme/ocr',
    version: '0.9.0',
    input_hash: '0'.repeat(64),
    input: { file: 'a.pdf' },
    worst_case: { amount: '0.80', currency: 'EUR' },
    threshold: { amount: '0.50', currency: 'EUR' },
    delegated_calls: [],
    receipt: 'rcp_1',
    requested_at: '2026-03-01T10:00:00.000Z',
    expires_at: '2026-03-01T10:30:00.000Z',
    status: 'pending',
  };

  test('an agent that delegates nothing has no delegated-calls fact; several capabilities add up', () => {
    assert.deepEqual(approvalView(base).facts, [{ label: 'Version', value: '0.9.0' }]);
    const many = approvalView({ ...base, delegated_calls: [{ capability: 'ocr.page', max_count: 3 }, { capability: 'translate.text', max_count: 2 }] });
    assert.deepEqual(many.facts[1], { label: 'Delegated calls', value: 'up to 5 (ocr.page × 3, translate.text × 2)' });
  });

  test('a long input is cut to the limit, with a note saying how much was shown', () => {
    const input = { text: 'x'.repeat(DETAIL_LIMIT * 2) };
    const full = JSON.stringify(input, null, 2);
    const view = approvalView({ ...base, input });
    assert.equal(is(PendingApproval, view), true);
    assert.ok(view.detail!.startsWith(full.slice(0, DETAIL_LIMIT)));
    assert.equal(view.detail!.slice(DETAIL_LIMIT), `\n… cut: the first ${DETAIL_LIMIT} of ${full.length} characters.`);
    assert.equal(approvalView(base).detail, JSON.stringify(base.input, null, 2), 'a short input is whole, with no note');
  });
});
