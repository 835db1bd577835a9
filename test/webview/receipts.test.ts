import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { ReceiptsCommand } from '../../src/webview/protocol/receipts.ts';
import { is } from '../../src/webview/protocol/messages.ts';
import { RECEIPT_STATUSES, ReceiptsCommand as ReceiptsCommandSchema } from '../../src/webview/protocol/receipts.ts';
import { formatDuration, renderReceipts } from '../../src/webview/render/receipts.ts';
import type { Page } from './fakes.ts';
import { amt, byTestId, click, fire, get, HOSTILE, page, receiptNode, receiptsState, type } from './fakes.ts';

let p: Page;
let posted: ReceiptsCommand[];
const post = (command: ReceiptsCommand): void => {
  assert.equal(is(ReceiptsCommandSchema, command), true);
  posted.push(command);
};
const nodes = (): HTMLElement[] => Array.from(p.root.querySelectorAll<HTMLElement>('[data-testid="receipt-node"]'));
const part = (node: HTMLElement, id: string): string | null => {
  const found = Array.from(node.children)
    .flatMap((c) => [c, ...Array.from(c.querySelectorAll('[data-testid]'))])
    .find((c) => c.getAttribute('data-testid') === id && c.closest('[data-testid="receipt-node"]') === node);
  return found ? found.textContent : null;
};

beforeEach(() => {
  p = page();
  posted = [];
});
afterEach(() => p.close());

describe('filter', () => {
  test('offers all and every status, with the current one selected; a change posts filter', () => {
    renderReceipts(p.root, receiptsState({ filter: 'failed' }), post);
    const select = get(p.root, 'receipts-filter');
    assert.equal(select.tagName.toLowerCase(), 'vscode-single-select');
    const values = Array.from(select.querySelectorAll('vscode-option')).map((o) => o.getAttribute('value'));
    assert.deepEqual(values, ['all', ...RECEIPT_STATUSES]);
    assert.equal(select.querySelector('vscode-option[selected]')?.getAttribute('value'), 'failed');
    assert.equal(select.querySelector('vscode-option[value="pending_approval"]')?.textContent, 'pending approval');
    assert.deepEqual(posted, []);
    type(select, 'denied');
    assert.deepEqual(posted, [{ type: 'filter', filter: 'denied' }]);
  });

  test('an unknown or unchanged value posts nothing', () => {
    renderReceipts(p.root, receiptsState(), post);
    type(get(p.root, 'receipts-filter'), 'all');
    type(get(p.root, 'receipts-filter'), 'nonsense');
    assert.deepEqual(posted, []);
  });
});

describe('recent list', () => {
  test('one row per call; a click (or Enter) posts select with its id', () => {
    renderReceipts(p.root, receiptsState(), post);
    const row = get(p.root, 'receipt-row-rcp_1');
    assert.equal(row.getAttribute('aria-selected'), 'true', 'the selected receipt is marked');
    assert.match(row.textContent ?? '', /acme\/invoice-extractor/);
    assert.match(row.textContent ?? '', /1\.20 EUR/);
    assert.match(row.textContent ?? '', /\+3 delegated/);
    const denied = get(p.root, 'receipt-row-rcp_2');
    assert.equal(denied.getAttribute('aria-selected'), 'false');
    assert.match(denied.textContent ?? '', /\(no agent\)/);
    assert.match(denied.textContent ?? '', /denied/);
    assert.deepEqual(posted, []);
    click(denied);
    fire(row, 'KeyboardEvent', 'keydown', { key: 'Enter' });
    assert.deepEqual(posted, [
      { type: 'select', id: 'rcp_2' },
      { type: 'select', id: 'rcp_1' },
    ]);
  });

  test('an empty list says so, for the filter', () => {
    renderReceipts(p.root, receiptsState({ recent: [], selected: null }), post);
    assert.equal(get(p.root, 'receipts-empty').textContent, 'No calls yet.');
    renderReceipts(p.root, receiptsState({ filter: 'pending_approval', recent: [], selected: null }), post);
    assert.equal(get(p.root, 'receipts-empty').textContent, 'No pending approval calls.');
    assert.ok(byTestId(p.root, 'receipt-none'));
  });
});

