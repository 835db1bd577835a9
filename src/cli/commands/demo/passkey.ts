/**
 * The human's passkey decides (issue 34's guarded mode), played on a state of its own: the human registers
 * a passkey on Holon's page; the agent asks for a call over the threshold, then, with a shell of its own,
 * types `y` into `holon approve` at a pseudo-terminal, which decides nothing; the human approves on the
 * page with the passkey, and the call runs. Chromium's virtual authenticator (CDP) stands in for the
 * human's device, and the demo says so. The state is removed afterwards: its passkey lived in that
 * authenticator only, so nobody could decide anything in it again. Without Chromium the scenario says
 * why it is skipped; the rest of the demo never needs a browser.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { PasskeyBrowser, VirtualCredential } from '../../../../examples/human/passkeyBrowser.ts';
import { noChromium, openPasskeyBrowser } from '../../../../examples/human/passkeyBrowser.ts';
import type { Approval } from '../../../core/approvals/model.ts';
import { silentLogger, systemClock } from '../../../core/kernel/deps.ts';
import { openState } from '../../../core/holon.ts';
import { JOURNAL_FILE } from '../../../core/store/file/journal.ts';
import type { Demo } from './play.ts';
import { atTerminal, indent, section, textOf, withAgent, withState } from './play.ts';
import { session } from './session.ts';

const MANDATE = 'demo/sandbox';
/** The page's address, as the CLI prints it when it opens no browser itself. */
const PAGE = /open (http:\/\/localhost:\d+\/c\/[\w-]+\/)/;

const lastLine = (text: string): string => text.split('\n').at(-1) ?? '';

/** The human registers their passkey with `holon passkey add`, on the page it serves. */
async function addPasskey(demo: Demo, state: string, human: PasskeyBrowser): Promise<VirtualCredential> {
  demo.out('$ holon passkey add');
  const terminal = atTerminal(demo.holonBin, ['passkey', 'add', '--state', state], { HOLON_NO_BROWSER: '1' });
  const [, url] = await terminal.shown(PAGE);
  demo.out(`   the page: ${url!}`);
  const credential = await human.registerAt(url!);
  demo.out(`   │ ${lastLine(await terminal.done)}`);
  demo.out("   [Chromium's virtual authenticator, standing in for your device: an ES256 passkey, user verified]");
  return credential;
}

/**
 * Once the agent's call waits for the human: the agent's own shell types `y` into `holon approve`, then
 * the human answers the page that command serves, with the passkey.
 */
async function decidedOnPage(demo: Demo, state: string, human: PasskeyBrowser, credential: VirtualCredential): Promise<void> {
  const watcher = openState(state, { clock: systemClock, logger: silentLogger });
  try {
    const pending = await new Promise<Approval>((resolve) => {
      const check = (): void => {
        const a = Object.values(watcher.state.approvals).find((x) => x.status === 'pending');
        if (!a) return;
        unsubscribe();
        resolve(a);
      };
      const unsubscribe = watcher.subscribe(check);
      check();
    });
    demo.out(`\n   [the agent's own shell, at a pseudo-terminal]\n   $ script -qec 'holon approve ${pending.id}'   and types y`);
    const terminal = atTerminal(demo.holonBin, ['approve', pending.id, '--state', state], { HOLON_NO_BROWSER: '1' });
    const [, url] = await terminal.shown(PAGE);
    terminal.type('y\n');
    // The terminal echoes what was typed; the command never reads it.
    await terminal.shown(/^y$/m);
    demo.out(`   │ it asks for no y: the approval waits on ${url!}, and is still ${watcher.state.approvals[pending.id]!.status}`);
    demo.out(`\n   [the human, on that page: Confirm, with the passkey]`);
    const outcome = await human.decideAt(url!, credential, 'confirm');
    if (outcome.state !== 'done') throw new Error(`the page refused the human's answer: ${outcome.status}`);
    demo.out(`   │ the page: ${outcome.status}`);
    demo.out(`   │ ${lastLine(await terminal.done)}`);
  } finally {
    watcher.close();
  }
}

async function play(demo: Demo, state: string, human: PasskeyBrowser, client: Client): Promise<void> {
  const credential = await addPasskey(demo, state, human);
  const decided = decidedOnPage(demo, state, human, credential);
  decided.catch(() => undefined);
  const files = ['invoice-01.pdf', 'invoice-02.pdf'].map((f) => `holon://files/examples/${f}`);
  const args = { agent: 'holon-labs/invoice-pipeline', input: { files } };
  demo.out(`\n→ call_agent ${JSON.stringify(args)}`);
  const r = await client.callTool({ name: 'call_agent', arguments: args }, { timeout: 180_000, resetTimeoutOnProgress: true });
  await decided;
  demo.out(indent(textOf(r)));
  const status = (r.structuredContent as { status?: unknown } | undefined)?.status;
  if (status !== 'succeeded') throw new Error(`the call approved with the passkey ended ${String(status)}`);
  const asserted = fs
    .readFileSync(path.join(state, JOURNAL_FILE), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"human.asserted"')).length;
  const decisions = asserted === 1 ? 'decision' : 'decisions';
  demo.out(`   the journal holds ${asserted} ${decisions} of the passkey (human.asserted), signed over exactly what was decided`);
}

export async function passkeyScenario(demo: Demo): Promise<string[]> {
  section(demo.out, "The human's passkey decides (Chromium's virtual authenticator as the human's device)");
  if (noChromium) {
    demo.out(`   skipped: ${noChromium}`);
    return [];
  }
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'holon-demo-passkey-'));
  try {
    const quiet = { ...demo, out: () => undefined, stateDir: state };
    await withState(state, (store) => session.setUp!(store, quiet));
    demo.out(`   a state of its own, set up as above: ${state}`);
    const human = await openPasskeyBrowser();
    try {
      const agent = { mandate: MANDATE, client: 'holon-demo-agent', args: ['--approval-wait', '120'] };
      await withAgent(quiet, agent, (client) => play(demo, state, human, client), 'server log');
    } finally {
      await human.close();
    }
    return ['   A guarded state: holon passkey add upgrades yours (README, Security).'];
  } finally {
    fs.rmSync(state, { recursive: true, force: true });
  }
}
