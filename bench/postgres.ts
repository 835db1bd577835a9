/**
 * (h) The team store: call_agent on PostgreSQL vs the same call on the file journal, and vs what
 * PostgreSQL must at least do per call (one INSERT of a decision-sized row, committed). The cluster is
 * a throwaway one with PostgreSQL's durable defaults (fsync and synchronous commit on), on this machine,
 * over loopback TCP; both Holons run in this process over the in-memory transport.
 *
 * (h.w) The team store with 1, 2 and 4 writers: `holon mcp` processes, each driven by a real SDK client
 * as an agent would, calling at once on one PostgreSQL. What is compared is the team's throughput.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client as PgClient } from 'pg';
import { silentLogger, systemClock } from '../src/core/kernel/deps.ts';
import { lazySigner } from '../src/core/store/keys.ts';
import { migrateToTeamStore } from '../src/core/teamAdmin.ts';
import { PostgresStore } from '../src/core/store/pg/store.ts';
import { holonReducer } from '../src/core/fold/state.ts';
import { aroundQueries, startPostgres } from '../test/pg/harness.ts';
import { context, log, n, plan, QUICK, row, side, STEADY } from './report.ts';
import { interleave } from './timing.ts';
import type { CallTemplate, TempDirs } from './world.ts';
import { APPEND_LOCK } from '../src/core/store/pg/schema.ts';
import { HOLON_BIN, MANDATE } from '../test/helpers.ts';
import { callAgent, holonInMemory, seedState, stdioClient } from './world.ts';

export async function comparisonH(dirs: TempDirs, tpl: CallTemplate, closers: (() => Promise<void>)[]): Promise<void> {
  log('(h) the team store: call_agent on PostgreSQL vs on the file journal, and vs one INSERT + commit');
  const pg = await startPostgres({ durable: true });
  closers.push(async () => pg.stop());
  const url = await pg.createDatabase('bench');

  // The same seeded world in both stores: seeded as a journal, copied into the database as it is.
  const fileDir = dirs.make('h-file');
  await seedState(fileDir);
  const pgDir = dirs.make('h-pg');
  await seedState(pgDir);
  await migrateToTeamStore(pgDir, url, { logger: silentLogger });
  fs.rmSync(path.join(pgDir, 'journal.jsonl'));
  const store = await PostgresStore.open({ url, reducer: holonReducer, clock: systemClock, logger: silentLogger, signer: lazySigner(pgDir) });
  const onPg = await holonInMemory(pgDir, store);
  closers.push(onPg.close);
  const onFile = await holonInMemory(fileDir);
  closers.push(onFile.close);

  const { Client } = await import('pg');
  const floor: PgClient = new Client({ connectionString: url });
  await floor.connect();
  closers.push(() => floor.end());
  await floor.query('CREATE TABLE floor (seq bigserial PRIMARY KEY, data text NOT NULL)');
  const decision = 'x'.repeat(tpl.decisionBytes);

  for (let i = 0; i < 5; i++) await callAgent(onPg.client);
  context['h_per_call'] = await countStatements(store, n(40, 10), () => callAgent(onPg.client));
  const samples = await interleave(
    [
      { name: 'pg', perRound: n(5, 3), warmup: n(30, 5), run: () => callAgent(onPg.client) },
      { name: 'file', perRound: n(5, 3), warmup: n(30, 5), run: () => callAgent(onFile.client) },
      { name: 'floor', perRound: n(10, 5), warmup: 20, run: () => floor.query('INSERT INTO floor (data) VALUES ($1)', [decision]) },
    ],
    plan(20),
  );
  const holonPg = side('call_agent, Holon on PostgreSQL', samples, 'pg');
  row('h.f', 'call_agent on PostgreSQL vs on the file journal, in-memory transport', holonPg, side('call_agent, Holon on the file journal', samples, 'file'));
  row('h.p', "call_agent on PostgreSQL vs PostgreSQL's floor (one INSERT, committed)", holonPg, side('1 INSERT + commit', samples, 'floor'));
  context['h_postgres'] = { server: pg.url('bench').replace(/\/\/[^@]*@/, '//'), durable: true };
}

/** How many statements a simple query holds: its `;`-separated parts, quoted literals skipped. */
function statementsIn(text: string): number {
  let n = 0;
  let quoted = false;
  let part = false;
  for (const ch of text) {
    if (ch === "'") quoted = !quoted;
    if (!quoted && ch === ';') {
      if (part) n += 1;
      part = false;
    } else if (!/\s/.test(ch)) part = true;
  }
  return n + (part ? 1 : 0);
}

