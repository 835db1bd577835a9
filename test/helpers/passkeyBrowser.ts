/**
 * The tests' human at a ceremony page: the demo's own (examples/human/passkeyBrowser.ts), on a Chromium
 * the editor harness installs when it is missing.
 */
import type { PasskeyBrowser } from '../../examples/human/passkeyBrowser.ts';
import { openPasskeyBrowser as openOn } from '../../examples/human/passkeyBrowser.ts';
import { launchChromium } from '../editor/harness.ts';

export type { Authenticator, PageOutcome, PasskeyBrowser, VirtualCredential } from '../../examples/human/passkeyBrowser.ts';
export { attachAuthenticator, exportCredential, noChromium, pressOnPage } from '../../examples/human/passkeyBrowser.ts';

export function openPasskeyBrowser(): Promise<PasskeyBrowser> {
  return openOn(launchChromium);
}
