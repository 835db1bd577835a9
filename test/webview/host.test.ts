import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { mountHolonView, mountMandateEditor, mountReceipts, whenLoaded } from '../../src/webview/mount.ts';
import type { Page } from './fakes.ts';
import { approval, byTestId, click, editorState, FakeVsCodeApi, get, hostSends, page, receiptsState, type, viewState } from './fakes.ts';

let p: Page;
beforeEach(() => {
  p = page();
});
afterEach(() => p.close());

describe('connection to the host', () => {
  test('ready is the first message, posted once, and nothing is posted before it', () => {
    for (const mount of [mountHolonView, mountReceipts, mountMandateEditor]) {
      const api = new FakeVsCodeApi();
      const order: string[] = [];
      const recording = {
        postMessage: (m: unknown) => {
          order.push(`post ${(m as { type: string }).type}`);
          api.postMessage(m);
        },
        getState: () => {
          order.push('getState');
          return api.getState();
        },
        setState: (s: unknown) => api.setState(s),
      };
      p.root.replaceChildren();
      const session = mount(recording, p.window, p.root);
      assert.deepEqual(api.posted, [{ type: 'ready' }], mount.name);
      assert.deepEqual(order, ['getState', 'post ready'], mount.name);
      session.dispose();
    }
  });

  test('ready stays single whatever the host sends; host states render and are saved', () => {
    const api = new FakeVsCodeApi();
    mountHolonView(api, p.window, p.root);
    assert.ok(byTestId(p.root, 'loading'), 'waits for the host with a loading note');
    assert.deepEqual(api.saved, []);
    hostSends(p.window, { type: 'state', state: viewState({ approvals: [approval()] }) });
    hostSends(p.window, { type: 'state', state: viewState() });
    hostSends(p.window, { type: 'state', state: viewState({ approvals: [approval()] }) });
    assert.deepEqual(api.posted, [{ type: 'ready' }], 'rendering posts nothing, not even an approval');
    assert.ok(byTestId(p.root, 'approve-apr_1'));
    assert.equal(api.saved.length, 3);
    assert.deepEqual(api.getState(), { v: 1, state: viewState({ approvals: [approval()] }) });
  });

  test('anything but a well-formed state is ignored', () => {
    const api = new FakeVsCodeApi();
    mountHolonView(api, p.window, p.root);
    hostSends(p.window, { type: 'state', state: viewState() });
    const before = p.root.innerHTML;
    for (const junk of [
      null,
      'state',
      { type: 'approve', id: 'apr_1' },
      { type: 'state' },
      { type: 'state', state: null },
      { type: 'state', state: { ...viewState(), approvals: [{ id: 'x' }] } },
      { type: 'state', state: viewState({ approvals: [approval({ kind: 'raise' as never })] }) },
      { type: 'state', state: receiptsState() },
    ]) {
      hostSends(p.window, junk);
    }
    assert.equal(p.root.innerHTML, before);
    assert.equal(api.saved.length, 1);
    assert.deepEqual(api.posted, [{ type: 'ready' }]);
  });

  test('a reloaded view renders its saved state at once, before the host answers', () => {
    const first = new FakeVsCodeApi();
    mountHolonView(first, p.window, p.root).dispose();
    hostSends(p.window, { type: 'state', state: viewState() });
    const s = first.getState();
    assert.equal(s, undefined, 'a disposed view stops listening');

    const api = new FakeVsCodeApi({ v: 1, state: viewState({ approvals: [approval()] }) });
    p.root.replaceChildren();
    mountHolonView(api, p.window, p.root);
    assert.ok(byTestId(p.root, 'approval-apr_1'));
    assert.equal(byTestId(p.root, 'loading'), null);
    assert.deepEqual(api.posted, [{ type: 'ready' }]);
  });

  test('a malformed saved state is not rendered', () => {
    const api = new FakeVsCodeApi({ v: 1, state: { mandate: 3 } });
    mountHolonView(api, p.window, p.root);
    assert.ok(byTestId(p.root, 'loading'));
    p.root.replaceChildren();
    mountHolonView(new FakeVsCodeApi({ v: 1, state: { ...viewState(), forms: [] } }), p.window, p.root);
    assert.ok(byTestId(p.root, 'loading'), 'a state saved by an older version is dropped');
    const old = new FakeVsCodeApi(viewState());
    p.root.replaceChildren();
    mountHolonView(old, p.window, p.root);
    assert.ok(byTestId(p.root, 'loading'), 'an unversioned save is ignored');
  });

  test('the receipts panel renders, saves and posts its commands', () => {
    const api = new FakeVsCodeApi();
    mountReceipts(api, p.window, p.root);
    hostSends(p.window, { type: 'state', state: receiptsState() });
    assert.equal(p.root.querySelectorAll('[data-testid="receipt-node"]').length, 4);
    click(get(p.root, 'receipt-row-rcp_2'));
    assert.deepEqual(api.posted, [{ type: 'ready' }, { type: 'select', id: 'rcp_2' }]);
    assert.deepEqual((api.getState() as { state: unknown }).state, receiptsState());
  });

  test("the mandate form saves the human's edits with its state, so a reload keeps them", () => {
    const api = new FakeVsCodeApi();
    mountMandateEditor(api, p.window, p.root);
    hostSends(p.window, { type: 'state', state: editorState({ saved: true }) });
    type(get(p.root, 'field-grantee'), 'claude');
    const saved = api.getState() as { state: ReturnType<typeof editorState> };
    assert.equal(saved.state.values.grantee, 'claude');
    assert.equal(saved.state.saved, false);

    p.root.replaceChildren();
    const again = new FakeVsCodeApi(saved);
    mountMandateEditor(again, p.window, p.root);
    assert.equal((get(p.root, 'field-grantee') as unknown as { value: string }).value, 'claude');
    assert.deepEqual(again.posted, [{ type: 'ready' }]);
  });
});

describe('page', () => {
  test('the root is #root; a page without it fails loudly', () => {
    const api = new FakeVsCodeApi();
    mountReceipts(api, p.window);
    assert.ok(byTestId(p.root, 'loading'));
    p.document.body.replaceChildren();
    assert.throws(() => mountReceipts(new FakeVsCodeApi(), p.window), /#root/);
  });

  test('whenLoaded starts at once on a parsed page, else on DOMContentLoaded', () => {
    let started = 0;
    whenLoaded(p.window, () => started++);
    assert.equal(started, 1);
    const loading = { document: { readyState: 'loading', addEventListener: (_: string, fn: () => void) => fn() } } as unknown as Window;
    whenLoaded(loading, () => started++);
    assert.equal(started, 2);
  });
});
