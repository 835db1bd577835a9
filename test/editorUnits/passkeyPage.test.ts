/**
 * The editor's side of the passkey's page: the real page server on loopback, answered over HTTP by a
 * software passkey as a browser would, and a small fake of what the editor shows (the browser it opens,
 * the notification's buttons). A decision in a guarded state is written behind the human's assertion;
 * Cancel, or closing the notification, writes nothing.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import type * as vscode from 'vscode';
import { addPasskey, registrationSubject } from '../../src/core/accounts/passkeys.ts';
import type { Approval } from '../../src/core/approvals/model.ts';
import { humanStore } from '../../src/core/decisions/asserted.ts';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { holdableClock, silentLogger } from '../../src/core/kernel/deps.ts';
import { requestApproval } from '../../src/core/office/requests.ts';
import { challengeOf } from '../../src/core/passkey/challenge.ts';
import type { CeremonyJson } from '../../src/shared/ceremony.ts';
import type { PageUi } from '../../src/editor/passkey.ts';
import { askInEditor, CANCEL, editorPageUi, OPEN_AGAIN, waitingMessage } from '../../src/editor/passkey.ts';
import type { SoftPasskey } from '../helpers/softPasskey.ts';
import { softPasskey } from '../helpers/softPasskey.ts';
import type { World } from '../core/fixtures.ts';
import { MANDATE, rejectsWith, stateText, withWorld } from '../core/fixtures.ts';

const ROOT = path.join(__dirname, '..', '..');

before(() => {
  // The page's server serves its script from dist/.
  if (!fs.existsSync(path.join(ROOT, 'dist', 'webview', 'passkey.js')))
    execFileSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' });
});

/** The page's URL on 127.0.0.1 (a loopback Host the server accepts), for Node's fetch. */
const direct = (url: string, route = ''): string => new URL(route, url.replace('//localhost:', '//127.0.0.1:')).toString();

/** The human at the page: reads what it asks and confirms with `pk`, as the page's script does in a browser. */
async function confirmAt(url: string, pk: SoftPasskey): Promise<number> {
  const page = (await (await fetch(direct(url, 'ceremony'))).json()) as CeremonyJson;
  assert.equal(page.kind, 'decide');
  if (page.kind !== 'decide') return 0;
  const [choice] = page.choices;
  assert.ok(choice);
  const a = pk.assert(Buffer.from(choice.options.challenge, 'base64url'), { origin: new URL(url).origin });
  const res = await fetch(direct(url, 'answer'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      choice: choice.choice,
      assertion: {
        id: a.credential,
        response: { authenticatorData: a.authenticator_data, clientDataJSON: a.client_data_json, signature: a.signature },
      },
    }),
  });
  return res.status;
}

/**
 * What the editor shows, faked: each URL it opened, each notification; `buttons` are the human's clicks,
 * in order (a click waits until `click()` is called for it); `onOpen` is the human on the page.
 */
function fakeUi(onOpen: (url: string) => unknown = () => undefined): PageUi & {
  opened: string[];
  notices: { message: string; buttons: string[] }[];
  click(button: string | undefined): void;
} {
  const opened: string[] = [];
  const notices: { message: string; buttons: string[] }[] = [];
  const waiting: ((b: string | undefined) => void)[] = [];
  const early: (string | undefined)[] = [];
  return {
    opened,
    notices,
    logger: silentLogger,
    open: async (url) => {
      opened.push(url);
      await onOpen(url);
    },
    notify: (message, ...buttons) => {
      notices.push({ message, buttons });
      if (early.length > 0) return Promise.resolve(early.shift());
      return new Promise((resolve) => waiting.push(resolve));
    },
    click: (button) => {
      const w = waiting.shift();
      if (w) w(button);
      else early.push(button);
    },
  };
}

const action = (w: World): Promise<Approval> =>
  requestApproval(w.store, w.clock, MANDATE, { title: 'Delete the staging branch', reason: 'it is merged', kind: 'action' });

/** A world whose state `pk` guards, and a pending approval in it. */
async function guarded(w: World, pk: SoftPasskey): Promise<Approval> {
  await addPasskey(w.store, pk.credential, 'laptop', pk.assert(challengeOf(registrationSubject(pk.credential))));
  return action(w);
}

/** Resolves once `n` notifications were shown. */
async function shown(ui: ReturnType<typeof fakeUi>, n: number): Promise<void> {
  while (ui.notices.length < n) await new Promise((r) => setImmediate(r));
}