describe('receipt tree', () => {
  test('the root and its delegated calls, nested, each with agent, version, status, cost, duration, approval, reasons, error', () => {
    renderReceipts(p.root, receiptsState(), post);
    const all = nodes();
    assert.equal(all.length, 4);
    const [root, first, , failed] = all as [HTMLElement, HTMLElement, HTMLElement, HTMLElement];
    assert.equal(root.getAttribute('data-id'), 'rcp_1');
    assert.equal(root.getAttribute('role'), 'treeitem');
    assert.equal(root.getAttribute('aria-expanded'), 'true');
    assert.equal(part(root, 'node-agent'), 'acme/invoice-extractor');
    assert.equal(part(root, 'node-version'), '1.4.2');
    assert.equal(part(root, 'node-status'), 'succeeded');
    assert.equal(part(root, 'node-cost'), '0.40 EUR of 3.10 EUR worst case · 1.20 EUR with delegated calls');
    assert.equal(part(root, 'node-duration'), '1.2 s');
    assert.equal(part(root, 'node-approval'), 'approval apr_1 via panel');

    // Children are nested inside the root's item, one level down.
    assert.equal(first.parentElement?.closest('[data-testid="receipt-node"]'), root);
    assert.equal(part(first, 'node-agent'), 'ocr/pdf');
    assert.equal(part(first, 'node-cost'), '0.20 EUR of 0.50 EUR worst case');
    assert.equal(part(first, 'node-duration'), '340 ms');
    assert.equal(part(first, 'node-approval'), null);

    assert.equal(part(failed, 'node-status'), 'failed');
    assert.equal(part(failed, 'node-cost'), 'no cost of 0.50 EUR worst case');
    assert.equal(part(failed, 'node-error'), 'timeout after 30 s');
    assert.equal(part(failed, 'node-duration'), null);
    assert.ok(failed.classList.contains('status-failed'));
  });

  test('a denied call lists its reasons', () => {
    const denied = receiptNode({ id: 'rcp_2', agent: null, version: null, status: 'denied', cost: null, totalCost: null, worstCase: null, durationMs: null, approval: null, approvalChannel: null, reasons: ['over the per-call limit', 'capability not allowed'] });
    renderReceipts(p.root, receiptsState({ selected: denied }), post);
    const [node] = nodes() as [HTMLElement];
    assert.equal(part(node, 'node-agent'), '(no agent)');
    assert.equal(part(node, 'node-version'), null);
    const reasons = Array.from(get(node, 'node-reasons').querySelectorAll('li')).map((li) => li.textContent);
    assert.deepEqual(reasons, ['over the per-call limit', 'capability not allowed']);
  });

  test('purchases show their merchant, order and lines at the merchant\'s prices; their text stays text', () => {
    renderReceipts(
      p.root,
      receiptsState({
        purchases: [
          { id: 'pur_1', mandate: 'demo/shopper', merchant: 'acp', order: HOSTILE, lines: [{ product: 'mug', title: HOSTILE, quantity: 2, unitPrice: amt('4.50 EUR'), total: amt('9.00 EUR') }], total: amt('9.00 EUR'), charged: amt('9.00 EUR'), at: '2026-12-01T10:00:00.000Z', consent: null },
        ],
      }),
      post,
    );
    assert.equal(byTestId(p.root, 'purchase-consent-pur_1'), null, 'no AP2, no chain of consent');
    assert.equal(get(p.root, 'purchase-order-pur_1').textContent, HOSTILE);
    assert.equal(get(p.root, 'purchase-total-pur_1').textContent, '9.00 EUR');
    assert.match(get(p.root, 'purchase-pur_1').textContent ?? '', /2 × 4\.50 EUR/);
    assert.equal(p.root.querySelectorAll('img').length, 0);
    renderReceipts(p.root, receiptsState(), post);
    assert.equal(byTestId(p.root, 'purchases'), null, 'no purchases, no section');
  });

  test("an AP2 purchase shows its chain of consent, link by link, and where it breaks", () => {
    const row = (ok: boolean | null) => ({
      id: 'pur_2', mandate: 'demo/shopper', merchant: 'hardware', order: 'ord_1', lines: [], total: amt('1.08 USD'), charged: null, at: '2026-12-01T10:00:00.000Z',
      consent: {
        holds: ok !== false,
        steps: [
          { link: 'mandate', ok: true, detail: `open mandate ${HOSTILE}` },
          { link: 'checkout', ok: true, detail: 'checkout chk_1 signed by the merchant' },
          { link: 'payment', ok, detail: ok === false ? 'the payment mandate does not match the checkout' : 'payment mandate for 1.08 USD' },
          { link: 'transaction', ok: true, detail: 'landed in 0xabc (block 7)' },
        ],
      },
    });
    renderReceipts(p.root, receiptsState({ purchases: [row(true)] }), post);
    const chain = get(p.root, 'purchase-consent-pur_2');
    assert.match(chain.textContent ?? '', /Consent holds: mandate ✓ → checkout ✓ → payment ✓ → transaction ✓/);
    assert.match(chain.textContent ?? '', /landed in 0xabc \(block 7\)/);
    assert.equal(p.root.querySelectorAll('img').length, 0, 'a detail is text');
    renderReceipts(p.root, receiptsState({ purchases: [row(false)] }), post);
    assert.match(get(p.root, 'purchase-consent-pur_2').textContent ?? '', /Consent BROKEN at payment: the payment mandate does not match the checkout/);
  });

  test('hostile text in agents, reasons, errors and ids is text', () => {
    const node = receiptNode({ id: HOSTILE, agent: HOSTILE, version: HOSTILE, reasons: [HOSTILE], error: HOSTILE, approval: HOSTILE, approvalChannel: HOSTILE, children: [receiptNode({ agent: HOSTILE })] });
    renderReceipts(p.root, { ...receiptsState(), filter: 'all', recent: [{ id: HOSTILE, mandate: HOSTILE, agent: HOSTILE, status: 'failed', totalCost: amt(HOSTILE), startedAt: HOSTILE, delegatedCalls: 1 }], selected: node, purchases: [] }, post);
    assert.equal(p.root.querySelectorAll('img').length, 0);
    assert.equal(p.document.querySelectorAll('[onerror]').length, 0);
    assert.equal(part(nodes()[0]!, 'node-error'), HOSTILE);
    click(get(p.root, `receipt-row-${HOSTILE}`));
    assert.deepEqual(posted, [{ type: 'select', id: HOSTILE }]);
  });
});

