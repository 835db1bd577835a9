/**
 * What every store must do, stated once and run on each: the file journal, the in-memory store and the
 * team store on a real PostgreSQL (a throwaway cluster). The cases are the store's contract (store.ts):
 * a transaction is decided on the latest state and appended under that check or not at all; another
 * handle on the same backing sees every event, once; a transaction is whole or absent after a crash;
 * what a signer may not write is never folded and is reported; concurrent writers never lose, repeat or
 * reorder a transaction, nor pass a limit; verify passes a good log and names a bad event's seq and why.
 *
 * Each store is reached through a small adapter (`Backing`): how to open another handle on it, and how to
 * write around Holon the way that backing can be written to — lines appended to the journal file by
 * someone with the state folder, rows inserted into the table by a teammate with the member role's
 * password, a transaction another process appended to the in-memory store. The assertions are shared;
 * where a store cannot meaningfully do a case, the case says so as its skip reason.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { openFileJournal } from '../../src/core/holon.ts';
import { JOURNAL_FILE } from '../../src/core/store/file/journal.ts';
import { loadOrCreateSigner } from '../../src/core/store/keys.ts';
import { readReceipt } from '../../src/core/market/receiptTree.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { InMemoryStore } from '../../src/core/store/inMemory.ts';
import type { Receipt } from '../../src/core/kernel/model.ts';
import { runningReceipt } from '../core/fixtures.ts';
import { money } from '../../src/core/kernel/amount.ts';
import { verifyTeamStore } from '../../src/core/teamAdmin.ts';
import type { EventRow } from '../../src/core/store/pg/rows.ts';
import { EVENT_COLUMNS, eventOfRow, rowOfEvent } from '../../src/core/store/pg/rows.ts';
import { TABLE } from '../../src/core/store/pg/schema.ts';
import { PostgresStore } from '../../src/core/store/pg/store.ts';
import { fund, gateSpend } from '../../src/core/money/spend.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holonReducer } from '../../src/core/fold/state.ts';
import type { EventStore, JournalEvent, NewEvent, RefusedTx, Signer } from '../../src/core/store/store.ts';
import { asStored, eventHash, parseEventLine, seal } from '../../src/core/store/store.ts';
import type { VerifyReport } from '../../src/core/store/verify.ts';
import { verifyJournal } from '../../src/core/verify.ts';
import { tempDir, TestClock, until } from '../helpers.ts';
import type { TestPostgres } from '../pg/harness.ts';
import { sqlAt, startPostgres } from '../pg/harness.ts';

const clock = new TestClock();
const cleanups: (() => void | Promise<void>)[] = [];
let pg: TestPostgres | undefined;

before(async () => {
  pg = await startPostgres();
});
after(async () => {
  for (const c of cleanups.reverse()) await c();
  pg?.stop();
});

function newDir(): string {
  const t = tempDir('holon-contract-');
  cleanups.push(t.cleanup);
  return t.dir;
}

/** A new installation: a state folder of its own, and its key. */
const installation = (): Signer => loadOrCreateSigner(newDir());

/** One way a crash can leave a transaction: its first `keep` events written, and (`torn`) part of the next. */
interface Cut {
  keep: number;
  torn: boolean;
}

/** One store's backing (a journal file, a database, a process's memory) and how to reach it. */
interface Backing {
  /** The installation whose key seals what this backing's handles write: the store's root once it writes. */
  readonly key: Signer;
  /**
   * True when others write to it (a team's database; the in-memory store's `receive`): a transaction it
   * may not fold is kept out and reading and writing go on past it. False for the journal, which only its
   * own installation writes: such a transaction stops it instead, naming the line (store.ts: `refused`).
   */
  readonly shared: boolean;
  /** Another handle on the same backing, as another process of the installation opens it. */
  open(options?: { watch?: boolean }): Promise<EventStore<HolonState>>;
  /** What the backing holds, read around Holon: to tell that nothing was written. */
  contents(): Promise<string>;
  /** Every event the backing holds, read around Holon (folded or not). */
  events(): Promise<JournalEvent[]>;
  /** Writes `events` after the last one as one transaction sealed by `by`, around Holon; returns its seqs. */
  forge(events: NewEvent[], by: Signer): Promise<{ from: number; to: number }>;
  /** Leaves the transaction `events` (sealed by the installation) as a writer that died mid-append does. */
  crash?(events: NewEvent[], cut: Cut): Promise<void>;
  /** The cuts of a transaction of `n` events this backing can be left with. */
  cuts?(n: number): Cut[];
  /** `holon verify` (or `holon verify --store`) of the backing. */
  verify?(): Promise<VerifyReport>;
  /** Changes the content of event `seq` in place, without re-hashing it. */
  alter?(seq: number, change: (e: JournalEvent) => void): Promise<void>;
}

