import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { MandateEditorCommand, MandateFormValues } from '../../src/webview/protocol/mandateEditor.ts';
import { MANDATE_TEXT_FIELDS, MandateEditorCommand as MandateEditorCommandSchema } from '../../src/webview/protocol/mandateEditor.ts';
import { is } from '../../src/webview/protocol/messages.ts';
import { renderMandateEditor } from '../../src/webview/render/mandateEditor.ts';
import { formToInput, formValues } from '../../src/editor/mandateForm.ts';
import { TOOLSETS as CORE_TOOLSETS } from '../../src/core/kernel/model.ts';
import { TOOLSETS } from '../../src/shared/toolsets.ts';
import type { Page } from './fakes.ts';
import { byTestId, check, click, editorState, get, HOSTILE, page, type } from './fakes.ts';

let p: Page;
let posted: MandateEditorCommand[];
const post = (command: MandateEditorCommand): void => {
  assert.equal(is(MandateEditorCommandSchema, command), true, JSON.stringify(command));
  posted.push(command);
};
const valueOf = (node: HTMLElement): string => (node as unknown as { value: string }).value;

const existing: MandateFormValues = {
  id: 'demo/sandbox',
  grantee: 'copilot',
  currency: 'EUR',
  total: '5.00',
  perDay: '2.00',
  perCall: '1.00',
  threshold: '0.50',
  toolsets: ['market', 'money'],
  capabilities: 'extraction.*\npipeline.*',
  regions: 'EU',
  retentionDays: '30',
  training: false,
  expiresAt: '2026-12-31',
  status: 'active',
};

beforeEach(() => {
  p = page();
  posted = [];
});
afterEach(() => p.close());

describe('what merchants will see', () => {
  test('the open mandate in words, the key that signed it and when; before a save, that saving signs it', () => {
    renderMandateEditor(p.root, editorState(), post);
    assert.match(get(p.root, 'mandate-consent').textContent ?? '', /^Merchants will see this.*Nothing yet/);
    renderMandateEditor(
      p.root,
      editorState({ mode: 'edit', values: existing, consent: { terms: `hardware; up to 30.00 USD a purchase; no expiry ${HOSTILE}`, key: 'kid-1', signedAt: '2026-12-03T12:00:00.000Z' } }),
      post,
    );
    assert.equal(get(p.root, 'mandate-consent-terms').textContent, `hardware; up to 30.00 USD a purchase; no expiry ${HOSTILE}`);
    assert.equal(get(p.root, 'mandate-consent-key').textContent, 'kid-1');
    assert.equal(p.root.querySelectorAll('img').length, 0);
  });
});

