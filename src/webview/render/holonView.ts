// The Holon view: the approvals that wait for the human, whatever their kind, the calls refused lately,
// and the selected mandate with its budget beside its account's (or what to do when there is none).
import type {
  ApprovalKind,
  BudgetInfo,
  HolonViewCommand,
  HolonViewState,
  PendingApproval,
  RefusalRow,
  RunCommand,
  SetupInfo,
  SpendInfo,
  StoreInfo,
} from '../protocol/holonView.ts';
import { approvalRows, MACHINE_SEPARATOR } from '../protocol/holonView.ts';
import type { Child } from './dom.ts';
import { append, button, clear, h, keepFocus, money, setDisabled, time } from './dom.ts';

/** Options of `renderHolonView`. */
export interface HolonViewOptions {
  /** After this long with no new state, an answered card's buttons come back (default 10 s). */
  resendAfterMs?: number;
}

interface ViewContext {
  post: (command: HolonViewCommand) => void;
  resendAfterMs: number;
}

/** The heading of an approval's collapsed detail. */
const DETAIL_HEADINGS: Partial<Record<ApprovalKind, string>> = { agent_call: 'Input', proposal: 'Diff' };

// Cards are built once per content and reused on later renders, so a state push (the budget moved) keeps
// the focus and which detail is expanded. Handlers read the context at click time.
const contexts = new WeakMap<HTMLElement, ViewContext>();
const signatures = new WeakMap<Element, string>();

/**
 * Renders the whole view into `root`. Never posts anything itself: approve and reject are posted only
 * from the human's clicks on the buttons it creates.
 */
