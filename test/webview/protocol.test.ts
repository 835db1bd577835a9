import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { APPROVAL_KINDS } from '../../src/shared/approvalKinds.ts';
import { BudgetInfo, HolonViewCommand, HolonViewState, holonViewProtocol, PendingApproval } from '../../src/webview/protocol/holonView.ts';
import { MandateEditorCommand, MandateEditorState, mandateEditorProtocol } from '../../src/webview/protocol/mandateEditor.ts';
import { Id, is, parse, ReadyCommand } from '../../src/webview/protocol/messages.ts';
import type { ReceiptNode as ReceiptNodeValue } from '../../src/webview/protocol/receipts.ts';
import { MAX_RECEIPT_DEPTH, ReceiptFilter, ReceiptNode, ReceiptsCommand, ReceiptsState, receiptsProtocol } from '../../src/webview/protocol/receipts.ts';
import { approval, editorState, receiptNode, receiptsState, viewState } from './fakes.ts';

/** A chain of nodes `depth` levels below its root. */
function chain(depth: number): ReceiptNodeValue {
  let node = receiptNode({ id: `n${depth}` });
  for (let d = depth - 1; d >= 0; d--) node = receiptNode({ id: `n${d}`, children: [node] });
  return node;
}

/** A copy of `value` with one property set (or removed, with undefined). */
function withProp(value: object, key: string, v: unknown): unknown {
  const copy: Record<string, unknown> = { ...structuredClone(value) };
  if (v === undefined) delete copy[key];
  else copy[key] = v;
  return copy;
}

describe('messages', () => {
  test('ready is exactly {type: "ready"}; ids are bounded', () => {
    assert.equal(is(ReadyCommand, { type: 'ready' }), true);
    assert.equal(is(ReadyCommand, { type: 'ready', extra: 1 }), false);
    assert.equal(is(ReadyCommand, 'ready'), false);
    assert.equal(is(Id, 'apr_1'), true);
    assert.equal(is(Id, ''), false);
    assert.equal(is(Id, 'x'.repeat(81)), false);
    assert.equal(parse(Id, 3), undefined);
  });

  test('each protocol accepts its own state notification and no other panel\'s', () => {
    assert.equal(is(holonViewProtocol.notification, { type: 'state', state: viewState() }), true);
    assert.equal(is(receiptsProtocol.notification, { type: 'state', state: receiptsState() }), true);
    assert.equal(is(mandateEditorProtocol.notification, { type: 'state', state: editorState() }), true);
    assert.equal(is(holonViewProtocol.notification, { type: 'state', state: receiptsState() }), false);
    assert.equal(is(receiptsProtocol.notification, { type: 'state', state: editorState() }), false);
    assert.equal(is(holonViewProtocol.notification, { type: 'status', state: viewState() }), false);
    assert.equal(is(holonViewProtocol.notification, { type: 'state' }), false);
  });
});