/** How a store is set up for one case; `skips` names the cases it cannot do, and why. */
interface StoreKind {
  name: string;
  make(): Promise<Backing>;
  skips: Partial<Record<'crash' | 'verify', string>>;
}

/** `events` linked after `last`, stamped with one time as a writer stamps a transaction, and sealed by `by`. */
function linked(last: { seq: number; hash: string }, events: NewEvent[], by: Signer): JournalEvent[] {
  const time = new Date(clock.now()).toISOString();
  let seq = last.seq;
  let prev = last.hash;
  const out = events.map((n) => {
    seq += 1;
    const base = { seq, time, type: n.type, data: asStored(n.data), prev };
    const e: JournalEvent = { ...base, hash: eventHash(base) };
    prev = e.hash;
    return e;
  });
  return seal(out, by);
}

const span = (events: JournalEvent[]): { from: number; to: number } => ({ from: events[0]?.seq ?? 0, to: events.at(-1)?.seq ?? 0 });

const journal: StoreKind = {
  name: 'the file journal',
  skips: {},
  async make() {
    const dir = newDir();
    const key = loadOrCreateSigner(dir);
    const file = path.join(dir, JOURNAL_FILE);
    const read = (): string => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
    const last = (): { seq: number; hash: string } => {
      const e = parseEventLine(read().split('\n').filter((l) => l.length > 0).at(-1) ?? '');
      return e ? { seq: e.seq, hash: e.hash } : { seq: 0, hash: '' };
    };
    const text = (events: JournalEvent[]): string => events.map((e) => `${JSON.stringify(e)}\n`).join('');
    return {
      key,
      shared: false,
      async open(options = {}) {
        const j = openFileJournal(dir, { clock, logger: silentLogger, durable: false, watch: options.watch ?? false });
        cleanups.push(() => j.close());
        return j;
      },
      contents: async () => read(),
      events: async () => read().split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as JournalEvent),
      async forge(events, by) {
        const rows = linked(last(), events, by);
        fs.appendFileSync(file, text(rows));
        return span(rows);
      },
      async crash(events, cut) {
        const rows = linked(last(), events, key);
        // The bytes a torn write leaves: half of the line it was writing, no newline.
        const torn = cut.torn ? JSON.stringify(rows[cut.keep]).slice(0, 40) : '';
        fs.appendFileSync(file, text(rows.slice(0, cut.keep)) + torn);
      },
      cuts: (n) => Array.from({ length: n }, (_, keep) => [...(keep > 0 ? [{ keep, torn: false }] : []), { keep, torn: true }]).flat(),
      verify: async () => verifyJournal(dir),
      async alter(seq, change) {
        const lines = read().split('\n');
        const e = JSON.parse(lines[seq - 1] ?? '') as JournalEvent;
        change(e);
        lines[seq - 1] = JSON.stringify(e);
        fs.writeFileSync(file, lines.join('\n'));
      },
    };
  },
};

const memory: StoreKind = {
  name: 'the in-memory store',
  skips: {
    crash: 'nothing of the in-memory store outlives its process: a transaction is folded in the call that appends it, and no crash can leave part of one to read back',
    verify: 'the in-memory store seals nothing (no file or row to sign) and keeps nothing after its process: there is no log to verify offline',
  },
  async make() {
    const key = installation();
    const store = new InMemoryStore<HolonState>(holonReducer, clock, key.publicKey);
    let opened = 0;
    return {
      key,
      shared: true,
      // The first handle is the store itself; every other is the same installation writing to it.
      open: async () => (opened++ === 0 ? store : store.as(key.publicKey)),
      contents: async () => JSON.stringify(store.events),
      events: async () => structuredClone(store.events),
      async forge(events, by) {
        const from = store.seq + 1;
        store.receive(by.publicKey, events);
        return { from, to: store.seq };
      },
    };
  },
};

