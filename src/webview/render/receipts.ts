// The receipts panel: a status filter, the recent calls, and the selected call's receipt tree.
import { is } from '../protocol/messages.ts';
import type { PurchaseRow, ReceiptNode, ReceiptRow, ReceiptsCommand, ReceiptsState } from '../protocol/receipts.ts';
import { RECEIPT_FILTERS, ReceiptFilter } from '../protocol/receipts.ts';
import { clear, h, keepFocus, readValue, setValue, time } from './dom.ts';

/** How a status reads. */
export function statusLabel(status: ReceiptNode['status'] | 'all'): string {
  return status === 'all' ? 'All' : status.replaceAll('_', ' ');
}

/** A duration for humans: 340 ms, 1.2 s, 2 min 5 s. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** Renders the whole panel into `root`. Posts only from the human's actions (filter change, row click). */
export function renderReceipts(root: HTMLElement, state: ReceiptsState, post: (command: ReceiptsCommand) => void): void {
  const doc = root.ownerDocument;
  keepFocus(root, () => {
    clear(root);
    root.appendChild(renderFilter(doc, state, post));
    root.appendChild(renderRecent(doc, state, post));
    root.appendChild(
      h(
        doc,
        'section',
        { class: 'section', 'data-testid': 'receipt-tree' },
        h(doc, 'h2', { class: 'section-title' }, 'Receipt'),
        state.selected
          ? h(doc, 'ul', { class: 'tree', role: 'tree', 'aria-label': 'Receipt tree' }, renderNode(doc, state.selected))
          : h(doc, 'p', { class: 'note muted', 'data-testid': 'receipt-none' }, 'Select a call to see its receipt.'),
      ),
    );
    if (state.purchases.length > 0) root.appendChild(renderPurchases(doc, state.purchases));
  });
}

function renderFilter(doc: Document, state: ReceiptsState, post: (command: ReceiptsCommand) => void): HTMLElement {
  const select = h(doc, 'vscode-single-select', { id: 'receipts-filter', 'data-testid': 'receipts-filter' });
  for (const filter of RECEIPT_FILTERS) {
    select.appendChild(h(doc, 'vscode-option', { value: filter, selected: filter === state.filter }, statusLabel(filter)));
  }
  setValue(select, state.filter);
  select.addEventListener('change', () => {
    const filter = readValue(select);
    if (is(ReceiptFilter, filter) && filter !== state.filter) post({ type: 'filter', filter });
  });
  return h(doc, 'div', { class: 'toolbar' }, h(doc, 'vscode-label', { for: 'receipts-filter' }, 'Status'), select);
}

function renderRecent(doc: Document, state: ReceiptsState, post: (command: ReceiptsCommand) => void): HTMLElement {
  const section = h(
    doc,
    'section',
    { class: 'section', 'data-testid': 'receipts-recent' },
    h(doc, 'h2', { class: 'section-title' }, 'Recent calls'),
  );
  if (state.recent.length === 0) {
    section.appendChild(
      h(
        doc,
        'p',
        { class: 'note muted', 'data-testid': 'receipts-empty' },
        state.filter === 'all' ? 'No calls yet.' : `No ${statusLabel(state.filter)} calls.`,
      ),
    );
    return section;
  }
  const rows = h(doc, 'ul', { class: 'rows', role: 'listbox', 'aria-label': 'Recent calls' });
  for (const row of state.recent) rows.appendChild(renderRow(doc, row, state.selected?.id === row.id, post));
  section.appendChild(rows);
  return section;
}

function renderRow(doc: Document, row: ReceiptRow, selected: boolean, post: (command: ReceiptsCommand) => void): HTMLElement {
  const node = h(
    doc,
    'li',
    {
      class: selected ? 'row selected' : 'row',
      role: 'option',
      tabindex: 0,
      'aria-selected': String(selected),
      'data-testid': `receipt-row-${row.id}`,
    },
    h(doc, 'span', { class: 'row-agent mono' }, row.agent ?? '(no agent)'),
    h(doc, 'span', { class: `status status-${row.status}` }, statusLabel(row.status)),
    h(doc, 'span', { class: 'row-cost' }, row.totalCost ?? '—'),
    row.delegatedCalls > 0 && h(doc, 'span', { class: 'muted' }, `+${row.delegatedCalls} delegated`),
    h(doc, 'span', { class: 'row-time muted' }, time(doc, row.startedAt)),
  );
  node.addEventListener('click', () => post({ type: 'select', id: row.id }));
  // Rows are navigation, so the keyboard opens them too.
  node.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      post({ type: 'select', id: row.id });
    }
  });
  return node;
}

