import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { HolonViewCommand, PendingForm } from '../../src/webview/protocol/holonView.ts';
import { validateField } from '../../src/webview/render/formValidation.ts';
import { renderHolonView } from '../../src/webview/render/holonView.ts';
import { FormDrafts } from '../../src/webview/render/pendingForm.ts';
import type { Page } from './fakes.ts';
import { byTestId, check, click, form, get, page, type, viewState } from './fakes.ts';

let p: Page;
let posted: HolonViewCommand[];
const post = (command: HolonViewCommand): void => void posted.push(command);
const field = (name: string): HTMLElement => get(p.root, `form-frm_1-field-${name}`);
const error = (name: string): HTMLElement => get(p.root, `form-frm_1-error-${name}`);
const submit = (): void => click(get(p.root, 'form-submit-frm_1'));

function show(f: PendingForm = form(), drafts?: FormDrafts): void {
  renderHolonView(p.root, viewState({ forms: [f] }), post, drafts ? { drafts } : {});
}

beforeEach(() => {
  p = page();
  posted = [];
});
afterEach(() => p.close());

describe('form rendering', () => {
  test('each field type gets its control', () => {
    show();
    assert.equal(get(p.root, 'form-message-frm_1').textContent, 'Which invoices should I pay?');
    assert.equal(field('name').tagName.toLowerCase(), 'vscode-textfield');
    assert.equal(field('name').getAttribute('type'), 'text');
    assert.equal(field('name').getAttribute('minlength'), '2');
    assert.equal(field('name').getAttribute('maxlength'), '10');
    assert.equal(field('name').hasAttribute('required'), true);
    assert.equal(field('code').hasAttribute('required'), false);

    const colour = field('colour');
    assert.equal(colour.tagName.toLowerCase(), 'vscode-single-select');
    const options = Array.from(colour.children).map((o) => [o.tagName.toLowerCase(), o.getAttribute('value'), o.textContent]);
    assert.deepEqual(options, [
      ['vscode-option', '', '(none)'],
      ['vscode-option', 'red', 'Red'],
      ['vscode-option', 'green', 'Green'],
    ]);

    for (const [name, step] of [['count', '1'], ['ratio', null]] as const) {
      assert.equal(field(name).tagName.toLowerCase(), 'vscode-textfield');
      assert.equal(field(name).getAttribute('type'), 'number');
      assert.equal(field(name).getAttribute('step'), step);
    }
    assert.equal(field('count').getAttribute('min'), '1');
    assert.equal(field('count').getAttribute('max'), '5');

    assert.equal(field('urgent').tagName.toLowerCase(), 'vscode-checkbox');
    assert.equal(field('urgent').textContent, 'Urgent');

    // Labels point at their controls.
    const label = p.root.querySelector(`vscode-label[for="${field('name').id}"]`);
    assert.equal(label?.textContent, 'Name');
    for (const id of ['form-submit-frm_1', 'form-decline-frm_1', 'form-cancel-frm_1']) {
      assert.equal(get(p.root, id).tagName.toLowerCase(), 'vscode-button');
    }
    assert.deepEqual(posted, []);
  });

  test('defaults fill the controls; a required enum starts on an empty choice', () => {
    show(
      form({
        schema: {
          type: 'object',
          properties: {
            size: { type: 'string', enum: ['s', 'm'], default: 'm' },
            pick: { type: 'string', enum: ['a', 'b'] },
            n: { type: 'number', default: 2.5 },
            yes: { type: 'boolean', default: true },
            note: { type: 'string', description: 'Anything else', default: 'hi' },
          },
          required: ['pick'],
        },
      }),
    );
    assert.equal((field('size') as unknown as { value: string }).value, 'm');
    assert.equal(field('size').querySelector('vscode-option[selected]')?.getAttribute('value'), 'm');
    assert.equal(field('pick').firstElementChild?.textContent, 'Choose…');
    assert.equal(field('n').getAttribute('value'), '2.5');
    assert.equal(field('yes').hasAttribute('checked'), true);
    assert.equal(field('note').getAttribute('value'), 'hi');
    assert.match(p.root.textContent ?? '', /Anything else/);
  });

  test('a field the panel cannot show disables Submit, not Decline or Cancel', () => {
    show(form({ schema: { type: 'object', properties: { tags: { type: 'array' } as never, name: { type: 'string' } } } }));
    assert.ok(byTestId(p.root, 'form-unsupported-frm_1'));
    assert.equal(get(p.root, 'form-submit-frm_1').hasAttribute('disabled'), true);
    submit();
    assert.deepEqual(posted, []);
    click(get(p.root, 'form-decline-frm_1'));
    assert.deepEqual(posted, [{ type: 'answerForm', id: 'frm_1', action: 'decline' }]);
  });
});

