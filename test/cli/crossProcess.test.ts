/**
 * Many processes on one journal: nothing is lost while a long call runs and other processes fund and
 * decide, and servers racing on one budget can never together spend more than it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import { installationPublicKey } from '../../src/core/store/keys.ts';
import type { Event, McpSession } from './cliHarness.ts';
import {
  approvals,
  approveAtTerminal,
  ensureBuilt,
  HANG_MS,
  holonIn,
  json,
  mcpSession,
  ok,
  pool,
  readEvents,
  requestApproval,
  seededState,
  SLOW_AGENT,
  SLOW_CATALOG,
  structured,
  textOf,
  units,
  until,
} from './cliHarness.ts';

before(ensureBuilt);

type MoneyJson = { amount: string; currency: string };
type Budget = { mandate: string; spent: MoneyJson; held: MoneyJson; remaining: MoneyJson; account: { funded: MoneyJson } };

/** The journal's sequence numbers run 1, 2, 3… with no gap and no repeat, each event linked to the one before. */
function assertContiguous(events: Event[]): void {
  events.forEach((e, i) => {
    assert.equal(e.seq, i + 1, `event on line ${i + 1} has seq ${e.seq}`);
    assert.equal(e.prev, i === 0 ? '' : events[i - 1]?.hash, `event ${e.seq} links to the one before`);
  });
}

async function closeAll(sessions: McpSession[]): Promise<void> {
  await Promise.allSettled(sessions.map((s) => s.close()));
}