let databases = 0;
const postgres: StoreKind = {
  name: 'PostgreSQL',
  skips: {},
  async make() {
    if (!pg) throw new Error('the cluster is started before the first case');
    const url = await pg.createDatabase(`contract${++databases}`);
    const key = installation();
    const rows = async (): Promise<JournalEvent[]> => {
      const [t] = await sqlAt<{ t: string | null }>(url, `SELECT to_regclass('${TABLE}')::text AS t`);
      return t?.t ? (await sqlAt<EventRow>(url, `SELECT ${EVENT_COLUMNS} FROM ${TABLE} ORDER BY seq`)).map(eventOfRow) : [];
    };
    const last = async (): Promise<{ seq: number; hash: string }> => {
      const e = (await rows()).at(-1);
      return e ? { seq: e.seq, hash: e.hash } : { seq: 0, hash: '' };
    };
    // Straight into the table, as the cluster's superuser: the table's own trigger still checks each row's link.
    const insert = async (events: JournalEvent[]): Promise<void> => {
      for (const e of events) await sqlAt(url, `INSERT INTO ${TABLE} (${EVENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, rowOfEvent(e));
    };
    return {
      key,
      shared: true,
      async open(options = {}) {
        const store = await PostgresStore.open({ url, reducer: holonReducer, clock, logger: silentLogger, signer: key, watch: options.watch ?? false });
        cleanups.push(async () => {
          store.close();
          await store.ended;
        });
        return store;
      },
      contents: async () => JSON.stringify(await rows()),
      events: rows,
      async forge(events, by) {
        const forged = linked(await last(), events, by);
        await insert(forged);
        return span(forged);
      },
      async crash(events, cut) {
        // A database commits a transaction whole: what a crash can leave there is rows no seal covers.
        await insert(linked(await last(), events, key).slice(0, cut.keep));
      },
      // A row is whole or absent: a database has no torn bytes.
      cuts: (n) => Array.from({ length: n - 1 }, (_, i) => ({ keep: i + 1, torn: false })),
      verify: () => verifyTeamStore(url),
      async alter(seq, change) {
        const e = (await rows()).find((x) => x.seq === seq);
        assert.ok(e, `there is an event ${seq}`);
        change(e);
        // Only the table's owner can, once it drops the guard.
        await sqlAt(url, `ALTER TABLE ${TABLE} DISABLE TRIGGER holon_events_append_only`);
        await sqlAt(url, `UPDATE ${TABLE} SET data = $1 WHERE seq = $2`, [JSON.stringify(e.data), seq]);
        await sqlAt(url, `ALTER TABLE ${TABLE} ENABLE TRIGGER holon_events_append_only`);
      },
    };
  },
};

const stateText = (s: HolonState): string => holonReducer.serialize(s);
const funded = (s: HolonState, account = 'demo'): bigint | undefined => s.accounts[account]?.funded['EUR'];
const refusedOf = (r: { refused: readonly RefusedTx[] }): [number, number, string][] => r.refused.map((t) => [t.from, t.to, t.code]);
const append = (store: EventStore<HolonState>, type: string, data: unknown): Promise<void> => store.transact(() => ({ events: [{ type, data }], result: undefined }));

/** Reads what the store has not folded yet (a journal's refresh throws once it stops: its listeners are told). */
function look(store: EventStore<HolonState>): void {
  try {
    store.refresh();
  } catch {
    // Said to onBroken.
  }
}

/** A spend of `amount` EUR on demo/sandbox as a server decides it: held when it fits, otherwise nothing written. */
function spend(id: string, amount: string): (s: HolonState) => { events: NewEvent[]; result: string } {
  return (s) => {
    const mandate = s.mandates['demo/sandbox'];
    assert.ok(mandate, 'demo/sandbox exists');
    const gate = gateSpend(s, { id, mandate, payee: { kind: 'payee', id: 'bob' }, amount: money(amount, 'EUR'), subject: { kind: 'payment', payee: 'bob', amount: { amount, currency: 'EUR' }, terms_hash: null, purpose: null }, now: clock.now() });
    return { events: gate.kind === 'held' ? gate.events : [], result: gate.kind };
  };
}

const receipt = (id: string): Receipt => runningReceipt(id, clock.now());

/** A call as the gateway writes it: started, then finished, each its own transaction. */
async function call(store: EventStore<HolonState>, id: string): Promise<void> {
  await append(store, 'call.started', { receipt: receipt(id) });
  await append(store, 'call.finished', { receipt: id, status: 'succeeded', cost: { amount: '0.02', currency: 'EUR' }, price_cost: { amount: '0.02', currency: 'EUR' }, error: null, output_summary: 'x', duration_ms: 1 });
}

for (const kind of [journal, memory, postgres]) {
  describe(`the store contract on ${kind.name}`, () => {
    test('a transaction whose decision throws, refuses, or holds what its signer may not write appends nothing, and the next one goes through', async () => {
      const b = await kind.make();
      const a = await b.open();
      await fund(a, 'demo', '1');
      await createMandate(a, clock, 'demo/sandbox', { budget: { total: '1.00', per_day: null, per_call: null } });
      const seq = a.seq;
      const state = stateText(a.state);
      const contents = await b.contents();
      const unchanged = async (what: string): Promise<void> => {
        assert.equal(a.seq, seq, `${what}: nothing appended`);
        assert.equal(stateText(a.state), state, `${what}: the state is as it was`);
        assert.equal(await b.contents(), contents, `${what}: the backing is byte for byte as it was`);
      };
      await assert.rejects(
        a.transact(() => {
          throw new HolonError('conflict', 'no');
        }),
        (err: unknown) => HolonError.is(err, 'conflict'),
      );
      await unchanged('a decision that throws');
      // A refusal is data: the decision writes nothing and says why.
      assert.equal(await a.transact(spend('spend-big', '2.00')), 'denied');
      await unchanged('a spend over the budget');
      // What every reader would refuse (a hold settled that was never placed) is refused to the writer at once.
      const never: NewEvent[] = [{ type: 'hold.settled', data: { hold: 'hold_none', cost: '0.01' } }];
      assert.equal(a.mayWrite(never)?.code, 'unknown');
      await assert.rejects(a.transact(() => ({ events: never, result: undefined })), (err: unknown) => HolonError.is(err, 'denied') && err.details['reason'] === 'unknown');
      await unchanged('events the fold refuses');
      // Nothing was left half done (the lock was released): the next transaction goes through.
      assert.equal(await a.transact(spend('spend-small', '0.50')), 'held');
      assert.equal(a.seq, seq + 1);
      const other = await b.open();
      assert.equal(stateText(other.state), stateText(a.state));
    });

    test("a second handle sees the first one's appends by itself, once each and in order; each decides on the latest state", async () => {
      const b = await kind.make();
      const writer = await b.open();
      const reader = await b.open({ watch: true });
      const seen: number[] = [];
      const told: number[] = [];
      reader.subscribe((events) => seen.push(...events.map((e) => e.seq)));
      writer.subscribe((events) => told.push(...events.map((e) => e.seq)));
      await fund(writer, 'demo', '1');
      await fund(writer, 'demo', '2');
      await until(() => reader.seq === 2, 'the reader to see both appends');
      assert.deepEqual(seen, [1, 2]);
      assert.equal(funded(reader.state), 3_000_000n);
      assert.equal(stateText(reader.state), stateText(writer.state));
      assert.deepEqual(reader.refresh(), [], 'nothing is read twice');
      // And the other way round: the reader writes, the writer (not watching) folds it before it decides.
      await fund(reader, 'demo', '4');
      await fund(writer, 'demo', '8');
      assert.equal(writer.seq, 4);
      assert.equal(funded(writer.state), 15_000_000n);
      await until(() => reader.seq === 4, 'the reader to see the writer again');
      assert.deepEqual(seen, [1, 2, 3, 4], 'every event told to the reader once, in order');
      assert.deepEqual(told, [1, 2, 3, 4], 'every event told to the writer once, in order, its own included');
      // What one handle filed under a key, another reads back by it.
      await fund(writer, 'demo', '1');
      await createMandate(writer, clock, 'demo/sandbox', {});
      await call(writer, 'rcpt_1');
      await until(() => reader.seq === writer.seq, 'the reader to see the call');
      assert.deepEqual((await reader.readKey('rcpt:rcpt_1')).map((e) => e.type), ['call.started', 'call.finished']);
      assert.deepEqual((await reader.readKey('rcpt:rcpt_1', { newest: 1 })).map((e) => e.type), ['call.finished']);
      assert.deepEqual(await reader.readKey('rcpt:none'), []);
      assert.equal((await readReceipt(reader, 'rcpt_1'))?.status, 'succeeded');
      // A new handle folds the same state; one closed reads nothing more.
      const later = await b.open();
      assert.equal(stateText(later.state), stateText(writer.state));
      later.close();
      await fund(writer, 'demo', '1');
      assert.deepEqual(later.refresh(), [], 'a closed handle reads nothing');
      if (b.verify) assert.equal((await b.verify()).ok, true);
    });

    test('a transaction cut short by a crash is folded whole or not at all: a settlement retried pays once', { skip: kind.skips.crash }, async () => {
      // What a torn multi-event settlement did once: its first event (the hold settled) was kept and the
      // rest (the credit) lost, so the retry with the same key settled again. Now it is all or nothing.
      const settlement: NewEvent[] = [
        { type: 'hold.settled', data: { hold: 'pay_1', cost: '0.05' } },
        { type: 'account.funded', data: { account: 'shop', amount: '0.05', currency: 'EUR' } },
      ];
      const probe = await kind.make();
      const cuts = probe.cuts?.(settlement.length) ?? [];
      assert.ok(cuts.length > 0, 'the backing can be left with a cut transaction');
      for (const cut of cuts) {
        const where = `${cut.keep} event(s) of ${settlement.length} written${cut.torn ? ', and part of the next' : ''}`;
        const b = await kind.make();
        const a = await b.open({ watch: true });
        await fund(a, 'demo', '1');
        await append(a, 'hold.placed', { hold: 'pay_1', mandate: 'demo/sandbox', account: 'demo', currency: 'EUR', amount: '0.05', parent: null, payee: { kind: 'payee', id: 'acct:shop' } });
        const before = stateText(a.state);
        const last = (await b.events()).at(-1)?.seq ?? 0;
        await b.crash?.(settlement, cut);
        // Neither a handle that was open nor one opened now folds any of it.
        look(a);
        const k = await b.open();
        for (const h of [a, k]) {
          assert.equal(stateText(h.state), before, `${where}: nothing of it is folded`);
          assert.ok(h.state.holds['pay_1'], `${where}: the settlement is not half folded: the hold is still there`);
          assert.equal(funded(h.state, 'shop'), undefined, `${where}: nor the credit`);
        }
        // The retry, deciding on the latest state, settles once.
        await k.transact((s) => ({ events: s.holds['pay_1'] ? settlement : [], result: undefined }));
        assert.equal(k.state.accounts['demo']?.spent['EUR'], 50_000n, `${where}: charged 0.05 once`);
        assert.equal(funded(k.state, 'shop'), 50_000n, `${where}: credited 0.05 once`);
        assert.equal(k.state.holds['pay_1'], undefined, where);
        await until(() => (look(a), a.seq === k.seq), 'the handle that was open to see the retry');
        assert.equal(stateText(a.state), stateText(k.state), `${where}: every handle folds the same`);
        const reopened = await b.open();
        assert.equal(stateText(reopened.state), stateText(k.state), where);
        // What the crash left is never counted: the journal's next writer removed it (holding the lock); a
        // database, which commits whole, keeps such rows and names them as no seal's, to every reader and to verify.
        const left: [number, number, string][] = b.shared && cut.keep > 0 ? [[last + 1, last + cut.keep, 'unsealed']] : [];
        assert.deepEqual(refusedOf(reopened), left, where);
        const report = await b.verify?.();
        assert.deepEqual(report && refusedOf(report), left, where);
        assert.equal(report?.signed_through, k.seq, where);
      }
    });

    describe('a transaction sealed by a key that may not write it is never folded and is reported', () => {
      const forgeries = [
        {
          what: 'money funded by an installation that has no role in the store',
          by: () => installation(),
          events: [{ type: 'account.funded', data: { account: 'demo', amount: '1000', currency: 'EUR' } }],
          // Roles are the shared store's; on the journal any key but its installation's is foreign.
          code: (b: Backing) => (b.shared ? 'not_an_owner' : 'foreign_key'),
        },
        {
          what: "a hold settled that was never placed, under the installation's own key",
          by: (b: Backing) => b.key,
          events: [{ type: 'hold.settled', data: { hold: 'hold_none', cost: '1000' } }],
          code: () => 'unknown',
        },
      ];
      for (const f of forgeries) {
        test(f.what, async () => {
          const b = await kind.make();
          const a = await b.open({ watch: true });
          const refusals: RefusedTx[] = [];
          const breaks: Error[] = [];
          a.onRefused((tx) => refusals.push(tx));
          a.onBroken((err) => breaks.push(err));
          await fund(a, 'demo', '1');
          const by = f.by(b);
          const forged = await b.forge(f.events, by);
          const code = f.code(b);
          if (b.shared) {
            // Kept out of the fold, reported once with its seqs, why and who sealed it.
            await until(() => (look(a), a.refused.length > 0), 'the store to read the forged transaction');
            const expected = [{ from: forged.from, to: forged.to, code, signer: by.publicKey }];
            assert.deepEqual(a.refused.map((r) => ({ from: r.from, to: r.to, code: r.code, signer: r.signer })), expected);
            assert.deepEqual(refusals.map((r) => ({ from: r.from, to: r.to, code: r.code, signer: r.signer })), expected, 'onRefused is told once');
            assert.equal(funded(a.state), 1_000_000n, 'none of it was folded');
            const k = await b.open();
            assert.deepEqual(refusedOf(k), [[forged.from, forged.to, code]], 'a handle opened later reports it too');
            assert.equal(funded(k.state), 1_000_000n);
            // And everyone reads and writes on past it.
            await fund(k, 'demo', '1');
            assert.equal(k.seq, forged.to + 1);
            assert.equal(funded(k.state), 2_000_000n);
            await until(() => (look(a), a.seq === k.seq), 'the first handle to read past it');
            assert.equal(funded(a.state), 2_000_000n);
            assert.equal(refusals.length, 1, 'reported once, not again as the store reads on');
            assert.deepEqual(breaks, []);
          } else {
            // Only its installation writes the journal: what it cannot fold stops it, naming the line.
            await until(() => (look(a), breaks.length > 0), 'the store to read the forged transaction');
            assert.equal(breaks.length, 1, 'onBroken is told once');
            assert.ok(HolonError.is(breaks[0], 'corrupt_journal') && breaks[0].details['line'] === forged.from, String(breaks[0]));
            assert.equal(funded(a.state), 1_000_000n, 'none of it was folded');
            await assert.rejects(fund(a, 'demo', '1'), (err: unknown) => HolonError.is(err, 'corrupt_journal'));
            await assert.rejects(b.open(), (err: unknown) => HolonError.is(err, 'corrupt_journal') && err.details['line'] === forged.from);
          }
          if (b.verify) {
            const report = await b.verify();
            assert.equal(report.ok, false);
            assert.deepEqual(refusedOf(report), [[forged.from, forged.to, code]]);
          }
        });
      }
    });

    test('two handles interleave 2 × 200 transactions without losing or repeating any, each in the order it asked', async () => {
      const b = await kind.make();
      const x = await b.open({ watch: true });
      const y = await b.open({ watch: true });
      const run = async (store: EventStore<HolonState>, by: string): Promise<void> => {
        for (let i = 0; i < 200; i++) await append(store, 'test.append', { by, i });
      };
      // Both have written (connected to the lock, to the database) before the race starts.
      await append(x, 'test.warm', 'x');
      await append(y, 'test.warm', 'y');
      await Promise.all([run(x, 'x'), run(y, 'y')]);
      const check = await b.open();
      assert.equal(check.seq, 402);
      // Each writer has seen the other's last transactions too, once it looks (or its tailer has).
      await until(() => (look(x), look(y), x.seq === 402 && y.seq === 402), 'both writers to see all 402 events');
      assert.equal(stateText(x.state), stateText(check.state));
      assert.equal(stateText(y.state), stateText(check.state));
      const events = await b.events();
      assert.equal(events.length, 402);
      const appends = events.filter((e) => e.type === 'test.append');
      assert.equal(appends.length, 400);
      for (const by of ['x', 'y']) {
        assert.deepEqual(
          appends.filter((e) => (e.data as { by: string }).by === by).map((e) => (e.data as { i: number }).i),
          Array.from({ length: 200 }, (_, i) => i),
          `${by}'s transactions, each once, in its order`,
        );
      }
      // They really alternated: neither ran all of its 200 first.
      assert.ok(appends.slice(0, 200).some((e) => (e.data as { by: string }).by === 'y'));
      if (b.verify) {
        const report = await b.verify();
        assert.equal(report.ok, true, JSON.stringify(report.first_bad));
        assert.equal(report.events, 402);
      }
    });

    test('two handles race one budget with many transactions at once: each decided on the latest state, never over the limit', async () => {
      const b = await kind.make();
      const x = await b.open();
      const y = await b.open();
      await fund(x, 'demo', '5');
      await createMandate(x, clock, 'demo/sandbox', { budget: { total: '5.00', per_day: null, per_call: null }, approval_threshold: '5.00' });
      await fund(y, 'demo', '1');
      // 2 × 40 spends of 0.10 asked at once: 5.00 holds 50 of them.
      const race = (store: EventStore<HolonState>, by: string): Promise<string[]> => Promise.all(Array.from({ length: 40 }, (_, i) => store.transact(spend(`${by}-${i}`, '0.10'))));
      const [gx, gy] = await Promise.all([race(x, 'x'), race(y, 'y')]);
      const all = [...gx, ...gy];
      assert.equal(all.filter((g) => g === 'held').length, 50, JSON.stringify(all));
      assert.equal(all.filter((g) => g === 'denied').length, 30);
      // Each handle's transactions were decided in the order it asked: its spends held are its first ones.
      for (const [by, got] of [['x', gx], ['y', gy]] as const) {
        const held = got.filter((g) => g === 'held').length;
        assert.deepEqual(got, [...Array(held).fill('held'), ...Array(40 - held).fill('denied')], `${by}: held first, denied once the budget was spent`);
      }
      assert.ok(gx.includes('held') && gy.includes('held'), 'both handles won some of the race');
      const check = await b.open();
      assert.equal(check.state.spend['demo/sandbox']?.held, money('5.00', 'EUR').units, 'held exactly the budget');
      const holds = Object.keys(check.state.holds).sort();
      const expected = [...gx.flatMap((g, i) => (g === 'held' ? [`x-${i}`] : [])), ...gy.flatMap((g, i) => (g === 'held' ? [`y-${i}`] : []))].sort();
      assert.deepEqual(holds, expected, 'every spend said held is held, once');
    });

    test('verify passes a good log and reads without writing; an event altered in place is named with its seq and why, and the check goes on', { skip: kind.skips.verify }, async () => {
      const b = await kind.make();
      const a = await b.open();
      await fund(a, 'demo', '5');
      await setFx(a, 'USD', 'EUR', '0.92');
      await createMandate(a, clock, 'demo/sandbox', { grantee: { slug: 'zoe', name: 'Zoë – 東京', role: 'agent', manager: null } });
      await fund(a, 'demo', '1.25');
      // One transaction of two events (seq 5 and 6): its seal is on the second.
      await a.transact(() => ({ events: [{ type: 'test.note', data: { list: [1, 2.5, true, null], nested: { s: 'x"y\\z' } } }, { type: 'test.note', data: { n: 2 } }], result: undefined }));
      await fund(a, 'demo', '2');
      a.close();
      const good = await b.contents();
      const head = (await b.events()).at(-1)?.hash;
      const report = await b.verify?.();
      assert.deepEqual(report, { ok: true, events: 7, transactions: 6, signed_through: 7, unsigned: 0, head, refused: [], refused_count: 0 });
      assert.equal(await b.contents(), good, 'verify reads without writing');
      // The amount of a fund, changed in place: its transaction is refused, and the check reads on past it.
      await b.alter?.(4, (e) => ((e.data as { amount: string }).amount = '1000'));
      const altered = await b.verify?.();
      assert.equal(altered?.ok, false);
      assert.equal(altered?.first_bad, undefined);
      assert.deepEqual(altered && refusedOf(altered), [[4, 4, 'altered']]);
      assert.match(altered?.refused[0]?.message ?? '', /event 4 does not match its hash/);
      assert.deepEqual([altered?.events, altered?.transactions, altered?.signed_through], [7, 5, 7]);
      // An event inside a transaction of two: the whole transaction is refused.
      await b.alter?.(5, (e) => ((e.data as { nested: { s: string } }).nested.s = 'other'));
      assert.deepEqual(refusedOf((await b.verify?.()) ?? { refused: [] }), [[4, 4, 'altered'], [5, 6, 'altered']]);
    });
  });
}
