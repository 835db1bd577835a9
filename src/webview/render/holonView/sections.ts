// The Holon view's sections, kept across renders: a state push (the budget moved) rebuilds only what
// changed, so the focus and which detail is expanded stay where the human left them.
import { append, clear, h } from '../dom.ts';

const signatures = new WeakMap<Element, string>();

/** The section `name` of `root`, created (in the order of first calls) when it is not there yet. */
export function section(root: HTMLElement, name: string): HTMLElement {
  for (const child of Array.from(root.children)) {
    if (child.getAttribute('data-section') === name) return child as HTMLElement;
  }
  // First render (or after renderLoading): start from an empty root, in a fixed order.
  if (!Array.from(root.children).some((child) => child.hasAttribute('data-section'))) clear(root);
  const node = h(root.ownerDocument, 'section', {
    class: `section section-${name}`,
    'data-section': name,
    'data-testid': `section-${name}`,
  });
  root.appendChild(node);
  return node;
}

/** A section's heading with its count; the section is hidden when the count is 0. */
export function setHeading(sectionNode: HTMLElement, title: string, count: number): void {
  const doc = sectionNode.ownerDocument;
  let heading = childWith(sectionNode, (child) => child.tagName === 'H2');
  if (!heading) {
    heading = h(doc, 'h2', { class: 'section-title' });
    sectionNode.prepend(heading);
  }
  clear(heading);
  append(heading, [
    title,
    ' ',
    h(doc, 'vscode-badge', { variant: 'counter', 'data-testid': `count-${sectionNode.getAttribute('data-section')}` }, String(count)),
  ]);
  sectionNode.hidden = count === 0;
}

/** The list of cards of a section. */
export function list(sectionNode: HTMLElement): HTMLElement {
  let node = childWith(sectionNode, (child) => child.classList.contains('cards'));
  if (!node) sectionNode.appendChild((node = h(sectionNode.ownerDocument, 'div', { class: 'cards' })));
  return node;
}

function childWith(parent: HTMLElement, test: (child: Element) => boolean): HTMLElement | null {
  return (Array.from(parent.children).find(test) as HTMLElement | undefined) ?? null;
}

/** A card to show: its key, what it shows (a card whose signature is unchanged is kept), and how to build it. */
export interface Keyed {
  key: string;
  signature: string;
  build(): HTMLElement;
}

/** Keeps children whose key and content are unchanged, builds the others, and orders them like `items`. */
export function reconcile(container: HTMLElement, items: Keyed[]): void {
  const wanted = new Map(items.map((item) => [item.key, item.signature]));
  const kept = new Map<string, HTMLElement>();
  for (const child of Array.from(container.children)) {
    const key = child.getAttribute('data-key');
    if (key !== null && wanted.get(key) === signatures.get(child) && !kept.has(key)) kept.set(key, child as HTMLElement);
    else child.remove();
  }
  let next = container.firstElementChild;
  for (const item of items) {
    let node = kept.get(item.key);
    if (!node) {
      node = item.build();
      node.setAttribute('data-key', item.key);
      signatures.set(node, item.signature);
    }
    if (node === next) next = next.nextElementSibling;
    else container.insertBefore(node, next);
  }
}

/** A section of cards, one per row (kept while the row is unchanged), with its heading and count; hidden when empty. */
export function cards<T extends { id: string }>(
  root: HTMLElement,
  name: string,
  title: string,
  rows: T[],
  build: (row: T) => HTMLElement,
): void {
  const node = section(root, name);
  setHeading(node, title, rows.length);
  reconcile(
    list(node),
    rows.map((row) => ({ key: row.id, signature: JSON.stringify(row), build: () => build(row) })),
  );
}
