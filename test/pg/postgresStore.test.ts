/**
 * The team store on a real PostgreSQL (started by the harness): events appended, folded, verified and
 * tailed across store instances and processes; a budget raced by four processes; a decision reaching a
 * waiter on another store; a database restart survived.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { Pool, PoolClient } from 'pg';
import { after, before, describe, test } from 'node:test';
import { decideApproval, waitForDecision } from '../../src/core/approvals/flow.ts';
import { silentLogger, systemClock } from '../../src/core/deps.ts';
import { HolonError } from '../../src/core/errors.ts';
import { loadOrCreateSigner, verifySignature } from '../../src/core/keys.ts';
import { money } from '../../src/core/money.ts';
import { PostgresStore } from '../../src/core/postgresStore.ts';
import { gateSpend } from '../../src/core/spend.ts';
import type { HolonState } from '../../src/core/state.ts';
import { holonReducer } from '../../src/core/state.ts';
import type { JournalEvent, Reducer } from '../../src/core/store.ts';
import { checkpointMessage } from '../../src/core/store.ts';
import { ROOT, seedDemo, tempDir } from '../helpers.ts';
import type { TestPostgres } from './harness.ts';
import { sqlAt, startPostgres } from './harness.ts';

let pg: TestPostgres;
const cleanups: (() => void | Promise<void>)[] = [];
let dbs = 0;

before(async () => {
  pg = await startPostgres();
});

after(async () => {
  for (const c of cleanups.reverse()) await c();
  pg.stop();
});

/** A fresh database, and a state folder for an installation key. */
async function newDatabase(): Promise<{ url: string; stateDir: string }> {
  const url = await pg.createDatabase(`t${++dbs}`);
  const t = tempDir();
  cleanups.push(t.cleanup);
  return { url, stateDir: t.dir };
}

/** A reducer that counts events and files `test.keyed` ones under their key. */
const counter: Reducer<{ count: number }> = {
  initial: () => ({ count: 0 }),
  apply: (s) => void (s.count += 1),
  serialize: (s) => JSON.stringify(s),
  deserialize: (t) => JSON.parse(t) as { count: number },
  keys: (_s, e) => (e.type === 'test.keyed' ? [{ key: String((e.data as { key: string }).key) }] : []),
};

async function openCounter(url: string, stateDir: string): Promise<PostgresStore<{ count: number }>> {
  const store = await PostgresStore.open({ url, reducer: counter, clock: systemClock, logger: silentLogger, signer: loadOrCreateSigner(stateDir) });
  cleanups.push(async () => {
    store.close();
    await store.ended;
  });
  return store;
}

async function openHolon(url: string, stateDir: string): Promise<PostgresStore<HolonState>> {
  const store = await PostgresStore.open({ url, reducer: holonReducer, clock: systemClock, logger: silentLogger, signer: loadOrCreateSigner(stateDir) });
  cleanups.push(async () => {
    store.close();
    await store.ended;
  });
  return store;
}

