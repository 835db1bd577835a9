/**
 * The database itself crashes right after a settlement that was committed without waiting for its flush
 * (a team store's group commit): PostgreSQL, killed as a crash would kill it (immediate shutdown), comes
 * back from its WAL with the settlement or without it. Either way the call is paid once: the process that
 * wrote it writes it again if the database lost it, and the hold never comes back as if the call had been
 * interrupted. The cluster waits for each synchronous commit's flush as PostgreSQL does by default; its
 * WAL writer flushes only every 10 s and its background writer writes nothing, so that what a crash can
 * lose stays unflushed for the test to crash on.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { silentLogger, systemClock } from '../../src/core/kernel/deps.ts';
import { money } from '../../src/core/kernel/amount.ts';
import { endHold, gateSpend, goneOwners, releaseOrphanedHolds } from '../../src/core/money/spend.ts';
import type { ProcessRef } from '../../src/core/store/owner.ts';
import { thisProcess } from '../../src/core/store/owner.ts';
import type { PostgresStore } from '../../src/core/store/pg/store.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { seedDemo, tempDir } from '../helpers.ts';
import type { TestPostgres } from './harness.ts';
import { openHolonStore, sqlAt, startPostgres } from './harness.ts';

let pg: TestPostgres;
const cleanups: (() => unknown)[] = [];

before(async () => {
  pg = await startPostgres({ synchronousCommit: true, settings: { wal_writer_delay: '10s', bgwriter_lru_maxpages: '0' } });
});

after(async () => {
  for (const c of cleanups.reverse()) await c();
  pg.stop();
});

/** A seeded demo world on a new database; `warnings`, when given, gets what the store warns of. */
async function world(name: string, warnings?: string[]): Promise<{ url: string; store: PostgresStore<HolonState>; stateDir: string }> {
  const url = await pg.createDatabase(name);
  const t = tempDir();
  cleanups.push(t.cleanup);
  const store = await openHolonStore(url, t.dir, cleanups, warnings ? { ...silentLogger, warn: (m) => warnings.push(m) } : silentLogger);
  await seedDemo(store, systemClock, { funds: '5', total: '5.00', perDay: null, perCall: null });
  return { url, store, stateDir: t.dir };
}

/** A hold of `amount` EUR by `owner`, as a call's decision writes it. */
function placeHold(store: PostgresStore<HolonState>, id: string, amount: string, owner: ProcessRef): Promise<void> {
  return store.transact((s) => {
    const mandate = s.mandates['demo/sandbox'];
    assert.ok(mandate);
    const g = gateSpend(s, { id, mandate, payee: { kind: 'agent', id: 'acme/table-extract' }, amount: money(amount, 'EUR'), subject: { kind: 'payment', payee: 'x', amount: { amount, currency: 'EUR' }, terms_hash: null, purpose: null }, now: Date.now(), owner });
    assert.equal(g.kind, 'held');
    return { events: g.kind === 'held' ? g.events : [], result: undefined };
  });
}

/** Polls `cond` until it holds (a query failing while the database comes back counts as not yet). */
async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await Promise.resolve(cond()).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('the database crashes right after a settlement committed without waiting for its flush: the call is paid once', { timeout: 120_000 }, async () => {
  const warnings: string[] = [];
  const { url, store: writer, stateDir } = await world('crash', warnings);
  const id = 'rcpt_settled_then_crash';
  await placeHold(writer, id, '0.50', thisProcess());
  await writer.transact((s) => ({ events: endHold(s, id, money('0.30', 'EUR'), 'succeeded').events, result: undefined }), { durable: false });
  pg.crash();

  // Whatever the database kept, the settlement is in it once, and the writer's state is the table's.
  const settlements = async (): Promise<unknown[]> => (await sqlAt<{ data: string }>(url, "SELECT data FROM holon_events WHERE type = 'hold.settled'")).map((r) => JSON.parse(r.data) as unknown);
  await until(async () => (await settlements()).length === 1 && writer.state.holds[id] === undefined, 'the settlement to be in the table and folded');
  assert.deepEqual(await settlements(), [{ hold: id, cost: '0.30' }]);
  const spent = money('0.30', 'EUR').units;
  assert.equal(writer.state.spend['demo/sandbox']?.spent, spent);
  const fresh = await openHolonStore(url, stateDir, cleanups);
  assert.equal(fresh.state.spend['demo/sandbox']?.spent, spent);
  assert.equal(fresh.state.holds[id], undefined);
  assert.equal(fresh.seq, writer.seq);
  assert.ok(warnings.filter((w) => w.includes('writing again')).length <= 1, warnings.join('\n'));
});

test('a hold placed before the database last started is not given back by recovery: its settlement may be what a crash lost', { timeout: 120_000 }, async () => {
  const { url, store } = await world('recovery');
  // Holds of a process on another machine, which never came back after the crash.
  const away = { host: 'another-box', boot: 'b', pid: 4242, start: '1' };
  await placeHold(store, 'before_the_crash', '0.10', away);
  pg.crash();
  // Right after the database starts nobody's absence counts; the next hold is placed after that.
  await until(async () => (await sqlAt<{ young: boolean }>(url, "SELECT now() - pg_postmaster_start_time() < interval '11 seconds' AS young"))[0]?.young === false, 'the database to be past its restart');
  await until(() => placeHold(store, 'after_the_crash', '0.10', away).then(() => true), 'the store to write again');
  const released = await releaseOrphanedHolds(store, await goneOwners(store, 0));
  assert.deepEqual(released, ['after_the_crash']);
  assert.deepEqual(Object.keys(store.state.holds), ['before_the_crash']);
});
