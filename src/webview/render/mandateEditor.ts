// The mandate form (create and edit). The host validates and answers with errors per field; the view
// only collects what the human typed.
import type { MandateEditorCommand, MandateEditorState, MandateFormValues } from '../protocol/mandateEditor.ts';
import { MANDATE_STATUSES, MandateStatus } from '../protocol/mandateEditor.ts';
import { is } from '../protocol/messages.ts';
import { CAPABILITY_LINES_HELP, parseCapabilityLines } from '../../shared/capabilityLines.ts';
import { TOOLSETS } from '../../shared/toolsets.ts';
import { append, button, clear, h, keepFocus, readChecked, readValue, setChecked, setValue } from './dom.ts';

type TextField = Exclude<keyof MandateFormValues, 'toolsets' | 'training' | 'status'>;

interface TextFieldSpec {
  name: TextField;
  label: string;
  help?: string;
  /** The host answers "Required" when it is left empty (mandateForm.ts); the label says so first. */
  required?: boolean;
  multiline?: boolean;
}

// No placeholders: a grey "demo/sandbox" in an empty field read as a value the form already had. An
// example, where one helps, is in the help line under the field.

const GROUPS: { title: string; fields: TextFieldSpec[] }[] = [
  {
    title: 'Mandate',
    fields: [
      { name: 'id', label: 'Id', help: 'account/name, e.g. demo/sandbox. It cannot change later.', required: true },
      { name: 'grantee', label: 'Grantee', help: 'Who acts under this mandate, e.g. Copilot.', required: true },
    ],
  },
  {
    title: 'Budget',
    fields: [
      { name: 'currency', label: 'Currency', help: 'e.g. EUR', required: true },
      { name: 'total', label: 'Total', required: true },
      { name: 'perDay', label: 'Per day', help: 'Empty: no daily limit.' },
      { name: 'perCall', label: 'Per call', help: 'Empty: no per-call limit.' },
      {
        name: 'threshold',
        label: 'Ask above',
        help: 'A call whose worst case is above this waits for your approval.',
        required: true,
      },
    ],
  },
  {
    title: 'Capabilities and data',
    fields: [
      {
        name: 'capabilities',
        label: 'Capabilities',
        help: `The agents' capabilities this mandate may hire. ${CAPABILITY_LINES_HELP}`,
        multiline: true,
      },
      { name: 'regions', label: 'Data regions', help: 'Comma-separated, e.g. EU; empty: anywhere.' },
      { name: 'retentionDays', label: 'Retention (days)', help: 'Empty: no limit.' },
      { name: 'expiresAt', label: 'Expires', help: 'A date (YYYY-MM-DD); empty: never.' },
    ],
  },
];

/** One render of the form: its controls, and what reads them back. */
interface Form {
  doc: Document;
  state: MandateEditorState;
  edit: boolean;
  controls: Map<TextField, HTMLElement>;
  toolsetBoxes: Map<string, HTMLElement>;
  statusSelect: HTMLElement | null;
  training: HTMLElement;
  saved: HTMLElement;
  /** Every control calls it on a change: the Saved note goes, and the view keeps the values. */
  changed: () => void;
}

/** What the human typed and ticked: exactly the form's keys, whatever else the state carried (the host's schema is strict). */
function read(f: Form): MandateFormValues {
  const text = (name: TextField): string => {
    const control = f.controls.get(name);
    return control && !(f.edit && name === 'id') ? readValue(control) : f.state.values[name];
  };
  const status = f.statusSelect ? readValue(f.statusSelect) : f.state.values.status;
  return {
    id: text('id'),
    grantee: text('grantee'),
    currency: text('currency'),
    total: text('total'),
    perDay: text('perDay'),
    perCall: text('perCall'),
    threshold: text('threshold'),
    toolsets: Array.from(f.toolsetBoxes).flatMap(([toolset, box]) => (readChecked(box) ? [toolset] : [])),
    capabilities: text('capabilities'),
    regions: text('regions'),
    retentionDays: text('retentionDays'),
    training: readChecked(f.training),
    expiresAt: text('expiresAt'),
    status: is(MandateStatus, status) ? status : f.state.values.status,
  };
}

