/**
 * `holon approve` is for a human at a terminal: without one it refuses and nothing changes; at one
 * (util-linux `script` gives it a real TTY) "y" approves through the channel "cli" and "n" does not.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { installationPublicKey } from '../../src/core/store/keys.ts';
import {
  approvals,
  approveAtTerminal,
  ensureBuilt,
  HANG_MS,
  holon,
  holonIn,
  INVOICE_FILES,
  inTerminal,
  ledgerBytes,
  lastJson,
  mcpSession,
  readEvents,
  requestApproval,
  seededState,
  structured,
  until,
} from './cliHarness.ts';
import type { Run } from './cliHarness.ts';

before(ensureBuilt);

/** `holon approve` with "y" piped into it: what an agent's shell could try. */
function pipedApprove(state: string, id: string): Promise<Run> {
  return holon(['approve', id, '--state', state], { input: 'y\n' });
}

/** A fresh seeded state with `n` pending approvals, asked for by a server that does not wait (so each call is released to the agent). */
async function withApprovals(n: number, fn: (state: string, ids: string[]) => Promise<void>): Promise<void> {
  const { dir: state, cleanup } = await seededState();
  try {
    const ids: string[] = [];
    const session = await mcpSession(state, 'demo/sandbox', ['--approval-wait', '0', '--no-elicitation']);
    try {
      for (let i = 0; i < n; i++) ids.push(await requestApproval(session));
    } finally {
      await session.close();
    }
    await fn(state, ids);
  } finally {
    cleanup();
  }
}

const statusOf = async (state: string, id: string): Promise<{ status: string; channel?: string } | undefined> => (await approvals(state)).find((a) => a.id === id);

