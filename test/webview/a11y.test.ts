// Every action in every panel is reachable from the keyboard and has a name a screen reader reads: each
// control is a native or vscode-elements control (which take the focus and Enter/Space themselves), or an
// element with tabindex 0 that acts on Enter and Space; and each has an accessible name.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { renderHolonView } from '../../src/webview/render/holonView.ts';
import { renderMandateEditor } from '../../src/webview/render/mandateEditor.ts';
import { renderReceipts } from '../../src/webview/render/receipts.ts';
import type { Page } from './fakes.ts';
import { amt, approval, editorState, fire, page, receiptsState, viewState } from './fakes.ts';

let p: Page;
beforeEach(() => (p = page()));
afterEach(() => p.close());

const CONTROLS = 'button, vscode-button, a[href], input, select, textarea, vscode-textfield, vscode-textarea, vscode-single-select, vscode-checkbox, [tabindex="0"]';

/** The name a screen reader reads for `el`: aria-label, aria-labelledby, a label for it, its text, its title. */
function nameOf(doc: Document, el: Element): string {
  const id = el.getAttribute('id');
  const labelled = el.getAttribute('aria-labelledby');
  const candidates = [
    el.getAttribute('aria-label'),
    labelled ? labelled.split(/\s+/).map((x) => doc.getElementById(x)?.textContent ?? '').join(' ') : null,
    id ? Array.from(doc.querySelectorAll('label, vscode-label')).find((l) => l.getAttribute('for') === id)?.textContent : null,
    el.closest('label, vscode-label')?.textContent,
    el.tagName === 'VSCODE-CHECKBOX' ? el.getAttribute('label') : null,
    el.textContent,
    el.getAttribute('title'),
  ];
  return (candidates.find((c) => c && c.trim().length > 0) ?? '').trim();
}

/** What the panel posted: a key that acts posts, as a click does. */
const posted: unknown[] = [];
const post = (command: unknown): void => void posted.push(command);

function check(what: string): void {
  const controls = Array.from(p.root.querySelectorAll(CONTROLS));
  assert.ok(controls.length > 0, `${what} has controls`);
  for (const el of controls) {
    const tag = el.tagName.toLowerCase();
    assert.notEqual(nameOf(p.document, el), '', `${what}: a ${tag} (${el.getAttribute('data-testid') ?? ''}) has no name`);
    if (el.getAttribute('tabindex') === '0' && !/^(button|a|input|select|textarea|vscode-)/.test(tag)) {
      // A focusable row acts on Enter and on Space, as a button does.
      for (const key of ['Enter', ' ']) {
        const before = posted.length;
        fire(el as HTMLElement, 'KeyboardEvent', 'keydown', { key, bubbles: true });
        assert.equal(posted.length, before + 1, `${what}: ${el.getAttribute('data-testid')} does nothing on ${JSON.stringify(key)}`);
      }
    }
  }
}

test('the Holon view: approvals, refusals, budget, the spend chart, first steps', () => {
  const spend = {
    days: [{ day: '2026-11-29', amount: amt('1.00 EUR'), empty: false, permille: 250 }],
    payees: [{ key: 'agent:a/b', kind: 'agent' as const, id: 'a/b', amount: amt('1.00 EUR'), permille: 1000 }],
    groups: [],
    total: amt('1.00 EUR'),
    perDay: amt('4.00 EUR'),
    perDayPermille: 1000,
    otherCurrencies: [],
  };
  const refusals = [{ id: '7', at: '2026-11-29T10:00:00Z', when: 'now', mandate: 'demo/sandbox', what: 'call_agent x/y', reasons: ['no'] }];
  renderHolonView(p.root, viewState({ approvals: [approval()], spend, refusals }), post);
  check('the Holon view');
  renderHolonView(p.root, viewState({ mandate: null, budget: null, setup: { funded: false, mandates: 0 } }), post);
  check('the first steps');
});

test('the receipts panel and the mandate form', () => {
  renderReceipts(p.root, receiptsState({ narrow: { day: '2026-11-29', payee: null, label: 'Spends settled on 2026-11-29' } }), post);
  check('the receipts panel');
  renderMandateEditor(p.root, editorState(), post);
  check('the mandate form');
});