describe('create mode', () => {
  test('every field, the seven toolsets as checkboxes, no status; id editable', () => {
    renderMandateEditor(p.root, editorState(), post);
    assert.equal(get(p.root, 'mandate-form').getAttribute('data-mode'), 'create');
    for (const name of MANDATE_TEXT_FIELDS) {
      const node = get(p.root, `field-${name}`);
      assert.match(node.tagName.toLowerCase(), /^vscode-text(field|area)$/, name);
    }
    assert.equal(get(p.root, 'field-capabilities').tagName.toLowerCase(), 'vscode-textarea');
    assert.equal(get(p.root, 'field-id').hasAttribute('readonly'), false);
    assert.equal(byTestId(p.root, 'field-status'), null);
    for (const toolset of TOOLSETS) {
      const box = get(p.root, `toolset-${toolset}`);
      assert.equal(box.tagName.toLowerCase(), 'vscode-checkbox');
      assert.equal(box.hasAttribute('checked'), toolset === 'market', toolset);
    }
    assert.equal(get(p.root, 'field-currency').getAttribute('value'), 'EUR');
    assert.equal(get(p.root, 'mandate-saved').hidden, true);
    assert.equal(get(p.root, 'mandate-save').textContent, 'Create');
    assert.deepEqual(posted, []);
  });

  test('the form offers every toolset the core knows, from the one list both read', () => {
    // One declaration, not two copies that agree today: a toolset added to the core is on the form.
    assert.equal(CORE_TOOLSETS, TOOLSETS);
    renderMandateEditor(p.root, editorState(), post);
    const shown = [...p.root.querySelectorAll('[data-testid="field-toolsets"] vscode-checkbox')].map((b) => b.getAttribute('value'));
    assert.deepEqual(shown, [...CORE_TOOLSETS]);
  });

  test('Save posts what the human typed and ticked', () => {
    renderMandateEditor(p.root, editorState(), post);
    type(get(p.root, 'field-id'), 'demo/ci');
    type(get(p.root, 'field-grantee'), 'claude');
    type(get(p.root, 'field-total'), '10');
    check(get(p.root, 'toolset-market'), false);
    check(get(p.root, 'toolset-office'), true);
    check(get(p.root, 'toolset-memory'), true);
    check(get(p.root, 'field-training'), true);
    assert.deepEqual(posted, []);
    click(get(p.root, 'mandate-save'));
    assert.deepEqual(posted, [
      {
        type: 'save',
        values: { ...editorState().values, id: 'demo/ci', grantee: 'claude', total: '10', toolsets: ['memory', 'office'], training: true },
      },
    ]);
  });

  test('Save posts exactly the form keys, even if the state carried more', () => {
    const state = editorState();
    renderMandateEditor(p.root, { ...state, values: { ...state.values, extra: 'x' } as typeof state.values }, post);
    click(get(p.root, 'mandate-save'));
    assert.deepEqual(Object.keys((posted[0] as { values: object }).values).sort(), Object.keys(state.values).sort());
  });

  test('Capabilities: the help says one per line; lines are posted as typed, and what does not parse is refused in the form, nothing posted', () => {
    renderMandateEditor(p.root, editorState(), post);
    const help = get(p.root, 'field-capabilities').closest('[data-field]')?.querySelector('.field-help')?.textContent ?? '';
    assert.match(help, /One per line/);
    assert.doesNotMatch(help, /parameters/, 'the field takes no parameters: the help says what is read');
    type(get(p.root, 'field-id'), 'demo/ci');
    type(get(p.root, 'field-capabilities'), 'extraction.*, pipeline.*');
    click(get(p.root, 'mandate-save'));
    assert.deepEqual(posted, [], 'two capabilities on one line are refused before anything is sent');
    assert.match(get(p.root, 'error-capabilities').textContent ?? '', /holds more than one capability: put each on its own line/);
    assert.equal(get(p.root, 'field-capabilities').hasAttribute('invalid'), true);
    type(get(p.root, 'field-capabilities'), '\n\n');
    click(get(p.root, 'mandate-save'));
    assert.deepEqual(posted, [], 'an empty field names no capability: refused, never read as "any"');
    assert.match(get(p.root, 'error-capabilities').textContent ?? '', /Name at least one capability/);
    assert.equal(p.root.querySelectorAll('[data-testid="error-capabilities"]').length, 1, 'one error at a time');
    type(get(p.root, 'field-capabilities'), '  extraction.*\n\npipeline.*  \n');
    click(get(p.root, 'mandate-save'));
    assert.deepEqual(posted, [{ type: 'save', values: { ...editorState().values, id: 'demo/ci', capabilities: '  extraction.*\n\npipeline.*  \n' } }]);
  });

  test('an empty field shows nothing grey that reads as a value; the required ones say so, and Save answers "Required", not a format', () => {
    // The form as the host opens it for a new mandate, with its real defaults.
    const fresh = editorState({ values: formValues(undefined) });
    renderMandateEditor(p.root, fresh, post);
    for (const name of MANDATE_TEXT_FIELDS) {
      const control = get(p.root, `field-${name}`);
      assert.equal(control.getAttribute('placeholder'), null, `${name} has a placeholder`);
    }
    const required = (name: string): boolean => p.root.querySelector(`[data-field="${name}"] vscode-label`)?.hasAttribute('required') ?? false;
    assert.deepEqual(
      MANDATE_TEXT_FIELDS.filter(required),
      ['id', 'grantee', 'currency', 'total', 'threshold'],
    );
    // What a placeholder used to show is an example in the help.
    assert.match(p.root.querySelector('[data-field="id"] .field-help')?.textContent ?? '', /e\.g\. demo\/sandbox/);
    // Save with Id and Grantee left empty: the host's own validation of what was posted, shown back in the form.
    click(get(p.root, 'mandate-save'));
    const [save] = posted;
    assert.ok(save?.type === 'save');
    const { errors } = formToInput(save.values, 'create');
    assert.deepEqual(errors, { id: 'Required', grantee: 'Required' });
    renderMandateEditor(p.root, { ...fresh, values: save.values, errors }, post);
    assert.equal(get(p.root, 'error-id').textContent, 'Required');
    assert.equal(get(p.root, 'error-grantee').textContent, 'Required');
    // A cleared currency is required too; a misspelt one is told the format.
    assert.equal(formToInput({ ...save.values, currency: ' ' }, 'create').errors.currency, 'Required');
    assert.match(formToInput({ ...save.values, id: 'Demo' }, 'create').errors.id ?? '', /account\/name/);
  });

  test('Cancel posts cancel', () => {
    renderMandateEditor(p.root, editorState(), post);
    click(get(p.root, 'mandate-cancel'));
    assert.deepEqual(posted, [{ type: 'cancel' }]);
  });
});