describe("the editor asks the human's passkey on its page", () => {
  test('Approve in a guarded state: the page opens, the passkey confirms, and the journal has the assertion before the decision', () =>
    withWorld(async (w) => {
      const pk = softPasskey();
      const a = await guarded(w, pk);
      const ui = fakeUi((url) => confirmAt(url, pk));
      const clock = holdableClock(w.clock);
      const before = w.store.events.length;
      await decideApproval(humanStore(w.store, clock, askInEditor(ui)), clock, a.id, 'approved', 'panel');
      assert.equal(w.store.state.approvals[a.id]?.status, 'approved');
      assert.deepEqual(
        w.store.events.slice(before).map((e) => e.type),
        ['human.asserted', 'approval.decided'],
      );
      assert.equal(ui.opened.length, 1);
      assert.match(ui.opened[0]!, /^http:\/\/localhost:\d+\/c\/[\w-]+\/$/);
      assert.deepEqual(ui.notices[0], { message: waitingMessage('decide'), buttons: [OPEN_AGAIN, CANCEL] });
      // Once answered, the page is no longer served.
      await assert.rejects(fetch(direct(ui.opened[0]!, 'ceremony')));
      // The notification outlives its page: clicking it now opens nothing.
      ui.click(OPEN_AGAIN);
      await new Promise((r) => setImmediate(r));
      assert.equal(ui.opened.length, 1);
    }));

  test('Cancel in the notification: not decided, nothing written, and the page is gone', () =>
    withWorld(async (w) => {
      const pk = softPasskey();
      const a = await guarded(w, pk);
      const ui = fakeUi();
      const clock = holdableClock(w.clock);
      const seq = w.store.seq;
      const state = stateText(w.store.state);
      const decided = rejectsWith(
        () => decideApproval(humanStore(w.store, clock, askInEditor(ui)), clock, a.id, 'approved', 'panel'),
        'denied',
      );
      await shown(ui, 1);
      ui.click(CANCEL);
      const err = await decided;
      assert.equal(err.details['reason'], 'not_asserted');
      assert.equal(w.store.seq, seq, 'nothing appended');
      assert.equal(stateText(w.store.state), state);
      assert.equal(w.store.state.approvals[a.id]?.status, 'pending');
      await assert.rejects(fetch(direct(ui.opened[0]!, 'ceremony')), 'the page is no longer served');
    }));

  test('closing the notification cancels too: a page nobody can find again must not hold a decision', () =>
    withWorld(async (w) => {
      const pk = softPasskey();
      const a = await guarded(w, pk);
      const ui = fakeUi();
      const clock = holdableClock(w.clock);
      const decided = rejectsWith(
        () => decideApproval(humanStore(w.store, clock, askInEditor(ui)), clock, a.id, 'rejected', 'panel'),
        'denied',
      );
      await shown(ui, 1);
      ui.click(undefined);
      assert.equal((await decided).details['reason'], 'not_asserted');
      assert.equal(w.store.state.approvals[a.id]?.status, 'pending');
    }));

  test('Open Page Again opens the same page; the human then confirms there', () =>
    withWorld(async (w) => {
      const pk = softPasskey();
      const a = await guarded(w, pk);
      const ui = fakeUi();
      const clock = holdableClock(w.clock);
      const decided = decideApproval(humanStore(w.store, clock, askInEditor(ui)), clock, a.id, 'approved', 'panel');
      await shown(ui, 1);
      ui.click(OPEN_AGAIN);
      await shown(ui, 2);
      assert.equal(ui.opened.length, 2);
      assert.equal(ui.opened[1], ui.opened[0]);
      assert.equal(await confirmAt(ui.opened[1]!, pk), 200);
      await decided;
      assert.equal(w.store.state.approvals[a.id]?.status, 'approved');
    }));

  test('a state no passkey guards: the editor decides as before, and no page opens', () =>
    withWorld(async (w) => {
      const a = await action(w);
      const ui = fakeUi();
      const clock = holdableClock(w.clock);
      await decideApproval(humanStore(w.store, clock, askInEditor(ui)), clock, a.id, 'approved', 'panel');
      assert.equal(w.store.state.approvals[a.id]?.status, 'approved');
      assert.deepEqual([ui.opened, ui.notices], [[], []]);
    }));
});

test("editorPageUi opens the URL with VS Code's openExternal and shows the buttons in an information message", async () => {
  const calls: unknown[][] = [];
  const api = {
    Uri: { parse: (u: string) => ({ parsed: u }) },
    env: {
      openExternal: async (uri: unknown) => {
        calls.push(['openExternal', uri]);
        return true;
      },
    },
    window: {
      showInformationMessage: async (...args: unknown[]) => {
        calls.push(['showInformationMessage', ...args]);
        return CANCEL;
      },
    },
  } as unknown as Pick<typeof vscode, 'env' | 'window' | 'Uri'>;
  const ui = editorPageUi(api, silentLogger);
  await ui.open('http://localhost:1234/c/abc/');
  assert.equal(await ui.notify('m', OPEN_AGAIN, CANCEL), CANCEL);
  assert.deepEqual(calls, [
    ['openExternal', { parsed: 'http://localhost:1234/c/abc/' }],
    ['showInformationMessage', 'm', OPEN_AGAIN, CANCEL],
  ]);
});