describe('approving', { concurrency: true }, () => {
  describe('holon approve', { concurrency: true }, () => {
    test('refuses without a terminal: non-zero exit, one line on stderr, the approval still pending, nothing written', () =>
      withApprovals(1, async (state, [id = '']) => {
        const bytes = await ledgerBytes(state);
        const plain = await holonIn(state, ['approve', id]);
        const piped = await pipedApprove(state, id);
        for (const r of [plain, piped]) {
          assert.ok(r.code !== 0 && r.code !== null, `exit ${r.code}`);
          const lines = r.stderr.split('\n').filter((l) => l.length > 0);
          assert.equal(lines.length, 1, r.stderr);
          assert.ok(lines[0]?.startsWith('holon: '), lines[0]);
        }
        // Half a terminal is not a terminal: stdin or stdout redirected inside a real TTY.
        const noStdin = await inTerminal(['approve', id, '--state', state], { shellSuffix: '< /dev/null' });
        const noStdout = await inTerminal(['approve', id, '--state', state], { shellSuffix: '> /dev/null' });
        for (const r of [noStdin, noStdout]) {
          assert.notEqual(r.code, 0, r.output);
          assert.ok(r.output.includes('holon: '), r.output);
          assert.ok(!r.output.includes('[y/N]'), 'nobody was asked');
        }
        const a = await statusOf(state, id);
        assert.equal(a?.status, 'pending');
        assert.equal(a?.channel, undefined);
        assert.ok((await ledgerBytes(state)).equals(bytes), 'a refused approve writes nothing');
      }));

    test('at a terminal, "n" does not approve', () =>
      withApprovals(1, async (state, [id = '']) => {
        const r = await approveAtTerminal(state, id, 'n', ['--no-run']);
        assert.equal(r.code, 1, r.output);
        // The human is shown what they would approve: the mandate, the exact version, the worst case, the calls it may delegate.
        for (const fact of ['demo/sandbox', 'holon-labs/invoice-pipeline 2.1.0', '3.10 EUR', '0.50 EUR', 'extraction.table × 4', id]) assert.ok(r.output.includes(fact), fact);
        assert.equal((await statusOf(state, id))?.status, 'pending');
        assert.equal((await readEvents(state)).filter((e) => e.type === 'approval.decided' && e.data['id'] === id).length, 0);
      }));

    test('at a terminal, "y" approves through the channel cli (--no-run leaves the call to the agent)', { timeout: HANG_MS }, () =>
      withApprovals(1, async (state, [id = '']) => {
        const r = await approveAtTerminal(state, id, 'y', ['--no-run', '--json']);
        assert.equal(r.code, 0, r.output);
        assert.deepEqual(lastJson(r.output), { approval: id, status: 'approved', waiting_server: false });
        const a = await statusOf(state, id);
        assert.equal(a?.status, 'approved');
        assert.equal(a?.channel, 'cli');
        const decided = (await readEvents(state)).filter((e) => e.type === 'approval.decided' && e.data['id'] === id);
        // The decision names the installation it came from, and is signed by it.
        const key = installationPublicKey(state);
        assert.ok(key);
        assert.deepEqual(decided.map((e) => ({ ...e.data, sig: typeof e.data['sig'] })), [{ id, decision: 'approved', channel: 'cli', by: key, sig: 'string' }]);

        // The agent re-submits the same call with the approval id; it runs once.
        const session = await mcpSession(state, 'demo/sandbox', ['--approval-wait', '0', '--no-elicitation']);
        try {
          const again = structured<{ status: string; delegated_calls: number }>(
            await session.client.callTool({ name: 'call_agent', arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICE_FILES }, approval: id } }),
          );
          assert.equal(again.status, 'succeeded');
          assert.equal(again.delegated_calls, 4);
          assert.equal((await statusOf(state, id))?.status, 'used');
        } finally {
          await session.close();
        }
      }));

    test('a decided approval cannot be decided again, from any command', () =>
      withApprovals(2, async (state, [approved = '', rejected = '']) => {
        const yes = await approveAtTerminal(state, approved, 'y', ['--no-run']);
        assert.equal(yes.code, 0, yes.output);
        const rj = await holonIn(state, ['reject', rejected, '--json']);
        assert.equal(rj.code, 0, rj.stderr);
        assert.deepEqual(JSON.parse(rj.stdout), { approval: rejected, status: 'rejected' });
        const bytes = await ledgerBytes(state);
        const cases: [string[], string][] = [
          [['approve', rejected], 'rejected'],
          [['reject', rejected], 'rejected'],
          [['reject', approved], 'approved'],
          [['approve', approved, '--no-run'], 'approved'],
        ];
        for (const [args, status] of cases) {
          const r = await holonIn(state, args);
          assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
          assert.ok(r.stderr.startsWith('holon: ') && r.stderr.includes(status), r.stderr);
          assert.equal(r.stderr.trim().split('\n').length, 1);
        }
        const atTerminal = await approveAtTerminal(state, rejected, 'y');
        assert.notEqual(atTerminal.code, 0);
        assert.doesNotMatch(atTerminal.output, /\[y\/N\]/, 'nothing to confirm');
        assert.ok((await ledgerBytes(state)).equals(bytes));
      }));
  });

  describe('where approvals may be answered, headless', { concurrency: true }, () => {
    test('holon approvals channels: shown to anyone, set only by a human at a terminal, and obeyed by approve', () =>
      withApprovals(1, async (state, [id = '']) => {
        assert.deepEqual(JSON.parse((await holonIn(state, ['approvals', 'channels', '--json'])).stdout), { channels: ['panel', 'elicitation', 'cli'] });
        const declined = await inTerminal(['approvals', 'channels', 'panel', '--state', state], { answer: 'n' });
        assert.equal(declined.code, 1, declined.output);
        const set = await inTerminal(['approvals', 'channels', 'panel', '--state', state, '--json'], { answer: 'y' });
        assert.equal(set.code, 0, set.output);
        assert.deepEqual(lastJson(set.output), { channels: ['panel'] });
        assert.deepEqual(JSON.parse((await holonIn(state, ['approvals', 'channels', '--json'])).stdout), { channels: ['panel'] });
        assert.deepEqual((await readEvents(state)).filter((e) => e.type === 'settings.updated').map((e) => e.data), [{ approval_channels: ['panel'] }]);
        // Terminal approvals are now off: approve refuses before asking anything.
        const refused = await approveAtTerminal(state, id, 'y');
        assert.notEqual(refused.code, 0, refused.output);
        assert.ok(!refused.output.includes('[y/N]'), 'nobody is asked');
        assert.equal((await statusOf(state, id))?.status, 'pending');
        // And back, by the same human.
        const all = await inTerminal(['approvals', 'channels', 'all', '--state', state], { answer: 'y' });
        assert.equal(all.code, 0, all.output);
        assert.deepEqual(JSON.parse((await holonIn(state, ['approvals', 'channels', '--json'])).stdout), { channels: ['cli', 'elicitation', 'panel'] });
      }));
  });

  describe('a server waiting for the human', { concurrency: true }, () => {
    test('a decision at the terminal reaches the waiting server, which runs the call', { timeout: HANG_MS }, async () => {
      const { dir: state, cleanup } = await seededState();
      // The server waits as a person's answer needs on a busy machine: the test's terminal is that person.
      const session = await mcpSession(state, 'demo/sandbox', ['--approval-wait', String(HANG_MS / 2 / 1000), '--no-elicitation']);
      try {
        const call = session.client.callTool({ name: 'call_agent', arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICE_FILES } } }, {
          resetTimeoutOnProgress: true,
          onprogress: () => {},
        });
        const requested = await until(async () => (await readEvents(state)).find((e) => e.type === 'approval.requested'), 'the server to ask for approval');
        const id = (requested.data['approval'] as { id: string }).id;
        const r = await approveAtTerminal(state, id, 'y', ['--json']);
        assert.equal(r.code, 0, r.output);
        assert.deepEqual(lastJson(r.output), { approval: id, status: 'approved', waiting_server: true });
        const done = structured<{ status: string; approval: string; delegated_calls: number }>(await call);
        assert.equal(done.status, 'succeeded');
        assert.equal(done.approval, id);
        assert.equal(done.delegated_calls, 4);
        const a = (await approvals(state)).find((x) => x.id === id);
        assert.equal(a?.status, 'used');
        assert.equal(a?.channel, 'cli');
      } finally {
        await session.close();
        cleanup();
      }
    });
  });
});