function renderNode(doc: Document, node: ReceiptNode): HTMLElement {
  const cost = h(doc, 'span', { 'data-testid': 'node-cost' }, node.cost ?? 'no cost');
  if (node.worstCase !== null) cost.append(' of ', h(doc, 'span', { class: 'muted' }, `${node.worstCase} worst case`));
  if (node.totalCost !== null && node.children.length > 0) cost.append(` · ${node.totalCost} with delegated calls`);

  const item = h(
    doc,
    'li',
    {
      class: `node status-${node.status}`,
      role: 'treeitem',
      'aria-expanded': node.children.length > 0 ? 'true' : null,
      'data-testid': 'receipt-node',
      'data-id': node.id,
    },
    h(
      doc,
      'div',
      { class: 'node-head' },
      h(doc, 'span', { class: 'mono', 'data-testid': 'node-agent' }, node.agent ?? '(no agent)'),
      node.version !== null && h(doc, 'span', { class: 'version', 'data-testid': 'node-version' }, node.version),
      h(doc, 'span', { class: `status status-${node.status}`, 'data-testid': 'node-status' }, statusLabel(node.status)),
    ),
    h(
      doc,
      'div',
      { class: 'node-meta' },
      cost,
      node.durationMs !== null && h(doc, 'span', { 'data-testid': 'node-duration' }, formatDuration(node.durationMs)),
      node.approval !== null &&
        h(
          doc,
          'span',
          { 'data-testid': 'node-approval' },
          `approval ${node.approval}`,
          node.approvalChannel !== null && ` via ${node.approvalChannel}`,
        ),
      h(doc, 'span', { class: 'muted' }, time(doc, node.startedAt)),
    ),
  );
  if (node.reasons.length > 0) {
    item.appendChild(
      h(doc, 'ul', { class: 'reasons', 'data-testid': 'node-reasons' }, ...node.reasons.map((reason) => h(doc, 'li', {}, reason))),
    );
  }
  if (node.error !== null) item.appendChild(h(doc, 'p', { class: 'error', 'data-testid': 'node-error' }, node.error));
  if (node.children.length > 0) {
    item.appendChild(h(doc, 'ul', { role: 'group' }, ...node.children.map((child) => renderNode(doc, child))));
  }
  return item;
}

function renderPurchases(doc: Document, purchases: PurchaseRow[]): HTMLElement {
  return h(
    doc,
    'section',
    { class: 'section', 'data-testid': 'purchases' },
    h(doc, 'h2', { class: 'section-title' }, 'Purchases'),
    ...purchases.map((p) =>
      h(
        doc,
        'article',
        { class: 'card', 'data-testid': `purchase-${p.id}` },
        h(
          doc,
          'p',
          { class: 'card-kind' },
          `${p.merchant} · order `,
          h(doc, 'span', { class: 'mono', 'data-testid': `purchase-order-${p.id}` }, p.order),
          ` · ${p.mandate}`,
        ),
        h(
          doc,
          'table',
          { class: 'lines' },
          h(
            doc,
            'tbody',
            {},
            ...p.lines.map((l) =>
              h(
                doc,
                'tr',
                {},
                h(doc, 'td', {}, l.title ?? l.product),
                h(doc, 'td', {}, `${l.quantity} × ${l.unitPrice}`),
                h(doc, 'td', {}, l.total),
              ),
            ),
          ),
        ),
        h(
          doc,
          'p',
          {},
          h(doc, 'strong', { 'data-testid': `purchase-total-${p.id}` }, p.total),
          p.charged && p.charged !== p.total ? ` (charged ${p.charged})` : '',
          ' · ',
          time(doc, p.at),
        ),
      ),
    ),
  );
}
