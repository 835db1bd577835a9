// One pending form as a card, its controls generated from the form's JSON schema.
import type { AnswerFormCommand, FieldSchema, PendingForm } from '../protocol/holonView.ts';
import { isFieldSchema } from '../protocol/holonView.ts';
import { isRecord } from '../protocol/messages.ts';
import { append, button, h, readChecked, readValue, setChecked, setDisabled, setValue } from './dom.ts';
import { validateField } from './formValidation.ts';

/** A field's raw value as the human left it: text, or a checkbox's state. */
export type DraftValue = string | boolean;

/**
 * What the human typed into forms not yet answered, by form id and field. The view saves it with its
 * state (vscode.setState), so a hidden and reloaded view gives the human their typing back.
 */
export class FormDrafts {
  private readonly forms = new Map<string, Map<string, DraftValue>>();
  /** Called after every change (the view saves its state then). */
  onChange: (() => void) | undefined;

  /** Adds drafts saved earlier (what `toJSON` gave); anything malformed is dropped. */
  load(saved: unknown): this {
    if (!isRecord(saved)) return this;
    for (const [formId, fields] of Object.entries(saved)) {
      if (!isRecord(fields)) continue;
      for (const [name, value] of Object.entries(fields)) {
        if (typeof value === 'string' || typeof value === 'boolean') this.put(formId, name, value);
      }
    }
    return this;
  }

  get(formId: string, field: string): DraftValue | undefined {
    return this.forms.get(formId)?.get(field);
  }

  set(formId: string, field: string, value: DraftValue): void {
    if (this.get(formId, field) === value) return;
    this.put(formId, field, value);
    this.onChange?.();
  }

  delete(formId: string): void {
    if (this.forms.delete(formId)) this.onChange?.();
  }

  /** Forgets the drafts of forms no longer pending. */
  retain(formIds: ReadonlySet<string>): void {
    let changed = false;
    for (const id of Array.from(this.forms.keys())) {
      if (!formIds.has(id)) changed = this.forms.delete(id) || changed;
    }
    if (changed) this.onChange?.();
  }

  toJSON(): Record<string, Record<string, DraftValue>> {
    const out: Record<string, Record<string, DraftValue>> = {};
    for (const [id, fields] of this.forms) out[id] = Object.fromEntries(fields);
    return out;
  }

  private put(formId: string, field: string, value: DraftValue): void {
    let fields = this.forms.get(formId);
    if (!fields) this.forms.set(formId, (fields = new Map()));
    fields.set(field, value);
  }
}

/** What a form card needs from the view around it. */
export interface FormCardContext {
  post(command: AnswerFormCommand): void;
  drafts: FormDrafts;
  /** Re-enables a card's buttons if it is still shown this long after an answer was sent (the host may have failed). */
  resendAfterMs: number;
}

interface FieldControl {
  name: string;
  schema: FieldSchema;
  required: boolean;
  control: HTMLElement;
  error: HTMLElement;
}

let nextFieldId = 0;

/** Builds the card of one pending form. Nothing is posted until the human clicks Submit, Decline or Cancel. */
export function renderPendingForm(doc: Document, form: PendingForm, ctx: FormCardContext): HTMLElement {
  const required = new Set(form.schema.required ?? []);
  const fields: FieldControl[] = [];
  const unsupported: string[] = [];
  const body = h(doc, 'div', { class: 'fields' });
  for (const [name, schema] of Object.entries(form.schema.properties)) {
    if (!isFieldSchema(schema)) {
      unsupported.push(name);
      continue;
    }
    const field = renderField(doc, form.id, name, schema, required.has(name), ctx.drafts);
    fields.push(field.control);
    body.appendChild(field.node);
  }

  const status = h(doc, 'p', { class: 'card-status', 'data-testid': `form-status-${form.id}`, role: 'status', hidden: true });
  const buttons: HTMLElement[] = [];
  const answer = (action: AnswerFormCommand['action'], content?: AnswerFormCommand['content']): void => {
    ctx.post(content === undefined ? { type: 'answerForm', id: form.id, action } : { type: 'answerForm', id: form.id, action, content });
    ctx.drafts.delete(form.id);
    setDisabled(buttons, true);
    status.textContent = action === 'accept' ? 'Sent.' : action === 'decline' ? 'Declined.' : 'Cancelled.';
    status.hidden = false;
    doc.defaultView?.setTimeout(() => {
      if (!card.isConnected) return;
      setDisabled(buttons, false);
      status.hidden = true;
    }, ctx.resendAfterMs);
  };

  const submit = button(doc, 'Submit', `form-submit-${form.id}`, () => {
    const content: Record<string, string | number | boolean> = {};
    let firstInvalid: HTMLElement | null = null;
    for (const field of fields) {
      const result = check(field);
      if (!result.ok) firstInvalid ??= field.control;
      else if (result.value !== undefined) content[field.name] = result.value;
    }
    if (firstInvalid) {
      firstInvalid.focus();
      return;
    }
    answer('accept', content);
  });
  const decline = button(doc, 'Decline', `form-decline-${form.id}`, () => answer('decline'), { secondary: true });
  const cancel = button(doc, 'Cancel', `form-cancel-${form.id}`, () => answer('cancel'), { secondary: true });
  buttons.push(submit, decline, cancel);
  if (unsupported.length > 0) setDisabled([submit], true);

  const card = h(
    doc,
    'article',
    { class: 'card form-card', 'data-testid': `form-${form.id}` },
    h(doc, 'p', { class: 'card-meta' }, 'Asked under ', h(doc, 'span', { class: 'mono' }, form.mandate)),
    h(doc, 'p', { class: 'form-message', 'data-testid': `form-message-${form.id}` }, form.message),
    body,
    unsupported.length > 0 &&
      h(
        doc,
        'p',
        { class: 'note warning', 'data-testid': `form-unsupported-${form.id}` },
        `This form has fields the panel cannot show (${unsupported.join(', ')}): decline it, or answer it where it was asked.`,
      ),
    h(doc, 'div', { class: 'actions' }, submit, decline, cancel),
    status,
  );
  return card;
}

