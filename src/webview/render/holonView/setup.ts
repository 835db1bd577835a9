// What the Holon view says about how things are set up: which ledger this is when that matters, the
// first steps when nothing is set up yet (or what to do when no mandate is selected), and the wallet.
import type { HolonViewState, SetupInfo, StoreInfo } from '../../protocol/holonView.ts';
import { h } from '../dom.ts';
import type { ViewContext } from './context.ts';
import { run } from './context.ts';

/**
 * Which ledger this is, when it matters: a team store (shared with others), or a store that cannot be used
 * (it explains an empty view below). This workspace's own journal, the default, goes unsaid (null).
 */
export function renderStore(doc: Document, store: StoreInfo, view: ViewContext): HTMLElement | null {
  const where = store.kind === 'team' ? 'Team store ' : 'Ledger: ';
  const label = h(doc, 'span', { class: store.kind === 'team' ? 'mono' : undefined, 'data-testid': 'store-label' }, store.label);
  if (store.loading) {
    // Until then every other section would show an empty state as if it were this workspace's.
    const text = store.kind === 'team' ? ['Connecting to the team store ', label, '…'] : ['Opening ', label, '…'];
    return h(doc, 'p', { class: 'note muted', 'data-testid': 'store-loading', 'data-kind': store.kind, role: 'status' }, ...text);
  }
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

/** Nothing set up yet: what to do first, in order, each step with its command and whether it is done. */
function firstSteps(doc: Document, setup: SetupInfo, view: ViewContext): HTMLElement {
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

/** No mandate is selected: the first steps when nothing is set up yet, else what to do now. */
export function renderCallToAction(doc: Document, setup: SetupInfo, view: ViewContext): HTMLElement {
  if (!setup.funded || setup.mandates === 0) return firstSteps(doc, setup, view);
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

/** The workspace's wallet and what it holds, or that payments to sellers need one. */
function wallet(doc: Document, state: HolonViewState): HTMLElement {
  if (!state.wallet)
    return h(
      doc,
      'p',
      { class: 'note muted', 'data-testid': 'no-wallet' },
      'No wallet: payments to sellers need one (Holon: Create Wallet).',
    );
  const holdings = state.holdings;
  return h(
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
    holdings
      ? h(
          doc,
          'span',
          { class: 'muted', 'data-testid': 'wallet-holdings' },
          holdings.error
            ? ` · ${holdings.network}: ${holdings.error}`
            : ` · holds ${holdings.token} and ${holdings.native} on ${holdings.network}`,
        )
      : null,
  );
}

/** The wallet, and the key merchants verify the human's AP2 mandates with. */
export function renderWallet(doc: Document, state: HolonViewState): HTMLElement[] {
  const out = [wallet(doc, state)];
  if (state.mandateKey)
    out.push(
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
  return out;
}
