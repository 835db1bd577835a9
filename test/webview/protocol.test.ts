import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isBudgetInfo, isHolonViewCommand, isHolonViewStateValue, isPendingApproval, isStateNotification } from '../../src/webview/protocol/holonView.ts';
import { isMandateEditorCommand, isMandateEditorState, isMandateEditorStateValue } from '../../src/webview/protocol/mandateEditor.ts';
import { isMessage, isReady } from '../../src/webview/protocol/messages.ts';
import {
  isReceiptFilter,
  isReceiptNode,
  isReceiptsCommand,
  isReceiptsState,
  isReceiptsStateValue,
  MAX_RECEIPT_DEPTH,
} from '../../src/webview/protocol/receipts.ts';
import type { ReceiptNode } from '../../src/webview/protocol/receipts.ts';
import { approval, editorState, receiptNode, receiptsState, viewState } from './fakes.ts';

/** A chain of nodes `depth` levels below its root. */
function chain(depth: number): ReceiptNode {
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
  test('a message has a string type; ready is the ready command', () => {
    assert.equal(isMessage({ type: 'ready' }), true);
    assert.equal(isMessage({ type: 1 }), false);
    assert.equal(isMessage(null), false);
    assert.equal(isMessage('ready'), false);
    assert.equal(isReady({ type: 'ready' }), true);
    assert.equal(isReady({ type: 'state' }), false);
  });
});

describe('Holon view protocol', () => {
  test('accepts a full state, with approvals', () => {
    const state = viewState({ approvals: [approval()] });
    assert.equal(isHolonViewStateValue(state), true);
    assert.equal(isStateNotification({ type: 'state', state }), true);
    assert.equal(isHolonViewStateValue(viewState({ mandate: null, budget: null })), true);
  });

  test('refuses states with a missing or mistyped field', () => {
    const state = viewState({ approvals: [approval()] });
    for (const [key, bad] of [
      ['mandate', 3],
      ['budget', 'none'],
      ['approvals', undefined],
      ['approvals', {}],
      ['approvals', [null]],
      ['panelApprovals', 'yes'],
    ] as const) {
      assert.equal(isHolonViewStateValue(withProp(state, key, bad)), false, `${key}: ${String(bad)}`);
    }
    assert.equal(isHolonViewStateValue(null), false);
    assert.equal(isHolonViewStateValue([]), false);
  });

  test('budget and approval guards check every field', () => {
    const budget = viewState().budget!;
    assert.equal(isBudgetInfo(budget), true);
    assert.equal(isBudgetInfo({ ...budget, perDay: null, perCall: null }), true);
    assert.equal(isBudgetInfo(withProp(budget, 'remaining', 3.4)), false);
    assert.equal(isBudgetInfo(withProp(budget, 'perDay', undefined)), false);

    assert.equal(isPendingApproval(approval()), true);
    assert.equal(isPendingApproval(approval({ delegatedCalls: [] })), true);
    assert.equal(isPendingApproval(withProp(approval(), 'version', undefined)), false);
    assert.equal(isPendingApproval(approval({ delegatedCalls: [{ capability: 'x', maxCount: '4' as unknown as number }] })), false);
  });

  test('commands: what the view posts, and nothing else', () => {
    for (const ok of [
      { type: 'ready' },
      { type: 'approve', id: 'a' },
      { type: 'reject', id: 'a' },
      { type: 'run', command: 'fundAccount' },
    ]) {
      assert.equal(isHolonViewCommand(ok), true, JSON.stringify(ok));
    }
    for (const bad of [
      { type: 'approve' },
      { type: 'approve', id: 3 },
      { type: 'answerForm', id: 'f', action: 'accept' },
      { type: 'run', command: 'rm -rf' },
      { type: 'unknown' },
    ]) {
      assert.equal(isHolonViewCommand(bad), false, JSON.stringify(bad));
    }
  });
});

describe('receipts protocol', () => {
  test('accepts a state with a nested tree; refuses a malformed node anywhere in it', () => {
    const state = receiptsState();
    assert.equal(isReceiptsStateValue(state), true);
    assert.equal(isReceiptsState({ type: 'state', state }), true);
    assert.equal(isReceiptsStateValue(receiptsState({ selected: null, recent: [] })), true);

    const broken = receiptsState();
    (broken.selected!.children[1] as unknown as Record<string, unknown>)['status'] = 'exploded';
    assert.equal(isReceiptsStateValue(broken), false);
    assert.equal(isReceiptsStateValue(receiptsState({ filter: 'some' as never })), false);
    assert.equal(isReceiptsStateValue(withProp(receiptsState(), 'recent', [{ id: 'x' }])), false);
  });

  test('a node checks every field, and trees deeper than the limit are refused', () => {
    assert.equal(isReceiptNode(receiptNode()), true);
    assert.equal(isReceiptNode(receiptNode({ reasons: ['over budget', 3 as unknown as string] })), false);
    assert.equal(isReceiptNode(receiptNode({ durationMs: Number.NaN })), false);
    assert.equal(isReceiptNode(withProp(receiptNode(), 'error', undefined)), false);
    assert.equal(isReceiptNode(chain(MAX_RECEIPT_DEPTH)), true);
    assert.equal(isReceiptNode(chain(MAX_RECEIPT_DEPTH + 1)), false);
  });

  test('filters and commands', () => {
    assert.equal(isReceiptFilter('all'), true);
    assert.equal(isReceiptFilter('pending_approval'), true);
    assert.equal(isReceiptFilter('ALL'), false);
    assert.equal(isReceiptsCommand({ type: 'select', id: 'r' }), true);
    assert.equal(isReceiptsCommand({ type: 'filter', filter: 'failed' }), true);
    assert.equal(isReceiptsCommand({ type: 'filter', filter: 'gone' }), false);
    assert.equal(isReceiptsCommand({ type: 'select' }), false);
  });
});

describe('mandate editor protocol', () => {
  test('accepts create and edit states, with errors', () => {
    assert.equal(isMandateEditorStateValue(editorState()), true);
    const edit = editorState({ mode: 'edit', errors: { total: 'Not an amount', form: 'Try again' }, saved: true });
    assert.equal(isMandateEditorStateValue(edit), true);
    assert.equal(isMandateEditorState({ type: 'state', state: edit }), true);
  });

  test('refuses malformed states and commands', () => {
    assert.equal(isMandateEditorStateValue(editorState({ mode: 'view' as never })), false);
    assert.equal(isMandateEditorStateValue(editorState({ errors: { total: 5 as unknown as string } })), false);
    const values = { ...editorState().values, status: 'paused' };
    assert.equal(isMandateEditorStateValue({ ...editorState(), values }), false);
    assert.equal(isMandateEditorStateValue(withProp(editorState(), 'saved', undefined)), false);
    assert.equal(isMandateEditorCommand({ type: 'save', values: editorState().values }), true);
    assert.equal(isMandateEditorCommand({ type: 'save', values }), false);
    assert.equal(isMandateEditorCommand({ type: 'cancel' }), true);
    assert.equal(isMandateEditorCommand({ type: 'approve', id: 'x' }), false);
  });
});
