// The MCP App views: what a tool's result looks like inside the chat of a host that renders MCP Apps.
// Pure DOM, built with the webviews' helpers (createElement and text nodes only): every string another
// party chose — an agent's name and description, an error, a reason — is text, never HTML. Nothing here
// decides anything: the views only read (see main.ts for the one list of tools they call).
import { append, clear, h } from '../webview/render/dom.ts';
import type { ChartIds, SpendChart } from '../webview/render/spendChart.ts';
import { dayChart, payeeBars } from '../webview/render/spendChart.ts';
import type {
  ApprovalJson,
  BudgetJson,
  CallJson,
  MoneyJson,
  PaymentJson,
  ReceiptJson,
  ReceiptNodeJson,
  SearchJson,
  SettlementJson,
  SpendChartJson,
} from './json.ts';

/** `amount currency`, as the server wrote the amount (it is exact; the view never rounds money). */
export function money(m: MoneyJson | null | undefined): string {
  return m ? `${m.amount} ${m.currency}` : 'unknown';
}

/** A decimal amount as an integer of 10^-18 units: exact, so a bar's proportion never goes through a float. */
function units(amount: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{0,18}))?/.exec(amount);
  if (!m) return 0n;
  const v = BigInt(m[2] ?? '0') * 10n ** 18n + BigInt((m[3] ?? '').padEnd(18, '0'));
  return m[1] === '-' ? -v : v;
}

/** `part` in thousandths of `whole`, between 0 and 1000 (0 when either is unknown or the whole is nothing). */
export function permilleOf(part: MoneyJson | null | undefined, whole: MoneyJson | null | undefined): number {
  if (!part || !whole || part.currency !== whole.currency) return 0;
  const w = units(whole.amount);
  if (w <= 0n) return 0;
  const p = (units(part.amount) * 1000n) / w;
  return Number(p < 0n ? 0n : p > 1000n ? 1000n : p);
}

/**
 * Where a result holds another party's text, as its `_meta["holon/foreign"]` names it: a JSON Pointer and
 * who wrote what is there (src/core/kernel/foreign.ts). The value itself is the party's, exactly as sent.
 */
export type ForeignPaths = readonly { path: string; from: string }[];

/** The `_meta["holon/foreign"]` of a result: the places another party's text sits (none when it names none). */
export function foreignPathsOf(meta: Record<string, unknown> | undefined): ForeignPaths {
  const named = meta?.['holon/foreign'];
  if (!Array.isArray(named)) return [];
  return named.filter(
    (f): f is { path: string; from: string } =>
      typeof f === 'object' &&
      f !== null &&
      typeof (f as { path?: unknown }).path === 'string' &&
      typeof (f as { from?: unknown }).from === 'string',
  );
}

/** Who wrote the text at `pointer`: a place named as another party's, or inside one (a party's subtree is named at its root). */
export function writerOf(foreign: ForeignPaths, pointer: string): string | null {
  return foreign.find((f) => pointer === f.path || pointer.startsWith(`${f.path}/`))?.from ?? null;
}

/**
 * A transaction a payee named that is not a transaction hash is the one text a result still wraps:
 * `<data from="party">…</data>`, `<` inside written `&lt;` (src/core/kernel/foreign.ts, transactionAsNamed).
 * The view shows the text and names the party on hover — as text, never markup.
 */
export function unwrapData(text: string): { text: string; from: string | null } {
  const m = /^<data from="([^"]*)">([\s\S]*)<\/data>$/.exec(text);
  return m ? { text: (m[2] ?? '').replace(/&lt;/g, '<'), from: m[1] ?? null } : { text, from: null };
}

/** Another party's text, as text, with who wrote it on hover (nothing when no one else did). */
function theirs(doc: Document, text: string, from: string | null, attrs: Record<string, string> = {}): HTMLElement {
  return h(doc, 'span', { ...attrs, title: from ? `Written by ${from}` : undefined }, text);
}

/** A horizontal meter: `permille` of its track filled, with an accessible name and value. */
function meter(doc: Document, label: string, permille: number, testId: string, cls = ''): HTMLElement {
  const track = h(doc, 'div', {
    class: `meter ${cls}`.trim(),
    role: 'meter',
    'aria-label': label,
    'aria-valuemin': 0,
    'aria-valuemax': 1000,
    'aria-valuenow': permille,
    'data-testid': testId,
    'data-permille': permille,
  });
  const fill = h(doc, 'div', { class: 'meter-fill' });
  // A CSSOM property, not a style attribute: the page's CSP allows no inline style attributes.
  fill.style.width = `${permille / 10}%`;
  track.appendChild(fill);
  return track;
}

