import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { HolonViewCommand } from '../../src/webview/protocol/holonView.ts';
import { APPROVAL_KINDS } from '../../src/shared/approvalKinds.ts';
import { HolonViewCommand as HolonViewCommandSchema } from '../../src/webview/protocol/holonView.ts';
import { is } from '../../src/webview/protocol/messages.ts';
import { focusFirst, renderHolonView } from '../../src/webview/render/holonView.ts';
import type { Page } from './fakes.ts';
import { amt, approval, byTestId, click, fire, get, HOSTILE, page, viewState } from './fakes.ts';

let p: Page;
let posted: HolonViewCommand[];
const post = (command: HolonViewCommand): void => {
  assert.equal(is(HolonViewCommandSchema, command), true, `posted a malformed command: ${JSON.stringify(command)}`);
  posted.push(command);
};

beforeEach(() => {
  p = page();
  posted = [];
});
afterEach(() => p.close());

describe('no mandate', () => {
  test('shows a call to action whose buttons run commands, on click only', () => {
    renderHolonView(p.root, viewState({ mandate: null, budget: null }), post);
    assert.ok(byTestId(p.root, 'cta'));
    assert.equal(byTestId(p.root, 'budget'), null);
    for (const command of ['selectMandate', 'createMandate', 'fundAccount'] as const) {
      assert.equal(get(p.root, `run-${command}`).tagName.toLowerCase(), 'vscode-button');
    }
    assert.deepEqual(posted, []);
    click(get(p.root, 'run-createMandate'));
    click(get(p.root, 'run-fundAccount'));
    click(get(p.root, 'run-selectMandate'));
    assert.deepEqual(posted, [
      { type: 'run', command: 'createMandate' },
      { type: 'run', command: 'fundAccount' },
      { type: 'run', command: 'selectMandate' },
    ]);
    assert.ok(byTestId(p.root, 'nothing-pending'));
  });
});