describe('edit mode', () => {
  test('id read-only, status select, values filled', () => {
    renderMandateEditor(p.root, editorState({ mode: 'edit', values: existing }), post);
    assert.equal(get(p.root, 'mandate-form').getAttribute('data-mode'), 'edit');
    assert.equal(get(p.root, 'field-id').hasAttribute('readonly'), true);
    assert.equal(valueOf(get(p.root, 'field-capabilities')), existing.capabilities);
    assert.equal(valueOf(get(p.root, 'field-expiresAt')), '2026-12-31');
    const status = get(p.root, 'field-status');
    assert.equal(status.tagName.toLowerCase(), 'vscode-single-select');
    assert.deepEqual(
      Array.from(status.querySelectorAll('vscode-option')).map((o) => o.getAttribute('value')),
      ['active', 'suspended', 'revoked'],
    );
    assert.equal(status.querySelector('vscode-option[selected]')?.getAttribute('value'), 'active');
    assert.equal(get(p.root, 'toolset-money').hasAttribute('checked'), true);
    assert.equal(get(p.root, 'mandate-save').textContent, 'Save');
  });

  test('Save posts the changed status; the id stays what it was even if the field is changed', () => {
    renderMandateEditor(p.root, editorState({ mode: 'edit', values: existing }), post);
    type(get(p.root, 'field-status'), 'suspended');
    type(get(p.root, 'field-id'), 'demo/other');
    click(get(p.root, 'mandate-save'));
    assert.deepEqual(posted, [{ type: 'save', values: { ...existing, status: 'suspended' } }]);
  });

  test("host errors are shown per field and for the form; 'Saved' when saved", () => {
    const errors = { total: 'Not an amount: "ten"', threshold: 'Above the per-call limit', toolsets: 'Pick at least one', form: 'Nothing was saved.' };
    renderMandateEditor(p.root, editorState({ mode: 'edit', values: existing, errors }), post);
    assert.equal(get(p.root, 'error-total').textContent, errors.total);
    assert.equal(get(p.root, 'error-threshold').textContent, errors.threshold);
    assert.equal(get(p.root, 'error-toolsets').textContent, errors.toolsets);
    assert.equal(get(p.root, 'error-form').textContent, errors.form);
    assert.equal(get(p.root, 'field-total').hasAttribute('invalid'), true);
    assert.equal(get(p.root, 'field-grantee').hasAttribute('invalid'), false);
    assert.equal(byTestId(p.root, 'error-grantee'), null);
    // The error sits in the field's own block.
    assert.equal(get(p.root, 'error-total').closest('[data-field]')?.getAttribute('data-field'), 'total');

    renderMandateEditor(p.root, editorState({ mode: 'edit', values: existing, saved: true }), post);
    assert.equal(byTestId(p.root, 'error-total'), null);
    assert.equal(get(p.root, 'mandate-saved').hidden, false);
    type(get(p.root, 'field-regions'), 'EU,CH');
    assert.equal(get(p.root, 'mandate-saved').hidden, true, 'an edit hides the note');
  });

  test('an error for a field the mode does not show goes to the form', () => {
    renderMandateEditor(p.root, editorState({ errors: { status: 'Cannot create a revoked mandate' } }), post);
    assert.match(get(p.root, 'error-form').textContent ?? '', /status: Cannot create a revoked mandate/);
  });

  test('a toolset the form does not know is kept', () => {
    renderMandateEditor(p.root, editorState({ mode: 'edit', values: { ...existing, toolsets: ['market', 'future'] } }), post);
    assert.equal(get(p.root, 'toolset-future').hasAttribute('checked'), true);
    click(get(p.root, 'mandate-save'));
    assert.deepEqual((posted[0] as { values: MandateFormValues }).values.toolsets, ['market', 'future']);
  });

  test('edits are reported as they happen', () => {
    const seen: MandateFormValues[] = [];
    renderMandateEditor(p.root, editorState({ mode: 'edit', values: existing }), post, (values) => seen.push(values));
    type(get(p.root, 'field-grantee'), 'claude');
    check(get(p.root, 'toolset-office'), true);
    assert.equal(seen.at(-1)?.grantee, 'claude');
    assert.deepEqual(seen.at(-1)?.toolsets, ['market', 'money', 'office']);
    assert.deepEqual(posted, []);
  });

  test('hostile values and errors are text', () => {
    renderMandateEditor(p.root, editorState({ mode: 'edit', values: { ...existing, id: HOSTILE, grantee: HOSTILE }, errors: { grantee: HOSTILE, form: HOSTILE } }), post);
    assert.equal(p.root.querySelectorAll('img').length, 0);
    assert.equal(get(p.root, 'error-grantee').textContent, HOSTILE);
    assert.equal(valueOf(get(p.root, 'field-grantee')), HOSTILE);
  });
});