test('durations read well', () => {
  assert.equal(formatDuration(0), '0 ms');
  assert.equal(formatDuration(999), '999 ms');
  assert.equal(formatDuration(1000), '1.0 s');
  assert.equal(formatDuration(125_000), '2 min 5 s');
});

describe('spends of the accounts', () => {
  test('every spend is listed — calls, payments, intents, purchases — with its mandate, payee, amount (exact on hover) and status', () => {
    renderReceipts(p.root, receiptsState(), post);
    const payment = get(p.root, 'spend-pay_1');
    assert.equal(payment.getAttribute('data-kind'), 'payment');
    assert.equal(get(payment, 'spend-kind').textContent, 'Payment');
    assert.equal(get(payment, 'spend-mandate').textContent, 'demo/buyer');
    assert.equal(get(payment, 'spend-to').textContent, 'eip155:84532:0x00000000000000000000000000000000000000b0');
    assert.equal(get(payment, 'spend-amount').textContent, '0.92 EUR');
    assert.match(get(payment, 'spend-status').textContent ?? '', /settled/);
    // A payment signed on a chain says where Holon read it landed; a call that paid nothing on one says nothing.
    assert.match(get(payment, 'spend-chain').textContent ?? '', /^landed in block 12 \(eip155:84532\) · 0x5e1f/);
    assert.equal(get(payment, 'spend-settlement').textContent, 'payment stl_1', 'the id the agent was answered with');
    assert.equal(byTestId(get(p.root, 'spend-rcp_1'), 'spend-chain'), null);
    assert.equal(byTestId(get(p.root, 'spend-rcp_1'), 'spend-settlement'), null);
    assert.equal(get(p.root, 'spend-rcp_1').getAttribute('data-kind'), 'call');
    assert.match(get(p.root, 'account-demo').textContent ?? '', /3\.79 EUR left of 5\.00 EUR · spent 1\.21 EUR by all its mandates/);
    assert.equal(get(p.root, 'account-demo').querySelector('[title="3.7938 EUR"]')?.textContent, '3.79 EUR');
    assert.match(get(p.root, 'spends').querySelector('h2')?.textContent ?? '', /every mandate/);
  });

  test("a call's row opens its receipt; a payment's has none to open", () => {
    renderReceipts(p.root, receiptsState(), post);
    click(get(p.root, 'spend-pay_1'));
    assert.deepEqual(posted, []);
    click(get(p.root, 'spend-rcp_1'));
    fire(get(p.root, 'spend-rcp_1'), 'KeyboardEvent', 'keydown', { key: 'Enter' });
    assert.deepEqual(posted, [
      { type: 'select', id: 'rcp_1' },
      { type: 'select', id: 'rcp_1' },
    ]);
  });

  test('the mandate filter offers every mandate; a choice posts it, "every mandate" posts null', () => {
    renderReceipts(p.root, receiptsState(), post);
    const select = get(p.root, 'receipts-mandate');
    assert.deepEqual(
      Array.from(select.querySelectorAll('vscode-option')).map((o) => [o.getAttribute('value'), o.textContent]),
      [
        ['', 'Every mandate'],
        ['demo/buyer', 'demo/buyer'],
        ['demo/sandbox', 'demo/sandbox'],
      ],
    );
    type(select, 'demo/buyer');
    type(select, 'not/a-mandate');
    assert.deepEqual(posted, [{ type: 'mandate', mandate: 'demo/buyer' }]);
    renderReceipts(p.root, receiptsState({ mandate: 'demo/buyer', spends: [] }), post);
    assert.equal(get(p.root, 'receipts-mandate').querySelector('vscode-option[selected]')?.getAttribute('value'), 'demo/buyer');
    assert.ok(byTestId(p.root, 'spends-empty'));
    type(get(p.root, 'receipts-mandate'), '');
    assert.deepEqual(posted.at(-1), { type: 'mandate', mandate: null });
  });
});

describe('opened from a bar of the chart', () => {
  test('says which spends it shows, and Show All Spends asks for every one again', () => {
    renderReceipts(p.root, receiptsState({ narrow: { day: '2026-11-29', payee: null, label: 'Spends settled on 2026-11-29' } }), post);
    assert.equal(get(p.root, 'spends-narrow-label').textContent, 'Spends settled on 2026-11-29');
    click(get(p.root, 'spends-show-all'));
    assert.deepEqual(posted, [{ type: 'clearNarrow' }]);
    renderReceipts(p.root, receiptsState({ narrow: null }), post);
    assert.equal(byTestId(p.root, 'spends-narrow'), null);
  });

  test("a spend row that opens a receipt is named for what it opens", () => {
    renderReceipts(p.root, receiptsState(), post);
    const rows = Array.from(p.root.querySelectorAll<HTMLElement>('tr.spend.link'));
    assert.ok(rows.length > 0);
    for (const row of rows) assert.match(row.getAttribute('aria-label') ?? '', /: show its receipt$/);
  });
});