/**
 * What the store sends PostgreSQL per call while `calls` calls run: queries (each one round trip) and the
 * statements in them, on its pool's connections (transactions and catch-up reads alike, the once-a-second
 * poll included).
 */
async function countStatements(store: PostgresStore<unknown>, calls: number, call: () => Promise<void>): Promise<{ round_trips: number; statements: number }> {
  let trips = 0;
  let statements = 0;
  let counting = true;
  aroundQueries(store, (args, send) => {
    if (counting) {
      const q = args[0];
      const text = typeof q === 'string' ? q : (q as { text?: string } | undefined)?.text;
      trips += 1;
      statements += text ? statementsIn(text) : 1;
    }
    return send();
  });
  for (let i = 0; i < calls; i++) await call();
  counting = false;
  return { round_trips: trips / calls, statements: statements / calls };
}

/** The writer counts (h.w) compares, each on a database of its own so that its statistics are its own. */
const WRITERS = [1, 2, 4] as const;

/**
 * (h.w) 1, 2 and 4 `holon mcp` processes calling at once on one PostgreSQL (durable defaults), in
 * interleaved rounds: the time per call of the whole team (wall time ÷ calls), so 1 writer ÷ 4 writers
 * is the throughput of 4 over that of 1, every process warmed to its steady state first. Alongside, from
 * PostgreSQL itself: how much of the time the append lock was held (sampled from pg_locks, in rounds not
 * timed), that time per call, and rollbacks and commits per call.
 */
