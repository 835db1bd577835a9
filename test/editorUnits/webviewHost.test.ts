/** The host side every panel shares, against a small fake of the webview (no VS Code needed). */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { HolonError } from '../../src/core/kernel/errors.ts';
import type { WebviewHostOptions } from '../../src/editor/webviewHost.ts';
import { WebviewHost } from '../../src/editor/webviewHost.ts';
import type { HolonViewCommand, HolonViewState } from '../../src/webview/protocol/holonView.ts';
import { holonViewProtocol } from '../../src/webview/protocol/holonView.ts';
import { is } from '../../src/webview/protocol/messages.ts';
import { assets, FakePanel, FakeReport } from './fakeWebview.ts';

const empty: HolonViewState = { mandate: null, budget: null, approvals: [], panelApprovals: true, wallet: null, holdings: null, spend: null, setup: { funded: false, mandates: 0 }, refusals: [], payments: [], mail: [], artifacts: [], store: { kind: 'journal', label: "this workspace's journal", error: null, loading: false } };

let report: FakeReport;
let handled: HolonViewCommand[];
let unhandled: unknown[];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};

beforeEach(() => {
  report = new FakeReport();
  handled = [];
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

function host(
  panel: FakePanel,
  overrides: Partial<WebviewHostOptions<HolonViewState, HolonViewCommand>> = {},
): WebviewHost<HolonViewState, HolonViewCommand> {
  return new WebviewHost<HolonViewState, HolonViewCommand>({
    owner: panel,
    assets,
    report,
    entry: 'holonView',
    title: 'Holon',
    name: 'Holon view',
    protocol: async () => holonViewProtocol,
    state: () => empty,
    handle: (command) => {
      handled.push(command);
    },
    ...overrides,
  });
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('the page', () => {
  test('scripts only from the shared and the panel\'s bundles, with a fresh nonce; resources only from dist/webview and media', () => {
    const one = new FakePanel();
    const two = new FakePanel();
    host(one);
    host(two, { entry: 'receipts', title: 'Holon Receipts' });
    assert.deepEqual(one.webview.options, { enableScripts: true, localResourceRoots: assets.roots });
    const html = one.webview.html;
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? '';
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1] ?? '';
    assert.ok(nonce.length >= 16, csp);
    assert.match(csp, /^default-src 'none'; /);
    assert.doesNotMatch(csp, /unsafe-(inline|eval)/);
    const scripts = [...html.matchAll(/<script[^>]*>/g)].map((m) => m[0]);
    // The libraries every page shares, then the page's own bundle, both under the page's nonce.
    assert.deepEqual(scripts, [
      `<script nonce="${nonce}" src="https://webview.test/ext/dist/webview/shared.js">`,
      `<script nonce="${nonce}" src="https://webview.test/ext/dist/webview/holonView.js">`,
    ]);
    assert.match(html, /<link rel="stylesheet" href="https:\/\/webview.test\/ext\/media\/holon.css">/);
    assert.match(html, /<div id="root"><\/div>/);
    assert.match(two.webview.html, /dist\/webview\/receipts\.js/);
    assert.match(two.webview.html, /<title>Holon Receipts<\/title>/);
    assert.notEqual(/nonce-([^']+)/.exec(two.webview.html)?.[1], nonce, 'every page its own nonce');
  });
});

describe('the ready handshake', () => {
  test('nothing is posted before the view says ready; then the state, and the state after each command', async () => {
    const panel = new FakePanel();
    let state = empty;
    const h = host(panel, { state: () => state });
    h.push();
    await panel.webview.send({ type: 'approve', id: 'apr_1' });
    await panel.webview.send({ type: 'nonsense' });
    assert.deepEqual(panel.webview.posted, [], 'no push, no answer to a command, before ready');
    assert.deepEqual(handled, [{ type: 'approve', id: 'apr_1' }]);

    await panel.webview.send({ type: 'ready' });
    assert.deepEqual(panel.webview.posted, [{ type: 'state', state: empty }]);
    assert.equal(is(holonViewProtocol.notification, panel.webview.posted[0]), true, 'what is posted passes the view\'s guard');
    state = { ...empty, mandate: 'demo/sandbox' };
    h.push();
    await panel.webview.send({ type: 'run', command: 'fundAccount' });
    assert.deepEqual(panel.webview.posted.slice(1), [
      { type: 'state', state },
      { type: 'state', state },
    ]);
    assert.deepEqual(handled.at(-1), { type: 'run', command: 'fundAccount' });
    assert.equal(handled.filter((c) => (c as { type: string }).type === 'ready').length, 0, 'the handler never sees ready');
  });

  test('a malformed message is logged and ignored: the handler never sees it', async () => {
    const panel = new FakePanel();
    host(panel);
    for (const junk of [null, 'approve', { type: 'approve' }, { type: 'approve', id: 'x'.repeat(81) }, { type: 'approve', id: 'a', extra: 1 }, { type: 'answerForm', id: 'f', action: 'accept' }]) {
      await panel.webview.send(junk);
    }
    assert.deepEqual(handled, []);
    assert.equal(report.warnings.length, 6);
    assert.match(report.warnings[0]!, /Holon view: ignored a malformed message/);
    assert.deepEqual(report.shown, []);
  });

  test('after the panel is disposed the host stops listening and posts nothing', async () => {
    const panel = new FakePanel();
    const h = host(panel);
    await panel.webview.send({ type: 'ready' });
    await panel.dispose();
    assert.equal(panel.webview.received.listeners.size, 0);
    h.push();
    await panel.webview.send({ type: 'approve', id: 'apr_1' });
    assert.equal(panel.webview.posted.length, 1);
    assert.deepEqual(handled, []);
  });
});

describe('failing handlers', () => {
  for (const [what, handle, shown] of [
    ['throws', () => { throw new Error('journal locked'); }, 'Holon: could not approve in the Holon view: journal locked (details in the Holon output)'],
    ['rejects', () => Promise.reject(new Error('disk full')), 'Holon: could not approve in the Holon view: disk full (details in the Holon output)'],
    ['rejects with a HolonError', () => Promise.reject(new HolonError('not_found', 'no approval "apr_1"')), 'Holon: could not approve in the Holon view: no approval "apr_1"'],
    ['rejects with a non-error', () => Promise.reject('nope' as unknown as Error), 'Holon: could not approve in the Holon view: nope (details in the Holon output)'],
  ] as const) {
    test(`a handler that ${what} is caught, logged with its details, and told in one sentence`, async () => {
      const panel = new FakePanel();
      host(panel, { handle });
      await panel.webview.send({ type: 'ready' });
      await assert.doesNotReject(panel.webview.send({ type: 'approve', id: 'apr_1' }));
      await tick();
      assert.deepEqual(unhandled, []);
      assert.equal(report.errors.length, 1);
      assert.match(report.errors[0]!, /^Holon view: approve failed: /);
      if (what !== 'rejects with a non-error') assert.match(report.errors[0]!, /\n\s+at /, 'the stack is in the log');
      assert.deepEqual(report.shown, [shown]);
      assert.equal(panel.webview.posted.length, 2, 'the view still gets the state after the failed command');
    });
  }

  test('a state that cannot be built is logged, not thrown at whoever pushed', async () => {
    const panel = new FakePanel();
    const h = host(panel, {
      state: () => {
        throw new Error('bad journal');
      },
    });
    await panel.webview.send({ type: 'ready' });
    assert.doesNotThrow(() => h.push());
    await tick();
    assert.deepEqual(unhandled, []);
    assert.equal(panel.webview.posted.length, 0);
    assert.equal(report.errors.length, 2);
    assert.match(report.errors[0]!, /could not build the state: Error: bad journal/);
  });
});
