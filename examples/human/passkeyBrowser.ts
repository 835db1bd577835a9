/**
 * The human at a ceremony page, played by Debian's Chromium with its virtual authenticator (CDP): the
 * authenticator holds a real P-256 key, verifies the "user" and signs, so the page and its server run
 * exactly as with a person and a security key. Each page gets its own authenticator; a passkey
 * registered on one is exported and added to the next, as a person carries theirs.
 *
 * The demo's human and the tests' are this one. playwright-core is a tool of the repository, loaded only
 * when a browser is opened: the built CLI carries none of it, and `holon demo` runs from a clone.
 */
import fs from 'node:fs';
import type { Browser, CDPSession, Page } from 'playwright-core';

/** Debian's Chromium, or the one HOLON_CHROMIUM names. */
export const CHROMIUM = process.env['HOLON_CHROMIUM'] ?? '/usr/bin/chromium';

/** Chromium flags that work headless in a container. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why no virtual human can be played here, or undefined when Chromium is installed. */
export const noChromium: string | undefined = fs.existsSync(CHROMIUM)
  ? undefined
  : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set HOLON_CHROMIUM)`;

/** Headless Chromium, as the tests and the demo drive it. */
export async function launchHeadless(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

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

/** A virtual authenticator on a page. */
export interface Authenticator {
  cdp: CDPSession;
  authenticatorId: string;
}

/**
 * Attaches a virtual authenticator to `page` through CDP, holding `credential` when given: the human's
 * security key, at that page. Attach it before the page asks for a passkey.
 */
export async function attachAuthenticator(page: Page, credential?: VirtualCredential): Promise<Authenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', { options: AUTHENTICATOR });
  if (credential) await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
  return { cdp, authenticatorId };
}

/** The one passkey an authenticator holds, exported to carry to later pages. */
export async function exportCredential({ cdp, authenticatorId }: Authenticator): Promise<VirtualCredential> {
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  const [credential] = credentials;
  if (!credential || credentials.length !== 1) throw new Error(`the authenticator holds ${credentials.length} credentials, not 1`);
  return credential;
}

/** Opens the ceremony page at `url`, presses `choice`, and waits until the page says it is done or shows an error. */
export async function pressOnPage(page: Page, url: string, choice: string): Promise<PageOutcome> {
  await page.goto(url);
  await page.locator(`button[data-choice="${choice}"]`).click();
  const settled = page.locator('main[data-state="done"], main[data-state="error"]');
  await settled.waitFor();
  const state = (await settled.getAttribute('data-state')) as PageOutcome['state'];
  return { state, status: (await page.locator('#status').textContent()) ?? '' };
}

/** A browser whose pages get a virtual authenticator: Chromium launched by `launch`. */
export async function openPasskeyBrowser(launch: () => Promise<Browser> = launchHeadless): Promise<PasskeyBrowser> {
  const browser: Browser = await launch();

  /** A page in a context of its own, with a virtual authenticator attached before anything loads. */
  async function withAuthenticator<T>(
    fn: (page: Page, authenticator: Authenticator) => Promise<T>,
    credential?: VirtualCredential,
  ): Promise<T> {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      return await fn(page, await attachAuthenticator(page, credential));
    } finally {
      await context.close();
    }
  }

  return {
    registerAt: (url) =>
      withAuthenticator(async (page, authenticator) => {
        const outcome = await pressOnPage(page, url, 'register');
        if (outcome.state !== 'done') throw new Error(`registration failed on the page: ${outcome.status}`);
        return exportCredential(authenticator);
      }),
    decideAt: (url, credential, choice) => withAuthenticator((page) => pressOnPage(page, url, choice), credential),
    open: async (url) => {
      const page = await browser.newPage();
      await page.goto(url);
      return page;
    },
    close: () => browser.close(),
  };
}
