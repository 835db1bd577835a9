/**
 * The member role of a team store (`holon store init --member`) on a real PostgreSQL: it opens the store
 * and appends, through the core and the built CLI, and it can never update, delete or truncate an event;
 * nor can the owner, past the append-only trigger.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from 'pg';
import { silentLogger, systemClock } from '../../src/core/kernel/deps.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { loadOrCreateSigner } from '../../src/core/store/keys.ts';
import { PostgresStore } from '../../src/core/store/pg/store.ts';
import { fund } from '../../src/core/money/spend.ts';
import { holonReducer } from '../../src/core/fold/state.ts';
import { cliCluster } from './cliCluster.ts';

const MEMBER = 'holon_member';

const cluster = cliCluster('holon-role-');
const { cleanups, holon, stateDir } = cluster;

/** The harness admits every role from 127.0.0.1 without a password (trust), so the member's URL needs none. */
const asMember = (url: string): string => url.replace('postgres://postgres@', `postgres://${MEMBER}@`);

async function connect(url: string): Promise<Client> {
  const { Client } = await import('pg');
  const c = new Client({ connectionString: url });
  await c.connect();
  cleanups.push(() => c.end());
  return c;
}

async function events(c: Client): Promise<unknown[]> {
  return (await c.query('SELECT seq, time, type, data, prev, hash, tx FROM holon_events ORDER BY seq')).rows;
}