/** Resolves with the first batch `store` tells its subscribers about that satisfies `pred`. */
function arrival(store: PostgresStore<unknown>, pred: (events: JournalEvent[]) => boolean, timeoutMs: number): Promise<number> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`nothing arrived within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = store.subscribe((events) => {
      if (!pred(events)) return;
      clearTimeout(timer);
      off();
      resolve(Date.now() - start);
    });
  });
}

describe('PostgresStore', () => {
  test('appends, folds, tails another store within 1 s, reads by key, signs checkpoints', async () => {
    const { url, stateDir } = await newDatabase();
    const a = await openCounter(url, stateDir);
    const b = await openCounter(url, stateDir);
    const seen = arrival(b, (events) => events.some((e) => e.type === 'test.keyed'), 1000);
    await a.transact(() => ({ events: [{ type: 'test.plain', data: { n: 1 } }, { type: 'test.keyed', data: { key: 'k1' } }], result: undefined }));
    assert.equal(a.state.count, 2);
    assert.ok((await seen) < 1000);
    assert.equal(b.state.count, 2);
    assert.equal(b.seq, 2);

    // b decides on the latest state: it appends after a's events, never over them.
    const seqSeen = await b.transact((s) => ({ events: [{ type: 'test.keyed', data: { key: 'k1' } }], result: s.count }));
    assert.equal(seqSeen, 2);
    await a.transact(() => ({ events: [{ type: 'test.plain', data: {} }], result: undefined }));
    assert.equal(a.seq, 4, 'a caught up with b inside its transaction');

    const keyed = await a.readKey('k1');
    assert.deepEqual(keyed.map((e) => e.seq), [2, 3]);
    assert.deepEqual((await a.readKey('k1', { newest: 1 })).map((e) => e.seq), [3]);
    assert.deepEqual(await a.readKey('none'), []);

    await a.checkpoint();
    const c = await openCounter(url, stateDir);
    assert.equal(c.seq, 5);
    assert.equal(c.state.count, 5);
    // The checkpoint is the last event, signed by the installation key over the head before it.
    const [head] = await sqlAt<{ type: string; data: string }>(url, 'SELECT type, data FROM holon_events WHERE seq = 5');
    assert.equal(head?.type, 'checkpoint');
    const data = JSON.parse(head?.data ?? '{}') as { up_to: number; head: string; key: string; sig: string };
    assert.equal(data.up_to, 4);
    assert.equal(data.key, loadOrCreateSigner(stateDir).publicKey);
    assert.ok(verifySignature(data.key, checkpointMessage(data.up_to, data.head), data.sig));
    await a.checkpoint();
    assert.equal(a.seq, 5, 'nothing unsigned: no second checkpoint');
  });

  test('a row altered in the database is refused: on opening, and when read by key', async () => {
    const { url, stateDir } = await newDatabase();
    const a = await openCounter(url, stateDir);
    await a.transact(() => ({ events: [{ type: 'test.keyed', data: { key: 'k' } }, { type: 'test.plain', data: { amount: '1.00' } }], result: undefined }));
    await sqlAt(url, `UPDATE holon_events SET data = '{"key":"other"}' WHERE seq = 1`);
    await assert.rejects(openCounter(url, stateDir), (err: unknown) => HolonError.is(err, 'corrupt_journal'));
    let broken: Error | undefined;
    a.onBroken((err) => (broken = err));
    await assert.rejects(a.readKey('k'), (err: unknown) => HolonError.is(err, 'corrupt_journal'));
    assert.ok(broken, 'the store stopped and said so');
    await assert.rejects(a.transact(() => ({ events: [], result: undefined })), (err: unknown) => HolonError.is(err, 'corrupt_journal'));

    // A row appended behind the store's back that does not link is refused too.
    const { url: url2 } = await newDatabase();
    const b = await openCounter(url2, stateDir);
    await b.transact(() => ({ events: [{ type: 'test.plain', data: {} }], result: undefined }));
    await sqlAt(url2, `INSERT INTO holon_events (seq, time, type, data, prev, hash) VALUES (2, '2026-01-01T00:00:00.000Z', 'test.plain', '{}', 'nope', 'nope')`);
    await assert.rejects(b.transact(() => ({ events: [], result: undefined })), (err: unknown) => HolonError.is(err, 'corrupt_journal'));
  });

  test('4 processes with their own state folders race one budget: never more than it', { timeout: 60_000 }, async () => {
    const { url, stateDir } = await newDatabase();
    const seeder = await openHolon(url, stateDir);
    await seedDemo(seeder, systemClock, { funds: '5', total: '5.00', perDay: null, perCall: null });
    const racers = [1, 2, 3, 4].map(() => {
      const t = tempDir();
      cleanups.push(t.cleanup);
      const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/pg/racer.ts'), url, t.dir, '20'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
      cleanups.push(() => void proc.kill('SIGKILL'));
      let out = '';
      let err = '';
      proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
      proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
      // 'close', not 'exit': a process can exit before the parent has read the last of its output.
      const exited = new Promise<number | null>((resolve) => proc.on('close', resolve));
      return { proc, out: () => out, err: () => err, exited };
    });
    const deadline = Date.now() + 30_000;
    while (!racers.every((r) => r.out().includes('ready'))) {
      const dead = racers.find((r) => r.proc.exitCode !== null);
      if (dead) assert.fail(`a racer stopped: ${dead.err()}`);
      assert.ok(Date.now() < deadline, 'the racers to start');
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const r of racers) r.proc.stdin.write('go\n');
    const codes = await Promise.all(racers.map((r) => r.exited));
    racers.forEach((r, i) => assert.equal(codes[i], 0, r.err()));
    const got = racers.map((r) => JSON.parse(r.out().trim().split('\n').at(-1) ?? '{}') as { held: number; denied: number });
    assert.equal(got.reduce((n, g) => n + g.held, 0), 50, `5.00 EUR holds 50 spends of 0.10: ${JSON.stringify(got)}`);
    assert.equal(got.reduce((n, g) => n + g.denied, 0), 30);

    // A new process folds the whole chain (each row verified) to the same budget.
    const check = await openHolon(url, stateDir);
    assert.equal(check.state.spend['demo/sandbox']?.held, money('5.00', 'EUR').units);
    const holds = Object.values(check.state.holds).filter((h) => h.mandate === 'demo/sandbox');
    assert.equal(holds.length, 50);
  });

  test('a decision made through one store reaches a waiter on another within 1 s', async () => {
    const { url, stateDir } = await newDatabase();
    const server = await openHolon(url, stateDir);
    await seedDemo(server, systemClock);
    const human = await openHolon(url, stateDir);
    const id = await server.transact((s) => {
      const mandate = s.mandates['demo/sandbox'];
      assert.ok(mandate);
      const gate = gateSpend(s, { id: 'spend-1', mandate, payee: { kind: 'payee', id: 'bob' }, amount: money('1.00', 'EUR'), subject: { kind: 'payment', payee: 'bob', amount: { amount: '1.00', currency: 'EUR' }, terms_hash: null, purpose: null }, now: Date.now() });
      assert.equal(gate.kind, 'ask');
      return { events: gate.kind === 'ask' ? gate.events : [], result: gate.kind === 'ask' ? gate.approval.id : '' };
    });
    await until(() => human.state.approvals[id] !== undefined, 'the request to reach the human');
    const waiting = waitForDecision(server, id, 5000);
    const start = Date.now();
    await decideApproval(human, systemClock, id, 'approved', 'cli');
    assert.equal(await waiting, 'approved');
    assert.ok(Date.now() - start < 1000, `reached the waiter in ${Date.now() - start} ms`);
  });

  test('the database restarted: both stores reconnect, nothing is lost or doubled', { timeout: 60_000 }, async () => {
    const { url, stateDir } = await newDatabase();
    const a = await openCounter(url, stateDir);
    const b = await openCounter(url, stateDir);
    for (let i = 0; i < 5; i++) await a.transact(() => ({ events: [{ type: 'test.plain', data: { i } }], result: undefined }));
    await until(() => b.seq === 5, 'b to see a');
    pg.restart();
    // The pool gives up the connections the restart closed; the next transaction opens new ones.
    await retry(() => b.transact(() => ({ events: [{ type: 'test.plain', data: { by: 'b' } }], result: undefined })));
    assert.equal(b.seq, 6);
    await until(() => a.seq === 6, 'a to hear of b through its reconnected listener', 5000);
    await retry(() => a.transact(() => ({ events: [{ type: 'test.plain', data: { by: 'a' } }], result: undefined })));
    await until(() => b.seq === 7, 'b to hear of a');
    const c = await openCounter(url, stateDir);
    assert.equal(c.seq, 7);
    assert.equal(c.state.count, 7);
  });

  test('a commit whose answer was lost is looked up: done once, not reported failed; one never sent is failed and absent', async () => {
    const { url, stateDir } = await newDatabase();
    const a = await openCounter(url, stateDir);
    // The connection cut around the statement that inserts and commits: after it ran, or before.
    let cut: 'after' | 'before' | undefined;
    const pool = (a as unknown as { pool: Pool }).pool;
    const wrapped = new WeakSet<PoolClient>();
    pool.on('acquire', (client) => {
      if (wrapped.has(client)) return;
      wrapped.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = async (...args: unknown[]) => {
        const when = typeof args[0] === 'string' && args[0].startsWith('INSERT INTO holon_events') ? cut : undefined;
        if (when === 'before') throw new Error('Connection terminated unexpectedly');
        const r = await query(...args);
        if (when === 'after') throw new Error('Connection terminated unexpectedly');
        return r;
      };
    });
    const append = (): Promise<string> => a.transact(() => ({ events: [{ type: 'test.plain', data: {} }], result: 'done' }));

    cut = 'after';
    assert.equal(await append(), 'done');
    assert.equal(a.seq, 1);
    cut = 'before';
    await assert.rejects(append(), /Connection terminated/);
    assert.equal(a.seq, 1);
    cut = undefined;
    assert.equal(await append(), 'done');
    const b = await openCounter(url, stateDir);
    assert.deepEqual([b.seq, b.state.count], [2, 2], 'each append in the table once, the one never sent not at all');
  });
});

async function until(cond: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Runs `fn` until it succeeds (a restarted database may refuse the first connections), for up to 10 s. */
async function retry<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