/** A problem the form finds itself, shown where the host's would be, until the field is edited. */
function showFieldError(f: Form, name: TextField, message: string): void {
  const control = f.controls.get(name);
  const block = control?.closest('[data-field]');
  if (!control || !block) return;
  block.querySelector('.field-error')?.remove();
  block.appendChild(errorNode(f.doc, name, message));
  control.setAttribute('invalid', '');
  control.setAttribute('aria-invalid', 'true');
  f.saved.hidden = true;
  control.focus();
}

/** The title, and the problems of the whole form and of a field this mode does not show (status, when creating). */
function heading(f: Form): HTMLElement[] {
  const { doc, state, edit } = f;
  const title = h(
    doc,
    'h1',
    { class: 'form-title' },
    edit ? 'Edit mandate ' : 'New mandate',
    edit && h(doc, 'span', { class: 'mono' }, state.values.id),
  );
  const general = Object.entries(state.errors).flatMap(([key, message]) =>
    message === undefined || key === 'form' || (key === 'status' && edit) || isShownField(key) ? [] : [`${key}: ${message}`],
  );
  if (state.errors.form !== undefined) general.unshift(state.errors.form);
  if (general.length === 0) return [title];
  return [
    title,
    h(doc, 'div', { class: 'error', role: 'alert', 'data-testid': 'error-form' }, ...general.map((line) => h(doc, 'p', {}, line))),
  ];
}

/** The text fields, in their groups. */
function textGroups(f: Form): HTMLElement[] {
  const { doc, state } = f;
  return GROUPS.map((group) => {
    const fieldset = h(doc, 'fieldset', { class: 'group' }, h(doc, 'legend', {}, group.title));
    for (const spec of group.fields) {
      const control = h(doc, spec.multiline ? 'vscode-textarea' : 'vscode-textfield', {
        id: `mandate-${spec.name}`,
        name: spec.name,
        'data-testid': `field-${spec.name}`,
        rows: spec.multiline ? 4 : undefined,
        readonly: f.edit && spec.name === 'id',
        invalid: state.errors[spec.name] !== undefined,
        'aria-invalid': state.errors[spec.name] !== undefined ? 'true' : undefined,
      });
      setValue(control, state.values[spec.name]);
      control.addEventListener('input', f.changed);
      control.addEventListener('change', f.changed);
      f.controls.set(spec.name, control);
      fieldset.appendChild(field(doc, spec.name, spec.label, control, spec.help, state.errors[spec.name], spec.required));
    }
    return fieldset;
  });
}

/** A checkbox per toolset (src/shared/toolsets.ts), and one for a toolset the mandate has that the form does not know. */
function toolsetGroup(f: Form): HTMLElement {
  const { doc, state } = f;
  const toolsets = h(doc, 'fieldset', { class: 'group toolsets', 'data-testid': 'field-toolsets' }, h(doc, 'legend', {}, 'Toolsets'));
  // Keep a toolset the form does not know, rather than drop it on save.
  const known: string[] = [...TOOLSETS];
  const shown = [...known, ...state.values.toolsets.filter((t) => !known.includes(t))];
  for (const toolset of shown) {
    const box = h(doc, 'vscode-checkbox', { name: 'toolsets', value: toolset, 'data-testid': `toolset-${toolset}` }, toolset);
    setChecked(box, state.values.toolsets.includes(toolset));
    box.addEventListener('change', f.changed);
    f.toolsetBoxes.set(toolset, box);
    toolsets.appendChild(box);
  }
  if (state.errors.toolsets) toolsets.appendChild(errorNode(doc, 'toolsets', state.errors.toolsets));
  return toolsets;
}

/** Whether sellers may train on the data, and (when editing) the mandate's status. */
function trainingAndStatus(f: Form): HTMLElement[] {
  const { doc, state } = f;
  setChecked(f.training, state.values.training);
  f.training.addEventListener('change', f.changed);
  const trainingGroup = h(doc, 'div', { class: 'field' }, f.training);
  if (state.errors.training) trainingGroup.appendChild(errorNode(doc, 'training', state.errors.training));
  if (!f.edit) return [trainingGroup];
  const select = h(doc, 'vscode-single-select', { id: 'mandate-status', name: 'status', 'data-testid': 'field-status' });
  for (const status of MANDATE_STATUSES)
    select.appendChild(h(doc, 'vscode-option', { value: status, selected: status === state.values.status }, status));
  setValue(select, state.values.status);
  select.addEventListener('change', f.changed);
  f.statusSelect = select;
  return [trainingGroup, field(doc, 'status', 'Status', select, 'A suspended or revoked mandate allows no call.', state.errors.status)];
}

