/**
 * What the editor's panels are built from, as a new user found them wanting: the mandate form's
 * Capabilities, refused calls, the account beside the mandate's spend, every spend of the account, the
 * amounts' precision, and one presentation of an approval for the card and the Approve dialog. Each runs
 * on a real journal, with real MCP clients making the calls. (The same, clicked in a real VS Code, is in
 * test/editor/browser.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as M from '../../src/core/kernel/amount.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import type { Mandate } from '../../src/core/kernel/model.ts';
import { fund } from '../../src/core/money/spend.ts';
import { currencyDigits, displayMoney } from '../../src/editor/amounts.ts';
import { formToInput, formValues } from '../../src/editor/mandateForm.ts';
import { approvalPrompt, holonViewState, localTime, pendingApprovalView, receiptsState, REFUSALS_SHOWN_MS } from '../../src/editor/views.ts';
import { parseCapabilityLines } from '../../src/shared/capabilityLines.ts';
import { approvalRows } from '../../src/webview/protocol/approvalRows.ts';
import { HolonViewState } from '../../src/webview/protocol/holonView.ts';
import { is } from '../../src/webview/protocol/messages.ts';
import { ReceiptsState } from '../../src/webview/protocol/receipts.ts';
import { connect, demoRuntime, FACTURE, INVOICES, MANDATE } from '../helpers.ts';

const PAYER = 'demo/payer';

describe("the mandate form's Capabilities", () => {
  test('one capability per line, trimmed, empty lines dropped: two lines are two capabilities', () => {
    const values = { ...formValues(undefined), id: 'demo/new', grantee: 'Copilot', capabilities: '  extraction.*\r\n\npipeline.*  \n' };
    const { input, errors } = formToInput(values, 'create');
    assert.deepEqual(errors, {});
    assert.deepEqual(input['capabilities'], [{ name: 'market.call', params: { capabilities: ['extraction.*', 'pipeline.*'] } }]);
  });

  test('what does not parse is an error on the field, and no input to save', () => {
    for (const [text, why] of [
      ['extraction.*, pipeline.*', /Line|holds more than one capability: put each on its own line/],
      ['extraction.*\npipeline .*', /Line 2, "pipeline \.\*", holds more than one capability/],
      ['Extraction.*', /is not a capability/],
      ['', /Name at least one capability/],
      ['\n  \n', /Name at least one capability/],
    ] as const) {
      const { errors } = formToInput({ ...formValues(undefined), id: 'demo/new', capabilities: text }, 'create');
      assert.match(errors.capabilities ?? '', why, JSON.stringify(text));
    }
  });

  test('an existing mandate shows one capability per line, and saving it unchanged changes nothing', () => {
    const shown = formValues({
      id: 'demo/x',
      account: 'demo',
      grantee: { name: 'Copilot' },
      currency: 'EUR',
      budget: { total: '5.00', per_day: null, per_call: null },
      approval_threshold: '0.50',
      toolsets: ['market'],
      capabilities: [{ name: 'market.call', params: { capabilities: ['extraction.*', 'pipeline.*'] } }],
      data: { regions: null, retention_days: null, training: false },
      expires_at: null,
      status: 'active',
    } as unknown as Mandate);
    assert.equal(shown.capabilities, 'extraction.*\npipeline.*');
    assert.deepEqual(parseCapabilityLines(shown.capabilities), { ok: true, capabilities: ['extraction.*', 'pipeline.*'] });
  });
});

describe('amounts at the currency\'s precision, exact on hover', () => {
  test('EUR to cents, half away from zero; JPY whole; a code that is not ISO exactly; nothing non-zero reads as zero', () => {
    const eur = (a: string): string => displayMoney(M.money(a, 'EUR')).text;
    assert.equal(eur('4.5824'), '4.58 EUR');
    assert.equal(eur('0.1906'), '0.19 EUR');
    assert.equal(eur('0.005'), '0.01 EUR');
    assert.equal(eur('0.0049'), '< 0.01 EUR');
    assert.equal(eur('0'), '0.00 EUR');
    assert.equal(eur('5'), '5.00 EUR');
    assert.equal(eur('-0.237'), '-0.24 EUR');
    assert.deepEqual(displayMoney(M.money('4.5824', 'EUR')), { text: '4.58 EUR', exact: '4.5824 EUR' });
    assert.equal(currencyDigits('JPY'), 0);
    assert.equal(displayMoney(M.money('1200.4', 'JPY')).text, '1200 JPY');
    assert.equal(currencyDigits('USDC'), null);
    assert.deepEqual(displayMoney(M.money('1.000001', 'USDC')), { text: '1.000001 USDC', exact: '1.000001 USDC' });
  });
});

const ok = (reply: unknown): Record<string, unknown> => {
  const r = reply as CallToolResult;
  assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent ?? r.content));
  return r.structuredContent as Record<string, unknown>;
};

describe('the Holon view and the receipts panel, from the journal', () => {
  test("a denied call shows with its reasons; another mandate's spend shows beside this one's; every spend of the account is listed, by mandate", async () => {
    const { runtime, clock, cleanup } = await demoRuntime();
    try {
      const store = runtime.store;
      const sandbox = await connect(runtime);
      // A call that costs less than a cent of the 5 EUR, then one the mandate's data rules refuse.
      const call = ok(await sandbox.callTool({ name: 'call_agent', arguments: { agent: 'acme/table-extract', input: { file: FACTURE } } }));
      const denied = await sandbox.callTool({ name: 'call_agent', arguments: { agent: 'fastcheap/table-extract-us', input: { file: FACTURE } } });
      assert.equal(denied.isError, true);
      // Another mandate of the same account pays from it (a payment intent), then tries a payee it may not pay.
      await fund(store, 'demo2', '1');
      await createMandate(store, clock, PAYER, {
        toolsets: ['money'],
        approval_threshold: '0.50',
        budget: { total: '5.00', per_day: null, per_call: null },
        capabilities: [{ name: 'pay', params: { payees: ['acct:demo2'] } }],
      });
      const payer = await connect(runtime, { mandate: PAYER });
      const paid = ok(
        await payer.callTool({ name: 'pay', arguments: { intent: { payee: 'acct:demo2', amount: '0.23', currency: 'EUR', purpose: 'a test', idempotency_key: 'k-1' } } }),
      ) as { intent: { intent: string } };
      const refused = await payer.callTool({
        name: 'pay',
        arguments: { intent: { payee: 'acct:elsewhere', amount: '0.10', currency: 'EUR', purpose: 'a test', idempotency_key: 'k-2' } },
      });
      assert.equal(refused.isError, true);

      const now = clock.now();
      const view = holonViewState(store.state, MANDATE, now, true, null, runtime.deps.signer);
      assert.equal(is(HolonViewState, view), true);
      // The mandate spent 0.0238 EUR; its account lost 0.2538 EUR: the view says why Remaining fell.
      const budget = view.budget!;
      assert.deepEqual(budget.spent, { text: '0.02 EUR', exact: '0.0238 EUR' });
      assert.deepEqual(budget.account.otherMandatesSpent, { text: '0.23 EUR', exact: '0.23 EUR' });
      assert.deepEqual(budget.account.available, { text: '4.75 EUR', exact: '4.7462 EUR' });
      assert.deepEqual(budget.remaining, budget.account.available);
      assert.equal(budget.limitedBy, 'account');
      // Refused calls, newest first, their reasons in words; nothing waits, and the view says both.
      assert.deepEqual(view.approvals, []);
      assert.deepEqual(
        view.refusals.map((r) => [r.mandate, r.what]),
        [
          [PAYER, 'pay'],
          [MANDATE, 'call_agent fastcheap/table-extract-us'],
        ],
      );
      assert.match(view.refusals[1]!.reasons.join(' '), /US/);
      assert.match(view.refusals[0]!.reasons.join(' '), /acct:elsewhere/);
      assert.equal(view.refusals[0]!.when, localTime(view.refusals[0]!.at));
      // A day later they are the receipts' to keep, not news.
      assert.deepEqual(holonViewState(store.state, MANDATE, now + REFUSALS_SHOWN_MS + 1000, true).refusals, []);

      // The receipts panel: every spend of the account — the call and the other mandate's payment.
      const all = await receiptsState(store, { mandate: null, status: 'all' }, null);
      assert.equal(is(ReceiptsState, all), true);
      assert.deepEqual(
        all.spends.map((sp) => [sp.kind, sp.mandate, sp.to, sp.amount.exact, sp.status]),
        [
          ['intent', PAYER, 'acct:demo2', '0.23 EUR', 'settled'],
          ['call', MANDATE, 'acme/table-extract', '0.0238 EUR', 'settled'],
        ],
      );
      assert.equal(all.spends[0]!.id, paid.intent.intent);
      assert.equal(all.spends[1]!.receipt, call['receipt']);
      assert.deepEqual(all.mandates, [MANDATE, PAYER].sort());
      assert.deepEqual(
        all.accounts.map((a) => [a.id, a.spent.exact, a.available.exact]),
        [
          ['demo', '0.2538 EUR', '4.7462 EUR'],
          ['demo2', '0.00 EUR', '1.23 EUR'],
        ],
      );
      // Narrowed to one mandate: its spends, its calls, its account.
      const buyer = await receiptsState(store, { mandate: PAYER, status: 'all' }, null);
      assert.deepEqual(
        buyer.spends.map((sp) => sp.kind),
        ['intent'],
      );
      assert.deepEqual(buyer.recent, []);
      assert.deepEqual(
        buyer.accounts.map((a) => a.id),
        ['demo'],
      );
      // A mandate this state does not have narrows nothing.
      assert.equal((await receiptsState(store, { mandate: 'demo/gone', status: 'all' }, null)).spends.length, 2);
      await sandbox.close();
      await payer.close();
    } finally {
      await cleanup();
    }
  });

  test('the Approve dialog says what the card says: who asked by name and machine, and the local times', async () => {
    const { runtime, clock, cleanup } = await demoRuntime();
    try {
      const client = await connect(runtime);
      const pending = ok(await client.callTool({ name: 'call_agent', arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICES } } }));
      const a = runtime.store.state.approvals[String(pending['approval'])]!;
      const card = holonViewState(runtime.store.state, MANDATE, clock.now(), true, null, runtime.deps.signer).approvals[0]!;
      assert.deepEqual(card, pendingApprovalView(runtime.store.state, a, { decider: runtime.deps.signer }));
      const { message, detail } = approvalPrompt(card);
      assert.equal(message, 'Approve this agent call? Call holon-labs/invoice-pipeline 2.1.0');
      const lines = detail.split('\n');
      for (const row of approvalRows(card)) assert.ok(lines.includes(`${row.label}: ${row.text}`), `${row.label}: ${row.text}`);
      const grantee = runtime.store.state.mandates[MANDATE]!.grantee.name;
      assert.ok(lines.includes(`Asked by: ${grantee} · machine ${card.machine}`), detail);
      assert.ok(lines.includes(`Requested: ${localTime(a.requested_at)}`), detail);
      assert.ok(!detail.includes(a.requested_at) && !detail.includes(a.expires_at), 'no UTC timestamp the card does not show');
      assert.ok(!lines.some((l) => l.startsWith('Asked by') && l.includes(`Asked by ${MANDATE}`)), 'the grantee, not the mandate id');
      await client.close();
    } finally {
      await cleanup();
    }
  });
});
