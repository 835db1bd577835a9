// An approval's card in the Holon view: what the human is asked to allow, in the same lines the Approve
// command's dialog shows, what would be lost (never folded away), and Approve / Reject for whoever may decide.
import type { ApprovalKind, PendingApproval } from '../../protocol/holonView.ts';
import { approvalRows, MACHINE_SEPARATOR } from '../../protocol/approvalRows.ts';
import { button, h, money, setDisabled, time } from '../dom.ts';
import type { ViewContext } from './context.ts';

/** The heading of an approval's collapsed detail. */
const DETAIL_HEADINGS: Partial<Record<ApprovalKind, string>> = { agent_call: 'Input', proposal: 'Diff' };

/** The lines the Approve command's dialog shows too (approvalRows), each with its own test id. */
function facts(doc: Document, approval: PendingApproval): HTMLElement[] {
  const id = approval.id;
  let fact = 0;
  return approvalRows(approval).flatMap((r) => {
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
}

/** The card itself: its kind (and how much it removes), its title and its facts. */
function card(doc: Document, approval: PendingApproval): HTMLElement {
  const id = approval.id;
  const removes = approval.removals.length;
  return h(
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
    h(doc, 'dl', { class: 'kv' }, ...facts(doc, approval)),
  );
}

/** What the card shows below its facts: the removals, the detail, and a proposal's diff. */
function details(doc: Document, approval: PendingApproval, view: ViewContext): HTMLElement[] {
  const id = approval.id;
  const removes = approval.removals.length;
  const out: HTMLElement[] = [];
  // What would be lost is never folded away.
  if (removes > 0) {
    const attrs = { class: 'removals', 'data-testid': `approval-removals-${id}`, 'aria-label': `Removes ${removes}` };
    out.push(h(doc, 'ul', attrs, ...approval.removals.map((line) => h(doc, 'li', {}, line))));
  }
  if (approval.detail !== null) {
    out.push(
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
    const diff = button(doc, 'Show Diff', `diff-${id}`, () => view.post({ type: 'openProposal', id }), { secondary: true });
    out.push(h(doc, 'div', { class: 'actions' }, diff));
  }
  return out;
}

/**
 * Approve and Reject, and what the card says while the host records the answer. If the host never takes
 * the card away (it failed to record the answer), the buttons come back so the human can try again.
 */
function decision(doc: Document, node: HTMLElement, approval: PendingApproval, view: ViewContext): HTMLElement[] {
  const id = approval.id;
  const status = h(doc, 'p', { class: 'card-status', role: 'status', 'data-testid': `approval-status-${id}`, hidden: true });
  const buttons: HTMLElement[] = [];
  const decide = (type: 'approve' | 'reject'): void => {
    view.post({ type, id });
    setDisabled(buttons, true);
    status.textContent = type === 'approve' ? 'Approved — waiting for Holon…' : 'Rejected — waiting for Holon…';
    status.hidden = false;
    doc.defaultView?.setTimeout(() => {
      if (!node.isConnected) return;
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
  return [h(doc, 'div', { class: 'actions' }, ...buttons), status];
}

/** An approval's card; `answerable` is whether the panel is a channel that may answer approvals. */
export function renderApproval(doc: Document, approval: PendingApproval, answerable: boolean, view: ViewContext): HTMLElement {
  const id = approval.id;
  const node = card(doc, approval);
  node.append(...details(doc, approval, view));
  if (!approval.mayDecide) {
    const who = approval.decider ?? 'Waiting for an approver.';
    node.appendChild(h(doc, 'p', { class: 'note muted', 'data-testid': `approval-not-yours-${id}` }, who));
    return node;
  }
  if (approval.decider !== null)
    node.appendChild(h(doc, 'p', { class: 'note muted', 'data-testid': `approval-decider-${id}` }, approval.decider));
  if (!answerable) {
    const elsewhere = 'Approvals are answered elsewhere (the panel channel is off): use Holon: Approve, or holon approve in a terminal.';
    node.appendChild(h(doc, 'p', { class: 'note muted', 'data-testid': `approval-elsewhere-${id}` }, elsewhere));
    return node;
  }
  node.append(...decision(doc, node, approval, view));
  return node;
}
