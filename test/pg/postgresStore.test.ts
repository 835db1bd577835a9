/**
 * The team store on a real PostgreSQL (started by the harness): events appended, folded, verified and
 * tailed across store instances and processes; a budget raced by four processes; a decision reaching a
 * waiter on another store; a database restart survived.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { Client } from 'pg';
import { after, before, describe, test } from 'node:test';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { waitForDecision } from '../../src/core/approvals/flow.ts';
import type { Logger } from '../../src/core/kernel/deps.ts';
import { silentLogger, systemClock } from '../../src/core/kernel/deps.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { loadOrCreateSigner, verifySignature } from '../../src/core/store/keys.ts';
import { money } from '../../src/core/kernel/amount.ts';
import { PostgresStore } from '../../src/core/store/pg/store.ts';
import { endHold, fund, gateSpend } from '../../src/core/money/spend.ts';
import { thisProcess } from '../../src/core/store/owner.ts';
import { setTeamMember } from '../../src/core/accounts/team.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import type { JournalEvent, Reducer } from '../../src/core/store/store.ts';
import { txMessage } from '../../src/core/store/store.ts';
import { ROOT, seedDemo, tempDir } from '../helpers.ts';
import type { TestPostgres } from './harness.ts';
import { aroundQueries, openHolonStore, sqlAt, startPostgres } from './harness.ts';

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

function openHolon(url: string, stateDir: string, logger?: Logger): Promise<PostgresStore<HolonState>> {
  return openHolonStore(url, stateDir, cleanups, logger);
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
  // Appending, tailing, deciding on the latest state and reading by key are the store contract's (test/store/contract.test.ts).
  test('another store hears of an append within 1 s; every row is in a transaction sealed by the installation', async () => {
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

    // Each transaction's last row carries its seal: the installation key's signature over its first and last seq and the hash it ends on.
    const rows = await sqlAt<{ seq: string; hash: string; tx: string | null }>(url, 'SELECT seq, hash, tx FROM holon_events ORDER BY seq');
    const key = loadOrCreateSigner(stateDir).publicKey;
    let from = 1;
    for (const r of rows) {
      if (r.tx === null) continue;
      const seal = JSON.parse(r.tx) as { from: number; key: string; sig: string };
      assert.equal(seal.from, from, `the transaction ending at row ${r.seq} begins where the one before ended`);
      assert.equal(seal.key, key);
      assert.ok(verifySignature(key, txMessage(seal.from, Number(r.seq), r.hash), seal.sig));
      from = Number(r.seq) + 1;
    }
    assert.equal(from, rows.length + 1, 'every row is in a sealed transaction');
  });

  test('a row altered or written by hand is kept out of the fold, and every process goes on reading and writing', async () => {
    const { url, stateDir } = await newDatabase();
    const a = await openCounter(url, stateDir);
    await a.transact(() => ({ events: [{ type: 'test.keyed', data: { key: 'k' } }, { type: 'test.plain', data: { amount: '1.00' } }], result: undefined }));
    // Its owner can still rewrite a row, once it drops the guard: the transaction it is in no longer counts.
    await sqlAt(url, 'ALTER TABLE holon_events DISABLE TRIGGER holon_events_append_only');
    await sqlAt(url, `UPDATE holon_events SET data = '{"key":"other"}' WHERE seq = 1`);
    const b = await openCounter(url, stateDir);
    assert.equal(b.state.count, 0, 'the altered transaction is not folded');
    assert.deepEqual(b.refused.map((r) => [r.from, r.to, r.code]), [[1, 2, 'altered']]);
    // A store that folded it before learns of the change when it reads the row back, and says so.
    await assert.rejects(a.readKey('k'), (err: unknown) => HolonError.is(err, 'corrupt_journal'));
    await b.transact(() => ({ events: [{ type: 'test.plain', data: {} }], result: undefined }));
    assert.equal(b.state.count, 1, 'and goes on writing');
    await a.transact(() => ({ events: [{ type: 'test.plain', data: {} }], result: undefined }));
    assert.equal(a.seq, 4, 'a writes on past it too');

    // A row that does not follow the last one is refused by the table itself: it cannot break the chain.
    await assert.rejects(sqlAt(url, `INSERT INTO holon_events (seq, time, type, data, prev, hash) VALUES (5, '2026-01-01T00:00:00.000Z', 'test.plain', '{}', 'nope', '${'0'.repeat(64)}')`), /does not link/);
    await assert.rejects(sqlAt(url, `INSERT INTO holon_events (seq, time, type, data, prev, hash) VALUES (9, '2026-01-01T00:00:00.000Z', 'test.plain', '{}', 'nope', '${'0'.repeat(64)}')`), /does not follow/);
    // One that follows but whose hash is not its content, or that no seal covers, is kept out when read.
    const [last] = await sqlAt<{ hash: string }>(url, 'SELECT hash FROM holon_events ORDER BY seq DESC LIMIT 1');
    await sqlAt(url, `INSERT INTO holon_events (seq, time, type, data, prev, hash) VALUES (5, '2026-01-01T00:00:00.000Z', 'test.plain', '{}', '${last?.hash ?? ''}', '${'1'.repeat(64)}')`);
    await b.transact(() => ({ events: [{ type: 'test.plain', data: {} }], result: undefined }));
    assert.equal(b.seq, 6);
    assert.equal(b.state.count, 3, 'the hand-written row is not counted; the rest are');
    assert.deepEqual(b.refused.map((r) => [r.from, r.to, r.code]), [[1, 2, 'altered'], [5, 5, 'unsealed']]);
  });

  /** What one racer (racer.ts) got, and how its store appended. */
  interface Raced {
    held: number;
    denied: number;
    counts: { optimistic: number; missed: number; locked: number };
  }

  /**
   * Four racer processes, each its own installation and a member of demo, try `spends` spends of 0.10 EUR
   * at once from 5.00 EUR; with `mode` "rerunnable", each as a transaction that may run again.
   */
  async function race(url: string, stateDir: string, spends: number, mode = ''): Promise<Raced[]> {
    const seeder = await openHolon(url, stateDir);
    await seedDemo(seeder, systemClock, { funds: '5', total: '5.00', perDay: null, perCall: null });
    // Each racer is its own installation: the store's root (the seeder) makes each a member of the account.
    const folders = [1, 2, 3, 4].map(() => tempDir());
    for (const [i, t] of folders.entries()) await setTeamMember(seeder, loadOrCreateSigner(stateDir), { account: 'demo', key: loadOrCreateSigner(t.dir).publicKey, name: `racer ${i + 1}`, role: 'member' });
    // Its work is done: closed now, it does not reconnect with every other store when a later test restarts the database.
    seeder.close();
    await seeder.ended;
    const racers = folders.map((t) => {
      cleanups.push(t.cleanup);
      const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/pg/racer.ts'), url, t.dir, String(spends), mode], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
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
    return racers.map((r) => JSON.parse(r.out().trim().split('\n').at(-1) ?? '{}') as Raced);
  }

  test('4 processes with their own state folders race one budget: never more than it', { timeout: 60_000 }, async () => {
    const { url, stateDir } = await newDatabase();
    const got = await race(url, stateDir, 20);
    assert.equal(got.reduce((n, g) => n + g.held, 0), 50, `5.00 EUR holds 50 spends of 0.10: ${JSON.stringify(got)}`);
    assert.equal(got.reduce((n, g) => n + g.denied, 0), 30);

    // A new process folds the whole chain (each row verified) to the same budget.
    const check = await openHolon(url, stateDir);
    assert.equal(check.state.spend['demo/sandbox']?.held, money('5.00', 'EUR').units);
    const holds = Object.values(check.state.holds).filter((h) => h.mandate === 'demo/sandbox');
    assert.equal(holds.length, 50);
  });

  test('4 processes deciding without the lock fold the rows they missed and decide again: each spend once, in order, never more than the budget', { timeout: 60_000 }, async () => {
    const { url, stateDir } = await newDatabase();
    const got = await race(url, stateDir, 20, 'rerunnable');
    assert.equal(got.reduce((n, g) => n + g.held, 0), 50, `5.00 EUR holds 50 spends of 0.10: ${JSON.stringify(got)}`);
    assert.equal(got.reduce((n, g) => n + g.denied, 0), 30);
    // The writers met: some decided on a state another had already written past, folded what they missed
    // and decided again, without the lock (only a spend that missed too often is decided holding it).
    assert.ok(got.some((g) => g.counts.missed > 0), `some appends missed another writer's rows: ${JSON.stringify(got)}`);
    const sum = (k: keyof Raced['counts']): number => got.reduce((n, g) => n + g.counts[k], 0);
    assert.ok(sum('optimistic') + sum('locked') >= 50 && sum('optimistic') > 0, JSON.stringify(got));

    // The chain as the table holds it: every row follows the one before, and each racer's spends are
    // there once each, in the order it made them.
    const rows = await sqlAt<{ seq: string; type: string; data: string }>(url, 'SELECT seq, type, data FROM holon_events ORDER BY seq');
    assert.deepEqual(rows.map((r) => Number(r.seq)), rows.map((_, i) => i + 1));
    const placed = rows.filter((r) => r.type === 'hold.placed').map((r) => (JSON.parse(r.data) as { hold: string }).hold);
    assert.equal(new Set(placed).size, 50, 'no spend written twice');
    const byRacer = new Map<string, number[]>();
    for (const id of placed) {
      const [, pid, i] = /^spend-(\d+)-(\d+)$/.exec(id) ?? [];
      byRacer.set(pid ?? '', [...(byRacer.get(pid ?? '') ?? []), Number(i)]);
    }
    for (const seen of byRacer.values()) assert.deepEqual(seen, [...seen].sort((x, y) => x - y));
    // A new process folds it all, every transaction admitted, to exactly the budget.
    const check = await openHolon(url, stateDir);
    assert.deepEqual(check.refused, []);
    assert.equal(check.state.spend['demo/sandbox']?.held, money('5.00', 'EUR').units);
    assert.equal(Object.values(check.state.holds).filter((h) => h.mandate === 'demo/sandbox').length, 50);
    check.close();
    await check.ended;
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
    aroundQueries(a, async (args, send) => {
      const when = typeof args[0] === 'string' && args[0].startsWith('INSERT INTO holon_events') ? cut : undefined;
      if (when === 'before') throw new Error('Connection terminated unexpectedly');
      const r = await send();
      if (when === 'after') throw new Error('Connection terminated unexpectedly');
      return r;
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

describe('PostgresStore: a settlement committed without waiting for its flush', () => {
  /** Every statement `store` sends through its pool's connections (its transactions), as sent. */
  function statements(store: PostgresStore<unknown>): string[] {
    const sent: string[] = [];
    aroundQueries(store, (args, send) => {
      if (typeof args[0] === 'string') sent.push(args[0]);
      return send();
    });
    return sent;
  }

  test('is committed with synchronous_commit off, that transaction only', async () => {
    const { url, stateDir } = await newDatabase();
    const a = await openCounter(url, stateDir);
    const sent = statements(a);
    await a.transact(() => ({ events: [{ type: 'test.plain', data: { n: 1 } }], result: undefined }));
    await a.transact(() => ({ events: [{ type: 'test.plain', data: { n: 2 } }], result: undefined }), { durable: false });
    await a.transact(() => ({ events: [{ type: 'test.plain', data: { n: 3 } }], result: undefined }));
    const begins = sent.filter((q) => q.startsWith('BEGIN'));
    assert.equal(begins.length, 3);
    assert.deepEqual(begins.map((q) => q.includes('SET LOCAL synchronous_commit = off')), [false, true, false]);
    const b = await openCounter(url, stateDir);
    assert.equal(b.state.count, 3);
  });

  test('one that may run again is one round trip; when another process wrote first, it is decided again on the latest state', async () => {
    const { url, stateDir } = await newDatabase();
    const a = await openCounter(url, stateDir);
    const b = await openCounter(url, stateDir);
    const sent = statements(a);
    let runs = 0;
    const settle = (): Promise<number> =>
      a.transact(
        (s) => {
          runs += 1;
          return { events: [{ type: 'test.plain', data: { seen: s.count } }], result: s.count };
        },
        { durable: false, rerunnable: true },
      );
    assert.equal(await settle(), 0);
    assert.equal(runs, 1);
    assert.equal(sent.length, 1, sent.join('\n'));
    // The lock, the read of what it missed, the insert and the commit: the lock never waits on this process.
    assert.match(sent[0] ?? '', /^BEGIN; SET LOCAL synchronous_commit = off; SELECT pg_advisory_xact_lock\(\d+\); SELECT .*; INSERT INTO holon_events .*; COMMIT$/s);

    // a hears nothing more: b's row is one it has not read when it decides.
    clearInterval((a as unknown as { listener: { timer: NodeJS.Timeout } }).listener.timer);
    (a as unknown as { listener: { client: Client } }).listener.client.removeAllListeners('notification');
    await until(() => b.seq === 1, 'b to read a');
    await b.transact(() => ({ events: [{ type: 'test.plain', data: { by: 'b' } }], result: undefined }));
    sent.length = 0;
    runs = 0;
    assert.equal(await settle(), 2, 'decided again, on b’s row too');
    assert.equal(runs, 2);
    // Written ahead as row 2, which b's row already is: nothing inserted, nothing rolled back, and b's row
    // came back in the same answer; decided again on it, and written as row 3, again in one round trip.
    const shapes = [/^BEGIN; .*pg_advisory_xact_lock.*; INSERT .*VALUES \(2, .*; COMMIT$/s, /^BEGIN; .*pg_advisory_xact_lock.*; INSERT .*VALUES \(3, .*; COMMIT$/s];
    assert.equal(sent.length, shapes.length, sent.join('\n'));
    shapes.forEach((shape, i) => assert.match(sent[i] ?? '', shape));
    assert.deepEqual(a.counts, { optimistic: 2, missed: 1, locked: 0 });
    const c = await openCounter(url, stateDir);
    assert.equal(c.seq, 3);
    assert.equal(c.state.count, 3);
  });

  test('rows announced while a read is on its way are read after it, not left for the poll', async () => {
    const { url, stateDir } = await newDatabase();
    const f = await openCounter(url, stateDir);
    const w = await openCounter(url, stateDir);
    // No poll: only announcements bring f the rows w writes.
    clearInterval((f as unknown as { listener: { timer: NodeJS.Timeout } }).listener.timer);
    let heard = 0;
    (f as unknown as { listener: { client: Client } }).listener.client.on('notification', () => (heard += 1));
    // f's first read is answered only once w's next row is committed and announced to f: what it read was
    // taken before that row was there.
    let held = false;
    aroundQueries(f, (args, send) => {
      const done = args.at(-1);
      if (held || typeof done !== 'function') return send();
      // A read through pool.query is answered to its callback.
      held = true;
      args[args.length - 1] = (...answer: unknown[]): void => {
        void until(() => heard >= 2, 'the second announcement to reach f').then(() => (done as (...a: unknown[]) => void)(...answer));
      };
      return send();
    });
    await w.transact(() => ({ events: [{ type: 'test.plain', data: { n: 1 } }], result: undefined }));
    await until(() => heard >= 1, 'the first announcement to reach f');
    await w.transact(() => ({ events: [{ type: 'test.plain', data: { n: 2 } }], result: undefined }));
    await until(() => f.seq === 2, 'f to read the row announced during its read');
    assert.equal(f.state.count, 2);
  });

  test("its own announcement, arriving before the commit's answer, makes the store read nothing", async () => {
    const { url, stateDir } = await newDatabase();
    const a = await openCounter(url, stateDir);
    // The poll is stopped: every read the pool makes from here on is one an announcement asked for.
    clearInterval((a as unknown as { listener: { timer: NodeJS.Timeout } }).listener.timer);
    // The reads a look makes (a transaction's own read names its seq in its text).
    let reads = 0;
    // Each commit's answer is held until the store has heard the announcement of the rows it committed.
    const listener = (a as unknown as { listener: { client: Client } }).listener.client;
    const heard = new Set<number>();
    listener.on('notification', (n) => heard.add(Number(n.payload)));
    aroundQueries(a, async (args, send) => {
      if (typeof args[0] === 'string' && /FROM holon_events WHERE seq >=? \$1/.test(args[0])) reads += 1;
      const r = await send();
      const announced = typeof args[0] === 'string' ? /pg_notify\('holon_events', '(\d+)'\)/.exec(args[0])?.[1] : undefined;
      if (announced) await until(() => heard.has(Number(announced)), `the announcement of row ${announced}`);
      return r;
    });
    for (let i = 0; i < 5; i++) await a.transact(() => ({ events: [{ type: 'test.plain', data: { i } }], result: undefined }));
    assert.equal(a.seq, 5);
    assert.equal(heard.size, 5);
    assert.equal(reads, 0, 'no read for rows this process wrote itself');
    // Another process's rows are still read when announced.
    const b = await openCounter(url, stateDir);
    await b.transact(() => ({ events: [{ type: 'test.plain', data: { by: 'b' } }], result: undefined }));
    await until(() => a.seq === 6, 'a to read b’s row');
    assert.equal(reads, 1);
  });

  test('lost by the database in a crash, is written again by the process that wrote it, and read again by every other: paid once', { timeout: 60_000 }, async () => {
    const { url, stateDir } = await newDatabase();
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (m) => warnings.push(m) };
    const writer = await openHolon(url, stateDir, logger);
    await seedDemo(writer, systemClock, { funds: '5', total: '5.00', perDay: null, perCall: null });
    const reader = await openHolon(url, stateDir);
    const id = 'rcpt_lost_in_a_crash';
    // The call's hold, durable before the agent runs; then its settlement, as the gateway writes it.
    await writer.transact((s) => {
      const mandate = s.mandates['demo/sandbox'];
      assert.ok(mandate);
      const g = gateSpend(s, { id, mandate, payee: { kind: 'agent', id: 'acme/table-extract' }, amount: money('0.50', 'EUR'), subject: { kind: 'payment', payee: 'x', amount: { amount: '0.50', currency: 'EUR' }, terms_hash: null, purpose: null }, now: Date.now(), owner: thisProcess() });
      assert.equal(g.kind, 'held');
      return { events: g.kind === 'held' ? g.events : [], result: undefined };
    });
    const held = writer.seq;
    await writer.transact((s) => ({ events: endHold(s, id, money('0.30', 'EUR'), 'succeeded').events, result: undefined }), { durable: false });
    await until(() => reader.seq === writer.seq, 'the reader to fold the settlement');
    const spent = money('0.30', 'EUR').units;
    for (const st of [writer, reader]) assert.equal(st.state.spend['demo/sandbox']?.spent, spent);

    // The crash: the database comes back without the settlement, as PostgreSQL does with a transaction
    // committed without waiting for its flush when it crashes before its WAL writer flushed it.
    await sqlAt(url, 'ALTER TABLE holon_events DISABLE TRIGGER holon_events_append_only');
    await sqlAt(url, `DELETE FROM holon_events WHERE seq > ${held}`);
    await sqlAt(url, 'ALTER TABLE holon_events ENABLE TRIGGER holon_events_append_only');
    // A process that never read it opens on the table as the crash left it: opened before the restart,
    // since the writer finds its loss once reconnected, and may write it again before a later open.
    const late = await openHolon(url, stateDir);
    assert.equal(late.state.holds[id]?.units, money('0.50', 'EUR').units, 'the table holds the hold, not its settlement');
    pg.restart();
    // It writes at once: its row may take the lost one's place, whichever of the two writes first.
    await retry(() => fund(late, 'demo', '1'));

    // Every process ends on the table as it is: the settlement written again once, the hold gone, paid once.
    const settledOnce = (st: PostgresStore<HolonState>): boolean =>
      st.state.holds[id] === undefined &&
      st.state.spend['demo/sandbox']?.spent === spent &&
      st.state.accounts['demo']?.spent['EUR'] === spent &&
      st.state.accounts['demo']?.funded['EUR'] === money('6', 'EUR').units;
    await until(() => [writer, reader, late].every(settledOnce), 'every process to hold the settlement once', 20_000);
    const rows = await sqlAt<{ data: string }>(url, "SELECT data FROM holon_events WHERE type = 'hold.settled'");
    assert.deepEqual(rows.map((r) => (JSON.parse(r.data) as { hold: string }).hold), [id]);
    assert.ok(warnings.some((w) => w.includes('writing again')), warnings.join('\n'));
    assert.equal(writer.seq, reader.seq);
    // Each goes on writing; a process opened now folds the same.
    await retry(() => reader.transact(() => ({ events: [], result: undefined })));
    await writer.transact(() => ({ events: [{ type: 'fx.set', data: { from: 'GBP', to: 'EUR', rate: '1.17' } }], result: undefined }));
    const fresh = await openHolon(url, stateDir);
    assert.ok(settledOnce(fresh));
    assert.equal(fresh.seq, writer.seq);
  });
});

async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
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