export async function comparisonHW(dirs: TempDirs, closers: (() => Promise<void>)[]): Promise<void> {
  log('(h.w) the team store with 1, 2 and 4 holon mcp processes calling at once');
  const pg = await startPostgres({ durable: true });
  closers.push(async () => pg.stop());
  const teams = new Map<number, Awaited<ReturnType<typeof stdioClient>>['client'][]>();
  // Where the 4 writers write: a process here reads it afterwards, as one of them (takingIn).
  let four: { url: string; dir: string } | undefined;
  for (const k of WRITERS) {
    const url = await pg.createDatabase(`writers${k}`);
    const dir = dirs.make(`hw-${k}`);
    if (k === 4) four = { url, dir };
    await seedState(dir);
    await migrateToTeamStore(dir, url, { logger: silentLogger });
    fs.rmSync(path.join(dir, 'journal.jsonl'));
    const clients = [];
    for (let i = 0; i < k; i++) {
      const c = await stdioClient(process.execPath, [HOLON_BIN, 'mcp', '--mandate', MANDATE, '--state', dir, '--store', url]);
      closers.push(c.close);
      clients.push(c.client);
    }
    teams.set(k, clients);
  }
  const per = n(15, 3);
  /** `calls` calls by each of the k writers, all at once. */
  const round = (k: number, calls = per): Promise<unknown> => Promise.all((teams.get(k) ?? []).map(async (c) => { for (let i = 0; i < calls; i++) await callAgent(c); }));
  const before = await dbCounters(pg.url('postgres'));
  // Every call each team makes, warm-up included: what its commits and rollbacks are divided by.
  const made = new Map<number, number>(WRITERS.map((k) => [k, k * STEADY]));
  for (const k of WRITERS) await round(k, STEADY);
  const perCall: Record<string, number[]> = { w1: [], w2: [], w4: [] };
  const totals = new Map<number, { ms: number; calls: number; cpuMs: number }>(WRITERS.map((k) => [k, { ms: 0, calls: 0, cpuMs: 0 }]));
  const started = performance.now();
  for (let r = 0; r < (QUICK ? 2 : 8) || performance.now() - started < (QUICK ? 500 : 25_000); r++) {
    // The order turns each round, so no writer count always follows another.
    for (const k of r % 2 === 0 ? WRITERS : [...WRITERS].reverse()) {
      const total = totals.get(k);
      if (!total) continue;
      const t0 = performance.now();
      const cpu0 = machineCpuMs();
      await round(k);
      const ms = performance.now() - t0;
      total.cpuMs += machineCpuMs() - cpu0;
      perCall[`w${k}`]?.push(ms / (k * per));
      total.ms += ms;
      total.calls += k * per;
      made.set(k, (made.get(k) ?? 0) + k * per);
    }
  }
  // The lock is watched in rounds of their own: its sampler's queries cost CPU that, at 4 writers, the
  // writers would have had, so the rounds timed above run without it.
  const sampler = await lockSampler(pg.url('postgres'));
  closers.push(sampler.stop);
  const watched = new Map<number, { ms: number; calls: number }>(WRITERS.map((k) => [k, { ms: 0, calls: 0 }]));
  for (const k of WRITERS) {
    const w = watched.get(k) ?? { ms: 0, calls: 0 };
    while (w.ms < (QUICK ? 200 : 3_000)) {
      sampler.watch(`writers${k}`);
      const t0 = performance.now();
      await round(k);
      w.ms += performance.now() - t0;
      sampler.watch(undefined);
      w.calls += k * per;
      made.set(k, (made.get(k) ?? 0) + k * per);
    }
    watched.set(k, w);
  }
  for (const clients of teams.values()) for (const c of clients) await c.close();
  // A backend reports its counts as it ends: read them once the writers' connections are all gone.
  await gone(pg.url('postgres'));
  const after = await dbCounters(pg.url('postgres'));
  await sampler.stop();
  const taken = four ? await takingIn(four.url, four.dir, made.get(4) ?? 1) : NaN;
  const one = side('call_agent, 1 writer: wall time ÷ calls', perCall, 'w1');
  row('h.w4', 'team store, throughput of 4 writers ÷ 1 (1 writer\'s time per call ÷ 4 writers\')', one, side('call_agent, 4 writers at once: wall time ÷ calls', perCall, 'w4'), '≥ 1.5×');
  row('h.w2', 'team store, throughput of 2 writers ÷ 1 (context)', one, side('call_agent, 2 writers at once: wall time ÷ calls', perCall, 'w2'));
  const writers = Object.fromEntries(
    WRITERS.map((k) => {
      const t = totals.get(k) ?? { ms: 0, calls: 1, cpuMs: 0 };
      const w = watched.get(k) ?? { ms: 0, calls: 1 };
      const held = sampler.held(`writers${k}`);
      const d = (f: 'xact_commit' | 'xact_rollback'): number =>
        ((after.get(`writers${k}`)?.[f] ?? 0) - (before.get(`writers${k}`)?.[f] ?? 0)) / (made.get(k) ?? 1);
      return [
        `${k} writer${k > 1 ? 's' : ''}`,
        {
          calls_per_s: Math.round((t.calls / t.ms) * 1000 * 10) / 10,
          lock_held_share: Math.round(held * 1000) / 1000,
          lock_held_ms_per_call: Math.round(((held * w.ms) / w.calls) * 100) / 100,
          rollbacks_per_call: Math.round(d('xact_rollback') * 100) / 100,
          commits_per_call: Math.round(d('xact_commit') * 100) / 100,
          // The whole machine (writers, their agents, PostgreSQL, the bench's clients): what a call costs it,
          // and how many of its cores were busy. Once they all are, more writers cannot add throughput.
          machine_cpu_ms_per_call: Math.round((t.cpuMs / t.calls) * 100) / 100,
          cores_busy: Math.round((t.cpuMs / t.ms) * 100) / 100,
        },
      ];
    }),
  );
  // What bounds 4 ÷ 1 on this machine: every writer takes in every other writer's calls (reads their rows,
  // checks each transaction's seal and each event's hash, folds them), so each call costs the machine that
  // much more for each writer beside its own. With every core busy and nothing else added, 4 writers could
  // at most reach (cores ÷ 1 writer's busy cores) × (1 writer's CPU per call ÷ that plus 3 takings-in).
  const w1 = writers['1 writer'] ?? { machine_cpu_ms_per_call: NaN, cores_busy: NaN };
  const atMost = (os.cpus().length / w1.cores_busy) * (w1.machine_cpu_ms_per_call / (w1.machine_cpu_ms_per_call + 3 * taken));
  context['h_writers'] = { ...writers, taking_in_a_call_ms: taken, '4_writers_at_most': Math.round(atMost * 100) / 100 };
  log(`(h.w) ${JSON.stringify(context['h_writers'])}`);
}

