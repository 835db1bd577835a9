/**
 * (h) The team store: call_agent on PostgreSQL vs the same call on the file journal, and vs what
 * PostgreSQL must at least do per call (one INSERT of a decision-sized row, committed). The cluster is
 * a throwaway one with PostgreSQL's durable defaults (fsync and synchronous commit on), on this machine,
 * over loopback TCP; both Holons run in this process over the in-memory transport.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client as PgClient } from 'pg';
import { silentLogger, systemClock } from '../src/core/kernel/deps.ts';
import { lazySigner } from '../src/core/store/keys.ts';
import { migrateToTeamStore } from '../src/core/teamAdmin.ts';
import { PostgresStore } from '../src/core/store/pg/store.ts';
import { holonReducer } from '../src/core/fold/state.ts';
import { aroundQueries, startPostgres } from '../test/pg/harness.ts';
import { context, log, n, plan, row, side } from './report.ts';
import { interleave } from './timing.ts';
import type { CallTemplate, TempDirs } from './world.ts';
import { callAgent, holonInMemory, seedState } from './world.ts';

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
