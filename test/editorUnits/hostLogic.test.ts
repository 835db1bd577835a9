/** The editor host's pure logic (no vscode): protocol states and the mandate form. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { approvalGate } from '../../src/core/approvals/flow.ts';
import type { Approval, ApprovalSubject } from '../../src/core/approvals/model.ts';
import { APPROVAL_KINDS } from '../../src/shared/approvalKinds.ts';
import { createMandate, patchMandate } from '../../src/core/accounts/mandates.ts';
import { initialState } from '../../src/core/fold/state.ts';
import { thisProcess } from '../../src/core/store/owner.ts';
import { canonicalHash, PREVIEW_LIMIT, previewJson } from '../../src/core/kernel/util.ts';
import { formToInput, formValues } from '../../src/editor/mandateForm.ts';
import { countdown, holonViewState, localTime, pendingApprovalView, receiptsState } from '../../src/editor/views.ts';
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
      // Seen from this installation's editor: the one that wrote the state, so it decides.
      const s = holonViewState(runtime.store.state, MANDATE, clock.now(), true, null, runtime.deps.signer);
      // At the currency's precision, the exact amount beside it (the view's hover).
      assert.deepEqual(s.budget?.spent, { text: '0.02 EUR', exact: '0.0238 EUR' });
      assert.deepEqual(s.budget?.remaining, { text: '4.98 EUR', exact: '4.9762 EUR' });
      assert.equal(s.approvals.length, 1);
      assert.equal(is(HolonViewState, s), true, 'the state passes the view\'s own guard');
      const a = s.approvals[0]!;
      assert.deepEqual(
        { ...a, detail: null },
        {
          id: approvalId,
          kind: 'agent_call',
          kindLabel: 'Agent call',
          mandate: MANDATE,
          title: 'Call holon-labs/invoice-pipeline 2.1.0',
          subject: 'holon-labs/invoice-pipeline',
          amount: { text: '3.10 EUR', exact: '3.10 EUR' },
          amountLabel: 'Worst case',
          threshold: { text: '0.50 EUR', exact: '0.50 EUR' },
          facts: [
            { label: 'Version', value: '2.1.0' },
            { label: 'Delegated calls', value: 'up to 4 (extraction.table × 4)' },
            { label: 'Input', value: `${JSON.stringify({ files: INVOICES }).length} bytes, SHA-256 ${canonicalHash({ files: INVOICES }).slice(0, 16)}…` },
          ],
          detail: null,
          removals: [],
          requestedAt: runtime.store.state.approvals[approvalId]?.requested_at,
          expiresAt: runtime.store.state.approvals[approvalId]?.expires_at,
          requested: localTime(runtime.store.state.approvals[approvalId]?.requested_at ?? ''),
          expires: localTime(runtime.store.state.approvals[approvalId]?.expires_at ?? ''),
          askedBy: runtime.store.state.mandates[MANDATE]?.grantee.name,
          machine: thisProcess().host,
          mayDecide: true,
          decider: null,
        },
      );
      assert.equal(a.detail, JSON.stringify({ files: INVOICES }, null, 2));

      await decideApproval(runtime.store, clock, approvalId, 'approved', 'panel');
      const done = await client.callTool({ name: 'call_agent', arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICES }, approval: approvalId } });
      const receipt = (done.structuredContent as { receipt: string }).receipt;
      assert.equal(holonViewState(runtime.store.state, MANDATE, clock.now(), true).approvals.length, 0, 'a decided approval leaves the view');
      const r = await receiptsState(runtime.store, { mandate: null, status: 'all' }, receipt);
      assert.equal(r.selected?.id, receipt);
      assert.equal(r.selected?.children.length, 4);
      assert.deepEqual(r.selected?.totalCost, { text: '0.19 EUR', exact: '0.1906 EUR' });
      // As a spend of the account, the call costs what its tree cost: its 4 delegated calls drew on its hold.
      assert.deepEqual(
        r.spends.map((sp) => [sp.kind, sp.receipt, sp.amount.exact, sp.status]),
        [
          ['call', receipt, '0.1906 EUR', 'settled'],
          ['call', r.spends[1]?.receipt, '0.0238 EUR', 'settled'],
        ],
      );
      assert.equal(r.selected?.approvalChannel, 'panel');
      assert.equal(r.recent.length, 2);
      assert.equal((await receiptsState(runtime.store, { mandate: null, status: 'failed' }, null)).recent.length, 0);
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

describe('the mandate form edits by patch', () => {
  test('changing only the total keeps the other grants and the grantee\'s role and manager', async () => {
    const { runtime, clock, cleanup } = await demoRuntime();
    try {
      const store = runtime.store;
      await createMandate(store, clock, 'demo/ada', {
        grantee: { name: 'Ada', role: 'release engineer', manager: 'human:lead@example.com' },
        capabilities: [{ name: 'market.call', params: { capabilities: ['extraction.*'] } }, { name: 'hr.propose' }, { name: 'mail.send', params: { to: ['bob'] } }],
      });
      const old = store.state.mandates['demo/ada'];
      assert.ok(old);
      // The form as the human left it: the values it showed, with only the total changed.
      const { input, errors } = formToInput({ ...formValues(old), total: '9.00' }, 'edit', old);
      assert.deepEqual(errors, {});
      assert.deepEqual(input, { budget: { total: '9.00' } }, 'a patch of what changed, nothing else');
      const saved = await patchMandate(store, clock, 'demo/ada', input);
      assert.deepEqual(saved.capabilities, old.capabilities);
      assert.deepEqual(saved.grantee, old.grantee);
      // The scope field patches the market.call grant alone.
      const scoped = formToInput({ ...formValues(saved), capabilities: 'pipeline.*' }, 'edit', saved);
      assert.deepEqual(scoped.input, { grants: [{ name: 'market.call', params: { capabilities: ['pipeline.*'] } }] });
      const after = await patchMandate(store, clock, 'demo/ada', scoped.input);
      assert.deepEqual(after.capabilities.map((c) => c.name), ['market.call', 'hr.propose', 'mail.send']);
      // Nothing changed: an empty patch.
      assert.deepEqual(formToInput(formValues(after), 'edit', after).input, {});
    } finally {
      await cleanup();
    }
  });
});

describe('an approval in the view\'s shape', () => {
  const eur = (amount: string): { amount: string; currency: string } => ({ amount, currency: 'EUR' });
  const subjects: ApprovalSubject[] = [
    { kind: 'agent_call', agent: 'acme/ocr', version: '0.9.0', capability: 'ocr.page', input_sha256: '0'.repeat(64), input_preview: previewJson({ file: 'a.pdf' }), input_bytes: 16, delegated_calls: [] },
    { kind: 'payment', payee: 'eip155:8453:0xabc', amount: eur('2.00'), terms_hash: 'f'.repeat(64), purpose: 'API credits' },
    { kind: 'payment_intent', intent: 'int_1', payee: 'acme', amount: eur('1.20'), purpose: null },
    { kind: 'capability_window', title: 'Reach api.example.com', reason: 'to fetch the report', capability: { name: 'net.egress', params: { hosts: ['api.example.com'] } }, hours: 4 },
    { kind: 'budget_override', title: 'Keep running today', reason: 'the migration is half done', amount: eur('5.00') },
    { kind: 'proposal', proposal: 'prop_1', slug: 'ada', title: 'Change ada', diff_sha256: 'a'.repeat(64), gains: ['forge.write {repos: [site]}'], losses: ['mail.send', 'hr.propose'], changes: [] },
    { kind: 'action', title: 'Delete the staging branch', reason: 'it is merged' },
    {
      kind: 'unlanded_payment',
      settlement: 'stl_1',
      payee: 'eip155:8453:0xabc',
      amount: eur('0.23'),
      network: 'eip155:8453',
      reason: 'the payee named a transaction that does not show this payment',
      claimed_transaction: `0x${'ab'.repeat(32)}`,
    },
  ];
  /** An approval of each kind, asked for the way every toolset asks. */
  const ask = (subject: ApprovalSubject): Approval => {
    const g = approvalGate(initialState(), { mandate: 'demo/sandbox', subject, amount: null, threshold: null, needed: true, approvalId: undefined, ref: null, now: Date.parse('2026-03-01T10:00:00Z') });
    assert.ok(g.kind === 'ask');
    return g.approval;
  };

  test('every kind maps to a state the view accepts, with its own title, subject and facts', () => {
    assert.deepEqual(subjects.map((x) => x.kind), [...APPROVAL_KINDS], 'one subject of every kind');
    for (const subject of subjects) {
      const view = pendingApprovalView(initialState(), ask(subject));
      assert.equal(is(PendingApproval, view), true, subject.kind);
      assert.equal(view.kind, subject.kind);
      assert.ok(view.title.length > 0 && view.subject.length > 0, subject.kind);
    }
    assert.deepEqual(
      subjects.map((x) => pendingApprovalView(initialState(), ask(x)).kindLabel),
      ['Agent call', 'Payment', 'Payment intent', 'Capability window', 'Budget override', 'Proposal', 'Action', 'Payment not on chain'],
      'every kind in human words, the same as the terminal says',
    );
    const [call, payment, , window, , proposal] = subjects.map((x) => pendingApprovalView(initialState(), ask(x)));
    assert.deepEqual(call?.facts[0], { label: 'Version', value: '0.9.0' });
    assert.ok(!call?.facts.some((f) => f.label === 'Delegated calls'), 'an agent that delegates nothing has no delegated-calls fact');
    // A payment to a seller names the wallet that signs it: this state's, or none yet.
    assert.deepEqual(payment?.facts, [
      { label: 'Terms hash', value: 'f'.repeat(64) },
      { label: 'Purpose', value: 'API credits' },
      { label: 'Signed by', value: 'no wallet yet: this payment cannot be signed (Holon: Create Wallet)' },
    ]);
    const wallet = '0x00000000000000000000000000000000000000a1';
    assert.deepEqual(pendingApprovalView(initialState(), ask(subjects[1]!), { wallet }).facts.at(-1), { label: 'Signed by', value: wallet });
    // A merchant's order is paid at its checkout, not by the wallet: no signer is named.
    const order = { ...subjects[1]!, payee: 'merchant:acp' } as ApprovalSubject;
    assert.ok(!pendingApprovalView(initialState(), ask(order), { wallet }).facts.some((f) => f.label === 'Signed by'));
    assert.equal(window?.detail, 'to fetch the report');
    assert.deepEqual(proposal?.removals, ['mail.send', 'hr.propose'], 'what a proposal takes away is never folded into facts');
  });

  test('a long input is cut to the limit when asked for, with a note saying how much was shown', () => {
    const input = { text: 'x'.repeat(PREVIEW_LIMIT * 2) };
    const full = JSON.stringify(input, null, 2);
    const cut = previewJson(input);
    assert.ok(cut.startsWith(full.slice(0, PREVIEW_LIMIT)));
    assert.equal(cut.slice(PREVIEW_LIMIT), `\n… cut: the first ${PREVIEW_LIMIT} of ${full.length} characters.`);
    assert.equal(previewJson({ file: 'a.pdf' }), JSON.stringify({ file: 'a.pdf' }, null, 2), 'a short input is whole, with no note');
  });
});

