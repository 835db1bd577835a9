/**
 * `holon migrate --to URL`, through the built CLI on a real PostgreSQL: a demo's journal copied as it is
 * into an empty database that then shows what the state folder shows; a database that holds events, a
 * tampered or torn journal and a URL that is not PostgreSQL's are refused and change nothing. Then
 * `holon verify --store` over such a store: intact, altered, and a row written by an installation
 * without the role it needs.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { silentLogger, systemClock } from '../../src/core/kernel/deps.ts';
import { openState } from '../../src/core/holon.ts';
import { lazySigner } from '../../src/core/store/keys.ts';
import { initTeamStore, migrateToTeamStore } from '../../src/core/teamAdmin.ts';
import type { EventRow } from '../../src/core/store/pg/rows.ts';
import { EVENT_COLUMNS, eventOfRow, rowOfEvent } from '../../src/core/store/pg/rows.ts';
import { PostgresStore } from '../../src/core/store/pg/store.ts';
import { holonReducer } from '../../src/core/fold/state.ts';
import { eventHash, seal } from '../../src/core/store/store.ts';
import type { Run } from '../cli/cliHarness.ts';
import { ensureBuilt, holon as run, ledgerBytes, journalFile, readEvents, tempDir } from '../cli/cliHarness.ts';
import type { TestPostgres } from './harness.ts';
import { sqlAt, startPostgres } from './harness.ts';

let pg: TestPostgres;
/** A state folder the demo played in, copied for each test that changes it. */
let demo: string;
const cleanups: (() => void)[] = [];

before(async () => {
  await ensureBuilt();
  pg = await startPostgres();
  const t = tempDir('holon-migrate-');
  cleanups.push(t.cleanup);
  demo = path.join(t.dir, 'demo');
  const played = await holon(['demo', '--state', demo]);
  assert.equal(played.code, 0, played.stderr);
});

after(() => {
  for (const c of cleanups.reverse()) c();
  pg.stop();
});

/** `holon ARGS…` without a HOLON_STORE from the environment. */
function holon(args: string[]): Promise<Run> {
  return run(args, { env: { HOLON_STORE: '' } });
}

/** A copy of the demo's state folder. */
function demoCopy(): string {
  const t = tempDir('holon-migrate-');
  cleanups.push(t.cleanup);
  const dir = path.join(t.dir, 'state');
  fs.cpSync(demo, dir, { recursive: true });
  return dir;
}

/** A state folder with nothing in it but, once something is signed, its installation key. */
function emptyState(): string {
  const t = tempDir('holon-migrate-');
  cleanups.push(t.cleanup);
  return t.dir;
}

/** Every row of the events table, or undefined when the database has no such table. */
async function rows(url: string): Promise<EventRow[] | undefined> {
  const found = await sqlAt<{ t: string | null }>(url, "SELECT to_regclass('holon_events')::text AS t");
  if (found[0]?.t === null) return undefined;
  return sqlAt<EventRow>(url, `SELECT ${EVENT_COLUMNS} FROM holon_events ORDER BY seq`);
}

/**
 * Closes a store and waits for its connections to end. The store's own connection does not hold the
 * process up, so a timer does meanwhile: without one, a test that awaits nothing else would end first.
 */
async function closeStore(store: PostgresStore<unknown>): Promise<void> {
  store.close();
  const alive = setInterval(() => undefined, 1000);
  try {
    await store.ended;
  } finally {
    clearInterval(alive);
  }
}

let dbs = 0;
const newDatabase = (): Promise<string> => pg.createDatabase(`m${++dbs}`);

