// Small DOM helpers for the renderers. Everything here builds nodes with createElement, setAttribute and
// text nodes: other agents' text (ids, inputs, reasons, errors) must never reach innerHTML.
// Nothing here touches globals (document, HTMLElement…): the renderers work on whatever document the
// root belongs to, so tests can hand them a happy-dom window and the browser its own.
import type { Amount } from '../protocol/messages.ts';

/** A child to append: a node, or text (always a text node), or nothing. */
export type Child = Node | string | null | undefined | false;

/** Attributes: `true` sets an empty attribute, `false`/`null`/`undefined` leave it out. */
export type Attrs = Record<string, string | number | boolean | null | undefined>;

/** Creates `tag` in `doc` with attributes and children. Event handler attributes are refused. */
export function h(doc: Document, tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const node = doc.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (/^on/i.test(name)) throw new Error(`refusing event handler attribute ${name}`);
    if (value === false || value === null || value === undefined) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

/** Appends children, strings as text nodes. */
export function append(parent: Node, children: Child[]): void {
  const doc = parent.ownerDocument ?? (parent as Document);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? doc.createTextNode(child) : child);
  }
}

/** Removes every child of `node`. */
export function clear(node: Node): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}

/**
 * Sets a control's value: the property (what a vscode-elements control reads) and the attribute (its
 * initial value, and what a not-yet-upgraded element keeps).
 */
export function setValue(control: HTMLElement, value: string): void {
  control.setAttribute('value', value);
  (control as unknown as { value: string }).value = value;
}

/** Reads a control's value: the property when it is a string, else the attribute. */
export function readValue(control: Element): string {
  const value = (control as unknown as { value?: unknown }).value;
  return typeof value === 'string' ? value : (control.getAttribute('value') ?? '');
}

/** Sets a checkbox's state, property and attribute. */
export function setChecked(control: HTMLElement, checked: boolean): void {
  control.toggleAttribute('checked', checked);
  (control as unknown as { checked: boolean }).checked = checked;
}

/** Reads a checkbox's state: the property when it is a boolean, else the attribute. */
export function readChecked(control: Element): boolean {
  const checked = (control as unknown as { checked?: unknown }).checked;
  return typeof checked === 'boolean' ? checked : control.hasAttribute('checked');
}

/** The first element under `root` whose data-testid is exactly `id` (no selector escaping needed). */
export function byTestId(root: ParentNode, id: string): HTMLElement | null {
  for (const node of Array.from(root.querySelectorAll<HTMLElement>('[data-testid]'))) {
    if (node.getAttribute('data-testid') === id) return node;
  }
  return null;
}

/**
 * Runs `rebuild`, then gives the focus back to the element with the same data-testid, so a state push
 * from the host does not throw the human's keyboard focus away. Only while this document has the focus:
 * a frame keeps its last active element when the human moves on, and focusing it again would pull the
 * focus out of whatever they are in now (a quick pick closes when it loses it).
 */
export function keepFocus(root: HTMLElement, rebuild: () => void): void {
  const doc = root.ownerDocument;
  const active = doc.hasFocus() ? doc.activeElement : null;
  const testId = active && active !== root && root.contains(active) ? active.closest('[data-testid]')?.getAttribute('data-testid') : null;
  rebuild();
  if (testId) byTestId(root, testId)?.focus();
}

/** Options of `button`. */
export interface ButtonOptions {
  secondary?: boolean;
  title?: string;
}

/**
 * A vscode-button that calls `onClick` on a click, unless it is disabled (a custom element still receives
 * clicks when disabled). No autofocus, not a submit button: nothing happens unless the human clicks it.
 */
export function button(
  doc: Document,
  label: string,
  testId: string,
  onClick: (ev: Event) => void,
  options: ButtonOptions = {},
): HTMLElement {
  const node = h(doc, 'vscode-button', { 'data-testid': testId, secondary: options.secondary === true, title: options.title }, label);
  node.addEventListener('click', (ev) => {
    if (node.hasAttribute('disabled')) return;
    onClick(ev);
  });
  return node;
}

/** Disables or enables controls (attribute and property, as vscode-elements reflect it). */
export function setDisabled(nodes: Iterable<HTMLElement>, disabled: boolean): void {
  for (const node of nodes) {
    node.toggleAttribute('disabled', disabled);
    (node as unknown as { disabled: boolean }).disabled = disabled;
  }
}

/** An amount: its text at the currency's precision, the exact amount as tooltip (and `data-exact`). */
export function money(doc: Document, amount: Amount, attrs: Attrs = {}): HTMLElement {
  return h(
    doc,
    'span',
    { ...attrs, class: attrs['class'] ? `amount ${String(attrs['class'])}` : 'amount', title: amount.exact, 'data-exact': amount.exact },
    amount.text,
  );
}

/**
 * A `<time>` element: the local form as text (the host's words when it sent them, else this page's
 * locale), the raw value as `datetime` and tooltip.
 */
export function time(doc: Document, raw: string, testId?: string, text?: string): HTMLElement {
  const parsed = new Date(raw);
  const shown = text ?? (Number.isNaN(parsed.getTime()) ? raw : parsed.toLocaleString());
  return h(doc, 'time', { datetime: raw, title: raw, 'data-testid': testId }, shown);
}

/** What a panel shows before the host's first state, when it has no saved state to restore. */
export function renderLoading(root: HTMLElement): void {
  clear(root);
  root.appendChild(h(root.ownerDocument, 'p', { class: 'note muted', 'data-testid': 'loading' }, 'Loading…'));
}