/** Asserts that `sql` fails with PostgreSQL's permission denied (SQLSTATE 42501); returns its message. */
async function refused(c: Client, sql: string): Promise<string> {
  let message = '';
  await assert.rejects(c.query(sql), (err: unknown) => {
    assert.equal((err as { code?: string }).code, '42501', `${sql}: ${(err as Error).message}`);
    message = (err as Error).message;
    return true;
  });
  return message;
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

describe('the member role', () => {
  test('opens the store and appends, but may never update, delete or truncate an event; the owner neither', async () => {
    const admin = await cluster.pg.createDatabase(`r${++dbs}`);
    const lead = stateDir();
    const init = await holon(['store', 'init', '--url', admin, '--member', MEMBER, '--state', lead, '--json']);
    assert.equal(init.code, 0, init.stderr);
    const report = JSON.parse(init.stdout) as { created: boolean; root: string; member: { role: string; created: boolean; url: string; privileges: Record<string, boolean> } };
    assert.equal(report.created, true);
    assert.deepEqual(report.member.privileges, { select: true, insert: true, update: false, delete: false, truncate: false });
    assert.equal(report.member.url, asMember(admin));
    assert.equal(report.root, loadOrCreateSigner(lead).publicKey, 'the installation that set the store up owns it');

    // The lead's installation opens the store with the member role (it may not create the table, and need not) and appends through it.
    const url = report.member.url;
    const store = await PostgresStore.open({ url, reducer: holonReducer, clock: systemClock, logger: silentLogger, signer: loadOrCreateSigner(lead), watch: false });
    cleanups.push(() => closeStore(store));
    await fund(store, 'demo', '5');
    assert.equal(store.seq, 2, 'its registration, then a fund');
    // The same role's password on another machine is not the lead's installation: it may not fund.
    const other = await holon(['fund', 'demo', '2', '--state', stateDir(), '--store', url, '--json']);
    assert.equal(other.code, 1, other.stdout);
    assert.match(other.stderr, /owner of account demo/);
    const cli = await holon(['fund', 'demo', '2', '--state', lead, '--store', url, '--json']);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /7\.00/);

    const member = await connect(url);
    const owner = await connect(admin);
    const before = await events(owner);
    assert.equal(before.length, 3);
    for (const sql of [`UPDATE holon_events SET data = '{}' WHERE seq = 1`, 'UPDATE holon_events SET time = time WHERE false', 'DELETE FROM holon_events WHERE seq = 3', 'TRUNCATE holon_events']) {
      assert.match(await refused(member, sql), /permission denied/, sql);
    }
    // The owner (here a superuser, past every grant) meets the trigger instead.
    for (const sql of [`UPDATE holon_events SET data = '{}' WHERE seq = 1`, 'DELETE FROM holon_events WHERE seq = 3', 'TRUNCATE holon_events']) {
      assert.match(await refused(owner, sql), /append-only/, sql);
    }
    assert.deepEqual(await events(owner), before, 'every event as it was');

    // Nor may the member take more than it was given.
    // PostgreSQL only warns that nothing was granted: what counts is that nothing was.
    await member.query(`GRANT UPDATE ON holon_events TO ${MEMBER}`);
    const { rows } = await owner.query<{ ok: boolean }>(`SELECT has_table_privilege('${MEMBER}', 'holon_events', 'UPDATE') AS ok`);
    assert.equal(rows[0]?.ok, false);
    await refused(member, 'DROP TRIGGER holon_events_append_only ON holon_events');
    await refused(member, 'CREATE TABLE elsewhere (x int)');

    // Another process of the team still folds it all.
    const again = await holon(['budget', '--state', stateDir(), '--store', url]);
    assert.equal(again.code, 0, again.stderr);
  });

  test('init runs again without harm, and refuses a role that could rewrite the table', async () => {
    const admin = await cluster.pg.createDatabase(`r${++dbs}`);
    const first = await holon(['store', 'init', '--url', admin, '--member', MEMBER, '--json']);
    assert.equal(first.code, 0, first.stderr);
    const owner = await connect(admin);
    await owner.query(`GRANT UPDATE, DELETE ON holon_events TO ${MEMBER}`);
    const second = await holon(['store', 'init', '--url', admin, '--member', MEMBER, '--json']);
    assert.equal(second.code, 0, second.stderr);
    const report = JSON.parse(second.stdout) as { created: boolean; member: { created: boolean; privileges: Record<string, boolean> } };
    assert.equal(report.created, false);
    assert.equal(report.member.created, false, 'the role was there (roles belong to the cluster)');
    assert.deepEqual(report.member.privileges, { select: true, insert: true, update: false, delete: false, truncate: false }, 'what was granted beyond SELECT and INSERT is revoked');

    // A role that inherits the owner's rights, or a superuser, is refused and nothing is granted to it.
    await owner.query('CREATE ROLE holon_admin_too LOGIN IN ROLE postgres');
    const owns = await holon(['store', 'init', '--url', admin, '--member', 'holon_admin_too']);
    assert.equal(owns.code, 1);
    assert.match(owns.stderr, /superuser|owns/);
    await owner.query('CREATE ROLE holon_helper LOGIN');
    await owner.query(`GRANT TRUNCATE ON holon_events TO holon_helper`);
    await owner.query('CREATE ROLE holon_inherits LOGIN IN ROLE holon_helper');
    const inherits = await holon(['store', 'init', '--url', admin, '--member', 'holon_inherits']);
    assert.equal(inherits.code, 1);
    assert.match(inherits.stderr, /may still TRUNCATE/);
    const { rows } = await owner.query<{ ok: boolean }>("SELECT has_table_privilege('holon_inherits', 'holon_events', 'SELECT') AS ok");
    assert.equal(rows[0]?.ok, false, 'the refused init was rolled back');

    const self = await holon(['store', 'init', '--url', admin, '--member', 'postgres']);
    assert.equal(self.code, 1);
    const badName = await holon(['store', 'init', '--url', admin, '--member', 'x; DROP TABLE holon_events']);
    assert.equal(badName.code, 2);
    const notPg = await holon(['store', 'init', '--url', 'mysql://root@127.0.0.1/x']);
    assert.equal(notPg.code, 2);
  });

  test('the member cannot create the table where init did not run, and is told who can', async () => {
    const admin = await cluster.pg.createDatabase(`r${++dbs}`);
    // The role exists cluster-wide once some init made it; this database has no table yet.
    const other = await cluster.pg.createDatabase(`r${++dbs}`);
    assert.equal((await holon(['store', 'init', '--url', other, '--member', MEMBER])).code, 0);
    await assert.rejects(
      PostgresStore.open({ url: asMember(admin), reducer: holonReducer, clock: systemClock, logger: silentLogger, signer: loadOrCreateSigner(stateDir()), watch: false }),
      (err: unknown) => HolonError.is(err, 'denied') && /holon store init/.test(err.message),
    );
  });
});