function heading(doc: Document, text: string, level: 'h1' | 'h2' = 'h1'): HTMLElement {
  return h(doc, level, { class: level === 'h1' ? 'title' : 'subtitle' }, text);
}

function statusBadge(doc: Document, status: string, testId: string): HTMLElement {
  return h(doc, 'span', { class: `badge status-${status}`, 'data-testid': testId }, status.replaceAll('_', ' '));
}

/** Renders `message` as the whole view (before a result, or for one the view cannot read). */
export function renderMessage(root: HTMLElement, message: string, testId = 'message'): void {
  clear(root);
  root.appendChild(h(root.ownerDocument, 'p', { class: 'muted', 'data-testid': testId, role: 'status' }, message));
}

// ---- the receipt tree -------------------------------------------------------------------------------

type Fact = (label: string, value: string | HTMLElement, testId: string) => void;

/** Denied by Holon, or rejected by the human: the call never ran. */
function refused(status: string): boolean {
  return status === 'denied' || status === 'rejected';
}

/** What a call cost against its worst case, in words: a refused call cost nothing, an unknown figure is said to be unknown. */
function costWords(status: string, cost: MoneyJson | null, worstCase: MoneyJson | null): string {
  if (refused(status)) return 'nothing: it did not run';
  return worstCase ? `${money(cost)} of worst case ${money(worstCase)}` : money(cost);
}

/** An error's code and message, each the writer's text (named on hover when another party wrote it). */
function errorWords(
  doc: Document,
  error: { code: string; message: string },
  at: string,
  foreign: ForeignPaths,
  charged = false,
): HTMLElement {
  return h(
    doc,
    'span',
    {},
    theirs(doc, error.code, writerOf(foreign, `${at}/code`)),
    ': ',
    theirs(doc, error.message, writerOf(foreign, `${at}/message`)),
    charged ? ' (charged)' : '',
  );
}

/** A call and, under it, its delegated calls; `at` is the node's JSON Pointer in the result. */
function receiptNode(doc: Document, n: ReceiptNodeJson, depth: number, at: string, foreign: ForeignPaths): HTMLElement {
  const who = n.agent ? `${n.agent}${n.version ? ` ${n.version}` : ''}` : (n.capability ?? 'call');
  const facts: HTMLElement[] = [];
  const fact: Fact = (label, value, testId) => {
    facts.push(h(doc, 'dt', {}, label), h(doc, 'dd', { 'data-testid': testId }, value));
  };
  fact('Cost', costWords(n.status, n.total_cost ?? n.cost, n.worst_case), 'node-cost');
  if (n.children.length > 0) fact('Own cost', money(n.cost), 'node-own-cost');
  if (n.capability) fact('Capability', n.capability, 'node-capability');
  if (n.duration_ms !== null) fact('Took', `${(n.duration_ms / 1000).toFixed(1)} s`, 'node-duration');
  if (n.approval) fact('Approval', h(doc, 'code', {}, n.approval), 'node-approval');
  if (n.terms_hash) fact('Terms hash', h(doc, 'code', { class: 'hash' }, n.terms_hash), 'node-terms-hash');
  if (n.settlement) {
    const p = n.settlement;
    fact('Payment', h(doc, 'span', { class: `payment-${p.status}`, 'data-status': p.status }, p.summary), 'node-payment');
    paymentFacts(doc, p, fact, 'node-payment');
  }
  if (n.error) fact('Error', errorWords(doc, n.error, `${at}/error`, foreign, n.error.charged), 'node-error');
  const item = h(
    doc,
    'li',
    { class: 'node', 'data-testid': 'receipt-node', 'data-depth': depth, 'data-receipt': n.receipt, 'aria-level': depth + 1 },
    h(
      doc,
      'div',
      { class: 'node-head' },
      h(doc, 'span', { class: 'mono strong', 'data-testid': 'node-agent' }, who),
      ' ',
      statusBadge(doc, n.status, 'node-status'),
    ),
    meter(
      doc,
      `${who}: ${money(n.total_cost ?? n.cost)} of worst case ${money(n.worst_case)}`,
      permilleOf(n.total_cost ?? n.cost, n.worst_case),
      'node-meter',
    ),
    h(doc, 'dl', { class: 'kv' }, ...facts),
  );
  if (n.reasons.length > 0) item.appendChild(h(doc, 'ul', { class: 'reasons' }, ...n.reasons.map((r) => h(doc, 'li', {}, r))));
  if (n.children.length > 0) {
    item.appendChild(
      h(
        doc,
        'ul',
        { class: 'children', 'aria-label': `${n.children.length} delegated calls`, 'data-testid': 'receipt-children' },
        ...n.children.map((c, i) => receiptNode(doc, c, depth + 1, `${at}/children/${i}`, foreign)),
      ),
    );
  }
  return item;
}

