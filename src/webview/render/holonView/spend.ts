// Spend at a glance in the Holon view: the chart (spendChart.ts, as the MCP App draws it too), whose
// bars are buttons that open the receipts behind them, with the totals and kinds of spend in words.
import type { SpendInfo } from '../../protocol/holonView.ts';
import { h, money } from '../dom.ts';
import type { ChartIds, ChartOpen, SpendChart } from '../spendChart.ts';
import { dayChart, payeeBars } from '../spendChart.ts';
import type { ViewContext } from './context.ts';

/** The view's test ids for the chart's parts: a day without spend opens nothing, so it has none. */
const IDS: ChartIds = {
  chart: 'spend-chart',
  day: (d) => (d.empty ? null : `spend-day-${d.day}`),
  limit: 'spend-limit',
  payees: 'spend-payees',
  payee: (p) => `spend-payee-${p.key}`,
};

/** The host's figures as the chart draws them: each amount in its words at the currency's precision. */
function chartOf(spend: SpendInfo): SpendChart {
  return {
    days: spend.days.map((d) => ({ day: d.day, amount: d.amount.text, permille: d.permille, empty: d.empty })),
    payees: spend.payees.map((p) => ({ key: p.key, id: p.id, amount: p.amount.text, permille: p.permille })),
    total: spend.total.text,
    perDay: spend.perDay?.text ?? null,
    perDayPermille: spend.perDayPermille,
  };
}

/** The spend section's content: the day chart, its total, then the payees and the kinds of spend. */
export function renderSpend(doc: Document, spend: SpendInfo, view: ViewContext): HTMLElement[] {
  const days = spend.days.length;
  const limit = spend.perDay;
  const chart = chartOf(spend);
  const open: ChartOpen = {
    day: (day) => view.post({ type: 'openSpend', day, payee: null }),
    payee: (payee) => view.post({ type: 'openSpend', day: null, payee }),
  };
  const out: HTMLElement[] = [
    h(doc, 'h2', { class: 'section-title' }, `Spend, last ${days} days`),
    ...dayChart(doc, chart, IDS, open),
    h(
      doc,
      'p',
      { class: 'note muted', 'data-testid': 'spend-total' },
      money(doc, spend.total),
      ` in ${days} days`,
      limit && ' · limit ',
      limit && money(doc, limit),
      limit && ' a day',
    ),
  ];
  if (spend.otherCurrencies.length > 0) {
    const words = `Not in the chart: spends in ${spend.otherCurrencies.join(', ')}.`;
    out.push(h(doc, 'p', { class: 'note attention', 'data-testid': 'spend-other-currencies' }, words));
  }
  if (spend.payees.length === 0) {
    out.push(h(doc, 'p', { class: 'note muted', 'data-testid': 'spend-none' }, 'Nothing spent in these days.'));
    return out;
  }
  out.push(h(doc, 'h3', { class: 'subsection-title' }, 'By payee'), payeeBars(doc, chart, IDS, open));
  if (spend.groups.length > 0) {
    const groups = spend.groups.flatMap((g) => [h(doc, 'dt', {}, g.label), h(doc, 'dd', {}, money(doc, g.amount))]);
    out.push(h(doc, 'dl', { class: 'kv', 'data-testid': 'spend-groups' }, ...groups));
  }
  return out;
}