/**
 * What taking in one call another writer made costs a writer: this process opens, as one of them, the team
 * store the 4 writers wrote (every call they made, read, checked and folded as a writer does with a
 * colleague's rows), and its CPU time is divided by those calls. PostgreSQL's part in sending the rows is
 * not counted, so this is the least it costs.
 */
async function takingIn(url: string, dir: string, calls: number): Promise<number> {
  const cpu0 = process.cpuUsage();
  const store = await PostgresStore.open({ url, reducer: holonReducer, clock: systemClock, logger: silentLogger, signer: lazySigner(dir), watch: false });
  const cpu = process.cpuUsage(cpu0);
  store.close();
  await store.ended;
  return Math.round(((cpu.user + cpu.system) / 1000 / calls) * 1000) / 1000;
}

/**
 * The CPU time every process on the machine has used since it started, in ms (Linux's /proc/stat: all but
 * idle and I/O wait, every core summed); NaN where there is no /proc.
 */
function machineCpuMs(): number {
  let line: string | undefined;
  try {
    line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  } catch {
    return NaN;
  }
  const ticks = (line ?? '').trim().split(/\s+/).slice(1, 9).map(Number);
  const busy = ticks.reduce((a, b) => a + b, 0) - (ticks[3] ?? 0) - (ticks[4] ?? 0);
  // /proc/stat counts in USER_HZ ticks, a hundredth of a second on Linux.
  return busy * 10;
}

/**
 * Samples, on a connection of its own, whether the append lock is held in the database being watched:
 * the share of samples that found it held is the share of the time it was. A sample is a catalog read
 * every 2 ms or so, the same for every writer count.
 */
async function lockSampler(url: string): Promise<{ watch: (db: string | undefined) => void; held: (db: string) => number; stop: () => Promise<void> }> {
  const { Client } = await import('pg');
  const c: PgClient = new Client({ connectionString: url });
  await c.connect();
  const seen = new Map<string, { samples: number; held: number }>();
  let watching: string | undefined;
  let running = true;
  const loop = (async () => {
    while (running) {
      const db = watching;
      if (db) {
        const { rows } = await c.query<{ held: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' ` +
            `AND l.granted AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1 AND d.datname = $2) AS held`,
          [APPEND_LOCK, db],
        );
        // Counted only if the same writers still run: a sample that straddles a change is dropped.
        if (watching === db) {
          const s = seen.get(db) ?? { samples: 0, held: 0 };
          s.samples += 1;
          if (rows[0]?.held) s.held += 1;
          seen.set(db, s);
        }
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  let stopped = false;
  return {
    watch: (db) => (watching = db),
    held: (db) => {
      const s = seen.get(db);
      return s && s.samples > 0 ? s.held / s.samples : 0;
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      running = false;
      await loop;
      await c.end();
    },
  };
}

/** Resolves once no connection to the writers' databases is left (each writer's process has ended). */
async function gone(url: string): Promise<void> {
  const { Client } = await import('pg');
  const c: PgClient = new Client({ connectionString: url });
  await c.connect();
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname LIKE 'writers%'`);
      if ((rows[0]?.n ?? 0) === 0) return;
      if (Date.now() > deadline) throw new Error('the writers did not end their connections');
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await c.end();
  }
}

/** Each database's committed and rolled-back transactions so far, as PostgreSQL counts them. */
async function dbCounters(url: string): Promise<Map<string, { xact_commit: number; xact_rollback: number }>> {
  const { Client } = await import('pg');
  const c: PgClient = new Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ datname: string; xact_commit: string; xact_rollback: string }>(
      `SELECT datname, xact_commit::text, xact_rollback::text FROM pg_stat_database WHERE datname LIKE 'writers%'`,
    );
    return new Map(rows.map((r) => [r.datname, { xact_commit: Number(r.xact_commit), xact_rollback: Number(r.xact_rollback) }]));
  } finally {
    await c.end();
  }
}