/** Counts the delegated calls under a node, at every depth. */
function descendants(n: ReceiptNodeJson): number {
  return n.children.reduce((sum, c) => sum + 1 + descendants(c), 0);
}

/**
 * get_receipt: the tree, each call's cost against its worst case, the terms hash and where a payment landed;
 * or, for a settlement id, the one payment: where it landed (or why not), and what it pays for.
 */
export function renderReceipt(root: HTMLElement, r: ReceiptJson, foreign: ForeignPaths = []): void {
  const doc = root.ownerDocument;
  clear(root);
  if (r.settlement) return renderPayment(root, r.settlement);
  if (!r.tree) return renderMessage(root, 'This receipt has nothing to show.');
  const delegated = descendants(r.tree);
  append(root, [
    heading(doc, `Receipt ${r.tree.receipt}`),
    h(
      doc,
      'p',
      { class: 'lead', 'data-testid': 'receipt-summary' },
      `Total ${money(r.total_cost)}`,
      delegated > 0 ? `, ${delegated} delegated call${delegated === 1 ? '' : 's'}` : '',
    ),
    h(doc, 'ul', { class: 'tree', role: 'list', 'data-testid': 'receipt-tree' }, receiptNode(doc, r.tree, 0, '/tree', foreign)),
  ]);
}

/**
 * What any receipt shows of a payment on a chain, whether in a call's tree or found by its settlement id:
 * what it paid and to whom, the transaction and block Holon read it in, and the transaction the payee
 * named when that is another one (the payee's word, shown as its text).
 */
function paymentFacts(doc: Document, p: PaymentJson, fact: Fact, testId: string): void {
  fact('Paid', `${money(p.amount)} to ${p.payee}`, `${testId}-amount`);
  if (p.transaction)
    fact('Transaction', h(doc, 'code', { class: 'hash' }, `${p.transaction} · block ${p.block ?? '?'}`), `${testId}-transaction`);
  if (p.claimed_transaction !== null && p.claimed_transaction !== p.transaction)
    fact('The payee named', claimed(doc, p.claimed_transaction), `${testId}-claimed`);
}

/** The transaction a payee named: its text, and the payee on hover when it came wrapped as the payee's. */
function claimed(doc: Document, text: string): HTMLElement {
  const d = unwrapData(text);
  return theirs(doc, d.text, d.from, { class: 'hash' });
}

/** One payment on a chain: Holon's words for where it landed, what it pays for, and the transactions. */
function renderPayment(root: HTMLElement, p: SettlementJson): void {
  const doc = root.ownerDocument;
  const facts: HTMLElement[] = [];
  const fact: Fact = (label, value, testId) => {
    facts.push(h(doc, 'dt', {}, label), h(doc, 'dd', { 'data-testid': testId }, value));
  };
  paymentFacts(doc, p, fact, 'payment');
  fact('Held', money(p.held), 'payment-held');
  fact(
    'For',
    `${p.for.kind} ${p.for.id}${p.for.idempotency_key !== null ? ` (idempotency key ${p.for.idempotency_key})` : ''}`,
    'payment-for',
  );
  append(root, [
    heading(doc, `Payment ${p.id}`),
    h(doc, 'p', { class: 'lead', 'data-testid': 'payment-summary', 'data-status': p.status }, p.summary),
    h(doc, 'dl', { class: 'kv' }, ...facts),
  ]);
}

// ---- the spend chart ----------------------------------------------------------------------------------

