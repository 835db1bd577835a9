// The real entry points, with the real vscode-elements components, in happy-dom. happy-dom has no
// ElementInternals, so a minimal stand-in is installed; everything else is the components' own code.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Window as HappyWindow } from 'happy-dom';
import { approval, FakeVsCodeApi, hostSends, receiptsState, editorState, viewState } from './fakes.ts';

const happy = new HappyWindow({ url: 'https://webview.test/' });
const window = happy as unknown as Window;
const globals = globalThis as unknown as Record<string, unknown>;

before(() => {
  // What a browser page has as globals, taken from the happy-dom window (Node's own stay).
  for (const key of Object.getOwnPropertyNames(happy)) {
    if (key in globalThis) continue;
    try {
      globals[key] = (happy as unknown as Record<string, unknown>)[key];
    } catch {
      // read-only
    }
  }
  for (const key of ['window', 'document', 'navigator', 'customElements', 'HTMLElement', 'Element', 'Node', 'Event', 'CustomEvent', 'MouseEvent', 'KeyboardEvent']) {
    Object.defineProperty(globalThis, key, { value: key === 'window' ? happy : (happy as unknown as Record<string, unknown>)[key], configurable: true, writable: true });
  }
  const internals = (): object => ({
    form: null,
    states: new Set(),
    validity: { valid: true, badInput: false },
    validationMessage: '',
    willValidate: true,
    setFormValue() {},
    setValidity() {},
    checkValidity: () => true,
    reportValidity: () => true,
  });
  (happy.HTMLElement.prototype as unknown as { attachInternals: () => object }).attachInternals = internals;
});
after(() => happy.happyDOM.close());

/** Loads an entry on a fresh page, with a fake acquireVsCodeApi that may be called once. */
async function load(entry: string): Promise<{ api: FakeVsCodeApi; root: HTMLElement; acquired: number }> {
  window.document.body.innerHTML = '<div id="root"></div>';
  const api = new FakeVsCodeApi();
  const counter = { acquired: 0 };
  globals['acquireVsCodeApi'] = () => {
    counter.acquired++;
    if (counter.acquired > 1) throw new Error('acquireVsCodeApi called twice');
    return api;
  };
  await import(entry);
  return { api, root: window.document.getElementById('root')!, acquired: counter.acquired };
}

const settle = async (): Promise<void> => {
  await new Promise((resolve) => setTimeout(resolve, 0));
};

describe('entry points', () => {
  test('holonView: acquires the API once, posts ready once, renders with real components', async () => {
    const { api, root, acquired } = await load('../../src/webview/holonView.ts');
    assert.equal(acquired, 1);
    assert.deepEqual(api.posted, [{ type: 'ready' }]);
    hostSends(window, { type: 'state', state: viewState({ approvals: [approval()] }) });
    await settle();
    const approve = root.querySelector('[data-testid="approve-apr_1"]')!;
    assert.equal(approve.constructor.name, 'VscodeButton', 'the component is registered and upgraded');
    assert.equal(root.querySelector('[data-testid="approval-detail-toggle-apr_1"]')!.constructor.name, 'VscodeCollapsible');
    assert.equal(root.querySelector('[data-testid="count-approvals"]')!.constructor.name, 'VscodeBadge');
    assert.deepEqual(api.posted, [{ type: 'ready' }]);
    (approve as HTMLElement).click();
    assert.deepEqual(api.commands(), [{ type: 'approve', id: 'apr_1' }]);
  });

  test('receipts: ready once, renders the tree', async () => {
    const { api, root } = await load('../../src/webview/receipts.ts');
    assert.deepEqual(api.posted, [{ type: 'ready' }]);
    hostSends(window, { type: 'state', state: receiptsState() });
    await settle();
    assert.equal(root.querySelectorAll('[data-testid="receipt-node"]').length, 4);
    assert.equal(root.querySelector('[data-testid="receipts-filter"]')!.constructor.name, 'VscodeSingleSelect');
  });

  test('mandateEditor: ready once, Save posts the values', async () => {
    const { api, root } = await load('../../src/webview/mandateEditor.ts');
    assert.deepEqual(api.posted, [{ type: 'ready' }]);
    hostSends(window, { type: 'state', state: editorState() });
    await settle();
    const grantee = root.querySelector('[data-testid="field-grantee"]') as unknown as { value: string };
    assert.equal((grantee as object).constructor.name, 'VscodeTextfield');
    grantee.value = 'claude';
    (root.querySelector('[data-testid="mandate-save"]') as HTMLElement).click();
    assert.deepEqual(api.commands(), [{ type: 'save', values: { ...editorState().values, grantee: 'claude' } }]);
  });
});