describe('form validation blocks Submit and says why', () => {
  const cases: [string, string, string, RegExp][] = [
    ['required missing', 'name', '', /Required/],
    ['too short', 'name', 'A', /At least 2 characters/],
    ['too long', 'name', 'Abcdefghijk', /At most 10 characters/],
    ['pattern mismatch', 'code', 'abc-1', /pattern/],
    ['number above the maximum', 'count', '6', /At most 5/],
    ['number below the minimum', 'ratio', '-0.1', /At least 0/],
    ['not an integer', 'count', '2.5', /whole number/],
    ['not a number', 'ratio', 'abc', /Enter a number/],
  ];
  for (const [title, name, value, message] of cases) {
    test(title, () => {
      show();
      type(field('name'), 'Ada');
      type(field('count'), '2');
      type(field(name), value);
      submit();
      assert.deepEqual(posted, []);
      assert.equal(error(name).hidden, false);
      assert.match(error(name).textContent ?? '', message);
      assert.equal(error(name).getAttribute('role'), 'alert');
      assert.equal(field(name).hasAttribute('invalid'), true);
    });
  }

  test('the message goes away as the human fixes the field, then Submit posts', () => {
    show();
    submit();
    assert.equal(error('name').hidden, false);
    assert.equal(error('count').hidden, false);
    assert.equal(error('code').hidden, true, 'optional and empty is fine');
    type(field('name'), 'Ada');
    assert.equal(error('name').hidden, true);
    assert.equal(field('name').hasAttribute('invalid'), false);
    type(field('count'), '3');
    submit();
    assert.equal(posted.length, 1);
  });

  test('an enum value outside the list is refused', () => {
    show();
    type(field('name'), 'Ada');
    type(field('count'), '2');
    type(field('colour'), 'blue');
    submit();
    assert.deepEqual(posted, []);
    assert.match(error('colour').textContent ?? '', /Choose one/);
  });
});

describe('answers', () => {
  test('valid input posts typed content: numbers as numbers, booleans as booleans, empty optionals left out', () => {
    show();
    type(field('name'), 'Ada');
    type(field('code'), 'ABC-12');
    type(field('colour'), 'green');
    type(field('count'), '3');
    type(field('ratio'), '0.25');
    check(field('urgent'), true);
    assert.deepEqual(posted, [], 'typing posts nothing');
    submit();
    assert.deepEqual(posted, [
      { type: 'answerForm', id: 'frm_1', action: 'accept', content: { name: 'Ada', code: 'ABC-12', colour: 'green', count: 3, ratio: 0.25, urgent: true } },
    ]);

    p.root.replaceChildren();
    posted = [];
    show();
    type(field('name'), 'Bob');
    type(field('count'), '1');
    submit();
    assert.deepEqual(posted, [{ type: 'answerForm', id: 'frm_1', action: 'accept', content: { name: 'Bob', count: 1, urgent: false } }]);
  });

  test('Decline and Cancel post without content; after an answer the buttons are disabled', () => {
    show();
    click(get(p.root, 'form-cancel-frm_1'));
    click(get(p.root, 'form-decline-frm_1'));
    submit();
    assert.deepEqual(posted, [{ type: 'answerForm', id: 'frm_1', action: 'cancel' }]);
    assert.equal(get(p.root, 'form-status-frm_1').hidden, false);

    p.root.replaceChildren();
    posted = [];
    show(form({ id: 'frm_2' }));
    click(get(p.root, 'form-decline-frm_2'));
    assert.deepEqual(posted, [{ type: 'answerForm', id: 'frm_2', action: 'decline' }]);
  });

  test('Enter in a field submits nothing', () => {
    show();
    type(field('name'), 'Ada');
    type(field('count'), '2');
    const win = p.window as unknown as Record<string, new (type: string, init: object) => Event>;
    field('count').dispatchEvent(new win['KeyboardEvent']!('keydown', { key: 'Enter', bubbles: true }));
    assert.deepEqual(posted, []);
  });
});