/** The app's test ids for the chart's parts (spendChart.ts draws it as the Holon view does). */
const CHART_IDS: ChartIds = {
  chart: 'day-chart',
  day: () => 'day-bar',
  limit: 'limit-line',
  payees: 'payee-bars',
  payee: () => 'payee-bar',
};

/** The server's figures as the chart draws them: each amount as the server wrote it, the heights as it computed them. */
function chartOf(c: SpendChartJson): SpendChart {
  return {
    days: c.days.map((d) => ({ day: d.day, amount: money(d.spent), permille: d.permille, empty: units(d.spent.amount) === 0n })),
    payees: c.payees.map((p) => ({ key: `${p.kind}:${p.id}`, id: p.id, amount: money(p.spent), permille: p.permille })),
    total: money(c.total),
    perDay: c.per_day ? money(c.per_day) : null,
    perDayPermille: c.per_day_permille,
  };
}

/** The budget's limits and what is spent of them. */
function budgetFacts(doc: Document, b: BudgetJson): HTMLElement[] {
  const total = b.limits?.total ?? b.caps?.find((c) => c.cap === 'total')?.limit ?? null;
  const perDay = b.limits?.per_day ?? b.caps?.find((c) => c.cap === 'per_day')?.limit ?? null;
  const perCall = b.limits?.per_call ?? b.caps?.find((c) => c.cap === 'per_call')?.limit ?? null;
  const threshold = b.limits?.approval_threshold ?? b.approval_threshold ?? null;
  const rows: HTMLElement[] = [];
  const row = (label: string, value: string, testId: string): void => {
    rows.push(h(doc, 'dt', {}, label), h(doc, 'dd', { 'data-testid': testId }, value));
  };
  row('Spent', money(b.spent), 'spend-spent');
  row('Held', money(b.held), 'spend-held');
  row('Remaining', money(b.remaining), 'spend-remaining');
  row('Total budget', money(total), 'spend-total');
  row('Per day', perDay ? money(perDay) : 'no daily limit', 'spend-per-day');
  row('Per call', perCall ? money(perCall) : 'no per-call limit', 'spend-per-call');
  row('Asks you above', money(threshold), 'spend-threshold');
  return [
    heading(doc, `Budget of ${b.mandate}`),
    meter(doc, `Spent ${money(b.spent)} of ${money(total)}`, permilleOf(b.spent, total), 'budget-meter'),
    h(doc, 'dl', { class: 'kv' }, ...rows),
  ];
}

/** The chart and its words: the days against the limit, the payees, the kinds of spend. */
function chartParts(doc: Document, c: SpendChartJson): HTMLElement[] {
  const chart = chartOf(c);
  const out: HTMLElement[] = [
    heading(doc, `Spend per day, last ${c.days.length} days`, 'h2'),
    ...dayChart(doc, chart, CHART_IDS),
    h(
      doc,
      'p',
      { class: 'muted', 'data-testid': 'chart-total' },
      `${chart.total} in ${c.days.length} days`,
      chart.perDay ? ` · limit ${chart.perDay} a day` : '',
    ),
  ];
  if (c.other_currencies.length > 0) {
    const words = `Not in the chart: spends in ${c.other_currencies.join(', ')}.`;
    out.push(h(doc, 'p', { class: 'attention', 'data-testid': 'chart-other-currencies' }, words));
  }
  out.push(heading(doc, 'By payee', 'h2'));
  if (c.payees.length === 0) out.push(h(doc, 'p', { class: 'muted', 'data-testid': 'no-payees' }, 'Nothing spent in these days.'));
  else out.push(payeeBars(doc, chart, CHART_IDS));
  if (c.groups.length > 0) {
    const groups = c.groups.flatMap((g) => [
      h(doc, 'dt', {}, g.label),
      h(doc, 'dd', { 'data-testid': `group-${g.group}` }, money(g.spent)),
    ]);
    out.push(heading(doc, 'By kind of spend', 'h2'), h(doc, 'dl', { class: 'kv', 'data-testid': 'group-list' }, ...groups));
  }
  return out;
}

/** get_budget / get_mandate: the limits and what is spent of them; with the server's figures, the chart. */
export function renderSpend(root: HTMLElement, b: BudgetJson, chart: SpendChartJson | null): void {
  const doc = root.ownerDocument;
  clear(root);
  append(root, budgetFacts(doc, b));
  if (chart) append(root, chartParts(doc, chart));
}

