// The spend chart, drawn the same way in the Holon view and in the MCP App's spend view: a bar per day
// against the daily limit, and a bar per payee. Where the bars can open the spends behind them (the view),
// each is a native button; where they cannot (an app opens nothing), each is a picture with a name. The
// figures come formatted and the heights in exact thousandths: the chart never does arithmetic on money.
// Sizes go through the CSSOM, never a style attribute: neither page's CSP allows one.
import type { Attrs, Child } from './dom.ts';
import { h } from './dom.ts';

/** One day of the chart: what was spent that day, in words, and its bar's height in thousandths of the axis. */
export interface ChartDay {
  day: string;
  amount: string;
  permille: number;
  /** Nothing was spent that day: its bar is a sliver on the axis, with nothing behind it to open. */
  empty: boolean;
}

/** One payee of the chart: what it was paid, in words, and its bar's length in thousandths of the most paid. */
export interface ChartPayee {
  /** The payee as one key (`agent:acme/table-extract`), as the bar names it. */
  key: string;
  id: string;
  amount: string;
  permille: number;
}

/** What the chart draws. */
export interface SpendChart {
  days: ChartDay[];
  payees: ChartPayee[];
  total: string;
  perDay: string | null;
  /** Where the daily limit's line is, in thousandths of the day axis; null without a limit. */
  perDayPermille: number | null;
}

/** The test ids each page gives the chart's parts (a day's is null for a bar that has none). */
export interface ChartIds {
  chart: string;
  day: (day: ChartDay) => string | null;
  limit: string;
  payees: string;
  payee: (payee: ChartPayee) => string;
}

/** What pressing a bar does; without it, the bars are pictures. */
export interface ChartOpen {
  day: (day: string) => void;
  payee: (key: string) => void;
}

/**
 * A bar: a native button when it opens something (Tab reaches it, Enter and Space press it), else a
 * picture named by its label. `size` sets its fill through the CSSOM.
 */
function bar(
  doc: Document,
  label: string,
  attrs: Attrs,
  size: (fill: HTMLElement) => void,
  onOpen: (() => void) | null,
  ...inside: Child[]
): HTMLElement {
  const fill = h(doc, 'span', { class: 'fill' });
  size(fill);
  const track = inside.length > 0 ? h(doc, 'span', { class: 'track' }, fill) : fill;
  const kind: Attrs = onOpen ? { type: 'button' } : { role: 'img' };
  const node = h(
    doc,
    onOpen ? 'button' : 'span',
    { ...kind, ...attrs, 'aria-label': label, title: label },
    ...(inside.length > 0 ? [inside[0] ?? null, track, ...inside.slice(1)] : [track]),
  );
  if (onOpen) node.addEventListener('click', onOpen);
  return node;
}

/** A day's bar: over the limit in its own colour; a day without spend is a sliver with no name. */
function dayBar(doc: Document, chart: SpendChart, d: ChartDay, ids: ChartIds, open: ChartOpen | null): HTMLElement {
  const over = chart.perDayPermille !== null && d.permille > chart.perDayPermille;
  const attrs: Attrs = {
    class: over ? 'chart-bar over' : 'chart-bar',
    'data-testid': ids.day(d),
    'data-day': d.day,
    'data-permille': d.permille,
  };
  if (d.empty) return h(doc, 'span', { ...attrs, class: 'chart-bar empty', 'aria-hidden': 'true' }, h(doc, 'span', { class: 'fill' }));
  const label = `${d.day}: ${d.amount}${over ? ', over the daily limit' : ''}${open ? '. Show these spends' : ''}`;
  const height = (f: HTMLElement): void => void (f.style.height = `${d.permille / 10}%`);
  return bar(doc, label, attrs, height, open && (() => open.day(d.day)));
}

/** The days' bars against the daily limit's line, and the axis under them (first day, today). */
export function dayChart(doc: Document, chart: SpendChart, ids: ChartIds, open: ChartOpen | null = null): HTMLElement[] {
  const days = chart.days.length;
  const limit = chart.perDay;
  const node = h(doc, 'div', {
    class: 'chart',
    role: 'group',
    'data-testid': ids.chart,
    'aria-label': `Spend per day, the last ${days} days: ${chart.total}${limit ? `; limit ${limit} a day` : ''}`,
  });
  for (const d of chart.days) node.appendChild(dayBar(doc, chart, d, ids, open));
  if (limit && chart.perDayPermille !== null) {
    const line = h(doc, 'span', {
      class: 'chart-limit',
      'data-testid': ids.limit,
      'data-permille': chart.perDayPermille,
      title: `Daily limit ${limit}`,
      'aria-hidden': 'true',
    });
    line.style.bottom = `${chart.perDayPermille / 10}%`;
    node.appendChild(line);
  }
  const axis = h(
    doc,
    'div',
    { class: 'chart-axis muted', 'aria-hidden': 'true' },
    h(doc, 'span', {}, chart.days[0]?.day ?? ''),
    h(doc, 'span', {}, 'today'),
  );
  return [node, axis];
}

/** A bar per payee: its id, its bar against the most paid, and what it was paid. */
export function payeeBars(doc: Document, chart: SpendChart, ids: ChartIds, open: ChartOpen | null = null): HTMLElement {
  const days = chart.days.length;
  return h(
    doc,
    'ul',
    { class: 'payee-bars', 'data-testid': ids.payees },
    ...chart.payees.map((p) =>
      h(
        doc,
        'li',
        {},
        bar(
          doc,
          `${p.id}: ${p.amount} in ${days} days${open ? '. Show these spends' : ''}`,
          { class: 'payee-bar', 'data-testid': ids.payee(p), 'data-payee': p.key, 'data-permille': p.permille },
          (f) => void (f.style.width = `${p.permille / 10}%`),
          open && (() => open.payee(p.key)),
          h(doc, 'span', { class: 'payee-label mono' }, p.id),
          h(doc, 'span', { class: 'payee-value' }, p.amount),
        ),
      ),
    ),
  );
}
