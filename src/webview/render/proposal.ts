// The personnel change diff panel: removals first and in red, the gains and changes in words, then the
// personnel file side by side (old | new), and Merge / Reject.
import type { DiffRow, ProposalCommand, ProposalState } from '../protocol/proposal.ts';
import { append, button, clear, h, keepFocus, setDisabled } from './dom.ts';

const STATUS_TEXT: Record<ProposalState['status'], string> = {
  open: 'Waiting for you',
  merged: 'Merged: the personnel file now reads as on the right.',
  rejected: 'Rejected: nothing changed.',
  expired: 'Expired: nothing changed; the agent can propose it again.',
  missing: 'This proposal is no longer in the ledger of this workspace.',
};

/** Who the change is for and who proposed it, and how many capabilities it removes. */
function header(doc: Document, state: ProposalState): HTMLElement {
  const removes = state.removals.length;
  return h(
    doc,
    'header',
    { class: removes > 0 ? 'proposal-head removes' : 'proposal-head' },
    h(
      doc,
      'p',
      { class: 'card-kind' },
      state.kind === 'hire' ? 'Proposed hire' : 'Proposed personnel change',
      removes > 0 && ' ',
      removes > 0 && h(doc, 'span', { class: 'pill danger', 'data-testid': 'proposal-removes' }, `Removes ${removes}`),
    ),
    h(doc, 'h1', { class: 'proposal-title', 'data-testid': 'proposal-title' }, state.title),
    h(
      doc,
      'p',
      { class: 'muted' },
      'For ',
      h(doc, 'span', { class: 'mono', 'data-testid': 'proposal-slug' }, state.slug),
      ', proposed by ',
      h(doc, 'span', { class: 'mono' }, state.proposer),
    ),
  );
}

/** The change in words: what would be taken away first (never folded away), then the gains and changes, then why. */
function changes(doc: Document, state: ProposalState): HTMLElement[] {
  const removes = state.removals.length;
  const out: HTMLElement[] = [];
  if (removes > 0) {
    out.push(
      h(
        doc,
        'section',
        { class: 'section removals-block', 'data-testid': 'proposal-removals-block' },
        h(doc, 'h2', { class: 'section-title danger' }, `⚠ This removes ${removes} capabilit${removes === 1 ? 'y' : 'ies'}`),
        h(
          doc,
          'ul',
          { class: 'removals', 'data-testid': 'proposal-removals' },
          ...state.removals.map((r) => h(doc, 'li', {}, `loses: ${r}`)),
        ),
      ),
    );
  }
  if (state.gains.length + state.changes.length > 0) {
    const also = [...state.gains, ...state.changes].map((c) => h(doc, 'li', {}, c));
    out.push(
      h(
        doc,
        'section',
        { class: 'section' },
        h(doc, 'h2', { class: 'section-title' }, 'Also'),
        h(doc, 'ul', { class: 'changes', 'data-testid': 'proposal-changes' }, ...also),
      ),
    );
  }
  out.push(
    h(
      doc,
      'section',
      { class: 'section' },
      h(doc, 'h2', { class: 'section-title' }, 'Reason'),
      h(doc, 'p', { class: 'reason', 'data-testid': 'proposal-reason' }, state.reason),
    ),
  );
  return out;
}

/** Merge and Reject, for a proposal the human may still decide; `status` says what was clicked. */
function decision(
  doc: Document,
  state: ProposalState,
  approval: string,
  status: HTMLElement,
  post: (command: ProposalCommand) => void,
): HTMLElement {
  const buttons: HTMLElement[] = [];
  const decide = (type: 'merge' | 'reject'): void => {
    post({ type, approval });
    setDisabled(buttons, true);
    status.textContent = type === 'merge' ? 'Merging…' : 'Rejecting…';
  };
  buttons.push(
    button(doc, 'Merge', 'proposal-merge', () => decide('merge'), {
      title: state.removals.length > 0 ? `Merge, removing ${state.removals.join(', ')}` : 'Merge this change',
    }),
    button(doc, 'Reject', 'proposal-reject', () => decide('reject'), { secondary: true }),
  );
  return h(doc, 'div', { class: 'actions' }, ...buttons);
}

/** Renders the whole panel into `root`. Posts only from the human's clicks. */
export function renderProposal(root: HTMLElement, state: ProposalState, post: (command: ProposalCommand) => void): void {
  const doc = root.ownerDocument;
  keepFocus(root, () => {
    clear(root);
    const status = h(doc, 'p', { class: 'card-status', role: 'status', 'data-testid': 'proposal-status' }, STATUS_TEXT[state.status]);
    append(root, [header(doc, state), ...changes(doc, state), renderDiff(doc, state.rows), status]);
    if (state.decidable && state.approval !== null) root.appendChild(decision(doc, state, state.approval, status, post));
  });
}

function cell(doc: Document, text: string | null, cls: string): HTMLElement {
  return h(doc, 'td', { class: text === null ? `${cls} empty` : cls }, text ?? '');
}

function renderDiff(doc: Document, rows: DiffRow[]): HTMLElement {
  const body = h(doc, 'tbody', {});
  for (const r of rows) {
    const left = r.kind === 'removed' || r.kind === 'changed' ? 'del' : '';
    const right = r.kind === 'added' || r.kind === 'changed' ? 'ins' : '';
    body.appendChild(
      h(
        doc,
        'tr',
        { class: `diff-${r.kind}`, 'data-kind': r.kind },
        cell(doc, r.left, `diff-left ${left}`),
        cell(doc, r.right, `diff-right ${right}`),
      ),
    );
  }
  return h(
    doc,
    'section',
    { class: 'section' },
    h(doc, 'h2', { class: 'section-title' }, 'personnel.yaml'),
    h(
      doc,
      'table',
      { class: 'diff mono', 'data-testid': 'proposal-diff' },
      h(doc, 'thead', {}, h(doc, 'tr', {}, h(doc, 'th', {}, 'Now'), h(doc, 'th', {}, 'Proposed'))),
      body,
    ),
  );
}
