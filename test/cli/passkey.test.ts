/**
 * The human's passkey at the command line, played by Chromium's virtual authenticator on the page Holon
 * serves: `holon passkey add` registers it, and from then on an approval, funding, a rate or a mandate edit
 * is decided on that page only. What an agent with a shell tries instead — typing "y" into a pseudo-
 * terminal, sealing a decision with the installation key it can read — decides nothing, and says so.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { approvalEvent } from '../../src/core/approvals/slice.ts';
import { loadOrCreateSigner } from '../../src/core/store/keys.ts';
import type { JournalEvent } from '../../src/core/store/store.ts';
import { eventLine, linkEvents, seal } from '../../src/core/store/store.ts';
import type { PasskeyBrowser, VirtualCredential } from '../helpers/passkeyBrowser.ts';
import { noChromium, openPasskeyBrowser } from '../helpers/passkeyBrowser.ts';
import {
  approvals,
  atPage,
  ensureBuilt,
  holonIn,
  journalFile,
  mcpSession,
  readEvents,
  requestApproval,
  seededState,
  waitingOnPageInPty,
} from './cliHarness.ts';

/** Appends `events` to the journal as one transaction sealed with the installation key, as an agent with a shell can. */
function forge(state: string, events: { type: string; data: unknown }[]): void {
  const lines = fs
    .readFileSync(journalFile(state), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
  const last = JSON.parse(lines.at(-1)!) as JournalEvent;
  const linked = linkEvents(events, { seq: last.seq, hash: last.hash }, new Date().toISOString());
  seal(
    linked.map((l) => l.e),
    loadOrCreateSigner(state),
  );
  fs.appendFileSync(journalFile(state), linked.map((l) => `${eventLine(l)}\n`).join(''));
}

const statusOf = async (state: string, id: string): Promise<string | undefined> =>
  (await approvals(state)).find((a) => a.id === id)?.status;

describe("the human's passkey at the command line", { skip: noChromium }, () => {
  let browser: PasskeyBrowser;
  before(async () => {
    await ensureBuilt();
    browser = await openPasskeyBrowser();
  });
  after(() => browser?.close());

  test('holon passkey add registers it on the page; then only the page decides: a pseudo-terminal\'s "y" does not, the passkey does, and a decision sealed with the installation key is refused', async () => {
    const { dir: state, cleanup } = await seededState();
    try {
      // Two approvals an agent asks for, before the state is guarded.
      const session = await mcpSession(state, 'demo/sandbox', ['--approval-wait', '0', '--no-elicitation']);
      const ids: string[] = [];
      try {
        for (let i = 0; i < 3; i++) ids.push(await requestApproval(session));
      } finally {
        await session.close();
      }
      const [typed = '', paged = '', forged = ''] = ids;

      const add = atPage(state, ['passkey', 'add', '--label', 'laptop']);
      const credential: VirtualCredential = await browser.registerAt(await add.url);
      const added = await add.done;
      assert.equal(added.code, 0, added.stderr);
      assert.match(added.stdout, /Added passkey .* \(laptop\)\. From now on, only your passkey decides/);
      const listed = JSON.parse((await holonIn(state, ['passkey', 'list', '--json'])).stdout) as {
        guarded: boolean;
        passkeys: { label: string }[];
      };
      assert.equal(listed.guarded, true);
      assert.deepEqual(
        listed.passkeys.map((p) => p.label),
        ['laptop'],
      );

      // An agent with a shell: `holon approve` in a pseudo-terminal, "y" typed as soon as it waits.
      const pty = await waitingOnPageInPty(state, ['approve', typed]);
      pty.type('y\n');
      pty.type('yes\n');
      const lengthBefore = (await readEvents(state)).length;
      await pty.stop();
      assert.equal(await statusOf(state, typed), 'pending', 'typing decided nothing');
      assert.equal((await readEvents(state)).length, lengthBefore, 'and wrote nothing');

      // The human, on the page, with the passkey.
      const approve = atPage(state, ['approve', paged]);
      const outcome = await browser.decideAt(await approve.url, credential, 'confirm');
      assert.equal(outcome.state, 'done', outcome.status);
      const approved = await approve.done;
      assert.equal(approved.code, 0, approved.stderr);
      assert.equal(await statusOf(state, paged), 'approved');
      const events = await readEvents(state);
      const decided = events.findIndex((e) => e.type === 'approval.decided' && (e.data as { id: string }).id === paged);
      assert.equal(events[decided - 1]?.type, 'human.asserted', 'the decision is written behind its assertion');
      assert.equal((await holonIn(state, ['verify'])).code, 0, 'and every reader counts it');

      // The agent seals a decision of the third with the installation key: every reader refuses it.
      forge(state, [approvalEvent('approval.decided', { id: forged, decision: 'approved', channel: 'cli' })]);
      const verify = await holonIn(state, ['verify']);
      assert.notEqual(verify.code, 0);
      assert.match(verify.stdout + verify.stderr, /not_asserted/);
      const list = await holonIn(state, ['approvals', '--all', '--json']);
      assert.notEqual(list.code, 0, 'a journal with a forged decision is not read as if it were decided');
      assert.match(list.stderr, /only the human's passkey decides this/);
    } finally {
      cleanup();
    }
  });

  test("funding, a rate and a mandate edit are the passkey's too: refused without the page, written through it", async () => {
    const { dir: state, cleanup } = await seededState();
    try {
      const add = atPage(state, ['passkey', 'add']);
      const credential = await browser.registerAt(await add.url);
      assert.equal((await add.done).code, 0);

      // The page closes unanswered (the process ends): nothing written.
      const before = fs.readFileSync(journalFile(state));
      const fund = atPage(state, ['fund', 'demo', '1000']);
      await fund.url;
      fund.child.kill('SIGTERM');
      await fund.done;
      assert.ok(fs.readFileSync(journalFile(state)).equals(before), 'an unanswered page writes nothing');

      for (const args of [
        ['fund', 'demo', '3'],
        ['fx', 'USD', 'EUR', '0.95'],
        ['mandate', 'edit', 'demo/sandbox', '--threshold', '0.40'],
      ]) {
        const cmd = atPage(state, args);
        const outcome = await browser.decideAt(await cmd.url, credential, 'confirm');
        assert.equal(outcome.state, 'done', outcome.status);
        const r = await cmd.done;
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      }
      const budget = JSON.parse((await holonIn(state, ['mandate', 'show', 'demo/sandbox', '--json'])).stdout) as {
        approval_threshold: string;
      };
      assert.equal(budget.approval_threshold, '0.40');
      assert.equal((await holonIn(state, ['verify'])).code, 0);
    } finally {
      cleanup();
    }
  });
});
