/**
 * kill -9 on the team store: a server on one machine dies mid-call, and another machine gives its hold
 * back, because PostgreSQL dropped the dead server's presence with its connection. A server still
 * running on a third machine keeps its hold. The machines are named with HOLON_MACHINE, so that no
 * process here can tell the dead one's fate from its pid: only the store's presence tells. A hold from
 * before this machine restarted is given back by the next write, as the store knows its process is gone.
 */
import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { silentLogger, systemClock } from '../../src/core/kernel/deps.ts';
import { openStore } from '../../src/core/holon.ts';
import { pidAlive } from '../../src/core/store/file/lock.ts';
import { thisProcess } from '../../src/core/store/owner.ts';
import * as M from '../../src/core/kernel/amount.ts';
import { gateSpend } from '../../src/core/money/spend.ts';
import { DEMO_OFFICE, seedOffice } from '../../src/core/office/demoOffice.ts';
import type { McpSession, Run } from '../cli/cliHarness.ts';
import { ensureBuilt, HANG_MS, holon, joinTeam, mcpSession, SEED_COMMANDS, SLOW_AGENT, SLOW_CATALOG, tempDir, units, until } from '../cli/cliHarness.ts';
import type { TestPostgres } from './harness.ts';
import { sqlAt, startPostgres } from './harness.ts';

let pg: TestPostgres;
let startedAt = 0;
before(async () => {
  await ensureBuilt();
  pg = await startPostgres();
  startedAt = Date.now();
});
after(() => pg.stop());

const MANDATE = 'demo/slow';
type MoneyJson = { amount: string; currency: string };
type Budget = { held: MoneyJson; spent: MoneyJson };
type ReceiptJson = { id: string; status: string; cost: MoneyJson | null; error: { code: string; charged: boolean } | null };

