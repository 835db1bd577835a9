/**
 * The human at a ceremony page, played by Debian's Chromium with its virtual authenticator (CDP): the
 * authenticator holds a real P-256 key, verifies the "user" and signs, so the page and its server run
 * exactly as with a person and a security key. Each page gets its own authenticator; a passkey
 * registered on one is exported and added to the next, as a person carries theirs.
 */
import fs from 'node:fs';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { CHROMIUM, launchChromium } from '../editor/harness.ts';

/** A passkey as Chromium's virtual authenticator exports it (`WebAuthn.getCredentials`). */
export interface VirtualCredential {
  /** The credential id, base64 (not base64url), as CDP gives binary fields. */
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  /** The private key, PKCS#8 DER, base64. */
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

/** Why the passkey tests cannot run here, or undefined when Chromium is installed. */
export const noChromium: string | undefined = fs.existsSync(CHROMIUM)
  ? undefined
  : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set HOLON_CHROMIUM)`;

/** The page's final state: `done` with its sentence, or `error` with what it showed the human. */
export interface PageOutcome {
  state: 'done' | 'error';
  status: string;
}

export interface PasskeyBrowser {
  /** Registers a new passkey on the page at `url`; returns it as exported, to carry to later pages. */
  registerAt(url: string): Promise<VirtualCredential>;
  /** Opens the page at `url` with `credential` in a fresh authenticator and presses `choice`. */
  decideAt(url: string, credential: VirtualCredential, choice: string): Promise<PageOutcome>;
  /** A plain page, no authenticator: for reading what the page shows. Closed with the browser. */
  open(url: string): Promise<Page>;
  close(): Promise<void>;
}

const AUTHENTICATOR = {
  protocol: 'ctap2',
  transport: 'internal',
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: true,
  automaticPresenceSimulation: true,
} as const;

export async function openPasskeyBrowser(): Promise<PasskeyBrowser> {
  const browser: Browser = await launchChromium();

  /** A page in a context of its own, with a virtual authenticator attached before anything loads. */
  async function withAuthenticator<T>(fn: (page: Page, cdp: CDPSession, authenticatorId: string) => Promise<T>): Promise<T> {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', { options: AUTHENTICATOR });
      return await fn(page, cdp, authenticatorId);
    } finally {
      await context.close();
    }
  }

  /** Presses the button and waits until the page says it is done or shows an error. */
  async function press(page: Page, url: string, choice: string): Promise<PageOutcome> {
    await page.goto(url);
    await page.locator(`button[data-choice="${choice}"]`).click();
    const settled = page.locator('main[data-state="done"], main[data-state="error"]');
    await settled.waitFor();
    const state = (await settled.getAttribute('data-state')) as PageOutcome['state'];
    return { state, status: (await page.locator('#status').textContent()) ?? '' };
  }

  return {
    registerAt: (url) =>
      withAuthenticator(async (page, cdp, authenticatorId) => {
        const outcome = await press(page, url, 'register');
        if (outcome.state !== 'done') throw new Error(`registration failed on the page: ${outcome.status}`);
        const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
        const [credential] = credentials;
        if (!credential || credentials.length !== 1) throw new Error(`the authenticator holds ${credentials.length} credentials, not 1`);
        return credential;
      }),
    decideAt: (url, credential, choice) =>
      withAuthenticator(async (page, cdp, authenticatorId) => {
        await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
        return press(page, url, choice);
      }),
    open: async (url) => {
      const page = await browser.newPage();
      await page.goto(url);
      return page;
    },
    close: () => browser.close(),
  };
}