describe('spend at a glance, from the journal', () => {
  test("the view's chart: 30 days, today's bar, the payees; a bar opens exactly the spends it counts", async () => {
    const { runtime, clock, cleanup } = await demoRuntime({ threshold: '5.00' });
    try {
      const client = await connect(runtime);
      await client.callTool({ name: 'call_agent', arguments: { agent: 'acme/table-extract', input: { file: FACTURE } } });
      clock.advance(86_400_000);
      const pipeline = await client.callTool({ name: 'call_agent', arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICES } } });
      const pipelineReceipt = (pipeline.structuredContent as { receipt: string }).receipt;
      const s = holonViewState(runtime.store.state, MANDATE, clock.now(), true, null, runtime.deps.signer);
      assert.equal(is(HolonViewState, s), true);
      const spend = s.spend;
      assert.ok(spend);
      assert.equal(spend.days.length, 30);
      assert.deepEqual(spend.days.slice(-2).map((d) => [d.amount.exact, d.empty]), [['0.0238 EUR', false], ['0.1906 EUR', false]]);
      assert.equal(spend.days[0]?.empty, true);
      assert.deepEqual(spend.payees.map((p) => [p.key, p.amount.exact]), [['agent:holon-labs/invoice-pipeline', '0.1906 EUR'], ['agent:acme/table-extract', '0.0238 EUR']]);
      assert.deepEqual(spend.perDay, { text: '4.00 EUR', exact: '4.00 EUR' });
      assert.deepEqual(s.setup, { funded: true, mandates: 1 });

      const today = spend.days.at(-1)?.day ?? '';
      const byDay = await receiptsState(runtime.store, { mandate: MANDATE, status: 'all', bar: { day: today, payee: null } }, null, 50, clock.now());
      assert.deepEqual(byDay.spends.map((r) => r.id), [pipelineReceipt], 'only the spend settled that day');
      assert.deepEqual(byDay.recent.map((r) => r.id), [pipelineReceipt]);
      assert.equal(byDay.narrow?.label, `Spends settled on ${today}`);
      const byPayee = await receiptsState(runtime.store, { mandate: MANDATE, status: 'all', bar: { day: null, payee: 'agent:acme/table-extract' } }, null, 50, clock.now());
      assert.deepEqual(byPayee.spends.map((r) => r.to), ['acme/table-extract'], "the pipeline's delegated calls of acme are the pipeline's spend");
      assert.equal(byPayee.narrow?.label, 'Spends paid to acme/table-extract in the last 30 days');
      const all = await receiptsState(runtime.store, { mandate: MANDATE, status: 'all' }, null, 50, clock.now());
      assert.equal(all.narrow, null);
      assert.equal(all.spends.length, 2);
    } finally {
      await cleanup();
    }
  });

  test('nothing set up: no account funded, no mandate', () => {
    const s = holonViewState(initialState(), null, Date.parse('2026-11-29T10:00:00Z'), true);
    assert.deepEqual(s.setup, { funded: false, mandates: 0 });
    assert.equal(s.spend, null);
    assert.equal(s.holdings, null);
  });
});

test("the status bar's countdown: minutes and seconds under an hour, never below zero; hours and days in words", () => {
  assert.equal(countdown(299_001), '5:00');
  assert.equal(countdown(65_000), '1:05');
  assert.equal(countdown(-5_000), '0:00');
  assert.equal(countdown(3_723_000), '1 h 2 min');
  assert.equal(countdown(7_200_000), '2 h');
  // A proposal waits a week: it read 167:59:52.
  assert.equal(countdown(7 * 86_400_000 - 8_000), '6 days 23 h');
  assert.equal(countdown(86_400_000 + 60_000), '1 day');
});
