// The receipts panel: which mandate (or every one), the accounts and every spend of theirs, the recent
// calls with a status filter, the selected call's receipt tree, and the purchases' orders.
import { is } from '../protocol/messages.ts';
import type { AccountRow, PurchaseRow, ReceiptNode, ReceiptRow, ReceiptsCommand, ReceiptsState, SpendRow } from '../protocol/receipts.ts';
import { RECEIPT_FILTERS, ReceiptFilter } from '../protocol/receipts.ts';
import { button, clear, h, keepFocus, money, readValue, setValue, time } from './dom.ts';

/** What each kind of spend is called. */
const SPEND_KIND_LABELS: Record<SpendRow['kind'], string> = { call: 'Call', payment: 'Payment', intent: 'Intent', purchase: 'Purchase' };

/** The value of the mandate filter's option for every mandate (no mandate id is empty). */
const EVERY_MANDATE = '';

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
    root.appendChild(renderAccounts(doc, state.accounts));
    root.appendChild(renderSpends(doc, state, post));
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
  const mandates = h(doc, 'vscode-single-select', { id: 'receipts-mandate', 'data-testid': 'receipts-mandate' });
  for (const value of [EVERY_MANDATE, ...state.mandates]) {
    const chosen = value === (state.mandate ?? EVERY_MANDATE);
    mandates.appendChild(h(doc, 'vscode-option', { value, selected: chosen }, value === EVERY_MANDATE ? 'Every mandate' : value));
  }
  setValue(mandates, state.mandate ?? EVERY_MANDATE);
  mandates.addEventListener('change', () => {
    const value = readValue(mandates);
    const mandate = value === EVERY_MANDATE ? null : value;
    if (mandate !== state.mandate && (mandate === null || state.mandates.includes(mandate))) post({ type: 'mandate', mandate });
  });
  const select = h(doc, 'vscode-single-select', { id: 'receipts-filter', 'data-testid': 'receipts-filter' });
  for (const filter of RECEIPT_FILTERS) {
    select.appendChild(h(doc, 'vscode-option', { value: filter, selected: filter === state.filter }, statusLabel(filter)));
  }
  setValue(select, state.filter);
  select.addEventListener('change', () => {
    const filter = readValue(select);
    if (is(ReceiptFilter, filter) && filter !== state.filter) post({ type: 'filter', filter });
  });
  return h(
    doc,
    'div',
    { class: 'toolbar' },
    h(doc, 'vscode-label', { for: 'receipts-mandate' }, 'Mandate'),
    mandates,
    h(doc, 'vscode-label', { for: 'receipts-filter' }, 'Calls'),
    select,
  );
}

function renderAccounts(doc: Document, accounts: AccountRow[]): HTMLElement {
  return h(
    doc,
    'section',
    { class: 'section', 'data-testid': 'receipts-accounts' },
    ...accounts.map((a) =>
      h(
        doc,
        'p',
        { class: 'note', 'data-testid': `account-${a.id}` },
        'Account ',
        h(doc, 'span', { class: 'mono' }, a.id),
        ': ',
        money(doc, a.available, { class: 'strong' }),
        ' left of ',
        money(doc, a.funded),
        ' · spent ',
        money(doc, a.spent),
        ' by all its mandates · held ',
        money(doc, a.held),
      ),
    ),
  );
}

