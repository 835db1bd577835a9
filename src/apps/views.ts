// The MCP App views: what a tool's result looks like inside the chat of a host that renders MCP Apps.
// Pure DOM, built with the webviews' helpers (createElement and text nodes only): every string another
// party chose — an agent's name and description, an error, a reason — is text, never HTML. Nothing here
// decides anything: the views only read (see main.ts for the one list of tools they call).
import { append, clear, h } from '../webview/render/dom.ts';

/** An amount as the server sends it: a decimal string and its currency (never a float). */
export interface MoneyJson {
  amount: string;
  currency: string;
}

/** One node of get_receipt's tree (its output schema, as far as the view reads it). */
export interface ReceiptNodeJson {
  receipt: string;
  agent: string | null;
  version: string | null;
  capability: string | null;
  status: string;
  worst_case: MoneyJson | null;
  cost: MoneyJson | null;
  total_cost: MoneyJson | null;
  reasons: string[];
  error: { code: string; message: string; charged: boolean } | null;
  approval: string | null;
  duration_ms: number | null;
  terms_hash?: string | null;
  /** The payment on a chain that paid this call, as Holon read the chain: where it landed, or why not. */
  settlement?: PaymentJson | null;
  children: ReceiptNodeJson[];
}

/** A payment on a chain, as every receipt carries it (the server's SettlementSchema, as far as the view reads it). */
export interface PaymentJson {
  id: string;
  status: string;
  /** Holon's own words: `landed in block N (network)`, or not landed and why. */
  summary: string;
  network: string;
  payee: string;
  amount: MoneyJson;
  /** The transaction Holon read the payment in, on the chain itself; null until it landed. */
  transaction: string | null;
  block: string | null;
  /** The transaction the payee named: as named when it has a transaction's form, else marked as the payee's data. */
  claimed_transaction: string | null;
}

/** A payment on a chain, as get_receipt returns it for a settlement id: the payment, and what it pays for. */
export interface SettlementJson extends PaymentJson {
  for: { kind: string; id: string; idempotency_key: string | null };
  held: MoneyJson;
}

/** get_receipt's result: a call's receipt tree, or a payment by its settlement id. */
export interface ReceiptJson {
  tree?: ReceiptNodeJson;
  total_cost?: MoneyJson | null;
  settlement?: SettlementJson;
}

/** The spend figures the server adds for the spend view (apps.ts, `holon/spend`). */
export interface SpendChartJson {
  mandate: string;
  currency: string;
  days: { day: string; spent: MoneyJson; permille: number }[];
  payees: { kind: string; id: string; spent: MoneyJson; permille: number }[];
  groups: { group: string; label: string; spent: MoneyJson }[];
  total: MoneyJson;
  per_day: MoneyJson | null;
  day_scale: MoneyJson;
  per_day_permille: number | null;
  budget: { total: MoneyJson; spent: MoneyJson; held: MoneyJson; remaining: MoneyJson };
  other_currencies: string[];
}

/** get_budget's or get_mandate's result, as far as the view reads them. */
export interface BudgetJson {
  mandate: string;
  currency?: string;
  limits?: { total: MoneyJson; per_day: MoneyJson | null; per_call: MoneyJson | null; approval_threshold: MoneyJson };
  caps?: { cap: string; limit: MoneyJson; drawn?: MoneyJson; remaining?: MoneyJson }[];
  approval_threshold?: MoneyJson;
  spent?: MoneyJson;
  held?: MoneyJson;
  remaining?: MoneyJson;
  spent_today?: MoneyJson;
}

/** One agent of search_agents. */
export interface AgentJson {
  agent: string;
  version: string;
  name: string;
  description: string;
  worst_case: MoneyJson | null;
  expected_cost_per_success: MoneyJson | null;
  success_rate: string | null;
  record_basis: string;
  mandate_decision: string;
  reasons: string[];
}

/** search_agents's result. */
export interface SearchJson {
  mandate: string;
  currency: string;
  agents: AgentJson[];
  excluded: { agent: string; version: string; reasons: string[] }[];
  total: { agents: number; excluded: number };
}

/** call_agent's result. */
export interface CallJson {
  receipt: string;
  status: string;
  agent: string | null;
  version: string | null;
  worst_case: MoneyJson | null;
  cost: MoneyJson | null;
  delegated_calls: number;
  approval: string | null;
  reasons: string[];
  error: { code: string; message: string } | null;
}

/** check_approval's result. */
export interface ApprovalJson {
  approval: string;
  status: 'pending' | 'approved' | 'rejected' | 'used' | 'expired';
  worst_case: MoneyJson;
  threshold: MoneyJson;
  expires_at: string;
  channel: string | null;
}

const SVG = 'http://www.w3.org/2000/svg';

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
 * Text another party chose arrives marked for the model as `<data from="party">…</data>` (src/core/kernel/foreign.ts,
 * `<` inside written `&lt;`). The view shows the text and names the party on hover — as text, never markup.
 */