function renderField(
  doc: Document,
  formId: string,
  name: string,
  schema: FieldSchema,
  required: boolean,
  drafts: FormDrafts,
): { node: HTMLElement; control: FieldControl } {
  const id = `holon-field-${++nextFieldId}`;
  const title = schema.title ?? name;
  const testId = `form-${formId}-field-${name}`;
  const draft = drafts.get(formId, name);
  let control: HTMLElement;
  let label: HTMLElement | null = null;

  if (schema.type === 'boolean') {
    control = h(doc, 'vscode-checkbox', { id, 'data-testid': testId, name }, title);
    setChecked(control, typeof draft === 'boolean' ? draft : schema.default === true);
  } else if (schema.type === 'string' && schema.enum) {
    const initial = typeof draft === 'string' ? draft : (schema.default ?? '');
    control = h(doc, 'vscode-single-select', { id, 'data-testid': testId, name, required });
    // An empty first choice, so nothing is chosen for the human.
    control.appendChild(h(doc, 'vscode-option', { value: '', selected: initial === '' }, required ? 'Choose…' : '(none)'));
    schema.enum.forEach((value, i) => {
      control.appendChild(h(doc, 'vscode-option', { value, selected: value === initial }, schema.enumNames?.[i] ?? value));
    });
    setValue(control, initial);
  } else {
    const initial = typeof draft === 'string' ? draft : schema.default === undefined ? '' : String(schema.default);
    const attrs =
      schema.type === 'string'
        ? { type: 'text', minlength: schema.minLength, maxlength: schema.maxLength, placeholder: placeholderFor(schema.format) }
        : { type: 'number', min: schema.minimum, max: schema.maximum, step: schema.type === 'integer' ? 1 : undefined };
    control = h(doc, 'vscode-textfield', { id, 'data-testid': testId, name, required, ...attrs });
    setValue(control, initial);
  }
  if (schema.type !== 'boolean') label = h(doc, 'vscode-label', { for: id, required }, title);

  const error = h(doc, 'p', { class: 'field-error', 'data-testid': `form-${formId}-error-${name}`, role: 'alert', hidden: true });
  const field: FieldControl = { name, schema, required, control, error };
  const onEdit = (): void => {
    drafts.set(formId, name, schema.type === 'boolean' ? readChecked(control) : readValue(control));
    // Once a mistake is shown, follow the human's typing so the message goes away when it is fixed.
    if (!error.hidden) check(field);
  };
  control.addEventListener('input', onEdit);
  control.addEventListener('change', onEdit);

  const node = h(doc, 'div', { class: 'field', 'data-field': name });
  append(node, [label, control]);
  if (schema.description) node.appendChild(h(doc, 'p', { class: 'field-help' }, schema.description));
  node.appendChild(error);
  return { node, control: field };
}

function check(field: FieldControl): ReturnType<typeof validateField> {
  const raw = field.schema.type === 'boolean' ? readChecked(field.control) : readValue(field.control);
  // A number input reports text it cannot parse as an empty value, and the flaw in its validity.
  const badNumber = field.schema.type !== 'boolean' && field.schema.type !== 'string' && hasBadInput(field.control);
  const result: ReturnType<typeof validateField> = badNumber
    ? { ok: false, message: field.schema.type === 'integer' ? 'Enter a whole number.' : 'Enter a number.' }
    : validateField(field.schema, raw, field.required);
  field.error.textContent = result.ok ? '' : result.message;
  field.error.hidden = result.ok;
  field.control.toggleAttribute('invalid', !result.ok);
  if (result.ok) field.control.removeAttribute('aria-invalid');
  else field.control.setAttribute('aria-invalid', 'true');
  return result;
}

function hasBadInput(control: HTMLElement): boolean {
  const validity = (control as unknown as { validity?: { badInput?: unknown } }).validity;
  return validity?.badInput === true;
}

function placeholderFor(format: string | undefined): string | undefined {
  switch (format) {
    case 'email':
      return 'name@example.com';
    case 'uri':
      return 'https://…';
    case 'date':
      return 'YYYY-MM-DD';
    case 'date-time':
      return 'YYYY-MM-DDThh:mm:ssZ';
    default:
      return undefined;
  }
}