// ---- the comparison of agents ------------------------------------------------------------------------

/** search_agents: the allowed agents ranked by expected cost per success, then the excluded ones and why. */
export function renderAgents(root: HTMLElement, r: SearchJson, foreign: ForeignPaths = []): void {
  const doc = root.ownerDocument;
  clear(root);
  append(root, [
    heading(doc, `Agents for ${r.mandate}`),
    h(doc, 'p', { class: 'lead' }, `${r.total.agents} allowed, ${r.total.excluded} excluded, ranked by expected cost per successful run`),
  ]);
  if (r.agents.length === 0)
    root.appendChild(h(doc, 'p', { class: 'muted', 'data-testid': 'no-agents' }, 'No agent this mandate may hire matches.'));
  else {
    const head = h(
      doc,
      'tr',
      {},
      ...['#', 'Agent', 'Per success', 'Success', 'Worst case', 'Decision'].map((t) => h(doc, 'th', { scope: 'col' }, t)),
    );
    const body = r.agents.map((a, i) =>
      h(
        doc,
        'tr',
        { 'data-testid': 'agent-row', 'data-agent': a.agent },
        h(doc, 'td', {}, String(i + 1)),
        h(
          doc,
          'td',
          {},
          h(doc, 'div', { class: 'mono' }, `${a.agent} ${a.version}`),
          h(doc, 'div', { class: 'muted' }, theirs(doc, a.name, writerOf(foreign, `/agents/${i}/name`), { 'data-testid': 'agent-name' })),
        ),
        h(doc, 'td', {}, money(a.expected_cost_per_success)),
        h(doc, 'td', {}, a.success_rate === null ? '—' : `${a.success_rate}`),
        h(doc, 'td', {}, money(a.worst_case)),
        h(
          doc,
          'td',
          {},
          h(
            doc,
            'span',
            { class: `badge decision-${a.mandate_decision}` },
            a.mandate_decision === 'approval_required' ? 'asks you' : a.mandate_decision,
          ),
        ),
      ),
    );
    root.appendChild(
      h(doc, 'table', { class: 'agents', 'data-testid': 'agents-table' }, h(doc, 'thead', {}, head), h(doc, 'tbody', {}, ...body)),
    );
  }
  if (r.excluded.length > 0) {
    root.appendChild(heading(doc, `Excluded (${r.total.excluded})`, 'h2'));
    root.appendChild(
      h(
        doc,
        'ul',
        { class: 'excluded', 'data-testid': 'excluded-list' },
        ...r.excluded.map((x) =>
          h(
            doc,
            'li',
            { 'data-testid': 'excluded-agent', 'data-agent': x.agent },
            h(doc, 'span', { class: 'mono strong' }, `${x.agent} ${x.version}`),
            h(doc, 'ul', { class: 'reasons' }, ...x.reasons.map((reason) => h(doc, 'li', { 'data-testid': 'excluded-reason' }, reason))),
          ),
        ),
      ),
    );
  }
}

// ---- a call, and the card of one that waits for the human ---------------------------------------------

/** Why this card has no Approve button, in the words it shows. */
export const NO_APPROVE_HERE =
  'This card cannot approve or reject: an app can call only the tools the model can call too, and no Holon tool decides. ' +
  'Only you decide, where Holon asks you.';

/** Where the human decides, in the words the card shows. */
export const WHERE_TO_DECIDE = [
  'In VS Code: the Holon view (activity bar), or the notification, Approve… / Reject.',
  'The form your MCP client shows, where it supports it.',
  'A terminal you typed in yourself: holon approve ID.',
];

/** A refused call's card in words: who refused it, and that nothing ran or was spent (the reasons follow). */
const REFUSED_WORDS: Record<string, string> = {
  denied: 'Holon did not run this call, and nothing was spent.',
  rejected: 'You rejected this call: it did not run, and nothing was spent.',
};

/** What the card knows of a call: what was asked, its result once it came, and its approval's state. */
export interface CallCard {
  input: { agent?: string | null; capability?: string | null } | null;
  result: CallJson | null;
  approval: ApprovalJson | null;
  /** Where the result holds another party's text (its `_meta["holon/foreign"]`). */
  foreign?: ForeignPaths;
}