function renderSpends(doc: Document, state: ReceiptsState, post: (command: ReceiptsCommand) => void): HTMLElement {
  const section = h(
    doc,
    'section',
    { class: 'section', 'data-testid': 'spends' },
    h(doc, 'h2', { class: 'section-title' }, state.mandate === null ? 'Spends of every mandate' : 'Spends'),
  );
  // Opened from a bar of the Holon view's chart: only the spends behind it, until the human asks for all.
  if (state.narrow) {
    section.appendChild(
      h(
        doc,
        'div',
        { class: 'note narrow', 'data-testid': 'spends-narrow' },
        h(doc, 'span', { 'data-testid': 'spends-narrow-label' }, state.narrow.label),
        ' ',
        button(doc, 'Show All Spends', 'spends-show-all', () => post({ type: 'clearNarrow' }), { secondary: true }),
      ),
    );
  }
  if (state.spends.length === 0) {
    section.appendChild(h(doc, 'p', { class: 'note muted', 'data-testid': 'spends-empty' }, 'Nothing spent yet.'));
    return section;
  }
  const rows = h(
    doc,
    'tbody',
    {},
    ...state.spends.map((sp) => {
      const row = h(
        doc,
        'tr',
        {
          class: sp.receipt ? 'spend link' : 'spend',
          'data-testid': `spend-${sp.id}`,
          'data-kind': sp.kind,
          tabindex: sp.receipt ? 0 : null,
          // A row that opens a receipt is named for what it opens (a screen reader would read only its cells).
          'aria-label': sp.receipt ? `${SPEND_KIND_LABELS[sp.kind]} to ${sp.to}, ${sp.amount.text}, ${sp.status}: show its receipt` : null,
        },
        h(doc, 'td', { class: 'muted' }, time(doc, sp.at)),
        h(doc, 'td', { 'data-testid': 'spend-kind' }, SPEND_KIND_LABELS[sp.kind]),
        h(doc, 'td', { class: 'mono', 'data-testid': 'spend-mandate' }, sp.mandate),
        h(doc, 'td', { class: 'mono', 'data-testid': 'spend-to' }, sp.to),
        h(doc, 'td', { class: 'num' }, money(doc, sp.amount, { 'data-testid': 'spend-amount' })),
        h(
          doc,
          'td',
          { class: `status spend-${sp.status}`, 'data-testid': 'spend-status' },
          sp.status === 'released' && sp.reason ? `released: ${sp.reason}` : sp.status,
          sp.onChain ? h(doc, 'div', { class: 'muted', 'data-testid': 'spend-chain' }, sp.onChain) : null,
          // The id the agent's answer named the payment by: what it finds it again with (get_receipt, holon receipts).
          sp.settlement ? h(doc, 'div', { class: 'muted mono', 'data-testid': 'spend-settlement' }, `payment ${sp.settlement}`) : null,
        ),
      );
      const receipt = sp.receipt;
      // A call's row opens its receipt tree.
      if (receipt) onActivate(row, () => post({ type: 'select', id: receipt }));
      return row;
    }),
  );
  section.appendChild(
    h(
      doc,
      'table',
      { class: 'spends', 'aria-label': 'Spends' },
      h(
        doc,
        'thead',
        {},
        h(doc, 'tr', {}, ...['When', 'What', 'Mandate', 'To', 'Amount', 'Status'].map((label) => h(doc, 'th', {}, label))),
      ),
      rows,
    ),
  );
  return section;
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
    h(doc, 'span', { class: 'row-cost' }, row.totalCost ? money(doc, row.totalCost) : '—'),
    row.delegatedCalls > 0 && h(doc, 'span', { class: 'muted' }, `+${row.delegatedCalls} delegated`),
    h(doc, 'span', { class: 'row-time muted' }, time(doc, row.startedAt)),
  );
  onActivate(node, () => post({ type: 'select', id: row.id }));
  return node;
}

/** Runs `action` on a click, and on Enter or Space: rows are navigation, so the keyboard opens them too. */
function onActivate(node: HTMLElement, action: () => void): void {
  node.addEventListener('click', action);
  node.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      action();
    }
  });
}

function renderNode(doc: Document, node: ReceiptNode): HTMLElement {
  const cost = h(doc, 'span', { 'data-testid': 'node-cost' }, node.cost ? money(doc, node.cost) : 'no cost');
  if (node.worstCase !== null) cost.append(' of ', h(doc, 'span', { class: 'muted' }, money(doc, node.worstCase), ' worst case'));
  if (node.totalCost !== null && node.children.length > 0) cost.append(' · ', money(doc, node.totalCost), ' with delegated calls');

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
                h(doc, 'td', {}, `${l.quantity} × `, money(doc, l.unitPrice)),
                h(doc, 'td', {}, money(doc, l.total)),
              ),
            ),
          ),
        ),
        h(
          doc,
          'p',
          {},
          h(doc, 'strong', { 'data-testid': `purchase-total-${p.id}` }, money(doc, p.total)),
          p.charged && p.charged.exact !== p.total.exact ? h(doc, 'span', {}, ' (charged ', money(doc, p.charged), ')') : '',
          ' · ',
          time(doc, p.at),
        ),
        ...(p.consent ? [renderConsent(doc, p.id, p.consent)] : []),
      ),
    ),
  );
}

/** A purchase's chain of consent (AP2): each link with its mark and what it rests on; where it breaks, said first. */
function renderConsent(doc: Document, id: string, c: NonNullable<PurchaseRow['consent']>): HTMLElement {
  const mark = (ok: boolean | null): string => (ok === null ? '–' : ok ? '✓' : '✗');
  const broken = c.steps.find((s) => s.ok === false);
  return h(
    doc,
    'div',
    { class: broken ? 'consent error' : 'consent', 'data-testid': `purchase-consent-${id}` },
    h(
      doc,
      'p',
      {},
      broken
        ? `Consent BROKEN at ${broken.link}: ${broken.detail}`
        : `Consent holds: ${c.steps.map((s) => `${s.link} ${mark(s.ok)}`).join(' → ')}`,
    ),
    h(doc, 'ul', { class: 'consent-steps' }, ...c.steps.map((s) => h(doc, 'li', {}, `${mark(s.ok)} ${s.link}: ${s.detail}`))),
  );
}