describe('across processes', { concurrency: true }, () => {
  test('nothing is lost: a long call runs while other processes fund 100 times and decide approvals', { timeout: HANG_MS }, async () => {
    const { dir: state, root, cleanup } = await seededState();
    const sessions: McpSession[] = [];
    try {
      await ok(state, ['agents', 'add', SLOW_CATALOG]);
      await ok(state, ['mandate', 'create', 'demo/slow', '--capabilities', 'testing.*', '--total', '5', '--threshold', '0.50']);

      // The long call, through its own server: it runs until this test releases it, however long the rest takes.
      const slow = await mcpSession(state, 'demo/slow', ['--approval-wait', '0', '--no-elicitation']);
      sessions.push(slow);
      const release = path.join(root, 'release-the-slow-call');
      const slowCall = slow.client.callTool({ name: 'call_agent', arguments: { agent: SLOW_AGENT, input: { release } } });
      slowCall.catch(() => {});
      const started = await until(
        async () => (await readEvents(state)).find((e) => e.type === 'call.started' && (e.data['receipt'] as { agent: string }).agent === SLOW_AGENT),
        'the slow call to start',
      );
      const slowReceipt = (started.data['receipt'] as { id: string }).id;

      // Another server asks for approvals (it does not wait); the human decides them from other processes.
      const asker = await mcpSession(state, 'demo/sandbox', ['--approval-wait', '0', '--no-elicitation']);
      sessions.push(asker);
      const decisions = new Map<string, 'approved' | 'rejected'>();
      const decide = async (): Promise<void> => {
        for (let i = 0; i < 6; i++) {
          const id = await requestApproval(asker);
          if (i % 2 === 0) {
            const r = await approveAtTerminal(state, id, 'y', ['--no-run']);
            assert.equal(r.code, 0, r.output);
            decisions.set(id, 'approved');
          } else {
            const r = await holonIn(state, ['reject', id]);
            assert.equal(r.code, 0, r.stderr);
            decisions.set(id, 'rejected');
          }
        }
      };
      const fundAll = pool(Array.from({ length: 100 }, (_, i) => i), 4, async () => {
        const r = await holonIn(state, ['fund', 'demo', '0.01']);
        assert.equal(r.code, 0, r.stderr);
      });
      // Both must finish before anything is checked (or cleaned up), even if one of them fails.
      const settled = await Promise.allSettled([fundAll, decide()]);
      for (const r of settled) if (r.status === 'rejected') throw r.reason;

      // Everything above happened while the slow call was running.
      assert.equal(
        (await readEvents(state)).some((e) => e.type === 'call.settled' && e.data['receipt'] === slowReceipt),
        false,
        'the slow call is still running',
      );
      fs.writeFileSync(release, '');
      const done = await slowCall;
      const s = structured<{ status: string; receipt: string; cost: MoneyJson; output: string }>(done);
      assert.equal(s.status, 'succeeded', textOf(done));
      assert.equal(s.receipt, slowReceipt);
      assert.deepEqual(s.cost, { amount: '0.05', currency: 'EUR' });
      assert.match(s.output, /"released": true/, 'it answered because it was released');
      await closeAll(sessions);

      const events = await readEvents(state);
      assertContiguous(events);
      assert.equal(events.filter((e) => e.type === 'account.funded').length, 101);
      const budgets = await json<Budget[]>(state, ['budget']);
      const slowBudget = budgets.find((b) => b.mandate === 'demo/slow');
      assert.equal(units(slowBudget?.account.funded.amount ?? ''), units('5') + 100n * units('0.01'), 'funded exactly 5 + 100 × 0.01');
      assert.equal(slowBudget?.account.funded.amount, '6.00');
      assert.deepEqual(slowBudget?.spent, { amount: '0.05', currency: 'EUR' });
      assert.deepEqual(slowBudget?.held, { amount: '0.00', currency: 'EUR' });

      assert.equal(decisions.size, 6);
      const all = await approvals(state);
      for (const [id, decision] of decisions) {
        const a = all.find((x) => x.id === id);
        assert.equal(a?.status, decision, id);
        assert.equal(a?.channel, 'cli', id);
        const recorded = events.filter((e) => e.type === 'approval.decided' && e.data['id'] === id);
        // Once each, by this installation (the decider's key is recorded, and signs it).
        assert.deepEqual(
          recorded.map((e) => ({ ...e.data, sig: typeof e.data['sig'] })),
          [{ id, decision, channel: 'cli', by: installationPublicKey(state), sig: 'string' }],
        );
      }

      const receipt = await json<{ receipt: string; status: string; cost: MoneyJson; ended_at: string | null }>(state, ['receipts', slowReceipt]);
      assert.equal(receipt.status, 'succeeded');
      assert.deepEqual(receipt.cost, { amount: '0.05', currency: 'EUR' });
      assert.ok(receipt.ended_at);

      const v = await holonIn(state, ['verify']);
      assert.equal(v.code, 0, v.stdout);
      assert.match(v.stdout, new RegExp(`^OK: ${events.length} events`));
    } finally {
      await closeAll(sessions);
      cleanup();
    }
  });

  test('servers racing on one small budget cannot overspend it', { timeout: HANG_MS }, async () => {
    const { dir: state, cleanup } = await seededState();
    const sessions: McpSession[] = [];
    try {
      await ok(state, ['mandate', 'create', 'demo/race', '--total', '0.10', '--threshold', '0.50', '--capabilities', 'extraction.*', '--regions', 'EU']);
      for (let i = 0; i < 3; i++) sessions.push(await mcpSession(state, 'demo/race', ['--approval-wait', '0', '--no-elicitation']));

      const calls = sessions.flatMap((s) =>
        Array.from({ length: 4 }, () =>
          s.client.callTool({ name: 'call_agent', arguments: { agent: 'lena/table-extract-fr', input: { file: 'holon://files/examples/facture.pdf' } } }),
        ),
      );
      const results = (await Promise.all(calls)).map((r) => ({ ...structured<{ status: string; denials: { code: string }[]; cost: MoneyJson | null }>(r), text: textOf(r) }));
      await closeAll(sessions);

      const succeeded = results.filter((r) => r.status === 'succeeded');
      const others = results.filter((r) => r.status !== 'succeeded');
      assert.equal(results.length, 12);
      assert.ok(BigInt(succeeded.length) * units('0.035') <= units('0.10'), `${succeeded.length} calls of 0.035 EUR succeeded on a 0.10 EUR budget`);
      assert.equal(succeeded.length, 2, 'the budget holds exactly two worst cases of 0.035 EUR');
      for (const r of others) {
        assert.equal(r.status, 'denied', r.text);
        assert.ok(r.denials.some((d) => d.code === 'over_budget'), `a budget reason: ${JSON.stringify(r.denials)}`);
      }

      const [b] = await json<Budget[]>(state, ['budget', 'demo/race']);
      assert.ok(b);
      assert.ok(units(b.spent.amount) <= units('0.10'), `spent ${b.spent.amount}`);
      assert.equal(units(b.spent.amount), BigInt(succeeded.length) * units('0.035'));
      assert.equal(units(b.held.amount), 0n);

      const events = await readEvents(state);
      assertContiguous(events);
      assert.equal(events.filter((e) => e.type === 'call.started').length, succeeded.length, 'only the calls that fit were ever held');
      const v = await holonIn(state, ['verify']);
      assert.equal(v.code, 0, v.stdout);
    } finally {
      await closeAll(sessions);
      cleanup();
    }
  });
});