describe('the store', () => {
  test("says nothing of this workspace's own journal, and names a team store by host/database", () => {
    // A newcomer's first line read "Ledger: this workspace's journal": the default goes unsaid.
    renderHolonView(p.root, viewState({ mandate: null, budget: null, spend: null, setup: { funded: false, mandates: 0 } }), post);
    assert.equal(byTestId(p.root, 'store'), null);
    assert.ok(get(p.root, 'section-store').hidden);
    assert.doesNotMatch(p.root.textContent ?? '', /journal|Ledger/);
    renderHolonView(p.root, viewState(), post);
    assert.equal(byTestId(p.root, 'store'), null);
    renderHolonView(p.root, viewState({ store: { kind: 'team', label: 'db.example.com/holon', error: null, loading: false } }), post);
    assert.equal(get(p.root, 'store').getAttribute('data-kind'), 'team');
    assert.equal(get(p.root, 'section-store').hidden, false);
    assert.equal(get(p.root, 'store-label').textContent, 'db.example.com/holon');
    assert.equal(byTestId(p.root, 'store-error'), null);
  });

  test('a team store that cannot be used is an alert naming it, with a way to set its password, on click only', () => {
    const error = 'the team store db.example.com/holon cannot be used: password authentication failed for user "ada"';
    renderHolonView(p.root, viewState({ mandate: null, budget: null, store: { kind: 'team', label: 'db.example.com/holon', error, loading: false } }), post);
    assert.equal(get(p.root, 'store').getAttribute('role'), 'alert');
    assert.equal(get(p.root, 'store-error').textContent, error);
    assert.deepEqual(posted, []);
    click(get(p.root, 'run-setStorePassword'));
    assert.deepEqual(posted, [{ type: 'run', command: 'setStorePassword' }]);
  });
  test("while the journal opens, the view says so and shows no empty state as this workspace's: no first steps, no \"nothing waits\"", () => {
    const opening = { kind: 'journal' as const, label: "this workspace's journal", error: null, loading: true };
    renderHolonView(p.root, viewState({ mandate: null, budget: null, spend: null, approvals: [], setup: { funded: false, mandates: 0 }, store: opening }), post);
    assert.equal(get(p.root, 'store-loading').getAttribute('role'), 'status');
    assert.match(get(p.root, 'store-loading').textContent ?? '', /^Opening this workspace's journal…$/);
    assert.equal(byTestId(p.root, 'first-steps'), null);
    assert.equal(byTestId(p.root, 'nothing-pending'), null);
    // Loaded: the same empty state is now the workspace's own, and says what to do first.
    renderHolonView(p.root, viewState({ mandate: null, budget: null, spend: null, approvals: [], setup: { funded: false, mandates: 0 }, store: { ...opening, loading: false } }), post);
    assert.equal(byTestId(p.root, 'store-loading'), null);
    assert.ok(byTestId(p.root, 'first-steps'));
    assert.ok(byTestId(p.root, 'nothing-pending'));
  });
});

describe('budget', () => {
  test('shows the mandate and every amount, as sent', () => {
    renderHolonView(p.root, viewState(), post);
    assert.equal(byTestId(p.root, 'cta'), null);
    const text = (id: string): string | null => get(p.root, id).textContent;
    assert.equal(text('mandate-name'), 'demo/sandbox');
    assert.equal(text('mandate-status'), 'active');
    assert.equal(text('budget-remaining'), '3.40 EUR');
    assert.equal(text('budget-spent'), '1.20 EUR');
    assert.equal(text('budget-held'), '0.40 EUR');
    assert.equal(text('budget-total'), '5.00 EUR');
    assert.equal(text('budget-per-day'), '1.20 EUR of 2.00 EUR today');
    assert.equal(text('budget-per-call'), '1.00 EUR');
    assert.equal(text('budget-threshold'), '0.50 EUR');
    click(get(p.root, 'run-showReceipts'));
    assert.deepEqual(posted, [{ type: 'run', command: 'showReceipts' }]);
  });

  test('says when there is no daily or per-call limit, and when the budget is unknown', () => {
    const state = viewState();
    renderHolonView(p.root, { ...state, budget: { ...state.budget!, perDay: null, perCall: null, status: 'suspended' } }, post);
    assert.equal(get(p.root, 'budget-per-day').textContent, 'no daily limit');
    assert.equal(get(p.root, 'budget-per-call').textContent, 'no per-call limit');
    assert.ok(get(p.root, 'mandate-status').classList.contains('attention'));

    renderHolonView(p.root, viewState({ budget: null }), post);
    assert.ok(byTestId(p.root, 'budget-unknown'));
    assert.equal(byTestId(p.root, 'budget-remaining'), null);
  });

  test('a new state replaces the budget; only one head is shown', () => {
    renderHolonView(p.root, viewState(), post);
    const state = viewState();
    renderHolonView(p.root, { ...state, budget: { ...state.budget!, remaining: amt('2.00 EUR') } }, post);
    assert.equal(get(p.root, 'budget-remaining').textContent, '2.00 EUR');
    assert.equal(p.root.querySelectorAll('[data-testid="budget"]').length, 1);
    renderHolonView(p.root, viewState({ mandate: null, budget: null }), post);
    assert.equal(byTestId(p.root, 'budget'), null);
    assert.ok(byTestId(p.root, 'cta'));
  });
});

/** The label → value pairs of a card's list, in order. */
function facts(card: HTMLElement): [string, string][] {
  const dl = card.querySelector('dl')!;
  return Array.from(dl.querySelectorAll('dt')).map((dt) => [dt.textContent ?? '', dt.nextElementSibling?.textContent ?? '']);
}

describe('approvals', () => {
  test('an agent call: kind, title, subject, amount against threshold, facts in order, times, and the input folded', () => {
    renderHolonView(p.root, viewState({ approvals: [approval()] }), post);
    const card = get(p.root, 'approval-apr_1');
    assert.equal(card.getAttribute('data-kind'), 'agent_call');
    assert.equal(get(card, 'approval-kind-apr_1').textContent, 'Agent call');
    assert.equal(get(card, 'approval-title-apr_1').textContent, 'Call acme/invoice-extractor 1.4.2');
    assert.equal(get(card, 'approval-subject-apr_1').textContent, 'acme/invoice-extractor');
    assert.equal(get(card, 'approval-amount-apr_1').textContent, '3.10 EUR');
    assert.equal(get(card, 'approval-threshold-apr_1').textContent, '0.50 EUR');
    assert.deepEqual(facts(card).slice(0, 4), [
      ['About', 'acme/invoice-extractor'],
      ['Worst case', '3.10 EUR above 0.50 EUR'],
      ['Version', '1.4.2'],
      ['Delegated calls', 'up to 4 (extraction.pdf × 4)'],
    ]);
    assert.equal(get(card, 'approval-fact-apr_1-1').textContent, 'up to 4 (extraction.pdf × 4)');
    assert.equal(get(card, 'approval-mandate-apr_1').textContent, 'demo/sandbox');
    assert.equal(get(card, 'approval-requested-apr_1').getAttribute('datetime'), '2026-03-01T10:00:00.000Z');
    assert.equal(get(card, 'approval-expires-apr_1').getAttribute('datetime'), '2026-03-01T10:15:00.000Z');
    // The times are the host's words, the ones the Approve command's dialog shows too.
    assert.equal(get(card, 'approval-requested-apr_1').textContent, approval().requested);
    assert.equal(get(card, 'approval-expires-apr_1').textContent, approval().expires);
    assert.deepEqual(facts(card).slice(4), [
      ['Mandate', 'demo/sandbox'],
      ['Asked by', 'Copilot (sandbox) · machine dev-laptop'],
      ['Requested', approval().requested],
      ['Expires', approval().expires],
    ]);
    const detail = get(card, 'approval-detail-apr_1');
    assert.equal(detail.tagName.toLowerCase(), 'pre');
    assert.equal(detail.textContent, approval().detail);
    const collapsible = detail.parentElement!;
    assert.equal(collapsible.tagName.toLowerCase(), 'vscode-collapsible');
    assert.equal(collapsible.getAttribute('heading'), 'Input');
    assert.equal(collapsible.hasAttribute('open'), false, 'the input starts folded');
    assert.equal(byTestId(card, 'approval-removes-apr_1'), null);
    assert.equal(byTestId(card, 'approval-removals-apr_1'), null);
    assert.equal(card.classList.contains('removes'), false);
    assert.equal(get(p.root, 'count-approvals').textContent, '1');
    assert.equal(byTestId(p.root, 'nothing-pending'), null);
  });

  test('every kind reads in the host\'s words', () => {
    const labels = APPROVAL_KINDS.map((kind) => `label of ${kind}`);
    renderHolonView(p.root, viewState({ approvals: APPROVAL_KINDS.map((kind, i) => approval({ id: kind, kind, kindLabel: labels[i] ?? '' })) }), post);
    assert.deepEqual(
      APPROVAL_KINDS.map((kind) => get(p.root, `approval-kind-${kind}`).textContent),
      labels,
    );
    assert.equal(get(p.root, 'count-approvals').textContent, String(APPROVAL_KINDS.length));
  });

  test('a payment: the payee and its facts; no threshold, no detail: neither is shown', () => {
    const payment = approval({
      id: 'apr_pay',
      kind: 'payment',
      kindLabel: 'Payment',
      title: 'Pay 12.00 EUR to ACME Invoicing',
      subject: 'acme-invoicing',
      amount: amt('12.00 EUR'),
      amountLabel: 'Amount',
      threshold: null,
      facts: [
        { label: 'Terms', value: 'sha256:9f2c…' },
        { label: 'Reference', value: 'INV-2026-0042' },
      ],
      detail: null,
    });
    renderHolonView(p.root, viewState({ approvals: [payment] }), post);
    const card = get(p.root, 'approval-apr_pay');
    assert.equal(get(card, 'approval-kind-apr_pay').textContent, 'Payment');
    assert.deepEqual(facts(card).slice(0, 4), [
      ['About', 'acme-invoicing'],
      ['Amount', '12.00 EUR'],
      ['Terms', 'sha256:9f2c…'],
      ['Reference', 'INV-2026-0042'],
    ]);
    assert.equal(byTestId(card, 'approval-threshold-apr_pay'), null);
    assert.equal(card.querySelector('vscode-collapsible'), null);
    assert.equal(byTestId(card, 'approval-detail-apr_pay'), null);
    assert.equal(get(p.root, 'approve-apr_pay').getAttribute('title'), 'Pay 12.00 EUR to ACME Invoicing, up to 12.00 EUR');
  });

  test('a proposal that removes capabilities: the lines in red, a "Removes N" pill, the diff folded; no money row', () => {
    const proposal = approval({
      id: 'apr_hr',
      kind: 'proposal',
      kindLabel: 'Proposal',
      title: 'Change what invoice-bot may do',
      subject: 'invoice-bot',
      amount: null,
      threshold: null,
      facts: [{ label: 'Proposed by', value: 'demo/manager' }],
      detail: '- mail.send {to: ["*@acme.test"]}\n- pay {payees: ["acme"]}\n+ records.read',
      removals: ['mail.send {to: ["*@acme.test"]}', 'pay {payees: ["acme"]}'],
    });
    renderHolonView(p.root, viewState({ approvals: [proposal, approval()] }), post);
    const card = get(p.root, 'approval-apr_hr');
    assert.equal(get(card, 'approval-kind-apr_hr').textContent, 'Proposal');
    assert.ok(card.classList.contains('removes'), 'the whole card is marked');
    const pill = get(card, 'approval-removes-apr_hr');
    assert.equal(pill.textContent, 'Removes 2');
    assert.ok(pill.classList.contains('pill') && pill.classList.contains('danger'));
    const removals = get(card, 'approval-removals-apr_hr');
    assert.ok(removals.classList.contains('removals'));
    assert.deepEqual(Array.from(removals.querySelectorAll('li')).map((li) => li.textContent), proposal.removals);
    assert.equal(removals.closest('vscode-collapsible'), null, 'removals are never folded away');
    assert.equal(byTestId(card, 'approval-amount-apr_hr'), null);
    assert.deepEqual(facts(card).slice(0, 2), [
      ['About', 'invoice-bot'],
      ['Proposed by', 'demo/manager'],
    ]);
    assert.equal(get(card, 'approval-detail-toggle-apr_hr').getAttribute('heading'), 'Diff');
    assert.equal(get(card, 'approval-detail-apr_hr').textContent, proposal.detail);
    assert.equal(byTestId(get(p.root, 'approval-apr_1'), 'approval-removes-apr_1'), null, 'only the card that removes has the pill');
  });

  test('other kinds fold their detail under "Details"', () => {
    renderHolonView(p.root, viewState({ approvals: [approval({ kind: 'budget_override', detail: 'The month-end run needs 20 EUR more.' })] }), post);
    assert.equal(get(p.root, 'approval-detail-toggle-apr_1').getAttribute('heading'), 'Details');
  });

  test('rendering never posts; Approve and Reject post only when clicked, with the id', () => {
    const state = viewState({ approvals: [approval(), approval({ id: 'apr_2' })] });
    renderHolonView(p.root, state, post);
    renderHolonView(p.root, state, post);
    assert.deepEqual(posted, []);
    const approve = get(p.root, 'approve-apr_1');
    assert.equal(approve.tagName.toLowerCase(), 'vscode-button');
    assert.equal(approve.hasAttribute('autofocus'), false);
    assert.equal(approve.getAttribute('type'), null, 'not a submit button');
    click(approve);
    click(get(p.root, 'reject-apr_2'));
    assert.deepEqual(posted, [
      { type: 'approve', id: 'apr_1' },
      { type: 'reject', id: 'apr_2' },
    ]);
  });

  test('Enter and focus do not approve: only a click does', () => {
    renderHolonView(p.root, viewState({ approvals: [approval()] }), post);
    const card = get(p.root, 'approval-apr_1');
    for (const target of [card, get(p.root, 'approve-apr_1'), p.document.body]) {
      fire(target, 'KeyboardEvent', 'keydown', { key: 'Enter' });
      fire(target, 'KeyboardEvent', 'keyup', { key: 'Enter' });
      fire(target, 'Event', 'submit');
    }
    get(p.root, 'approve-apr_1').focus();
    assert.deepEqual(posted, []);
  });

  test('after a click both buttons are disabled, so a double click posts once; they come back if the card stays', async () => {
    renderHolonView(p.root, viewState({ approvals: [approval()] }), post, { resendAfterMs: 20 });
    click(get(p.root, 'approve-apr_1'));
    click(get(p.root, 'approve-apr_1'));
    click(get(p.root, 'reject-apr_1'));
    assert.deepEqual(posted, [{ type: 'approve', id: 'apr_1' }]);
    assert.equal(get(p.root, 'approve-apr_1').hasAttribute('disabled'), true);
    assert.equal(get(p.root, 'approval-status-apr_1').hidden, false);
    // A state push with the same approval keeps the card (and its disabled buttons).
    renderHolonView(p.root, viewState({ approvals: [approval()] }), post);
    assert.equal(get(p.root, 'approve-apr_1').hasAttribute('disabled'), true);
    await new Promise((resolve) => p.window.setTimeout(resolve, 40));
    assert.equal(get(p.root, 'approve-apr_1').hasAttribute('disabled'), false);
    click(get(p.root, 'reject-apr_1'));
    assert.deepEqual(posted.at(-1), { type: 'reject', id: 'apr_1' });
  });

  test('answered approvals leave; the others stay', () => {
    renderHolonView(p.root, viewState({ approvals: [approval(), approval({ id: 'apr_2' })] }), post);
    const second = get(p.root, 'approval-apr_2');
    renderHolonView(p.root, viewState({ approvals: [approval({ id: 'apr_2' })] }), post);
    assert.equal(byTestId(p.root, 'approval-apr_1'), null);
    assert.equal(get(p.root, 'approval-apr_2'), second, 'the same card, not a rebuilt one');
    renderHolonView(p.root, viewState(), post);
    assert.equal(byTestId(p.root, 'approval-apr_2'), null);
    assert.equal(get(p.root, 'section-approvals').hidden, true);
    assert.ok(byTestId(p.root, 'nothing-pending'));
  });

  test('with the panel channel off: the approval is shown, without buttons, with a note', () => {
    renderHolonView(p.root, viewState({ approvals: [approval()], panelApprovals: false }), post);
    assert.ok(byTestId(p.root, 'approval-apr_1'));
    assert.equal(byTestId(p.root, 'approve-apr_1'), null);
    assert.equal(byTestId(p.root, 'reject-apr_1'), null);
    assert.match(get(p.root, 'approval-elsewhere-apr_1').textContent ?? '', /answered elsewhere/);
    // Turning the channel back on rebuilds the card with its buttons.
    renderHolonView(p.root, viewState({ approvals: [approval()], panelApprovals: true }), post);
    assert.ok(byTestId(p.root, 'approve-apr_1'));
    assert.equal(byTestId(p.root, 'approval-elsewhere-apr_1'), null);
  });

  test('who asked and from which machine; on a team\'s account, an approval for someone else has no buttons', () => {
    renderHolonView(p.root, viewState({ approvals: [approval()], panelApprovals: true }), post);
    // The machine after the view's separator: a grantee named "Agent on demo/buyer" read "Agent on demo/buyer on vm".
    assert.equal(get(p.root, 'approval-asked-by-apr_1').textContent, 'Copilot (sandbox) · machine dev-laptop');
    assert.equal(get(p.root, 'approval-machine-apr_1').textContent, 'dev-laptop');
    assert.equal(byTestId(p.root, 'approval-decider-apr_1'), null, 'no team: nothing said about who decides');
    renderHolonView(p.root, viewState({ approvals: [approval({ mayDecide: false, decider: 'Waiting for an approver of account demo: this installation is not one.' })], panelApprovals: true }), post);
    assert.equal(byTestId(p.root, 'approve-apr_1'), null);
    assert.equal(byTestId(p.root, 'reject-apr_1'), null);
    assert.match(get(p.root, 'approval-not-yours-apr_1').textContent ?? '', /Waiting for an approver of account demo/);
    renderHolonView(p.root, viewState({ approvals: [approval({ machine: null, mayDecide: true, decider: 'You are an approver of account demo.' })], panelApprovals: true }), post);
    assert.ok(byTestId(p.root, 'approve-apr_1'));
    assert.equal(get(p.root, 'approval-decider-apr_1').textContent, 'You are an approver of account demo.');
    assert.equal(get(p.root, 'approval-asked-by-apr_1').textContent, 'Copilot (sandbox)', 'an approval recorded before machines were');
  });

  test('hostile text in every field is text, never markup', () => {
    const hostile = approval({
      id: `x"><img src=x>`,
      title: HOSTILE,
      subject: HOSTILE,
      mandate: HOSTILE,
      amount: amt(HOSTILE),
      amountLabel: HOSTILE,
      threshold: amt(HOSTILE),
      facts: [{ label: HOSTILE, value: HOSTILE }],
      detail: HOSTILE,
      removals: [HOSTILE],
      requestedAt: HOSTILE,
    });
    renderHolonView(p.root, viewState({ mandate: HOSTILE, approvals: [hostile] }), post);
    assert.equal(p.root.querySelectorAll('img').length, 0);
    assert.equal(p.document.querySelectorAll('[onerror]').length, 0);
    assert.equal(get(p.root, `approval-title-${hostile.id}`).textContent, HOSTILE);
    assert.equal(get(p.root, `approval-subject-${hostile.id}`).textContent, HOSTILE);
    assert.equal(get(p.root, `approval-fact-${hostile.id}-0`).textContent, HOSTILE);
    assert.equal(get(p.root, `approval-detail-${hostile.id}`).textContent, HOSTILE);
    assert.equal(get(p.root, `approval-removals-${hostile.id}`).textContent, HOSTILE);
    assert.equal(get(p.root, 'mandate-name').textContent, HOSTILE);
    assert.equal((p.window as unknown as { pwned?: number }).pwned, undefined);
    click(get(p.root, `approve-${hostile.id}`));
    assert.deepEqual(posted, [{ type: 'approve', id: hostile.id }]);
  });
});

describe('state pushes keep what the human is doing', () => {
  test('a card whose approval did not change is kept, detail unfolded, when the budget changes', () => {
    renderHolonView(p.root, viewState({ approvals: [approval()] }), post);
    const card = get(p.root, 'approval-apr_1');
    get(card, 'approval-detail-toggle-apr_1').setAttribute('open', '');
    const state = viewState({ approvals: [approval()] });
    renderHolonView(p.root, { ...state, budget: { ...state.budget!, remaining: amt('1.00 EUR') } }, post);
    assert.equal(get(p.root, 'approval-apr_1'), card);
    assert.equal(get(p.root, 'approval-detail-toggle-apr_1').hasAttribute('open'), true);
    assert.equal(get(p.root, 'budget-remaining').textContent, '1.00 EUR');
  });

  test('an approval that comes back changed is rebuilt', () => {
    renderHolonView(p.root, viewState({ approvals: [approval()] }), post);
    const card = get(p.root, 'approval-apr_1');
    renderHolonView(p.root, viewState({ approvals: [approval({ amount: amt('4.00 EUR') })] }), post);
    assert.notEqual(get(p.root, 'approval-apr_1'), card);
    assert.equal(get(p.root, 'approval-amount-apr_1').textContent, '4.00 EUR');
  });

  test('the latest post function is used by cards built earlier', () => {
    renderHolonView(p.root, viewState({ approvals: [approval()] }), () => assert.fail('stale post'));
    renderHolonView(p.root, viewState({ approvals: [approval()] }), post);
    click(get(p.root, 'approve-apr_1'));
    assert.deepEqual(posted, [{ type: 'approve', id: 'apr_1' }]);
  });
});

describe('the office', () => {
  test('new mail shows who woke whom, the loop guard marked; artifacts open on click only; their text stays text', () => {
    renderHolonView(
      p.root,
      viewState({
        mail: [
          { id: 'lead#4', to: 'lead', from: 'ada', subject: HOSTILE, woke: false, at: '2026-12-01T10:00:00.000Z' },
          { id: 'ada#1', to: 'ada', from: 'lead', subject: 'Footer', woke: true, at: '2026-12-01T09:00:00.000Z' },
        ],
        artifacts: [{ id: 'q4-report-1a2b', title: HOSTILE, kind: 'markdown', author: 'ada', at: '2026-12-01T10:00:00.000Z' }],
      }),
      post,
    );
    assert.equal(get(p.root, 'count-mail').textContent, '2');
    assert.match(get(p.root, 'mail-lead#4').textContent ?? '', /loop guard/);
    assert.doesNotMatch(get(p.root, 'mail-ada#1').textContent ?? '', /loop guard/);
    assert.equal(p.root.querySelectorAll('img').length, 0);
    assert.deepEqual(posted, []);
    click(get(p.root, 'open-artifact-q4-report-1a2b'));
    assert.deepEqual(posted, [{ type: 'openArtifact', id: 'q4-report-1a2b' }]);
  });

  test('an empty office shows no office sections', () => {
    renderHolonView(p.root, viewState(), post);
    assert.equal(get(p.root, 'section-mail').hidden, true);
    assert.equal(get(p.root, 'section-artifacts').hidden, true);
  });
});

describe('amounts and the account', () => {
  test('each amount reads at its currency\'s precision, the exact amount on hover', () => {
    renderHolonView(p.root, viewState({ approvals: [approval({ amount: amt('3.10 EUR', '3.0975 EUR') })] }), post);
    const spent = get(p.root, 'budget-spent').querySelector('.amount')!;
    assert.equal(spent.textContent, '1.20 EUR');
    assert.equal(spent.getAttribute('title'), '1.1962 EUR');
    assert.equal(get(p.root, 'approval-amount-apr_1').textContent, '3.10 EUR');
    assert.equal(get(p.root, 'approval-amount-apr_1').getAttribute('title'), '3.0975 EUR');
    assert.equal(get(p.root, 'approve-apr_1').getAttribute('title'), 'Call acme/invoice-extractor 1.4.2, up to 3.0975 EUR');
  });

  test("the account's money is shown beside the mandate's spend; when other mandates made Remaining smaller, it says so", () => {
    renderHolonView(p.root, viewState(), post);
    assert.equal(get(p.root, 'budget-account').textContent, '3.40 EUR left of 5.00 EUR; its other mandates spent 0.00 EUR');
    assert.equal(byTestId(p.root, 'budget-limited-by-account'), null, 'the mandate\'s own budget bounds it: nothing to explain');
    const state = viewState();
    const budget = {
      ...state.budget!,
      spent: amt('0.19 EUR', '0.1906 EUR'),
      remaining: amt('4.58 EUR', '4.5824 EUR'),
      limitedBy: 'account' as const,
      account: { ...state.budget!.account, available: amt('4.58 EUR', '4.5824 EUR'), otherMandatesSpent: amt('0.23 EUR', '0.227 EUR') },
    };
    renderHolonView(p.root, { ...state, budget }, post);
    assert.equal(get(p.root, 'budget-spent').textContent, '0.19 EUR');
    assert.equal(get(p.root, 'account-others-spent').textContent, '0.23 EUR');
    assert.equal(get(p.root, 'account-others-spent').getAttribute('title'), '0.227 EUR');
    assert.equal(
      get(p.root, 'budget-limited-by-account').textContent,
      "Remaining is what account demo has left, less than this mandate's own budget: its other mandates spent 0.23 EUR from it.",
    );
  });
});

describe('refusals', () => {
  const refusal = {
    id: '41',
    at: '2026-03-01T10:05:00.000Z',
    when: '3/1/2026, 11:05:00 AM',
    mandate: 'demo/sandbox',
    what: 'call_agent fastcheap/table-extract-us',
    reasons: ['fastcheap/table-extract-us processes data in US; the mandate allows EU'],
  };

  test('a refused call is shown with its reasons in words; nothing waits, and the view still says so', () => {
    renderHolonView(p.root, viewState({ refusals: [refusal] }), post);
    assert.equal(get(p.root, 'section-refusals').hidden, false);
    assert.equal(get(p.root, 'count-refusals').textContent, '1');
    assert.equal(get(p.root, 'refusal-what-41').textContent, refusal.what);
    assert.deepEqual(
      Array.from(get(p.root, 'refusal-reasons-41').querySelectorAll('li')).map((li) => li.textContent),
      refusal.reasons,
    );
    assert.match(get(p.root, 'refusal-41').textContent ?? '', /11:05:00/);
    assert.ok(byTestId(p.root, 'nothing-pending'));
    assert.deepEqual(posted, []);
    click(get(p.root, 'refusal-edit-41'));
    assert.deepEqual(posted, [{ type: 'run', command: 'editMandate' }]);
  });

  test('no refusal, no section; their text stays text', () => {
    renderHolonView(p.root, viewState(), post);
    assert.equal(get(p.root, 'section-refusals').hidden, true);
    renderHolonView(p.root, viewState({ refusals: [{ ...refusal, what: HOSTILE, mandate: HOSTILE, reasons: [HOSTILE] }] }), post);
    assert.equal(p.root.querySelectorAll('img').length, 0);
  });
});

describe('the keyboard', () => {
  test('what waits comes first: the approvals, then refusals, then the budget', () => {
    renderHolonView(p.root, viewState({ approvals: [approval()] }), post);
    const order = Array.from(p.root.querySelectorAll('[data-section]')).map((s) => s.getAttribute('data-section'));
    assert.ok(order.indexOf('approvals') < order.indexOf('head'), order.join());
    assert.ok(order.indexOf('refusals') < order.indexOf('head'), order.join());
  });

  test('when the view gets the focus, the first waiting approval\'s card takes it — never a button', () => {
    renderHolonView(p.root, viewState({ approvals: [approval(), approval({ id: 'apr_2' })] }), post);
    assert.equal(focusFirst(p.root), true);
    assert.equal(p.document.activeElement, get(p.root, 'approval-apr_1'));
    assert.equal(get(p.root, 'approval-apr_1').getAttribute('tabindex'), '-1');
    assert.match(get(p.root, 'approval-apr_1').getAttribute('aria-label') ?? '', /^Agent call: Call acme/);
    // Focus the human already put somewhere stays there.
    get(p.root, 'reject-apr_2').focus();
    assert.equal(focusFirst(p.root), false);
    assert.equal(p.document.activeElement, get(p.root, 'reject-apr_2'));
    assert.deepEqual(posted, []);
  });

  test('nothing waits: the focus is left where it is', () => {
    renderHolonView(p.root, viewState(), post);
    assert.equal(focusFirst(p.root), false);
  });
});

describe('the wallet', () => {
  test("its address, and what it holds on the configured chain (or why that could not be read)", () => {
    const address = '0x00000000000000000000000000000000000000a1';
    renderHolonView(p.root, viewState({ wallet: address, holdings: { network: 'eip155:84532', token: '9.75 USDC', native: '0.01 ETH', error: null } }), post);
    assert.equal(get(p.root, 'wallet-address').textContent, address);
    assert.equal(get(p.root, 'wallet-holdings').textContent, ' · holds 9.75 USDC and 0.01 ETH on eip155:84532');
    renderHolonView(p.root, viewState({ wallet: address, holdings: { network: 'eip155:84532', token: '', native: '', error: 'its balances could not be read: timeout' } }), post);
    assert.equal(get(p.root, 'wallet-holdings').textContent, ' · eip155:84532: its balances could not be read: timeout');
    renderHolonView(p.root, viewState({ wallet: address, holdings: null }), post);
    assert.equal(byTestId(p.root, 'wallet-holdings'), null);
  });

  test('the mandate key merchants trust: its thumbprint, its public JWK on hover; none before one was made', () => {
    renderHolonView(p.root, viewState({ mandateKey: null }), post);
    assert.equal(byTestId(p.root, 'mandate-key'), null);
    const jwk = JSON.stringify({ kty: 'EC', crv: 'P-256', x: HOSTILE, y: 'y', kid: 'kid-1' });
    renderHolonView(p.root, viewState({ mandateKey: { kid: 'kid-1', jwk } }), post);
    const key = get(p.root, 'mandate-key');
    assert.match(key.textContent ?? '', /^Mandate key kid-1 · merchants verify your mandates with it/);
    assert.match(key.querySelector('.mono')?.getAttribute('title') ?? '', /"kty":"EC"/);
    assert.equal(p.root.querySelectorAll('img').length, 0);
  });
});

describe('payments on a chain', () => {
  test('each says where Holon read it: landed in block N with its transaction, or not landed and why; its id and what it pays for', () => {
    const tx = `0x${'ab'.repeat(32)}`;
    renderHolonView(
      p.root,
      viewState({
        payments: [
          { id: 'stl_1', paysFor: 'payment pay_1', at: '2026-03-01T10:00:00.000Z', mandate: 'demo/buyer', payee: 'eip155:8453:0xabc', amount: '0.25 USDC', status: 'landed', summary: 'landed in block 7 (eip155:8453)', transaction: tx },
          { id: 'stl_2', paysFor: 'call rcpt_2', at: '2026-03-01T10:01:00.000Z', mandate: 'demo/buyer', payee: 'eip155:8453:0xdef', amount: '0.13 USDC', status: 'flagged', summary: 'not landed: flagged (the payee named a transaction that does not show it), its money held for you', transaction: null },
        ],
      }),
      post,
    );
    const landed = get(p.root, 'payment-stl_1');
    assert.equal(get(landed, 'payment-summary').textContent, 'landed in block 7 (eip155:8453)');
    assert.equal(get(landed, 'payment-transaction').textContent, tx);
    assert.equal(get(landed, 'payment-for').textContent, 'stl_1 · for payment pay_1', 'the id the agent was answered with, and what it pays for');
    const flagged = get(p.root, 'payment-stl_2');
    assert.match(get(flagged, 'payment-summary').textContent ?? '', /^not landed: flagged/);
    assert.equal(byTestId(flagged, 'payment-transaction'), null);
  });
});

describe('spend at a glance', () => {
  const day = (d: string, exact: string, permille: number): { day: string; amount: { text: string; exact: string }; empty: boolean; permille: number } => ({
    day: d,
    amount: amt(exact),
    empty: exact.startsWith('0.00 '),
    permille,
  });
  const spend = {
    days: [day('2026-11-27', '0.00 EUR', 0), day('2026-11-28', '5.00 EUR', 1000), day('2026-11-29', '1.00 EUR', 200)],
    payees: [{ key: 'agent:acme/table-extract', kind: 'agent' as const, id: 'acme/table-extract', amount: amt('6.00 EUR'), permille: 1000 }],
    groups: [{ label: 'Agents (market)', amount: amt('6.00 EUR') }],
    total: amt('6.00 EUR'),
    perDay: amt('4.00 EUR'),
    perDayPermille: 800,
    otherCurrencies: [],
  };

  test('a bar per day against the daily limit, and per payee: native buttons with names, each opening the spends behind it', () => {
    renderHolonView(p.root, viewState({ spend }), post);
    const chart = get(p.root, 'spend-chart');
    assert.equal(chart.children.length, 4, 'three days and the limit line');
    assert.equal(byTestId(p.root, 'spend-day-2026-11-27'), null, 'a day without spend opens nothing');
    const over = get(p.root, 'spend-day-2026-11-28');
    assert.equal(over.tagName, 'BUTTON');
    assert.equal(over.getAttribute('type'), 'button');
    assert.equal(over.getAttribute('aria-label'), '2026-11-28: 5.00 EUR, over the daily limit. Show these spends');
    assert.ok(over.classList.contains('over'));
    assert.equal((over.querySelector('.fill') as HTMLElement).style.height, '100%');
    assert.equal(get(p.root, 'spend-limit').style.bottom, '80%');
    assert.equal(get(p.root, 'spend-day-2026-11-29').classList.contains('over'), false);
    click(get(p.root, 'spend-day-2026-11-29'));
    const payee = get(p.root, 'spend-payee-agent:acme/table-extract');
    assert.equal(payee.tagName, 'BUTTON');
    assert.match(payee.getAttribute('aria-label') ?? '', /^acme\/table-extract: 6\.00 EUR in 3 days/);
    click(payee);
    assert.deepEqual(posted, [
      { type: 'openSpend', day: '2026-11-29', payee: null },
      { type: 'openSpend', day: null, payee: 'agent:acme/table-extract' },
    ]);
  });

  test('a bar that has the focus keeps it when the state is pushed again', () => {
    renderHolonView(p.root, viewState({ spend }), post);
    get(p.root, 'spend-day-2026-11-29').focus();
    renderHolonView(p.root, viewState({ spend: { ...spend, total: amt('6.50 EUR') } }), post);
    assert.equal(p.document.activeElement?.getAttribute('data-testid'), 'spend-day-2026-11-29');
  });

  test('a push while the human is elsewhere takes no focus: the frame does not pull it out of what they are in', () => {
    renderHolonView(p.root, viewState({ spend }), post);
    get(p.root, 'spend-day-2026-11-29').focus();
    // The human moved to a quick pick: this frame's document no longer has the focus, though it keeps its active element.
    p.document.hasFocus = () => false;
    renderHolonView(p.root, viewState({ spend: { ...spend, total: amt('6.50 EUR') } }), post);
    assert.notEqual(p.document.activeElement?.getAttribute('data-testid'), 'spend-day-2026-11-29');
  });

  test('the host refuses a bar that is not one: a day not a day, a payee of no kind', () => {
    assert.equal(is(HolonViewCommandSchema, { type: 'openSpend', day: '2026-11-29', payee: null }), true);
    assert.equal(is(HolonViewCommandSchema, { type: 'openSpend', day: 'yesterday', payee: null }), false);
    assert.equal(is(HolonViewCommandSchema, { type: 'openSpend', day: null, payee: 'acme/table-extract' }), false);
    assert.equal(is(HolonViewCommandSchema, { type: 'openSpend', day: null, payee: `agent:${'x'.repeat(400)}` }), false);
  });
});

describe('nothing set up', () => {
  test('the first steps, in order, each with its command; a done step says so', () => {
    renderHolonView(p.root, viewState({ mandate: null, budget: null, setup: { funded: true, mandates: 0 } }), post);
    assert.equal(byTestId(p.root, 'cta'), null);
    assert.equal(get(p.root, 'first-step-1').getAttribute('data-done'), 'true');
    assert.equal(get(p.root, 'first-step-2').getAttribute('data-done'), 'false');
    click(get(p.root, 'run-createMandate'));
    click(get(p.root, 'run-connectClaudeCode'));
    click(get(p.root, 'run-getStarted'));
    assert.deepEqual(
      posted.map((c) => (c.type === 'run' ? c.command : c.type)),
      ['createMandate', 'connectClaudeCode', 'getStarted'],
    );
  });
});