export function renderHolonView(
  root: HTMLElement,
  state: HolonViewState,
  post: (command: HolonViewCommand) => void,
  options: HolonViewOptions = {},
): void {
  const doc = root.ownerDocument;
  let ctx = contexts.get(root);
  if (!ctx) contexts.set(root, (ctx = { post, resendAfterMs: 10_000 }));
  ctx.post = post;
  if (options.resendAfterMs !== undefined) ctx.resendAfterMs = options.resendAfterMs;
  const view = ctx;

  // Which ledger this is comes first when it matters: a team store (shared with others), or a store that
  // cannot be used (it explains an empty view below). This workspace's own journal, the default, goes
  // unsaid: "Ledger: this workspace's journal" was the first line a newcomer read, and told them nothing.
  const store = section(root, 'store');
  keepFocus(store, () => {
    clear(store);
    const line = renderStore(doc, state.store, view);
    store.hidden = line === null;
    if (line) store.appendChild(line);
  });

  // What waits for the human comes first: it is where the focus goes when the view is shown (focusFirst).
  const approvals = section(root, 'approvals');
  setHeading(approvals, 'Approvals', state.approvals.length);
  reconcile(
    list(approvals),
    state.approvals.map((approval) => ({
      key: approval.id,
      signature: JSON.stringify([approval, state.panelApprovals]),
      build: () => renderApproval(doc, approval, state.panelApprovals, view),
    })),
  );

  const nothing = section(root, 'nothing');
  clear(nothing);
  if (state.approvals.length === 0) {
    nothing.appendChild(h(doc, 'p', { class: 'note muted', 'data-testid': 'nothing-pending' }, 'Nothing waits for you.'));
  }

  // A refused call is news the human would otherwise never hear: only the agent was told.
  cards(root, 'refusals', 'Denied lately', state.refusals, (r) => renderRefusal(doc, r, view));

  const head = section(root, 'head');
  keepFocus(head, () => {
    clear(head);
    head.appendChild(
      state.mandate === null ? renderCallToAction(doc, state.setup, view) : renderBudget(doc, state.mandate, state.budget, view),
    );
  });

  // Spend at a glance: each bar is a button that opens the receipts behind it.
  const spend = section(root, 'spend');
  spend.hidden = state.spend === null;
  keepFocus(spend, () => {
    clear(spend);
    if (state.spend) append(spend, renderSpend(doc, state.spend, view));
  });

  const wallet = section(root, 'wallet');
  clear(wallet);
  wallet.appendChild(
    state.wallet
      ? h(
          doc,
          'p',
          { class: 'note', 'data-testid': 'wallet' },
          'Wallet ',
          h(
            doc,
            'span',
            {
              class: 'mono',
              'data-testid': 'wallet-address',
              title: "This workspace's wallet: it signs every payment to a seller, from the editor and from holon in its terminals",
            },
            state.wallet,
          ),
          state.holdings
            ? h(
                doc,
                'span',
                { class: 'muted', 'data-testid': 'wallet-holdings' },
                state.holdings.error
                  ? ` · ${state.holdings.network}: ${state.holdings.error}`
                  : ` · holds ${state.holdings.token} and ${state.holdings.native} on ${state.holdings.network}`,
              )
            : null,
        )
      : h(doc, 'p', { class: 'note muted', 'data-testid': 'no-wallet' }, 'No wallet: payments to sellers need one (Holon: Create Wallet).'),
  );
  if (state.mandateKey)
    wallet.appendChild(
      h(
        doc,
        'p',
        { class: 'note', 'data-testid': 'mandate-key' },
        'Mandate key ',
        h(
          doc,
          'span',
          { class: 'mono', title: `What merchants trust for the AP2 mandates Holon signs for you: ${state.mandateKey.jwk}` },
          state.mandateKey.kid,
        ),
        h(doc, 'span', { class: 'muted' }, ' · merchants verify your mandates with it (holon keys prints it)'),
      ),
    );

  cards(root, 'mail', 'New mail', state.mail, (m) =>
    h(
      doc,
      'article',
      { class: 'card', 'data-testid': `mail-${m.id}` },
      h(
        doc,
        'p',
        { class: 'card-kind' },
        `${m.from} → ${m.to}`,
        !m.woke && ' ',
        !m.woke && h(doc, 'span', { class: 'pill', title: 'Past 3 automatic replies: delivered without waking' }, 'loop guard'),
      ),
      h(doc, 'p', { class: 'card-title' }, m.subject),
      time(doc, m.at),
    ),
  );

  cards(root, 'payments', 'Payments on chain', state.payments, (p) =>
    h(
      doc,
      'article',
      { class: p.status === 'flagged' || p.status === 'releasing' ? 'card card-warning' : 'card', 'data-testid': `payment-${p.id}` },
      h(doc, 'p', { class: 'card-kind' }, `${p.amount} → ${p.payee} · ${p.mandate}`),
      h(doc, 'p', { class: 'card-title', 'data-testid': 'payment-summary' }, p.summary),
      h(doc, 'p', { class: 'mono muted', 'data-testid': 'payment-for' }, `${p.id} · for ${p.paysFor}`),
      p.transaction ? h(doc, 'p', { class: 'mono muted', 'data-testid': 'payment-transaction' }, p.transaction) : null,
      time(doc, p.at),
    ),
  );

  cards(root, 'artifacts', 'Artifacts', state.artifacts, (a) =>
    h(
      doc,
      'article',
      { class: 'card', 'data-testid': `artifact-${a.id}` },
      h(doc, 'p', { class: 'card-kind' }, `${a.kind} · ${a.author}`),
      h(doc, 'p', { class: 'card-title' }, a.title),
      h(
        doc,
        'div',
        { class: 'actions' },
        button(doc, 'Open', `open-artifact-${a.id}`, () => view.post({ type: 'openArtifact', id: a.id }), { secondary: true }),
      ),
    ),
  );
}

/**
 * Puts the focus on what waits for the human — the first approval's card, never one of its buttons (a
 * stray Enter must not decide) — when the view gets the focus and nothing in it has it: VS Code focuses
 * the view's frame when it is shown (Holon: Show Panel, the activity bar) or tabbed into, and the page's
 * body would otherwise take the first Tab. Returns whether it moved the focus.
 */