export function unwrapData(text: string): { text: string; from: string | null } {
  const m = /^<data from="([^"]*)">([\s\S]*)<\/data>$/.exec(text);
  return m ? { text: (m[2] ?? '').replace(/&lt;/g, '<'), from: m[1] ?? null } : { text, from: null };
}

function foreign(doc: Document, text: string, attrs: Record<string, string> = {}): HTMLElement {
  const d = unwrapData(text);
  return h(doc, 'span', { ...attrs, title: d.from ? `Written by ${d.from}` : undefined }, d.text);
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

function receiptNode(doc: Document, n: ReceiptNodeJson, depth: number): HTMLElement {
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
  if (n.error) fact('Error', `${n.error.code}: ${unwrapData(n.error.message).text}${n.error.charged ? ' (charged)' : ''}`, 'node-error');
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
        ...n.children.map((c) => receiptNode(doc, c, depth + 1)),
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
export function renderReceipt(root: HTMLElement, r: ReceiptJson): void {
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
    h(doc, 'ul', { class: 'tree', role: 'list', 'data-testid': 'receipt-tree' }, receiptNode(doc, r.tree, 0)),
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
    fact('The payee named', foreign(doc, p.claimed_transaction, { class: 'hash' }), `${testId}-claimed`);
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

/** The 30-day chart as an SVG: a bar per day, the per-day limit as a line; each bar has a name and a title. */
function dayChart(doc: Document, c: SpendChartJson): Element {
  const width = 300;
  const height = 100;
  const step = width / Math.max(1, c.days.length);
  const svg = doc.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height + 14}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('class', 'chart');
  svg.setAttribute('data-testid', 'day-chart');
  svg.setAttribute(
    'aria-label',
    `Spend per day over the last ${c.days.length} days, ${money(c.total)} in all${c.per_day ? `; limit ${money(c.per_day)} a day` : ''}`,
  );
  c.days.forEach((d, i) => {
    // A day without spend keeps a sliver on the axis, so thirty days read as thirty days.
    const barHeight = Math.max((d.permille / 1000) * height, 0.8);
    const over = c.per_day_permille !== null && d.permille > c.per_day_permille;
    const rect = doc.createElementNS(SVG, 'rect');
    rect.setAttribute('x', (i * step + step * 0.15).toFixed(2));
    rect.setAttribute('y', (height - barHeight).toFixed(2));
    rect.setAttribute('width', (step * 0.7).toFixed(2));
    rect.setAttribute('height', barHeight.toFixed(2));
    rect.setAttribute('class', over ? 'bar over' : d.permille > 0 ? 'bar' : 'bar empty');
    rect.setAttribute('data-testid', 'day-bar');
    rect.setAttribute('data-day', d.day);
    rect.setAttribute('data-permille', String(d.permille));
    rect.setAttribute('aria-label', `${d.day}: ${money(d.spent)}`);
    const title = doc.createElementNS(SVG, 'title');
    title.textContent = `${d.day}: ${money(d.spent)}${over ? ' — over the daily limit' : ''}`;
    rect.appendChild(title);
    svg.appendChild(rect);
  });
  if (c.per_day_permille !== null && c.per_day) {
    const y = (height - (c.per_day_permille / 1000) * height).toFixed(2);
    const line = doc.createElementNS(SVG, 'line');
    for (const [k, v] of [
      ['x1', '0'],
      ['x2', String(width)],
      ['y1', y],
      ['y2', y],
      ['class', 'limit'],
      ['data-testid', 'limit-line'],
      ['data-permille', String(c.per_day_permille)],
    ])
      line.setAttribute(k as string, v as string);
    const title = doc.createElementNS(SVG, 'title');
    title.textContent = `Daily limit ${money(c.per_day)}`;
    line.appendChild(title);
    svg.appendChild(line);
  }
  const first = doc.createElementNS(SVG, 'text');
  first.setAttribute('x', '0');
  first.setAttribute('y', String(height + 12));
  first.setAttribute('class', 'axis');
  first.textContent = c.days[0]?.day ?? '';
  const last = doc.createElementNS(SVG, 'text');
  last.setAttribute('x', String(width));
  last.setAttribute('y', String(height + 12));
  last.setAttribute('text-anchor', 'end');
  last.setAttribute('class', 'axis');
  last.textContent = 'today';
  svg.append(first, last);
  return svg;
}

/** get_budget / get_mandate: the limits and what is spent of them; with the server's figures, the chart. */
export function renderSpend(root: HTMLElement, b: BudgetJson, chart: SpendChartJson | null): void {
  const doc = root.ownerDocument;
  clear(root);
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
  append(root, [
    heading(doc, `Budget of ${b.mandate}`),
    meter(doc, `Spent ${money(b.spent)} of ${money(total)}`, permilleOf(b.spent, total), 'budget-meter'),
    h(doc, 'dl', { class: 'kv' }, ...rows),
  ]);
  if (!chart) return;
  root.appendChild(heading(doc, `Spend per day, last ${chart.days.length} days`, 'h2'));
  root.appendChild(dayChart(doc, chart));
  root.appendChild(
    h(
      doc,
      'p',
      { class: 'muted', 'data-testid': 'chart-total' },
      `${money(chart.total)} in ${chart.days.length} days`,
      chart.per_day ? ` · limit ${money(chart.per_day)} a day` : '',
    ),
  );
  if (chart.other_currencies.length > 0) {
    root.appendChild(
      h(
        doc,
        'p',
        { class: 'attention', 'data-testid': 'chart-other-currencies' },
        `Not in the chart: spends in ${chart.other_currencies.join(', ')}.`,
      ),
    );
  }
  root.appendChild(heading(doc, 'By payee', 'h2'));
  if (chart.payees.length === 0)
    root.appendChild(h(doc, 'p', { class: 'muted', 'data-testid': 'no-payees' }, 'Nothing spent in these days.'));
  else
    root.appendChild(
      h(
        doc,
        'ul',
        { class: 'bars', 'data-testid': 'payee-bars' },
        ...chart.payees.map((p) =>
          h(
            doc,
            'li',
            { 'data-testid': 'payee-bar', 'data-payee': `${p.kind}:${p.id}` },
            h(doc, 'span', { class: 'mono label' }, p.id),
            meter(doc, `${p.id}: ${money(p.spent)}`, p.permille, 'payee-meter'),
            h(doc, 'span', { class: 'value' }, money(p.spent)),
          ),
        ),
      ),
    );
  if (chart.groups.length > 0) {
    root.appendChild(heading(doc, 'By kind of spend', 'h2'));
    root.appendChild(
      h(
        doc,
        'dl',
        { class: 'kv', 'data-testid': 'group-list' },
        ...chart.groups.flatMap((g) => [h(doc, 'dt', {}, g.label), h(doc, 'dd', { 'data-testid': `group-${g.group}` }, money(g.spent))]),
      ),
    );
  }
}

// ---- the comparison of agents ------------------------------------------------------------------------

/** search_agents: the allowed agents ranked by expected cost per success, then the excluded ones and why. */
export function renderAgents(root: HTMLElement, r: SearchJson): void {
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
          h(doc, 'div', { class: 'muted' }, foreign(doc, a.name, { 'data-testid': 'agent-name' })),
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
}

/** The card of call_agent: calling; waiting for the human (and where to decide); approved, rejected; done. */
export function renderCall(root: HTMLElement, card: CallCard): void {
  const doc = root.ownerDocument;
  clear(root);
  const who = card.result?.agent ?? card.input?.agent ?? card.input?.capability ?? 'an agent';
  const r = card.result;
  if (!r) {
    append(root, [
      heading(doc, `Calling ${who}`),
      h(
        doc,
        'p',
        { role: 'status', 'data-testid': 'call-running' },
        'If its worst case is above the mandate’s threshold, Holon asks you first.',
      ),
      whereToDecide(doc, null),
    ]);
    return;
  }
  if (r.status === 'pending_approval') {
    const a = card.approval;
    const state = a?.status ?? 'pending';
    const words: Record<string, string> = {
      pending: 'Waits for your decision',
      approved: `Approved${a?.channel ? ` (${a.channel})` : ''}: the agent may call again with this approval`,
      used: 'Approved and used',
      rejected: 'Rejected: the call will not run',
      expired: 'Expired before anyone decided: the agent must ask again',
    };
    append(root, [
      heading(doc, `${who} ${r.version ?? ''}`.trim()),
      h(
        doc,
        'p',
        {
          class: `decision decision-${state}`,
          role: 'status',
          'aria-live': 'polite',
          'data-testid': 'approval-state',
          'data-state': state,
        },
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
        ...(a
          ? [
              h(doc, 'dt', {}, 'Expires'),
              h(doc, 'dd', {}, h(doc, 'time', { datetime: a.expires_at }, new Date(a.expires_at).toLocaleString())),
            ]
          : []),
      ),
    ]);
    if (state === 'pending') root.appendChild(whereToDecide(doc, r.approval));
    return;
  }
  const delegated = r.delegated_calls > 0 ? `, ${r.delegated_calls} delegated call${r.delegated_calls === 1 ? '' : 's'}` : '';
  append(root, [
    heading(doc, `${who} ${r.version ?? ''}`.trim()),
    h(
      doc,
      'p',
      { class: 'lead', 'data-testid': 'call-summary' },
      statusBadge(doc, r.status, 'call-status'),
      ` ${REFUSED_WORDS[r.status] ?? `${costWords(r.status, r.cost, r.worst_case)}${delegated}`}`,
    ),
  ]);
  if (r.reasons.length > 0) {
    if (refused(r.status)) root.appendChild(heading(doc, 'Why', 'h2'));
    root.appendChild(h(doc, 'ul', { class: 'reasons', 'data-testid': 'call-reasons' }, ...r.reasons.map((x) => h(doc, 'li', {}, x))));
  }
  if (r.error)
    root.appendChild(
      h(
        doc,
        'p',
        { class: 'attention', 'data-testid': 'call-error' },
        `${unwrapData(r.error.code).text}: ${unwrapData(r.error.message).text}`,
      ),
    );
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