/** The card of a call that waits for the human: the approval's state, its worst case, and where to decide. */
function waiting(doc: Document, who: string, r: CallJson, a: ApprovalJson | null): HTMLElement[] {
  const state = a?.status ?? 'pending';
  const words: Record<string, string> = {
    pending: 'Waits for your decision',
    approved: `Approved${a?.channel ? ` (${a.channel})` : ''}: the agent may call again with this approval`,
    used: 'Approved and used',
    rejected: 'Rejected: the call will not run',
    expired: 'Expired before anyone decided: the agent must ask again',
  };
  const expires = a
    ? [h(doc, 'dt', {}, 'Expires'), h(doc, 'dd', {}, h(doc, 'time', { datetime: a.expires_at }, new Date(a.expires_at).toLocaleString()))]
    : [];
  const out = [
    heading(doc, `${who} ${r.version ?? ''}`.trim()),
    h(
      doc,
      'p',
      { class: `decision decision-${state}`, role: 'status', 'aria-live': 'polite', 'data-testid': 'approval-state', 'data-state': state },
      words[state] ?? state,
    ),
    h(
      doc,
      'dl',
      { class: 'kv' },
      h(doc, 'dt', {}, 'Worst case'),
      h(doc, 'dd', { 'data-testid': 'call-worst-case' }, a ? `${money(a.worst_case)} above ${money(a.threshold)}` : money(r.worst_case)),
      h(doc, 'dt', {}, 'Approval'),
      h(doc, 'dd', {}, h(doc, 'code', { 'data-testid': 'call-approval' }, r.approval ?? '')),
      ...expires,
    ),
  ];
  if (state === 'pending') out.push(whereToDecide(doc, r.approval));
  return out;
}

/** The card of a call that ran, or was refused: what it cost (or that nothing ran), why, and its error. */
function done(doc: Document, who: string, r: CallJson, foreign: ForeignPaths): HTMLElement[] {
  const delegated = r.delegated_calls > 0 ? `, ${r.delegated_calls} delegated call${r.delegated_calls === 1 ? '' : 's'}` : '';
  const out = [
    heading(doc, `${who} ${r.version ?? ''}`.trim()),
    h(
      doc,
      'p',
      { class: 'lead', 'data-testid': 'call-summary' },
      statusBadge(doc, r.status, 'call-status'),
      ` ${REFUSED_WORDS[r.status] ?? `${costWords(r.status, r.cost, r.worst_case)}${delegated}`}`,
    ),
  ];
  if (r.reasons.length > 0) {
    if (refused(r.status)) out.push(heading(doc, 'Why', 'h2'));
    out.push(h(doc, 'ul', { class: 'reasons', 'data-testid': 'call-reasons' }, ...r.reasons.map((x) => h(doc, 'li', {}, x))));
  }
  if (r.error) out.push(h(doc, 'p', { class: 'attention', 'data-testid': 'call-error' }, errorWords(doc, r.error, '/error', foreign)));
  return out;
}

/** The card of call_agent: calling; waiting for the human (and where to decide); approved, rejected; done. */
export function renderCall(root: HTMLElement, card: CallCard): void {
  const doc = root.ownerDocument;
  clear(root);
  const who = card.result?.agent ?? card.input?.agent ?? card.input?.capability ?? 'an agent';
  const r = card.result;
  if (!r) {
    const first = 'If its worst case is above the mandate’s threshold, Holon asks you first.';
    append(root, [
      heading(doc, `Calling ${who}`),
      h(doc, 'p', { role: 'status', 'data-testid': 'call-running' }, first),
      whereToDecide(doc, null),
    ]);
  } else if (r.status === 'pending_approval') append(root, waiting(doc, who, r, card.approval));
  else append(root, done(doc, who, r, card.foreign ?? []));
}

function whereToDecide(doc: Document, approval: string | null): HTMLElement {
  return h(
    doc,
    'section',
    { class: 'where', 'aria-label': 'Where to decide', 'data-testid': 'where-to-decide' },
    h(doc, 'h2', { class: 'subtitle' }, 'Where to decide'),
    h(doc, 'ul', {}, ...WHERE_TO_DECIDE.map((w) => h(doc, 'li', {}, approval ? w.replace('ID', approval) : w))),
    h(doc, 'p', { class: 'muted', 'data-testid': 'no-approve-here' }, NO_APPROVE_HERE),
  );
}