export function focusFirst(root: HTMLElement): boolean {
  const doc = root.ownerDocument;
  const active = doc.activeElement;
  if (active && active !== doc.body && active !== root && root.contains(active)) return false;
  const card = root.querySelector<HTMLElement>('.section-approvals article.approval-card');
  if (!card) return false;
  card.focus({ preventScroll: false });
  return doc.activeElement === card;
}

/** A section of cards, one per row (kept while the row is unchanged), with its heading and count; hidden when empty. */
function cards<T extends { id: string }>(root: HTMLElement, name: string, title: string, rows: T[], build: (row: T) => HTMLElement): void {
  const node = section(root, name);
  setHeading(node, title, rows.length);
  reconcile(
    list(node),
    rows.map((row) => ({ key: row.id, signature: JSON.stringify(row), build: () => build(row) })),
  );
}

function section(root: HTMLElement, name: string): HTMLElement {
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

function setHeading(sectionNode: HTMLElement, title: string, count: number): void {
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

function list(sectionNode: HTMLElement): HTMLElement {
  let node = childWith(sectionNode, (child) => child.classList.contains('cards'));
  if (!node) sectionNode.appendChild((node = h(sectionNode.ownerDocument, 'div', { class: 'cards' })));
  return node;
}

function childWith(parent: HTMLElement, test: (child: Element) => boolean): HTMLElement | null {
  return (Array.from(parent.children).find(test) as HTMLElement | undefined) ?? null;
}

interface Keyed {
  key: string;
  signature: string;
  build(): HTMLElement;
}

/** Keeps children whose key and content are unchanged, builds the others, and orders them like `items`. */
function reconcile(container: HTMLElement, items: Keyed[]): void {
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

function run(doc: Document, label: string, command: RunCommand['command'], view: ViewContext, secondary = false): HTMLElement {
  return button(doc, label, `run-${command}`, () => view.post({ type: 'run', command }), { secondary });
}

function renderStore(doc: Document, store: StoreInfo, view: ViewContext): HTMLElement | null {
  const where = store.kind === 'team' ? 'Team store ' : 'Ledger: ';
  const label = h(doc, 'span', { class: store.kind === 'team' ? 'mono' : undefined, 'data-testid': 'store-label' }, store.label);
  if (store.error === null) {
    if (store.kind === 'journal') return null;
    const title = 'Accounts, mandates and receipts are shared with your team (holon.store)';
    return h(doc, 'p', { class: 'note muted', 'data-testid': 'store', 'data-kind': store.kind, title }, where, label);
  }
  return h(
    doc,
    'div',
    { class: 'note error', 'data-testid': 'store', 'data-kind': store.kind, role: 'alert' },
    h(doc, 'p', {}, where, label, ' cannot be used.'),
    h(doc, 'p', { 'data-testid': 'store-error' }, store.error),
    store.kind === 'team' && h(doc, 'div', { class: 'actions' }, run(doc, 'Set Password', 'setStorePassword', view, true)),
  );
}

function renderCallToAction(doc: Document, setup: SetupInfo, view: ViewContext): HTMLElement {
  // Nothing set up yet: what to do first, in order, each step with its command and whether it is done.
  if (!setup.funded || setup.mandates === 0) {
    const step = (n: number, done: boolean, text: string, ...actions: HTMLElement[]): HTMLElement =>
      h(
        doc,
        'li',
        { class: done ? 'step done' : 'step', 'data-testid': `first-step-${n}`, 'data-done': done ? 'true' : 'false' },
        h(doc, 'p', {}, done ? `✓ ${text}` : text),
        actions.length > 0 && !done && h(doc, 'div', { class: 'actions' }, ...actions),
      );
    return h(
      doc,
      'div',
      { class: 'cta', 'data-testid': 'first-steps' },
      h(doc, 'h2', { class: 'section-title' }, 'Start here'),
      h(doc, 'p', {}, 'Holon lets an agent hire and pay other agents only within a mandate you chose. Three steps:'),
      h(
        doc,
        'ol',
        { class: 'steps' },
        step(1, setup.funded, 'Fund an account: the money your mandates spend.', run(doc, 'Fund Account', 'fundAccount', view)),
        step(
          2,
          setup.mandates > 0,
          'Create a mandate: who may spend it, on what, and above what you are asked.',
          run(doc, 'Create Mandate', 'createMandate', view),
        ),
        step(
          3,
          false,
          'Select it: Copilot then sees the MCP server "Holon · your mandate"; or connect Claude Code.',
          run(doc, 'Select Mandate', 'selectMandate', view, true),
          run(doc, 'Connect Claude Code', 'connectClaudeCode', view, true),
        ),
      ),
      h(doc, 'div', { class: 'actions' }, run(doc, 'Open the Walkthrough', 'getStarted', view, true)),
    );
  }
  return h(
    doc,
    'div',
    { class: 'cta', 'data-testid': 'cta' },
    h(doc, 'p', {}, 'No mandate is selected. A mandate says what an agent may do for you, and what it may spend.'),
    h(
      doc,
      'div',
      { class: 'actions stacked' },
      run(doc, 'Select Mandate', 'selectMandate', view),
      run(doc, 'Create Mandate', 'createMandate', view, true),
      run(doc, 'Fund Account', 'fundAccount', view, true),
      run(doc, 'Open the Walkthrough', 'getStarted', view, true),
    ),
  );
}

/**
 * A bar of the chart that opens the receipts behind it: a native button, so Tab reaches it, Enter and
 * Space press it, and a screen reader reads its name. Its size goes through the CSSOM (`size`): the
 * webview's CSP allows no inline style attribute.
 */
function bar(
  doc: Document,
  cls: string,
  label: string,
  testId: string,
  size: (fill: HTMLElement) => void,
  onOpen: () => void,
  ...inside: Child[]
): HTMLElement {
  const fill = h(doc, 'span', { class: 'fill' });
  size(fill);
  const track = inside.length > 0 ? h(doc, 'span', { class: 'track' }, fill) : fill;
  const node = h(
    doc,
    'button',
    { type: 'button', class: cls, 'aria-label': label, title: label, 'data-testid': testId },
    ...(inside.length > 0 ? [inside[0] ?? null, track, ...inside.slice(1)] : [track]),
  );
  node.addEventListener('click', onOpen);
  return node;
}

function renderSpend(doc: Document, spend: SpendInfo, view: ViewContext): HTMLElement[] {
  const days = spend.days.length;
  const limit = spend.perDay;
  const chart = h(doc, 'div', {
    class: 'chart',
    role: 'group',
    'data-testid': 'spend-chart',
    'aria-label': `Spend per day, the last ${days} days: ${spend.total.text}${limit ? `; limit ${limit.text} a day` : ''}`,
  });
  for (const d of spend.days) {
    const over = spend.perDayPermille !== null && d.permille > spend.perDayPermille;
    const height = (f: HTMLElement): void => void (f.style.height = `${d.permille / 10}%`);
    if (d.empty) {
      chart.appendChild(h(doc, 'span', { class: 'chart-bar empty', 'aria-hidden': 'true' }, h(doc, 'span', { class: 'fill' })));
      continue;
    }
    const label = `${d.day}: ${d.amount.text}${over ? ', over the daily limit' : ''}. Show these spends`;
    chart.appendChild(
      bar(doc, over ? 'chart-bar over' : 'chart-bar', label, `spend-day-${d.day}`, height, () =>
        view.post({ type: 'openSpend', day: d.day, payee: null }),
      ),
    );
  }
  if (limit && spend.perDayPermille !== null) {
    const line = h(doc, 'span', {
      class: 'chart-limit',
      'data-testid': 'spend-limit',
      title: `Daily limit ${limit.text}`,
      'aria-hidden': 'true',
    });
    line.style.bottom = `${spend.perDayPermille / 10}%`;
    chart.appendChild(line);
  }
  const out: HTMLElement[] = [
    h(doc, 'h2', { class: 'section-title' }, `Spend, last ${days} days`),
    chart,
    h(
      doc,
      'div',
      { class: 'chart-axis muted', 'aria-hidden': 'true' },
      h(doc, 'span', {}, spend.days[0]?.day ?? ''),
      h(doc, 'span', {}, 'today'),
    ),
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
  if (spend.otherCurrencies.length > 0)
    out.push(
      h(
        doc,
        'p',
        { class: 'note attention', 'data-testid': 'spend-other-currencies' },
        `Not in the chart: spends in ${spend.otherCurrencies.join(', ')}.`,
      ),
    );
  if (spend.payees.length === 0) {
    out.push(h(doc, 'p', { class: 'note muted', 'data-testid': 'spend-none' }, 'Nothing spent in these days.'));
    return out;
  }
  out.push(
    h(doc, 'h3', { class: 'subsection-title' }, 'By payee'),
    h(
      doc,
      'ul',
      { class: 'payee-bars', 'data-testid': 'spend-payees' },
      ...spend.payees.map((p) =>
        h(
          doc,
          'li',
          {},
          bar(
            doc,
            'payee-bar',
            `${p.id}: ${p.amount.text} in ${days} days. Show these spends`,
            `spend-payee-${p.key}`,
            (f) => void (f.style.width = `${p.permille / 10}%`),
            () => view.post({ type: 'openSpend', day: null, payee: p.key }),
            h(doc, 'span', { class: 'payee-label mono' }, p.id),
            h(doc, 'span', { class: 'payee-value' }, p.amount.text),
          ),
        ),
      ),
    ),
  );
  if (spend.groups.length > 0)
    out.push(
      h(
        doc,
        'dl',
        { class: 'kv', 'data-testid': 'spend-groups' },
        ...spend.groups.flatMap((g) => [h(doc, 'dt', {}, g.label), h(doc, 'dd', {}, money(doc, g.amount))]),
      ),
    );
  return out;
}

function renderBudget(doc: Document, mandate: string, budget: BudgetInfo | null, view: ViewContext): HTMLElement {
  const node = h(
    doc,
    'div',
    { class: 'budget', 'data-testid': 'budget' },
    h(
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
    ),
  );
  if (budget) {
    const account = budget.account;
    node.appendChild(
      h(
        doc,
        'dl',
        { class: 'kv' },
        ...row(doc, 'Remaining', money(doc, budget.remaining), 'budget-remaining', 'strong'),
        ...row(doc, 'Spent', money(doc, budget.spent), 'budget-spent', undefined, 'What this mandate spent'),
        ...row(doc, 'Held', money(doc, budget.held), 'budget-held', undefined, 'Reserved for calls that are running'),
        ...row(doc, 'Total', money(doc, budget.total), 'budget-total'),
        ...row(
          doc,
          'Per day',
          budget.perDay === null
            ? 'no daily limit'
            : h(doc, 'span', {}, money(doc, budget.spentToday), ' of ', money(doc, budget.perDay), ' today'),
          'budget-per-day',
          budget.perDay === null ? 'muted' : undefined,
        ),
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
        // The account beside the mandate: its other mandates spend from the same money.
        ...row(
          doc,
          `Account ${account.id}`,
          h(
            doc,
            'span',
            {},
            money(doc, account.available, { 'data-testid': 'account-available' }),
            ' left of ',
            money(doc, account.funded, { 'data-testid': 'account-funded' }),
            '; its other mandates spent ',
            money(doc, account.otherMandatesSpent, { 'data-testid': 'account-others-spent' }),
          ),
          'budget-account',
          undefined,
          'Every mandate of this account spends from its funds',
        ),
      ),
    );
    if (budget.limitedBy === 'account') {
      node.appendChild(
        h(
          doc,
          'p',
          { class: 'note', 'data-testid': 'budget-limited-by-account' },
          'Remaining is what account ',
          h(doc, 'span', { class: 'mono' }, account.id),
          " has left, less than this mandate's own budget: its other mandates spent ",
          money(doc, account.otherMandatesSpent),
          ' from it.',
        ),
      );
    }
  } else {
    node.appendChild(
      h(
        doc,
        'p',
        { class: 'note attention', 'data-testid': 'budget-unknown' },
        'The budget is unknown (an amount could not be converted).',
      ),
    );
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

function row(doc: Document, label: string, value: string | HTMLElement, testId: string, cls?: string, title?: string): HTMLElement[] {
  return [h(doc, 'dt', { title }, label), h(doc, 'dd', { 'data-testid': testId, class: cls }, value)];
}

function renderApproval(doc: Document, approval: PendingApproval, answerable: boolean, view: ViewContext): HTMLElement {
  const id = approval.id;
  const removes = approval.removals.length;
  let fact = 0;
  // The lines the Approve command's dialog shows too (approvalRows), each with its own test id.
  const values = approvalRows(approval).flatMap((r) => {
    let value: HTMLElement;
    switch (r.key) {
      case 'subject':
      case 'mandate':
        value = h(doc, 'dd', { class: 'mono', 'data-testid': `approval-${r.key}-${id}` }, r.text);
        break;
      case 'amount':
        value = h(
          doc,
          'dd',
          {},
          approval.amount && money(doc, approval.amount, { class: 'strong', 'data-testid': `approval-amount-${id}` }),
          approval.threshold !== null && ' above ',
          approval.threshold !== null && money(doc, approval.threshold, { 'data-testid': `approval-threshold-${id}` }),
        );
        break;
      case 'askedBy':
        value = h(
          doc,
          'dd',
          { 'data-testid': `approval-asked-by-${id}` },
          approval.askedBy,
          approval.machine !== null && MACHINE_SEPARATOR,
          approval.machine !== null && h(doc, 'span', { class: 'mono', 'data-testid': `approval-machine-${id}` }, approval.machine),
        );
        break;
      case 'requested':
        value = h(doc, 'dd', {}, time(doc, approval.requestedAt, `approval-requested-${id}`, r.text));
        break;
      case 'expires':
        value = h(doc, 'dd', {}, time(doc, approval.expiresAt, `approval-expires-${id}`, r.text));
        break;
      case 'fact':
        value = h(doc, 'dd', { 'data-testid': `approval-fact-${id}-${fact++}` }, r.text);
        break;
    }
    return [h(doc, 'dt', {}, r.label), value];
  });
  const card = h(
    doc,
    'article',
    {
      class: removes > 0 ? 'card approval-card removes' : 'card approval-card',
      'data-testid': `approval-${id}`,
      'data-kind': approval.kind,
      // Focusable by script only (focusFirst), so the next Tab reaches its buttons; named for a screen reader.
      tabindex: -1,
      'aria-label': `${approval.kindLabel}: ${approval.title}`,
    },
    h(
      doc,
      'p',
      { class: 'card-kind' },
      h(doc, 'span', { 'data-testid': `approval-kind-${id}` }, approval.kindLabel),
      removes > 0 && ' ',
      removes > 0 && h(doc, 'span', { class: 'pill danger', 'data-testid': `approval-removes-${id}` }, `Removes ${removes}`),
    ),
    h(doc, 'h3', { class: 'card-title', 'data-testid': `approval-title-${id}` }, approval.title),
    h(doc, 'dl', { class: 'kv' }, ...values),
  );
  // What would be lost is never folded away.
  if (removes > 0) {
    card.appendChild(
      h(
        doc,
        'ul',
        { class: 'removals', 'data-testid': `approval-removals-${id}`, 'aria-label': `Removes ${removes}` },
        ...approval.removals.map((line) => h(doc, 'li', {}, line)),
      ),
    );
  }
  if (approval.detail !== null) {
    card.appendChild(
      h(
        doc,
        'vscode-collapsible',
        { heading: DETAIL_HEADINGS[approval.kind] ?? 'Details', class: 'detail', 'data-testid': `approval-detail-toggle-${id}` },
        h(doc, 'pre', { class: 'code', 'data-testid': `approval-detail-${id}` }, approval.detail),
      ),
    );
  }

  // A proposal is decided after reading its diff; the panel shows it side by side, removals first.
  if (approval.kind === 'proposal') {
    card.appendChild(
      h(
        doc,
        'div',
        { class: 'actions' },
        button(doc, 'Show Diff', `diff-${id}`, () => view.post({ type: 'openProposal', id }), { secondary: true }),
      ),
    );
  }
  if (!approval.mayDecide) {
    card.appendChild(
      h(doc, 'p', { class: 'note muted', 'data-testid': `approval-not-yours-${id}` }, approval.decider ?? 'Waiting for an approver.'),
    );
    return card;
  }
  if (approval.decider !== null)
    card.appendChild(h(doc, 'p', { class: 'note muted', 'data-testid': `approval-decider-${id}` }, approval.decider));
  if (!answerable) {
    card.appendChild(
      h(
        doc,
        'p',
        { class: 'note muted', 'data-testid': `approval-elsewhere-${id}` },
        'Approvals are answered elsewhere (the panel channel is off): use Holon: Approve, or holon approve in a terminal.',
      ),
    );
    return card;
  }

  const status = h(doc, 'p', { class: 'card-status', role: 'status', 'data-testid': `approval-status-${id}`, hidden: true });
  const buttons: HTMLElement[] = [];
  const decide = (type: 'approve' | 'reject'): void => {
    view.post({ type, id });
    setDisabled(buttons, true);
    status.textContent = type === 'approve' ? 'Approved — waiting for Holon…' : 'Rejected — waiting for Holon…';
    status.hidden = false;
    // If the host never takes the card away (it failed to record the answer), let the human try again.
    doc.defaultView?.setTimeout(() => {
      if (!card.isConnected) return;
      setDisabled(buttons, false);
      status.hidden = true;
    }, view.resendAfterMs);
  };
  buttons.push(
    button(doc, 'Approve', `approve-${id}`, () => decide('approve'), {
      title: approval.amount === null ? approval.title : `${approval.title}, up to ${approval.amount.exact}`,
    }),
    button(doc, 'Reject', `reject-${id}`, () => decide('reject'), { secondary: true }),
  );
  card.appendChild(h(doc, 'div', { class: 'actions' }, ...buttons));
  card.appendChild(status);
  return card;
}

function renderRefusal(doc: Document, r: RefusalRow, view: ViewContext): HTMLElement {
  return h(
    doc,
    'article',
    { class: 'card refusal-card', 'data-testid': `refusal-${r.id}` },
    h(doc, 'p', { class: 'card-kind' }, 'Denied · ', time(doc, r.at, undefined, r.when)),
    h(doc, 'p', { class: 'card-title mono', 'data-testid': `refusal-what-${r.id}` }, r.what),
    h(doc, 'p', { class: 'note muted' }, 'under ', h(doc, 'span', { class: 'mono', 'data-testid': `refusal-mandate-${r.id}` }, r.mandate)),
    h(doc, 'ul', { class: 'reasons', 'data-testid': `refusal-reasons-${r.id}` }, ...r.reasons.map((reason) => h(doc, 'li', {}, reason))),
    // Most refusals are the mandate saying no: the way to change that is one click away.
    h(
      doc,
      'div',
      { class: 'actions' },
      button(doc, 'Edit Mandate', `refusal-edit-${r.id}`, () => view.post({ type: 'run', command: 'editMandate' }), { secondary: true }),
    ),
  );
}