describe('drafts', () => {
  test('typing is kept in the drafts, restored into a new form, and forgotten once answered', () => {
    const drafts = new FormDrafts();
    let changes = 0;
    drafts.onChange = () => changes++;
    show(form(), drafts);
    type(field('name'), 'Ada');
    check(field('urgent'), true);
    assert.deepEqual(drafts.toJSON(), { frm_1: { name: 'Ada', urgent: true } });
    assert.ok(changes >= 2);

    // A reloaded view: a new page, drafts from what was saved.
    p.root.replaceChildren();
    const restored = new FormDrafts().load(JSON.parse(JSON.stringify(drafts)));
    show(form(), restored);
    assert.equal((field('name') as unknown as { value: string }).value, 'Ada');
    assert.equal((field('urgent') as unknown as { checked: boolean }).checked, true);

    click(get(p.root, 'form-cancel-frm_1'));
    assert.deepEqual(restored.toJSON(), {});
  });

  test('drafts of forms no longer pending are dropped; malformed saved drafts are ignored', () => {
    const drafts = new FormDrafts().load({ frm_1: { name: 'Ada' }, gone: { x: 'y' }, bad: 3, frm_3: { n: 4 } });
    assert.deepEqual(drafts.toJSON(), { frm_1: { name: 'Ada' }, gone: { x: 'y' } });
    show(form(), drafts);
    assert.deepEqual(Object.keys(drafts.toJSON()), ['frm_1']);
  });
});

describe('validateField', () => {
  test('strings', () => {
    assert.deepEqual(validateField({ type: 'string' }, '', false), { ok: true, value: undefined });
    assert.deepEqual(validateField({ type: 'string' }, '', true), { ok: false, message: 'Required.' });
    assert.deepEqual(validateField({ type: 'string', minLength: 2 }, '😀😀', true), { ok: true, value: '😀😀' }, 'code points, not UTF-16 units');
    assert.equal(validateField({ type: 'string', maxLength: 1 }, '😀', true).ok, true);
    assert.equal(validateField({ type: 'string', pattern: '^a+$' }, 'aaa', true).ok, true);
    assert.equal(validateField({ type: 'string', pattern: '(' }, 'x', true).ok, true, 'a pattern that does not compile is left to the host');
    assert.equal(validateField({ type: 'string', format: 'email' }, 'a@b.c', true).ok, true);
    assert.equal(validateField({ type: 'string', format: 'email' }, 'ab.c', true).ok, false);
    assert.equal(validateField({ type: 'string', format: 'uri' }, 'https://x.test/a', true).ok, true);
    assert.equal(validateField({ type: 'string', format: 'uri' }, 'x.test', true).ok, false);
    assert.equal(validateField({ type: 'string', format: 'date' }, '2026-02-28', true).ok, true);
    assert.equal(validateField({ type: 'string', format: 'date' }, '28/02/2026', true).ok, false);
    assert.equal(validateField({ type: 'string', format: 'date-time' }, '2026-02-28T10:00:00Z', true).ok, true);
    assert.equal(validateField({ type: 'string', format: 'date-time' }, '2026-02-28 10:00', true).ok, false);
  });

  test('numbers and booleans', () => {
    assert.deepEqual(validateField({ type: 'number' }, ' 1.5e1 ', true), { ok: true, value: 15 });
    assert.deepEqual(validateField({ type: 'integer', minimum: 0 }, '0', true), { ok: true, value: 0 });
    assert.equal(validateField({ type: 'number' }, '0x10', true).ok, false);
    assert.equal(validateField({ type: 'number' }, 'Infinity', true).ok, false);
    assert.equal(validateField({ type: 'integer' }, '1.0', true).ok, true);
    assert.equal(validateField({ type: 'integer' }, '1.5', true).ok, false);
    assert.deepEqual(validateField({ type: 'number' }, '', false), { ok: true, value: undefined });
    assert.deepEqual(validateField({ type: 'boolean' }, false, true), { ok: true, value: false });
    assert.deepEqual(validateField({ type: 'boolean' }, true, false), { ok: true, value: true });
  });
});