describe('holon migrate', () => {
  test('copies a demo journal as it is; the store then shows what the state folder shows, and goes on from it', async () => {
    const url = await newDatabase();
    const before = await ledgerBytes(demo);
    const events = await readEvents(demo);
    const r = await holon(['migrate', '--to', url, '--state', demo, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { events: number; head: string; signed_through: number };
    const last = events.at(-1);
    assert.equal(report.events, last?.seq);
    assert.equal(report.head, last?.hash);
    assert.equal(report.signed_through, last?.seq, 'every transaction the demo sealed came along, sealed');
    assert.deepEqual((await ledgerBytes(demo)), before, 'the journal is left as it was');

    // Row for row what the journal holds: the chain and its seals are the same.
    const copied = (await rows(url)) ?? [];
    assert.equal(copied.length, events.length + 1, 'the events, then the installation that sealed them registered');
    assert.equal(copied.at(-1)?.type, 'installation.registered');
    for (const [i, e] of events.entries()) assert.deepEqual(eventOfRow(copied[i]!), e);

    const elsewhere = emptyState();
    for (const args of [['budget'], ['receipts'], ['approvals', '--all'], ['mandate', 'list']]) {
      const file = await holon([...args, '--state', demo, '--json']);
      const team = await holon([...args, '--state', elsewhere, '--store', url, '--json']);
      assert.equal(file.code, 0, file.stderr);
      assert.equal(team.code, 0, team.stderr);
      assert.deepEqual(JSON.parse(team.stdout), JSON.parse(file.stdout), `holon ${args.join(' ')} shows the same`);
    }

    // The journal's installation owns the store it was copied into; another installation is not an owner.
    const refused = await holon(['fund', 'demo', '1', '--state', elsewhere, '--store', url]);
    assert.equal(refused.code, 1, refused.stdout);
    const funded = await holon(['fund', 'demo', '1', '--state', demo, '--store', url]);
    assert.equal(funded.code, 0, funded.stderr);
    const grown = (await rows(url)) ?? [];
    assert.ok(grown.length > events.length);
    assert.equal(grown[events.length]?.prev, last?.hash, 'the next event links to the copied head');
    assert.deepEqual((await ledgerBytes(demo)), before, 'what the team does from here on stays out of the journal');
  });

  test('a database that already holds events is refused and left as it was', async () => {
    const url = await newDatabase();
    const funded = await holon(['fund', 'team', '3', '--state', emptyState(), '--store', url]);
    assert.equal(funded.code, 0, funded.stderr);
    const held = await rows(url);
    const r = await holon(['migrate', '--to', url, '--state', demo]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /already holds events/);
    assert.deepEqual(await rows(url), held);
  });

  test('a tampered journal is refused and nothing is written', async () => {
    const url = await newDatabase();
    const state = demoCopy();
    const lines = fs.readFileSync(journalFile(state), 'utf8').split('\n');
    // The first fund event, its amount raised and its hash left as it was.
    const at = lines.findIndex((l) => l.includes('"type":"account.funded"'));
    assert.ok(at >= 0, 'the demo funds an account');
    const e = JSON.parse(lines[at] ?? '') as { data: Record<string, unknown> };
    e.data['amount'] = '500';
    lines[at] = JSON.stringify(e);
    fs.writeFileSync(journalFile(state), lines.join('\n'));
    const r = await holon(['migrate', '--to', url, '--state', state, '--json']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /does not verify/);
    assert.match(r.stderr, new RegExp(`event ${at + 1}`));
    assert.equal(await rows(url), undefined, 'the database was not even touched');
  });

  test('a journal that ends in a torn append is refused and nothing is written', async () => {
    const url = await newDatabase();
    const state = demoCopy();
    fs.appendFileSync(journalFile(state), '{"seq":');
    const r = await holon(['migrate', '--to', url, '--state', state]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /torn append/);
    assert.equal(await rows(url), undefined);
  });

  test('a URL that is not PostgreSQL, or none, is a usage error', async () => {
    const bad = await holon(['migrate', '--to', 'mysql://root@127.0.0.1/holon', '--state', demo]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /postgres:\/\//);
    const none = await holon(['migrate', '--state', demo]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--to URL/);
  });

  test('a journal of several batches, copied by the member role of an initialised store', async () => {
    const admin = await newDatabase();
    await initTeamStore(admin, { member: 'holon_member' });
    const url = admin.replace('postgres://postgres@', 'postgres://holon_member@');
    const state = emptyState();
    const file = openState(state, { clock: systemClock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
    try {
      // 2,500 events in one transaction: three statements of at most 1,000.
      const funded = { type: 'account.funded', data: { account: 'team', amount: '0.01', currency: 'EUR' } };
      await file.transact(() => ({ events: Array.from({ length: 2500 }, () => funded), result: undefined }));
    } finally {
      file.close();
    }
    const report = await migrateToTeamStore(state, url, { logger: silentLogger });
    assert.equal(report.events, 2500);
    assert.equal(report.signed_through, 2500);
    const store = await PostgresStore.open({ url, reducer: holonReducer, clock: systemClock, logger: silentLogger, signer: lazySigner(emptyState()), watch: false });
    try {
      assert.equal(store.seq, 2501, 'the events, and the installation that sealed them registered');
      assert.equal(store.state.accounts['team']?.funded['EUR'], 25_000_000n);
    } finally {
      await closeStore(store);
    }
  });

  test('a state folder without a journal is refused', async () => {
    const url = await newDatabase();
    const r = await holon(['migrate', '--to', url, '--state', emptyState()]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no journal/);
    assert.equal(await rows(url), undefined);
  });
});

describe('holon verify --store', () => {
  type Report = { ok: boolean; events: number; transactions: number; first_bad?: { seq: number; problem: string }; refused: { from: number; to: number; code: string; message: string }[] };
  const verify = async (url: string): Promise<{ code: number | null; report: Report | undefined; stderr: string }> => {
    const r = await holon(['verify', '--store', url, '--state', emptyState(), '--json']);
    return { code: r.code, report: r.stdout ? (JSON.parse(r.stdout) as Report) : undefined, stderr: r.stderr };
  };

  test('a migrated store verifies, row for row; an altered row is named and fails', async () => {
    const url = await newDatabase();
    assert.equal((await holon(['migrate', '--to', url, '--state', demoCopy()])).code, 0);
    const good = await verify(url);
    assert.equal(good.code, 0, good.stderr);
    assert.equal(good.report?.ok, true);
    assert.equal(good.report?.events, (await rows(url))?.length);
    assert.ok((good.report?.transactions ?? 0) > 0);

    // The table's owner, past its guard, can still rewrite a row: verify says which.
    await sqlAt(url, 'ALTER TABLE holon_events DISABLE TRIGGER holon_events_append_only');
    await sqlAt(url, `UPDATE holon_events SET data = replace(data, '5.00', '500.00') WHERE seq = (SELECT min(seq) FROM holon_events WHERE type = 'account.funded')`);
    const bad = await verify(url);
    assert.equal(bad.code, 1);
    assert.equal(bad.report?.ok, false);
    const funded = (await rows(url))?.find((r) => r.type === 'account.funded');
    assert.deepEqual(bad.report?.refused.map((r) => [r.from, r.code]), [[Number(funded?.seq), 'altered']]);
  });

  test('a transaction sealed by an installation without the role it needs is reported with its seq and why', async () => {
    const url = await newDatabase();
    assert.equal((await holon(['migrate', '--to', url, '--state', demoCopy()])).code, 0);
    // A teammate's installation, which no owner made one, writes a fund straight into the table, sealed with its own key.
    const [last] = (await rows(url))?.slice(-1) ?? [];
    const base = { seq: Number(last?.seq) + 1, time: new Date().toISOString(), type: 'account.funded', data: { account: 'demo', amount: '500', currency: 'EUR' }, prev: last?.hash ?? '' };
    const [forged] = seal([{ ...base, hash: eventHash(base) }], lazySigner(emptyState()));
    await sqlAt(url, `INSERT INTO holon_events (${EVENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, rowOfEvent(forged!));
    const r = await verify(url);
    assert.equal(r.code, 1);
    assert.deepEqual(r.report?.refused.map((t) => [t.from, t.to, t.code]), [[base.seq, base.seq, 'not_an_owner']]);
    const text = await holon(['verify', '--store', url, '--state', emptyState()]);
    assert.equal(text.code, 1);
    assert.match(text.stdout, new RegExp(`event ${base.seq} not folded \\(not_an_owner\\)`));
    // And every process folds past it, without it.
    const budget = await holon(['budget', 'demo/sandbox', '--state', emptyState(), '--store', url, '--json']);
    assert.equal(budget.code, 0, budget.stderr);
    assert.doesNotMatch(budget.stdout, /505/);
  });

  test('a database without Holon events, or a URL that is not PostgreSQL, is refused', async () => {
    const empty = await holon(['verify', '--store', await newDatabase(), '--state', emptyState()]);
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /holds no Holon events/);
    const wrong = await holon(['verify', '--store', 'mysql://x/y', '--state', emptyState()]);
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /postgres:\/\//);
  });
});
