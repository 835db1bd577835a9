// The Holon view: the approvals that wait for the human, whatever their kind, the calls refused lately,
// and the selected mandate with its budget beside its account's (or what to do when there is none).
// Each part of the panel is drawn in its own file under holonView/; this one lays them out in order.
import type { HolonViewCommand, HolonViewState } from '../protocol/holonView.ts';
import { append, clear, h, keepFocus } from './dom.ts';
import { renderArtifact, renderChainPayment, renderMail, renderRefusal } from './holonView/activity.ts';
import { renderApproval } from './holonView/approval.ts';
import { renderBudget } from './holonView/budget.ts';
import type { ViewContext } from './holonView/context.ts';
import { cards, list, reconcile, section, setHeading } from './holonView/sections.ts';
import { renderCallToAction, renderStore, renderWallet } from './holonView/setup.ts';
import { renderSpend } from './holonView/spend.ts';

/** Options of `renderHolonView`. */
export interface HolonViewOptions {
  /** After this long with no new state, an answered card's buttons come back (default 10 s). */
  resendAfterMs?: number;
}

// Cards are built once per content and reused on later renders, so a state push (the budget moved) keeps
// the focus and which detail is expanded. Handlers read the context at click time.
const contexts = new WeakMap<HTMLElement, ViewContext>();

/** The root's context, kept across renders, with this render's `post` and options. */
function contextOf(root: HTMLElement, post: (command: HolonViewCommand) => void, options: HolonViewOptions): ViewContext {
  let ctx = contexts.get(root);
  if (!ctx) contexts.set(root, (ctx = { post, resendAfterMs: 10_000 }));
  ctx.post = post;
  if (options.resendAfterMs !== undefined) ctx.resendAfterMs = options.resendAfterMs;
  return ctx;
}

/** Rebuilds `name`'s section from `build` (nothing: hidden), giving the focus back to where it was. */
function rebuilt(root: HTMLElement, name: string, build: () => HTMLElement[] | HTMLElement | null): void {
  const node = section(root, name);
  keepFocus(node, () => {
    clear(node);
    const built = build();
    node.hidden = built === null;
    if (built) append(node, Array.isArray(built) ? built : [built]);
  });
}

/** What waits for the human, first: it is where the focus goes when the view is shown (focusFirst). */
function approvals(root: HTMLElement, state: HolonViewState, view: ViewContext): void {
  const doc = root.ownerDocument;
  const node = section(root, 'approvals');
  setHeading(node, 'Approvals', state.approvals.length);
  reconcile(
    list(node),
    state.approvals.map((approval) => ({
      key: approval.id,
      signature: JSON.stringify([approval, state.panelApprovals]),
      build: () => renderApproval(doc, approval, state.panelApprovals, view),
    })),
  );
  const nothing = section(root, 'nothing');
  clear(nothing);
  if (state.approvals.length === 0 && !state.store.loading) {
    nothing.appendChild(h(doc, 'p', { class: 'note muted', 'data-testid': 'nothing-pending' }, 'Nothing waits for you.'));
  }
}

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
  const view = contextOf(root, post, options);
  rebuilt(root, 'store', () => renderStore(doc, state.store, view));
  approvals(root, state, view);
  // A refused call is news the human would otherwise never hear: only the agent was told.
  cards(root, 'refusals', 'Denied lately', state.refusals, (r) => renderRefusal(doc, r, view));
  // While the store opens, the empty state is not the human's: no first steps to take, no "nothing waits".
  rebuilt(root, 'head', () =>
    state.store.loading
      ? null
      : state.mandate === null
        ? renderCallToAction(doc, state.setup, view)
        : renderBudget(doc, state.mandate, state.budget, view),
  );
  // Spend at a glance: each bar is a button that opens the receipts behind it.
  rebuilt(root, 'spend', () => (state.spend ? renderSpend(doc, state.spend, view) : null));
  const wallet = section(root, 'wallet');
  clear(wallet);
  append(wallet, renderWallet(doc, state));
  cards(root, 'mail', 'New mail', state.mail, (m) => renderMail(doc, m));
  cards(root, 'payments', 'Payments on chain', state.payments, (p) => renderChainPayment(doc, p));
  cards(root, 'artifacts', 'Artifacts', state.artifacts, (a) => renderArtifact(doc, a, view));
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
