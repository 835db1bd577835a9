/**
 * The human's passkey in the editor. A webview cannot use WebAuthn (its frame does not allow it), so a
 * decision in a guarded state, and a new passkey, are made on the page Holon serves on loopback, opened
 * in the browser. A notification says so, and can open the page again or cancel; what the page answers
 * is checked by the fold, never by the editor.
 *
 * Nothing here imports `vscode` at run time: the editor's browser and notifications come in as a `PageUi`,
 * so the unit tests run it against the real page with a software passkey.
 */
import type * as vscode from 'vscode';
import type { AskHuman } from '../core/decisions/asserted.ts';
import type { Answer, Ceremony, OpenCeremony } from '../core/ceremony/page.ts';
import type { HolonState } from '../core/fold/state.ts';
import type { Logger } from '../core/kernel/deps.ts';
import { askOnPage } from '../core/ceremony/ask.ts';

/** What the page needs of the editor. */
export interface PageUi {
  /** Opens `url` in the browser (VS Code maps localhost for a remote or web editor). */
  open(url: string): Promise<unknown>;
  /** A notification with buttons: the one clicked, or undefined when the human closed it. */
  notify(message: string, ...buttons: string[]): Promise<string | undefined>;
  logger: Logger;
}

export const OPEN_AGAIN = 'Open Page Again';
export const CANCEL = 'Cancel';

/** What the notification says while the page waits. */
export function waitingMessage(kind: Ceremony['kind']): string {
  return kind === 'register'
    ? 'Holon: create your passkey on the page that opened in your browser'
    : 'Holon: confirm with your passkey on the page that opened in your browser';
}

/** The editor's browser and notifications. */
export function editorPageUi(api: Pick<typeof vscode, 'env' | 'window' | 'Uri'>, logger: Logger): PageUi {
  return {
    open: async (url) => {
      const opened = await api.env.openExternal(api.Uri.parse(url));
      if (!opened) logger.warn(`the browser did not open ${url}: open it by hand, or use ${OPEN_AGAIN}`);
    },
    notify: async (message, ...buttons) => api.window.showInformationMessage(message, ...buttons),
    logger,
  };
}

/**
 * Serves `ceremony` until the human answers on its page, cancels, or closes the notification. Closing it
 * cancels too: VS Code cannot close a notification from code, so one left open would be the only way back
 * to a page nobody answers, and a decision must not wait for it forever.
 */
export async function atPageInEditor(ui: PageUi, ceremony: Ceremony): Promise<Answer> {
  // The page's server is loaded only when a passkey is used (esbuild.mjs's LAZY list).
  const { openCeremony } = await import('../core/ceremony/page.ts');
  const page = await openCeremony(ceremony);
  try {
    ui.logger.info(`${ceremony.title}: the page is ${page.url}`);
    await ui.open(page.url);
    void offer(ui, page, ceremony.kind).catch((err: unknown) => {
      ui.logger.error(`the passkey notification failed: ${String(err)}`);
      page.close();
    });
    return await page.answer;
  } finally {
    page.close();
  }
}

/** The notification beside an open page, until the page is answered or the human cancels. */
async function offer(ui: PageUi, page: OpenCeremony, kind: Ceremony['kind']): Promise<void> {
  let over = false;
  void page.answer.then(() => (over = true));
  while (!over) {
    const choice = await ui.notify(waitingMessage(kind), OPEN_AGAIN, CANCEL);
    // A notification outlives its page: once answered, its buttons do nothing.
    if (over) return;
    if (choice === OPEN_AGAIN) {
      await ui.open(page.url);
      continue;
    }
    ui.logger.info(choice === CANCEL ? 'the passkey page was cancelled' : 'the passkey notification was closed: the page is cancelled');
    page.close();
  }
}

/** Asks the human's passkey, on the page, for a decision the editor is about to write. */
export function askInEditor(ui: PageUi): AskHuman<HolonState> {
  return askOnPage((c) => atPageInEditor(ui, c));
}
