// Each panel wired to the host: which protocol its messages follow, and how it renders.
import type { WebviewApi, ViewSession } from './host.ts';
import { startView } from './host.ts';
import type { HolonViewState } from './protocol/holonView.ts';
import { holonViewProtocol } from './protocol/holonView.ts';
import type { MandateEditorState } from './protocol/mandateEditor.ts';
import { mandateEditorProtocol } from './protocol/mandateEditor.ts';
import type { ProposalState } from './protocol/proposal.ts';
import { proposalProtocol } from './protocol/proposal.ts';
import type { ReceiptsState } from './protocol/receipts.ts';
import { receiptsProtocol } from './protocol/receipts.ts';
import { renderLoading } from './render/dom.ts';
import { focusFirst, renderHolonView } from './render/holonView.ts';
import { renderMandateEditor } from './render/mandateEditor.ts';
import { renderProposal } from './render/proposal.ts';
import { renderReceipts } from './render/receipts.ts';

/** The element each panel renders into: `<div id="root"></div>` in the page's body. */
export const ROOT_ID = 'root';

/** Runs `start` once the page's body is parsed (at once if it already is), whatever the script tag's position. */
export function whenLoaded(win: Window, start: () => void): void {
  if (win.document.readyState === 'loading') win.document.addEventListener('DOMContentLoaded', start, { once: true });
  else start();
}

function rootOf(win: Window): HTMLElement {
  const root = win.document.getElementById(ROOT_ID);
  if (!root) throw new Error(`the page has no #${ROOT_ID}`);
  return root;
}

/**
 * Starts the Holon view (activity bar). When VS Code gives it the focus (it is shown, or tabbed into),
 * the focus goes to what waits for the human (focusFirst); if the view's first state has not arrived
 * yet, as it is being shown, once it has.
 */
export function mountHolonView(api: WebviewApi, win: Window, root: HTMLElement = rootOf(win)): ViewSession<HolonViewState> {
  let focusOwed = false;
  win.addEventListener('focus', () => {
    focusOwed = !focusFirst(root) && root.querySelector('[data-section]') === null;
  });
  return startView({
    api,
    window: win,
    protocol: holonViewProtocol,
    render: (state, post) => {
      if (!state) return renderLoading(root);
      renderHolonView(root, state, post);
      if (focusOwed && win.document.hasFocus()) focusFirst(root);
      focusOwed = false;
    },
  });
}

/** Starts the receipts panel. */
export function mountReceipts(api: WebviewApi, win: Window, root: HTMLElement = rootOf(win)): ViewSession<ReceiptsState> {
  return startView({
    api,
    window: win,
    protocol: receiptsProtocol,
    render: (state, post) => (state ? renderReceipts(root, state, post) : renderLoading(root)),
  });
}

/** Starts the mandate form. The human's edits are saved with the state, so a reload keeps them. */
export function mountMandateEditor(api: WebviewApi, win: Window, root: HTMLElement = rootOf(win)): ViewSession<MandateEditorState> {
  return startView({
    api,
    window: win,
    protocol: mandateEditorProtocol,
    render: (state, post, session) =>
      state
        ? renderMandateEditor(root, state, post, (values) => {
            const shown = session.state;
            if (shown) session.update({ ...shown, values, saved: false });
          })
        : renderLoading(root),
  });
}

/** Starts the personnel change diff panel. */
export function mountProposal(api: WebviewApi, win: Window, root: HTMLElement = rootOf(win)): ViewSession<ProposalState> {
  return startView({
    api,
    window: win,
    protocol: proposalProtocol,
    render: (state, post) => (state ? renderProposal(root, state, post) : renderLoading(root)),
  });
}