describe('Holon view protocol', () => {
  test('accepts a full state, with approvals, and one with no mandate', () => {
    assert.equal(is(HolonViewState, viewState({ approvals: [approval()] })), true);
    assert.equal(is(HolonViewState, viewState({ mandate: null, budget: null })), true);
  });

  test('refuses states with a missing, mistyped or unknown field', () => {
    const state = viewState({ approvals: [approval()] });
    for (const [key, bad] of [
      ['mandate', 3],
      ['budget', 'none'],
      ['approvals', undefined],
      ['approvals', {}],
      ['approvals', [null]],
      ['panelApprovals', 'yes'],
      ['forms', []],
    ] as const) {
      assert.equal(is(HolonViewState, withProp(state, key, bad)), false, `${key}: ${String(bad)}`);
    }
    assert.equal(is(HolonViewState, null), false);
    assert.equal(is(HolonViewState, []), false);
  });

  test('the budget guard checks every field', () => {
    const budget = viewState().budget!;
    assert.equal(is(BudgetInfo, budget), true);
    assert.equal(is(BudgetInfo, { ...budget, perDay: null, perCall: null }), true);
    assert.equal(is(BudgetInfo, withProp(budget, 'remaining', 3.4)), false);
    assert.equal(is(BudgetInfo, withProp(budget, 'perDay', undefined)), false);
    assert.equal(is(BudgetInfo, withProp(budget, 'remaining', '3.40 EUR')), false, 'an amount is its text and its exact value');
    assert.equal(is(BudgetInfo, withProp(budget, 'remaining', { text: '3.40 EUR' })), false);
    assert.equal(is(BudgetInfo, withProp(budget, 'account', undefined)), false);
    assert.equal(is(BudgetInfo, withProp(budget, 'limitedBy', 'nobody')), false);
  });

  test('an approval of every kind passes, with or without money, detail and removals', () => {
    for (const kind of APPROVAL_KINDS) {
      assert.equal(is(PendingApproval, approval({ kind })), true, kind);
    }
    assert.equal(is(PendingApproval, approval({ kind: 'proposal', amount: null, threshold: null, facts: [], detail: null, removals: ['mail.send'] })), true);
  });

  test('a malformed approval is refused, and with it the whole state', () => {
    for (const [key, bad] of [
      ['kind', 'hr_proposal'],
      ['kind', undefined],
      ['title', undefined],
      ['subject', null],
      ['amount', 3.1],
      ['amount', undefined],
      ['threshold', undefined],
      ['facts', [{ label: 'Version' }]],
      ['facts', [{ label: 'Version', value: 2 }]],
      ['facts', [{ label: 'Version', value: '2', extra: true }]],
      ['facts', {}],
      ['detail', undefined],
      ['detail', ['line']],
      ['removals', null],
      ['removals', ['mail.send', 4]],
      ['expiresAt', undefined],
      ['agent', 'acme/x'],
    ] as const) {
      const bent = withProp(approval(), key, bad);
      assert.equal(is(PendingApproval, bent), false, `${key}: ${JSON.stringify(bad)}`);
      assert.equal(is(HolonViewState, { ...viewState(), approvals: [approval({ id: 'ok' }), bent] }), false, key);
    }
  });

  test('commands: what the view posts, and nothing else', () => {
    for (const ok of [{ type: 'ready' }, { type: 'approve', id: 'a' }, { type: 'reject', id: 'a' }, { type: 'run', command: 'fundAccount' }]) {
      assert.deepEqual(parse(HolonViewCommand, ok), ok);
    }
    for (const bad of [
      { type: 'approve' },
      { type: 'approve', id: 3 },
      { type: 'approve', id: '' },
      { type: 'approve', id: 'a'.repeat(81) },
      { type: 'approve', id: 'apr_1', extra: true },
      { type: 'answerForm', id: 'f', action: 'accept' },
      { type: 'run', command: 'rm -rf' },
      { type: 'run', command: 'workbench.action.terminal.new' },
      { type: 'unknown' },
      'approve',
      null,
    ]) {
      assert.equal(parse(HolonViewCommand, bad), undefined, JSON.stringify(bad));
    }
  });
});

