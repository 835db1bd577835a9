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
import type { Logger } from '../../src/core/deps.ts';
import { silentLogger, systemClock } from '../../src/core/deps.ts';
import { money } from '../../src/core/amount.ts';
import { endHold, gateSpend, goneOwners, releaseOrphanedHolds } from '../../src/core/money/spend.ts';
import { loadOrCreateSigner } from '../../src/core/store/keys.ts';
import { thisProcess } from '../../src/core/store/owner.ts';
import { PostgresStore } from '../../src/core/store/pg/store.ts';
import type { HolonState } from '../../src/core/state.ts';
import { holonReducer } from '../../src/core/state.ts';
import { seedDemo, tempDir } from '../helpers.ts';
import type { TestPostgres } from './harness.ts';
import { sqlAt, startPostgres } from './harness.ts';

let pg: TestPostgres;
const cleanups: (() => void | Promise<void>)[] = [];

before(async () => {
  pg = await startPostgres({ synchronousCommit: true, settings: { wal_writer_delay: '10s', bgwriter_lru_maxpages: '0' } });
});

after(async () => {
  for (const c of cleanups.reverse()) await c();
  pg.stop();
});

async function openHolon(url: string, stateDir: string, logger: Logger = silentLogger): Promise<PostgresStore<HolonState>> {
  const store = await PostgresStore.open({ url, reducer: holonReducer, clock: systemClock, logger, signer: loadOrCreateSigner(stateDir) });
  cleanups.push(async () => {
    store.close();
    await store.ended;
  });
  return store;
}

async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test(
  'the database crashes right after a settlement committed without waiting for its flush: the call is paid once',
  { timeout: 120_000 },
  async () => {
    const url = await pg.createDatabase('crash');
    const t = tempDir();
    cleanups.push(t.cleanup);
    const warnings: string[] = [];
    const writer = await openHolon(url, t.dir, { ...silentLogger, warn: (m) => warnings.push(m) });
    await seedDemo(writer, systemClock, { funds: '5', total: '5.00', perDay: null, perCall: null });
    const id = 'rcpt_settled_then_crash';
    await writer.transact((s) => {
      const mandate = s.mandates['demo/sandbox'];
      assert.ok(mandate);
      const g = gateSpend(s, {
        id,
        mandate,
        payee: { kind: 'agent', id: 'acme/table-extract' },
        amount: money('0.50', 'EUR'),
        subject: { kind: 'payment', payee: 'x', amount: { amount: '0.50', currency: 'EUR' }, terms_hash: null, purpose: null },
        now: Date.now(),
        owner: thisProcess(),
      });
      return { events: g.kind === 'held' ? g.events : [], result: undefined };
    });
    await writer.transact((s) => ({ events: endHold(s, id, money('0.30', 'EUR'), 'succeeded').events, result: undefined }), {
      durable: false,
    });
    pg.crash();

    // Whatever the database kept, the settlement is in it once, and the writer's state is the table's.
    const settled = async (): Promise<boolean> => {
      try {
        const rows = await sqlAt<{ data: string }>(url, "SELECT data FROM holon_events WHERE type = 'hold.settled'");
        return rows.length === 1 && writer.state.holds[id] === undefined;
      } catch {
        return false;
      }
    };
    await until(settled, 'the settlement to be in the table and folded');
    const rows = await sqlAt<{ data: string }>(url, "SELECT data FROM holon_events WHERE type = 'hold.settled'");
    assert.deepEqual(
      rows.map((r) => JSON.parse(r.data) as unknown),
      [{ hold: id, cost: '0.30' }],
    );
    const spent = money('0.30', 'EUR').units;
    assert.equal(writer.state.spend['demo/sandbox']?.spent, spent);
    const fresh = await openHolon(url, t.dir);
    assert.equal(fresh.state.spend['demo/sandbox']?.spent, spent);
    assert.equal(fresh.state.holds[id], undefined);
    assert.equal(fresh.seq, writer.seq);
    // The crash is said once in the log when it lost the settlement.
    assert.ok(warnings.filter((w) => w.includes('writing again')).length <= 1, warnings.join('\n'));
  },
);

test(
  'a hold placed before the database last started is not given back by recovery: its settlement may be what a crash lost',
  { timeout: 120_000 },
  async () => {
    const url = await pg.createDatabase('recovery');
    const t = tempDir();
    cleanups.push(t.cleanup);
    const store = await openHolon(url, t.dir);
    await seedDemo(store, systemClock, { funds: '5', total: '5.00', perDay: null, perCall: null });
    // A hold of a process on another machine, which never came back after the crash.
    const away = { host: 'another-box', boot: 'b', pid: 4242, start: '1' };
    const place = (id: string): Promise<void> =>
      store.transact((s) => {
        const mandate = s.mandates['demo/sandbox'];
        assert.ok(mandate);
        const g = gateSpend(s, {
          id,
          mandate,
          payee: { kind: 'payee', id: 'x' },
          amount: money('0.10', 'EUR'),
          subject: { kind: 'payment', payee: 'x', amount: { amount: '0.10', currency: 'EUR' }, terms_hash: null, purpose: null },
          now: Date.now(),
          owner: away,
        });
        return { events: g.kind === 'held' ? g.events : [], result: undefined };
      });
    await place('before_the_crash');
    pg.crash();
    // Right after the database starts nobody's absence counts; and the hold after it is placed well after.
    await until(async () => {
      try {
        const [row] = await sqlAt<{ young: boolean }>(url, "SELECT now() - pg_postmaster_start_time() < interval '11 seconds' AS young");
        return row?.young === false;
      } catch {
        return false;
      }
    }, 'the database to be past its restart');
    await until(async () => {
      try {
        await place('after_the_crash');
        return true;
      } catch {
        return false;
      }
    }, 'the store to write again');
    const released = await releaseOrphanedHolds(store, await goneOwners(store, 0));
    assert.deepEqual(released, ['after_the_crash']);
    assert.deepEqual(Object.keys(store.state.holds), ['before_the_crash']);
  },
);