test('a server killed with -9 on one machine: another machine releases its hold; a live one keeps its own', { timeout: HANG_MS }, async () => {
  const url = await pg.createDatabase('interrupted');
  const folders = [tempDir(), tempDir(), tempDir()];
  const [dev, dev2, lead] = folders.map((f) => f.dir) as [string, string, string];
  const sessions: McpSession[] = [];
  const as = (machine: string): Record<string, string> => ({ HOLON_STORE: url, HOLON_MACHINE: machine });
  const run = async (state: string, machine: string, args: string[]): Promise<Run> => {
    const r = await holon([...args, '--state', state], { env: as(machine) });
    assert.equal(r.code, 0, `holon ${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  const budget = async (): Promise<Budget> => (JSON.parse((await run(lead, 'lead-box', ['budget', MANDATE, '--json'])).stdout) as Budget[])[0] as Budget;
  try {
    for (const cmd of SEED_COMMANDS) await run(lead, 'lead-box', cmd);
    await run(lead, 'lead-box', ['agents', 'add', SLOW_CATALOG]);
    await run(lead, 'lead-box', ['mandate', 'create', MANDATE, '--capabilities', 'testing.*', '--total', '5', '--threshold', '0.50']);
    // The lead set the store up; the developers' installations spend as members of the account.
    for (const [state, name] of [[dev, 'Dev'], [dev2, 'Dev 2']] as const) await joinTeam(lead, state, { store: url, name });

    const callInFlight = async (state: string, machine: string, n: number): Promise<McpSession> => {
      const session = await mcpSession(state, MANDATE, ['--approval-wait', '0', '--no-elicitation'], as(machine));
      sessions.push(session);
      const before = units((await budget()).held.amount);
      session.client.callTool({ name: 'call_agent', arguments: { agent: SLOW_AGENT, input: { release: path.join(state, `never-${n}`) } } }).catch(() => {});
      await until(async () => units((await budget()).held.amount) > before, 'the call to hold its money', 30_000);
      return session;
    };
    // Right after the database starts nobody's absence counts (everyone is reconnecting), and a hold placed
    // before it started may have lost its settlement in a crash: the holds are placed after that.
    const young = 11_000 - (Date.now() - startedAt);
    if (young > 0) await new Promise((r) => setTimeout(r, young));
    const alive = await callInFlight(dev2, 'dev-box-2', 0);
    const doomed = await callInFlight(dev, 'dev-box', 1);
    assert.equal(units((await budget()).held.amount), units('0.10'));

    process.kill(doomed.pid as number, 'SIGKILL');
    await until(() => !pidAlive(doomed.pid as number), 'the server to die');

    // The lead's next write (or the live server's sweep, first) gives the dead server's hold back.
    await run(lead, 'lead-box', ['fund', 'demo', '1']);
    const after = await budget();
    assert.equal(units(after.held.amount), units('0.05'), "only the live server's hold is left");
    assert.equal(units(after.spent.amount), 0n, 'nothing was charged');
    const receipts = JSON.parse((await run(lead, 'lead-box', ['receipts', '--json'])).stdout) as ReceiptJson[];
    const interrupted = receipts.filter((r) => r.status === 'interrupted');
    assert.equal(interrupted.length, 1, JSON.stringify(receipts));
    assert.equal(interrupted[0]?.error?.charged, false);
    await alive.close();
  } finally {
    for (const s of sessions) await s.close().catch(() => {});
    for (const f of folders) f.cleanup();
  }
});

// On the file journal such a hold stays held until a human releases it (test/cli/interrupted.test.ts): its
// settlement may have been lost with the machine. On a team store what a process wrote is in the database,
// not lost with its machine, and its presence tells whether it runs.
test('on a team store, the next write gives back a hold from before the machine restarted', { timeout: HANG_MS }, async () => {
  const url = await pg.createDatabase('restarted');
  const { dir: state, cleanup } = tempDir();
  const run = async (args: string[]): Promise<Run> => {
    const r = await holon([...args, '--state', state], { env: { HOLON_STORE: url } });
    assert.equal(r.code, 0, `holon ${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  try {
    for (const cmd of SEED_COMMANDS) await run(cmd);
    // Right after the database starts nobody's absence counts (everyone is reconnecting), and a hold placed
    // before it started may have lost its settlement in a crash: the hold is placed after that.
    const young = 11_000 - (Date.now() - startedAt);
    if (young > 0) await new Promise((r) => setTimeout(r, young));
    // A hold as a server writes it, by a process of an earlier run of this machine.
    const id = 'rcpt_before_restart';
    const store = await openStore(state, { clock: systemClock, logger: silentLogger, watch: false, store: url });
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
    await run(['fund', 'demo', '1']);
    assert.deepEqual(JSON.parse((await run(['holds', '--json'])).stdout), []);
    const rows = await sqlAt<{ data: string }>(url, "SELECT data FROM holon_events WHERE type = 'hold.released' ORDER BY seq");
    assert.deepEqual(rows.map((r) => JSON.parse(r.data) as unknown), [{ hold: id, reason: 'interrupted' }]);
  } finally {
    cleanup();
  }
});

test('office_overview on a team store: a server on another machine runs while PostgreSQL holds its presence, not after kill -9', { timeout: HANG_MS }, async () => {
  const url = await pg.createDatabase('presence');
  const { dir: state, cleanup } = tempDir();
  const as = (machine: string): Record<string, string> => ({ HOLON_STORE: url, HOLON_MACHINE: machine });
  const sessions: McpSession[] = [];
  try {
    for (const cmd of SEED_COMMANDS) {
      const r = await holon([...cmd, '--state', state], { env: as('lead-box') });
      assert.equal(r.code, 0, `holon ${cmd.join(' ')}: ${r.stderr}`);
    }
    const store = await openStore(state, { clock: systemClock, logger: silentLogger, watch: false, store: url });
    try {
      await seedOffice(store, systemClock);
      // Right after the database starts nobody's absence counts: wait until the store can tell, so that what
      // follows reads the presence itself.
      await until(async () => (await store.ownersAbsent?.([thisProcess()])) != null, 'the store to tell who is connected');
    } finally {
      store.close();
    }
    // ada's server runs on another machine: no pid here can say whether it lives, only the store's presence.
    const ada = await mcpSession(state, DEMO_OFFICE.ada, ['--no-elicitation'], as('dev-box'));
    sessions.push(ada);
    const lead = await mcpSession(state, DEMO_OFFICE.lead, ['--no-elicitation'], as('lead-box'));
    sessions.push(lead);
    const running = async (): Promise<Record<string, boolean>> => {
      const r = await lead.client.callTool({ name: 'office_overview', arguments: {} });
      assert.notEqual(r.isError, true, JSON.stringify(r.content));
      const o = r.structuredContent as { agents: { slug: string; running: boolean }[] };
      return Object.fromEntries(o.agents.map((a) => [a.slug, a.running]));
    };
    assert.deepEqual(await until(async () => { const r = await running(); return r.ada && r; }, 'ada\'s server to be seen running'), { lead: true, ada: true, bob: false });

    process.kill(ada.pid as number, 'SIGKILL');
    await until(() => !pidAlive(ada.pid as number), 'the server to die');
    // PostgreSQL drops its presence with its connection.
    assert.deepEqual(await until(async () => { const r = await running(); return !r.ada && r; }, 'ada to stop counting as running'), { lead: true, ada: false, bob: false });
  } finally {
    for (const s of sessions) await s.close().catch(() => {});
    cleanup();
  }
});
