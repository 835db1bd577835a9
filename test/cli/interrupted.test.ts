/**
 * A server killed with -9 in the middle of a paid call: the money it held comes back, through the next
 * process that writes (or a running server's sweep), and the receipt says the call was interrupted and its side effects are unknown.
 * A server that is still running keeps its holds.
 */
import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { pidAlive } from '../../src/core/store/file/lock.ts';
import * as M from '../../src/core/kernel/amount.ts';
import { gateSpend } from '../../src/core/money/spend.ts';
import type { McpSession } from './cliHarness.ts';
import { ensureBuilt, HANG_MS, holonIn, inTerminal, json, mcpSession, ok, openLedger, readEvents, seededState, SLOW_AGENT, SLOW_CATALOG, units, until } from './cliHarness.ts';

before(ensureBuilt);

type MoneyJson = { amount: string; currency: string };
type Budget = { held: MoneyJson; spent: MoneyJson };
type ReceiptJson = { id: string; status: string; cost: MoneyJson | null; error: { code: string; charged: boolean } | null };

const MANDATE = 'demo/slow';
const held = async (state: string): Promise<bigint> => units((await json<Budget[]>(state, ['budget', MANDATE]))[0]?.held.amount ?? 'x');

/** Starts a server and a call that never ends by itself; resolves once its hold is in the journal. */
async function callInFlight(state: string, root: string, n: number): Promise<{ session: McpSession; receipt: string }> {
  const session = await mcpSession(state, MANDATE, ['--approval-wait', '0', '--no-elicitation']);
  const pid = session.pid;
  assert.ok(pid);
  session.client.callTool({ name: 'call_agent', arguments: { agent: SLOW_AGENT, input: { release: path.join(root, `never-${n}`) } } }).catch(() => {});
  const placed = await until(
    async () => (await readEvents(state)).find((e) => e.type === 'hold.placed' && (e.data as { owner?: { pid: number } }).owner?.pid === pid),
    'the call to hold its money',
  ).catch(async (err: unknown) => {
    await session.close();
    throw err;
  });
  return { session, receipt: (placed.data as { hold: string }).hold };
}

test('servers killed with -9 mid-call hold nothing once the next process writes; their receipts say interrupted', { timeout: HANG_MS }, async () => {
  const { dir: state, root, cleanup } = await seededState();
  // Closed whatever happens: a server left running with its call would keep the test process alive.
  const sessions: McpSession[] = [];
  try {
    await ok(state, ['agents', 'add', SLOW_CATALOG]);
    await ok(state, ['mandate', 'create', MANDATE, '--capabilities', 'testing.*', '--total', '5', '--threshold', '0.50']);

    // A running server keeps its hold, whoever else writes.
    const alive = await callInFlight(state, root, 0);
    sessions.push(alive.session);
    await ok(state, ['fund', 'demo', '1']);
    assert.equal(await held(state), units('0.05'), "a live server's hold is not touched");

    const killed: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const { session, receipt } = await callInFlight(state, root, i);
      sessions.push(session);
      process.kill(session.pid as number, 'SIGKILL');
      await until(() => !pidAlive(session.pid as number), 'the server to die');
      killed.push(receipt);
    }
    // Each new server, and the one still running, also sweeps; at the latest, the next process that
    // writes gives the holds back. The live server's call is still running.
    await ok(state, ['fund', 'demo', '1']);
    assert.equal(await held(state), units('0.05'));
    assert.equal(units((await json<Budget[]>(state, ['budget', MANDATE]))[0]?.spent.amount ?? 'x'), 0n, 'nothing was charged');
    const released = (await readEvents(state)).filter((e) => e.type === 'hold.released' && (e.data as { reason: string }).reason === 'interrupted');
    assert.deepEqual(released.map((e) => (e.data as { hold: string }).hold).sort(), [...killed].sort());
    for (const id of killed) {
      const r = await json<ReceiptJson>(state, ['receipts', id]);
      assert.equal(r.status, 'interrupted');
      assert.deepEqual(r.cost, { amount: '0.00', currency: 'EUR' });
      assert.equal(r.error?.code, 'interrupted');
      assert.equal(r.error?.charged, false);
    }
    const report = JSON.parse((await holonIn(state, ['verify', '--json'])).stdout) as { ok: boolean };
    assert.equal(report.ok, true, JSON.stringify(report));
  } finally {
    await Promise.all(sessions.map((s) => s.close().catch(() => undefined)));
    cleanup();
  }
});

/** A hold as a server writes it, by a process of an earlier run of this machine; returns its id. */
async function holdFromBeforeRestart(state: string): Promise<string> {
  const store = await openLedger(state);
  const id = 'rcpt_before_restart';
  try {
    await store.transact((s) => {
      const m = s.mandates['demo/sandbox'];
      assert.ok(m);
      const g = gateSpend(s, { id, mandate: m, payee: { kind: 'agent', id: 'acme/table-extract' }, amount: M.money('0.30', 'EUR'), subject: { kind: 'payment', payee: 'x', amount: { amount: '0.30', currency: 'EUR' }, terms_hash: 'ab'.repeat(32), purpose: 'test' }, now: Date.now(), owner: { host: os.hostname(), boot: 'an-earlier-boot', pid: 1, start: '1' } });
      return { events: g.kind === 'held' ? g.events : [], result: g.kind };
    });
  } finally {
    store.close();
  }
  return id;
}

// On a team store what a process wrote is in the database, not lost with its machine, and its presence
// tells whether it runs: the next write gives the hold back (test/pg/interrupted.test.ts).
test('a hold left from before the machine restarted stays held until a human at a terminal releases it', { timeout: HANG_MS }, async () => {
  const { dir: state, cleanup } = await seededState();
  try {
    // Its settlement may have been lost with the machine, so nothing releases it by itself.
    const id = await holdFromBeforeRestart(state);
    await ok(state, ['fund', 'demo', '1']);
    const holds = await json<{ hold: string; owner: string }[]>(state, ['holds']);
    assert.deepEqual(holds.map((h) => [h.hold, h.owner]), [[id, 'restarted']]);

    const before = (await readEvents(state)).length;
    const agent = await holonIn(state, ['holds', 'release', id]);
    assert.equal(agent.code, 1);
    assert.ok(agent.stderr.startsWith('holon: '), agent.stderr);
    const no = await inTerminal(['holds', 'release', id, '--state', state], { answer: 'n' });
    assert.equal(no.code, 1);
    assert.equal((await readEvents(state)).length, before, 'an agent without a terminal, or a human who said no, changes nothing');

    const yes = await inTerminal(['holds', 'release', id, '--state', state], { answer: 'y' });
    assert.equal(yes.code, 0, yes.output);
    assert.deepEqual(await json<unknown[]>(state, ['holds']), []);
    const released = (await readEvents(state)).filter((e) => e.type === 'hold.released');
    assert.deepEqual(released.map((e) => e.data), [{ hold: id, reason: 'interrupted' }]);
  } finally {
    cleanup();
  }
});
