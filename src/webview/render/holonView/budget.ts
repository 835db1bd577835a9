// The selected mandate and its budget in the Holon view, beside its account's: every mandate of an
// account spends from the same money, so what is left may be less than the mandate's own budget.
import type { BudgetInfo } from '../../protocol/holonView.ts';
import { h, money } from '../dom.ts';
import type { ViewContext } from './context.ts';
import { run } from './context.ts';

function row(doc: Document, label: string, value: string | HTMLElement, testId: string, cls?: string, title?: string): HTMLElement[] {
  return [h(doc, 'dt', { title }, label), h(doc, 'dd', { 'data-testid': testId, class: cls }, value)];
}

/** The mandate's name, and its status beside it when the budget is known. */
function mandateLine(doc: Document, mandate: string, budget: BudgetInfo | null): HTMLElement {
  return h(
    doc,
    'h2',
    { class: 'mandate' },
    h(doc, 'span', { class: 'mono', 'data-testid': 'mandate-name' }, mandate),
    budget && ' ',
    budget &&
      h(
        doc,
        'span',
        { class: budget.status === 'active' ? 'status muted' : 'status attention', 'data-testid': 'mandate-status' },
        budget.status,
      ),
  );
}

/** The mandate's limits and what is spent and held of them. */
function limits(doc: Document, budget: BudgetInfo): HTMLElement[] {
  const perDay =
    budget.perDay === null
      ? 'no daily limit'
      : h(doc, 'span', {}, money(doc, budget.spentToday), ' of ', money(doc, budget.perDay), ' today');
  return [
    ...row(doc, 'Remaining', money(doc, budget.remaining), 'budget-remaining', 'strong'),
    ...row(doc, 'Spent', money(doc, budget.spent), 'budget-spent', undefined, 'What this mandate spent'),
    ...row(doc, 'Held', money(doc, budget.held), 'budget-held', undefined, 'Reserved for calls that are running'),
    ...row(doc, 'Total', money(doc, budget.total), 'budget-total'),
    ...row(doc, 'Per day', perDay, 'budget-per-day', budget.perDay === null ? 'muted' : undefined),
    ...row(
      doc,
      'Per call',
      budget.perCall === null ? 'no per-call limit' : money(doc, budget.perCall),
      'budget-per-call',
      budget.perCall === null ? 'muted' : undefined,
    ),
    ...row(
      doc,
      'Ask above',
      money(doc, budget.threshold),
      'budget-threshold',
      undefined,
      'Calls whose worst case is above this wait for your approval',
    ),
  ];
}

/** The account beside the mandate: its other mandates spend from the same money. */
function account(doc: Document, budget: BudgetInfo): HTMLElement[] {
  const a = budget.account;
  const value = h(
    doc,
    'span',
    {},
    money(doc, a.available, { 'data-testid': 'account-available' }),
    ' left of ',
    money(doc, a.funded, { 'data-testid': 'account-funded' }),
    '; its other mandates spent ',
    money(doc, a.otherMandatesSpent, { 'data-testid': 'account-others-spent' }),
  );
  return row(doc, `Account ${a.id}`, value, 'budget-account', undefined, 'Every mandate of this account spends from its funds');
}

/** Why Remaining is less than the mandate's own budget, when the account is what limits it. */
function limitedByAccount(doc: Document, budget: BudgetInfo): HTMLElement {
  return h(
    doc,
    'p',
    { class: 'note', 'data-testid': 'budget-limited-by-account' },
    'Remaining is what account ',
    h(doc, 'span', { class: 'mono' }, budget.account.id),
    " has left, less than this mandate's own budget: its other mandates spent ",
    money(doc, budget.account.otherMandatesSpent),
    ' from it.',
  );
}

/** The selected mandate: its name and status, its budget (or that it is unknown), and what to do with it. */
export function renderBudget(doc: Document, mandate: string, budget: BudgetInfo | null, view: ViewContext): HTMLElement {
  const node = h(doc, 'div', { class: 'budget', 'data-testid': 'budget' }, mandateLine(doc, mandate, budget));
  if (budget) {
    node.appendChild(h(doc, 'dl', { class: 'kv' }, ...limits(doc, budget), ...account(doc, budget)));
    if (budget.limitedBy === 'account') node.appendChild(limitedByAccount(doc, budget));
  } else {
    const unknown = 'The budget is unknown (an amount could not be converted).';
    node.appendChild(h(doc, 'p', { class: 'note attention', 'data-testid': 'budget-unknown' }, unknown));
  }
  node.appendChild(
    h(
      doc,
      'div',
      { class: 'actions' },
      run(doc, 'Receipts', 'showReceipts', view, true),
      run(doc, 'Switch', 'selectMandate', view, true),
      run(doc, 'Fund', 'fundAccount', view, true),
      run(doc, 'Run Token', 'createRunToken', view, true),
    ),
  );
  return node;
}