/** Save (or Create) and Cancel: the only two things the form posts. */
function actions(f: Form, post: (command: MandateEditorCommand) => void): HTMLElement {
  const { doc } = f;
  return h(
    doc,
    'div',
    { class: 'actions' },
    button(doc, f.edit ? 'Save' : 'Create', 'mandate-save', () => {
      // What does not parse is refused here, in the form, and nothing is sent; the host checks again.
      const values = read(f);
      const caps = parseCapabilityLines(values.capabilities);
      if (!caps.ok) {
        showFieldError(f, 'capabilities', caps.problem);
        return;
      }
      post({ type: 'save', values });
    }),
    button(doc, 'Cancel', 'mandate-cancel', () => post({ type: 'cancel' }), { secondary: true }),
  );
}

/**
 * Renders the form into `root` from `state`. `onEdit` is told the values after each change (the view
 * saves them, so a reload keeps the human's typing). Posts only on Save and Cancel.
 */
export function renderMandateEditor(
  root: HTMLElement,
  state: MandateEditorState,
  post: (command: MandateEditorCommand) => void,
  onEdit?: (values: MandateFormValues) => void,
): void {
  const doc = root.ownerDocument;
  keepFocus(root, () => {
    clear(root);
    const f: Form = {
      doc,
      state,
      edit: state.mode === 'edit',
      controls: new Map(),
      toolsetBoxes: new Map(),
      statusSelect: null,
      training: h(doc, 'vscode-checkbox', { name: 'training', 'data-testid': 'field-training' }, 'Sellers may train models on the data'),
      saved: h(doc, 'p', { class: 'note success', role: 'status', 'data-testid': 'mandate-saved', hidden: !state.saved }, 'Saved.'),
      changed: () => {
        f.saved.hidden = true;
        onEdit?.(read(f));
      },
    };
    const form = h(doc, 'div', { class: 'mandate-form', 'data-mode': state.mode, 'data-testid': 'mandate-form' });
    append(form, [
      ...heading(f),
      ...textGroups(f),
      toolsetGroup(f),
      ...trainingAndStatus(f),
      consentNote(doc, state),
      actions(f, post),
      f.saved,
    ]);
    root.appendChild(form);
  });
}

/** What merchants will see of the mandate (its AP2 open mandate), and that saving signs it with the human's key. */
function consentNote(doc: Document, state: MandateEditorState): HTMLElement {
  const c = state.consent;
  return h(
    doc,
    'section',
    { class: 'group consent', 'data-testid': 'mandate-consent' },
    h(doc, 'h2', { class: 'section-title' }, 'Merchants will see this'),
    c
      ? h(
          doc,
          'p',
          {},
          h(doc, 'span', { 'data-testid': 'mandate-consent-terms' }, c.terms),
          h(doc, 'span', { class: 'muted' }, ` — signed with your key `),
          h(doc, 'span', { class: 'mono', 'data-testid': 'mandate-consent-key' }, c.key),
          h(doc, 'span', { class: 'muted', 'data-testid': 'mandate-consent-signed' }, ` at ${c.signedAt}`),
        )
      : h(doc, 'p', { class: 'muted' }, 'Nothing yet: a mandate that can buy (commerce.buy) is signed for merchants when you save it.'),
    h(
      doc,
      'p',
      { class: 'field-help' },
      'Saving signs, with your mandate key, the AP2 open mandate merchants verify: the merchants it may buy from, the most one ' +
        'purchase may cost, and its expiry. Holon signs each purchase within it only after the gate allows it.',
    ),
  );
}

function isShownField(key: string): boolean {
  return key === 'toolsets' || key === 'training' || GROUPS.some((group) => group.fields.some((spec) => spec.name === key));
}

function field(
  doc: Document,
  name: string,
  label: string,
  control: HTMLElement,
  help: string | undefined,
  error: string | undefined,
  required = false,
): HTMLElement {
  const node = h(doc, 'div', { class: 'field', 'data-field': name }, h(doc, 'vscode-label', { for: control.id, required }, label), control);
  if (help) node.appendChild(h(doc, 'p', { class: 'field-help' }, help));
  if (error !== undefined) node.appendChild(errorNode(doc, name, error));
  return node;
}

function errorNode(doc: Document, name: string, error: string): HTMLElement {
  return h(doc, 'p', { class: 'field-error', role: 'alert', 'data-testid': `error-${name}` }, error);
}
