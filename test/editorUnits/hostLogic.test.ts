/** The editor host's pure logic (no vscode): protocol states and the mandate form. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideApproval } from '../../src/core/admin.ts';
import { formToInput, formValues } from '../../src/editor/mandateForm.ts';
import { holonViewState, receiptsState } from '../../src/editor/views.ts';
import { HolonViewState } from '../../src/webview/protocol/holonView.ts';
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
      assert.deepEqual(
        { id: s.approvals[0]?.id, agent: s.approvals[0]?.agent, version: s.approvals[0]?.version, worst: s.approvals[0]?.worstCase, threshold: s.approvals[0]?.threshold },
        { id: approvalId, agent: 'holon-labs/invoice-pipeline', version: '2.1.0', worst: '3.10 EUR', threshold: '0.50 EUR' },
      );
      assert.deepEqual(s.approvals[0]?.delegatedCalls, [{ capability: 'extraction.table', maxCount: 4 }]);
      assert.match(s.approvals[0]?.input ?? '', /invoice-01\.pdf/);

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
