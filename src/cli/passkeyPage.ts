/**
 * The human's passkey at the terminal: every decision the CLI writes in a guarded state is asked on a page
 * Holon serves on this machine's loopback, opened in the system browser. A terminal, real or pseudo,
 * decides nothing there: what is typed into it is never read as an answer.
 */
import { spawn } from 'node:child_process';
import type { AskHuman } from '../core/decisions/asserted.ts';
import type { AskPasskey } from '../core/rails/delegation/humanAccount.ts';
import type { HolonState } from '../core/fold/state.ts';
import { askOnPage, askSignatureOnPage } from '../core/ceremony/ask.ts';
import type { Answer, Ceremony } from '../core/ceremony/page.ts';
import { stderrLogger as logger } from '../core/kernel/deps.ts';

/** Opens `url` in the system browser, unless HOLON_NO_BROWSER is set; a machine without one just prints it. */
function openBrowser(url: string): void {
  if (process.env['HOLON_NO_BROWSER']) return;
  const [cmd, ...args] =
    process.platform === 'darwin' ? ['open', url] : process.platform === 'win32' ? ['cmd', '/c', 'start', '', url] : ['xdg-open', url];
  try {
    const child = spawn(cmd!, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No browser to open: the URL is printed.
  }
}

/** Serves `ceremony` until the human answers on its page (or closes the process); says where it is. */
export async function atPage(ceremony: Ceremony): Promise<Answer> {
  const { openCeremony } = await import('../core/ceremony/page.ts');
  const page = await openCeremony(ceremony);
  try {
    logger.info(`${ceremony.title}: open ${page.url} and answer with your passkey`);
    openBrowser(page.url);
    return await page.answer;
  } finally {
    page.close();
  }
}

/** Asks the human's passkey for a decision the CLI is about to write, on the page. */
export const askAtPage: AskHuman<HolonState> = askOnPage(atPage);

/** Asks the human's passkey to sign a digest the chain checks (a mandate's delegation), on the page. */
export const askPasskeyAtPage: AskPasskey = askSignatureOnPage(atPage);