describe('receipts protocol', () => {
  test('accepts a state with a nested tree; refuses a malformed node anywhere in it', () => {
    assert.equal(is(ReceiptsState, receiptsState()), true);
    assert.equal(is(ReceiptsState, receiptsState({ selected: null, recent: [] })), true);

    const broken = receiptsState();
    (broken.selected!.children[1] as unknown as Record<string, unknown>)['status'] = 'exploded';
    assert.equal(is(ReceiptsState, broken), false);
    assert.equal(is(ReceiptsState, receiptsState({ filter: 'some' as never })), false);
    assert.equal(is(ReceiptsState, withProp(receiptsState(), 'recent', [{ id: 'x' }])), false);
  });

  test('a node checks every field, and trees deeper than the limit are refused', () => {
    assert.equal(is(ReceiptNode, receiptNode()), true);
    assert.equal(is(ReceiptNode, receiptNode({ reasons: ['over budget', 3 as unknown as string] })), false);
    assert.equal(is(ReceiptNode, receiptNode({ durationMs: Number.NaN })), false);
    assert.equal(is(ReceiptNode, receiptNode({ durationMs: Number.POSITIVE_INFINITY })), false);
    assert.equal(is(ReceiptNode, withProp(receiptNode(), 'error', undefined)), false);
    assert.equal(is(ReceiptNode, chain(MAX_RECEIPT_DEPTH)), true);
    assert.equal(is(ReceiptNode, chain(MAX_RECEIPT_DEPTH + 1)), false);
    assert.equal(is(ReceiptsState, receiptsState({ selected: chain(MAX_RECEIPT_DEPTH + 1) })), false);
  });

  test('filters and commands', () => {
    assert.equal(is(ReceiptFilter, 'all'), true);
    assert.equal(is(ReceiptFilter, 'pending_approval'), true);
    assert.equal(is(ReceiptFilter, 'ALL'), false);
    assert.deepEqual(parse(ReceiptsCommand, { type: 'select', id: 'r' }), { type: 'select', id: 'r' });
    assert.deepEqual(parse(ReceiptsCommand, { type: 'filter', filter: 'failed' }), { type: 'filter', filter: 'failed' });
    assert.equal(parse(ReceiptsCommand, { type: 'filter', filter: 'gone' }), undefined);
    assert.equal(parse(ReceiptsCommand, { type: 'filter', filter: 'everything' }), undefined);
    assert.equal(parse(ReceiptsCommand, { type: 'select' }), undefined);
    assert.deepEqual(parse(ReceiptsCommand, { type: 'mandate', mandate: 'demo/buyer' }), { type: 'mandate', mandate: 'demo/buyer' });
    assert.deepEqual(parse(ReceiptsCommand, { type: 'mandate', mandate: null }), { type: 'mandate', mandate: null });
    for (const bad of [undefined, '', 'x'.repeat(81), 3, ['demo/buyer']])
      assert.equal(parse(ReceiptsCommand, { type: 'mandate', mandate: bad }), undefined, String(bad));
  });
});

describe('mandate editor protocol', () => {
  test('accepts create and edit states, with errors', () => {
    assert.equal(is(MandateEditorState, editorState()), true);
    const edit = editorState({ mode: 'edit', errors: { total: 'Not an amount', form: 'Try again' }, saved: true });
    assert.equal(is(MandateEditorState, edit), true);
  });

  test('refuses malformed states', () => {
    assert.equal(is(MandateEditorState, editorState({ mode: 'view' as never })), false);
    assert.equal(is(MandateEditorState, editorState({ errors: { total: 5 as unknown as string } })), false);
    assert.equal(is(MandateEditorState, editorState({ errors: { colour: 'no such field' } as never })), false);
    const values = { ...editorState().values, status: 'paused' };
    assert.equal(is(MandateEditorState, { ...editorState(), values }), false);
    assert.equal(is(MandateEditorState, withProp(editorState(), 'saved', undefined)), false);
  });

  test('a save carries exactly the form\'s values, each bounded', () => {
    const values = editorState().values;
    assert.deepEqual(parse(MandateEditorCommand, { type: 'save', values }), { type: 'save', values });
    assert.deepEqual(parse(MandateEditorCommand, { type: 'cancel' }), { type: 'cancel' });
    for (const bad of [
      { ...values, status: 'paused' },
      { id: 'x' },
      { ...values, colour: 'red' },
      { ...values, grantee: 'g'.repeat(501) },
      { ...values, capabilities: 'c'.repeat(4001) },
      { ...values, toolsets: Array.from({ length: 11 }, (_, i) => `t${i}`) },
      { ...values, training: 'no' },
    ]) {
      assert.equal(parse(MandateEditorCommand, { type: 'save', values: bad }), undefined, JSON.stringify(bad).slice(0, 80));
    }
    assert.equal(parse(MandateEditorCommand, { type: 'approve', id: 'x' }), undefined);
  });
});
