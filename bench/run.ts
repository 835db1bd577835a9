/**
 * `npm run bench`: what Holon's durability and MCP layers cost, each figure a ratio against a baseline
 * measured in the same run (absolute medians beside it for context). Prints a table and writes
 * bench/results.json. Nothing here asserts a result; a call that does not succeed stops the bench,
 * since its timing would measure something else.
 *
 * (a) call_agent through Holon vs a bare echo tool over the same transport (in-memory, stdio), and vs
 *     the durable-append floor (append + fsync of one event line of the same size, and of the two a
 *     call writes).
 * (b) call_agent with 100k vs 1k prior events in the journal.
 * (c) the seed's v0 state.json (re-read, rewrite, fsync per call) vs the journal's per-call work, at
 *     10k receipts.
 * (d) opening a 100k-event journal without vs with its snapshot.
 * (h) call_agent on the team store (PostgreSQL) vs on the file journal, and vs one INSERT + commit.
 * (t) atr_transact vs its floor: a wallet signature and one GET of the seller's ATR.
 * (x) atr_transact end to end on the local chain (confirm, sign, settle, landed) vs its floor (bench/chain.ts).
 * (r) every read an agent can page (get_audit, list_intents, pay, mail_inbox, office_overview, memory_recall,
 *     memory_assemble) at 100k vs 1k records of each kind (bench/reads.ts).
 * Context rows and lines (not one of the four): the agent called directly, the journal lock, the
 * snapshot write and where an open with the snapshot spends its time.
 *
 * HOLON_BENCH_QUICK=1 runs every comparison with few iterations (to try the bench, not to read it).
 */
import type { Client } from '@modelcontextprotocol/client';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { silentLogger, systemClock } from '../src/core/kernel/deps.ts';
import { openState } from '../src/core/holon.ts';
import type { EventStore, TxResult } from '../src/core/store/store.ts';
import { JournalLock } from '../src/core/store/file/lock.ts';
import type { HolonState } from '../src/core/fold/state.ts';
import { newId } from '../src/core/kernel/ids.ts';
import { recentRootReceipts } from '../src/core/market/receiptTree.ts';
import { EXAMPLES, FACTURE, ROOT } from '../test/helpers.ts';
import { collectGarbage, context, log, n, plan, QUICK, row, rows, side, STEADY } from './report.ts';
import type { Case } from './timing.ts';
import { interleave, timeOnce } from './timing.ts';
import { comparisonB, comparisonD, comparisonF, comparisonG, millionState } from './scale.ts';
import { v0Call, writeV0State } from './v0State.ts';
import { comparisonH, comparisonHW } from './postgres.ts';
import { comparisonT } from './terms.ts';
import { comparisonX } from './chain.ts';
import { comparisonR } from './reads.ts';
import { comparisonK, comparisonU } from './snapshots.ts';
import type { CallTemplate } from './world.ts';
import { AGENT, CALL_ARGS, callAgent, callEvents, catalogState, durableAppender, echoInMemory, echoStdio, historyState, holonInMemory, holonStdio, readCallTemplate, seedState, stdioClient, TempDirs } from './world.ts';

async function callEcho(client: Client): Promise<void> {
  const r = await client.callTool({ name: 'echo', arguments: CALL_ARGS });
  if (r.isError) throw new Error(`echo failed: ${JSON.stringify(r.content)}`);
}

/** The agent's own MCP server called directly over stdio, with the file mapping Holon would send. */
async function callAgentDirect(client: Client, facture: string): Promise<void> {
  const r = await client.callTool({ name: 'extract_table', arguments: { file: FACTURE }, _meta: { 'holon/files': { [FACTURE]: facture } } });
  if (r.isError) throw new Error(`agent failed: ${JSON.stringify(r.content)}`);
}

/** The durable-append floor: what `appendLocked` must at least do per transaction (open, write, fsync). */
function durableAppend(file: string, text: string): void {
  const fd = fs.openSync(file, 'a');
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A line of `bytes` bytes, newline included. */
const line = (bytes: number): string => `${'x'.repeat(Math.max(0, bytes - 1))}\n`;

/** The journal's per-call work as the gateway does it: call.started and call.settled, one transaction each. */
function journalCall(store: EventStore<HolonState>, tpl: CallTemplate, oneTransaction = false): () => Promise<void> {
  return async () => {
    const { decision, settlement } = callEvents(tpl, newId('rcpt'), new Date().toISOString());
    if (oneTransaction) {
      await store.transact(() => ({ events: [...decision, ...settlement], result: undefined }));
      return;
    }
    await store.transact(() => ({ events: decision, result: undefined }));
    await store.transact(() => ({ events: settlement, result: undefined }));
  };
}

/** Counts transactions, appended events and fsyncs while `fn` runs, by wrapping the store's transact. */
async function countTransactions(store: EventStore<HolonState>, calls: number, fn: () => Promise<void>): Promise<{ transactions: number; writing_transactions: number; events: number }> {
  const original = store.transact;
  let transactions = 0;
  let writing = 0;
  const seq0 = store.seq;
  store.transact = <T>(f: (s: HolonState) => TxResult<T>): Promise<T> => {
    transactions += 1;
    const before = store.seq;
    return original.call(store, f).finally(() => {
      if (store.seq > before) writing += 1;
    }) as Promise<T>;
  };
  try {
    for (let i = 0; i < calls; i++) await fn();
  } finally {
    store.transact = original;
  }
  return { transactions: transactions / calls, writing_transactions: writing / calls, events: (store.seq - seq0) / calls };
}

async function comparisonA(dirs: TempDirs, closers: (() => Promise<void>)[]): Promise<CallTemplate> {
  // (i) in-memory.
  log('(a) in-memory: Holon call_agent, echo tool, the agent alone, the durable-append floor');
  const memDir = dirs.make('a-mem');
  await seedState(memDir);
  const holon = await holonInMemory(memDir);
  closers.push(holon.close);
  const echo = await echoInMemory();
  closers.push(echo.close);
  const agentScript = path.join(EXAMPLES, 'agents', 'lenaTableExtractFr.mjs');
  const agent = await stdioClient(process.execPath, [agentScript], EXAMPLES);
  closers.push(agent.close);
  const facture = fs.realpathSync(path.join(EXAMPLES, 'files', 'facture.pdf'));

  await callAgent(holon.client);
  const tpl = readCallTemplate(memDir);
  context['transaction_bytes'] = { decision: tpl.decisionBytes, settlement: tpl.settlementBytes };
  const floorDir = dirs.make('floor');
  const floorFile = path.join(floorDir, 'journal.jsonl');
  const lock = new JournalLock(floorDir);
  const startedLine = line(tpl.decisionBytes);
  const settledLine = line(tpl.settlementBytes);
  const floor1: Case = { name: 'floor1', perRound: n(10, 5), warmup: 20, run: () => durableAppend(floorFile, startedLine) };
  const floor2: Case = {
    name: 'floor2',
    perRound: n(5, 3),
    warmup: 10,
    run: () => {
      durableAppend(floorFile, startedLine);
      durableAppend(floorFile, settledLine);
    },
  };

  const mem = await interleave(
    [
      { name: 'holon', perRound: n(5, 3), warmup: STEADY, run: () => callAgent(holon.client) },
      { name: 'echo', perRound: n(30, 10), warmup: 100, run: () => callEcho(echo.client) },
      { name: 'agent', perRound: n(5, 3), warmup: STEADY, run: () => callAgentDirect(agent.client, facture) },
      floor1,
      floor2,
      // The cross-process lock each transaction takes (this process coordinates it: no I/O at all).
      { name: 'lock', perRound: n(10, 5), warmup: 20, run: async () => (await lock.acquire())() },
    ],
    plan(15),
  );
  const holonMem = side('call_agent, Holon in-memory', mem, 'holon');
  row('a.i', 'call_agent vs echo tool, in-memory', holonMem, side('echo tool, in-memory', mem, 'echo'));
  row('a.i.f1', 'call_agent in-memory vs 1 durable append', holonMem, side('1 append+fsync', mem, 'floor1'));
  row('a.i.f2', 'call_agent in-memory vs 2 durable appends', holonMem, side('2 appends+fsync', mem, 'floor2'));
  row('a.i.ag', 'call_agent in-memory vs the agent alone (context)', holonMem, side('agent direct, stdio', mem, 'agent'));
  row('a.f', 'floor: 2 durable appends vs 1 (context)', side('2 appends+fsync', mem, 'floor2'), side('1 append+fsync', mem, 'floor1'));
  row('a.l', 'journal lock vs 1 durable append (context)', side('lock acquire + release', mem, 'lock'), side('1 append+fsync', mem, 'floor1'));
  lock.close();

  context['per_call_journal_work'] = await countTransactions(holon.runtime.store, n(40, 10), () => callAgent(holon.client));

  // (ii) stdio.
  log('(a) stdio: dist/holon.js mcp vs bench/echoServer.ts');
  const stdioDir = dirs.make('a-stdio');
  await seedState(stdioDir);
  const holonS = await holonStdio(stdioDir);
  closers.push(holonS.close);
  const echoS = await echoStdio();
  closers.push(echoS.close);
  const appender = durableAppender(path.join(floorDir, 'floor.jsonl'));
  closers.push(async () => appender.close());
  const st = await interleave(
    [
      { name: 'holon', perRound: n(5, 3), warmup: STEADY, run: () => callAgent(holonS.client) },
      { name: 'echo', perRound: n(20, 10), warmup: 100, run: () => callEcho(echoS.client) },
      { name: 'agent', perRound: n(5, 3), warmup: n(10, 3), run: () => callAgentDirect(agent.client, facture) },
      floor2,
      // The floor of a paid call: the bare round trip, the agent called directly, and the one fdatasync
      // it needs, over what the journal writes between two calls (the last settlement, this decision).
      {
        name: 'floor',
        perRound: n(5, 3),
        warmup: n(30, 5),
        run: async () => {
          await callEcho(echoS.client);
          await callAgentDirect(agent.client, facture);
          appender.append(settledLine + startedLine);
        },
      },
    ],
    plan(30),
  );
  const holonStd = side('call_agent, holon mcp (stdio)', st, 'holon');
  row('a.p', 'paid call_agent vs its floor (echo round trip + the agent directly + 1 durable append), stdio', holonStd, side('echo + agent + 1 append+fdatasync (both lines)', st, 'floor'), '≤ 1.5×');
  row('a.ii', 'call_agent vs echo tool, stdio', holonStd, side('echo tool, stdio', st, 'echo'));
  row('a.ii.f2', 'call_agent stdio vs 2 durable appends', holonStd, side('2 appends+fsync', st, 'floor2'));
  row('a.ii.ag', 'call_agent stdio vs the agent alone (context)', holonStd, side('agent direct, stdio', st, 'agent'));
  row('a.x', 'stdio vs in-memory transport, echo (context)', side('echo tool, stdio', st, 'echo'), side('echo tool, in-memory', mem, 'echo'));
  return tpl;
}

async function comparisonC(dirs: TempDirs, tpl: CallTemplate): Promise<void> {
  log('(c) generating a journal with 10k receipts; the v0 state.json of the same state');
  const h = await historyState(dirs, 'c-10k', tpl, { calls: 10_000 });
  const store = openState(h.dir, { clock: systemClock, logger: silentLogger });
  try {
    const v0Dir = dirs.make('c-v0');
    const v0 = writeV0State(v0Dir, store.state, await recentRootReceipts(store, { limit: 10_000 }));
    context['c_sizes'] = { receipts: 10_000, journal_events: store.seq, journal_bytes: h.bytes, v0_state_json_bytes: v0.bytes };
    log('(c) v0 read-modify-write vs journal transactions');
    const s = await interleave(
      [
        {
          name: 'v0',
          perRound: 1,
          warmup: n(3, 1),
          // Its ~2 × 6 MB of strings and objects are collected untimed, so that the journal's iterations
          // that follow do not pay for them (and v0 is not charged its GC either: a conservative ratio).
          after: collectGarbage,
          run: () => {
            const now = new Date().toISOString();
            v0Call(v0.file, tpl, newId('rcpt'), now, now);
          },
        },
        { name: 'journal2', perRound: n(10, 3), warmup: 10, run: journalCall(store, tpl) },
        { name: 'journal1', perRound: n(10, 3), warmup: 10, run: journalCall(store, tpl, true) },
      ],
      plan(12, 30),
    );
    const v0Side = side('v0 state.json rewrite', s, 'v0');
    row('c', 'v0 state.json vs journal (2 tx, as the gateway), 10k receipts', v0Side, side('journal: 2 transactions', s, 'journal2'));
    row('c.1', 'v0 state.json vs journal (1 tx with both events), 10k receipts', v0Side, side('journal: 1 transaction', s, 'journal1'));
  } finally {
    store.close();
  }
}

/** One search_agents; anything but a result stops the bench. */
async function search(client: Client, args: Record<string, unknown>): Promise<number> {
  const r = await client.callTool({ name: 'search_agents', arguments: args });
  const s = r.structuredContent as { total?: { agents: number; excluded: number } } | undefined;
  if (r.isError || !s?.total) throw new Error(`search_agents failed: ${JSON.stringify(r.content)}`);
  return s.total.agents + s.total.excluded;
}

async function comparisonE(dirs: TempDirs, closers: (() => Promise<void>)[]): Promise<void> {
  log('(e) search_agents over 10,000 generated agents (1% delegating) vs over the 5 demo agents');
  const demoDir = dirs.make('e-demo');
  await seedState(demoDir);
  const bigDir = await catalogState(dirs, 'e-10k', 10_000, 0.01);
  const demo = await holonInMemory(demoDir);
  closers.push(demo.close);
  const big = await holonInMemory(bigDir);
  closers.push(big.close);
  const table = { capability: 'extraction.table' };
  const family = { capability: 'extraction.*' };
  const words = { query: 'layout' };
  // The first search builds the index (worst cases, rankings): timed apart, since a catalog changes rarely.
  context['e_first_search_ms'] = await timeOnce(() => search(big.client, table));
  context['e_matches_10k'] = { 'extraction.table': await search(big.client, table), 'extraction.*': await search(big.client, family), 'query layout': await search(big.client, words) };
  const s = await interleave(
    [
      { name: 'demo', perRound: n(20, 5), warmup: 50, run: () => search(demo.client, table) },
      { name: 'big', perRound: n(20, 5), warmup: 50, run: () => search(big.client, table) },
      { name: 'bigFamily', perRound: n(5, 2), warmup: 10, run: () => search(big.client, family) },
      { name: 'bigWords', perRound: n(5, 2), warmup: 10, run: () => search(big.client, words) },
    ],
    plan(10),
  );
  const baseline = side('search_agents extraction.table, 5 demo agents', s, 'demo');
  row('e', 'search_agents, 10,000 agents vs the 5 demo agents', side('search_agents extraction.table, 10,000 agents', s, 'big'), baseline);
  row('e.f', 'a whole family, 10,000 agents (context)', side('search_agents extraction.*, 10,000 agents', s, 'bigFamily'), baseline);
  row('e.q', 'words only, 10,000 agents (context)', side('search_agents query "layout", 10,000 agents', s, 'bigWords'), baseline);
}

const fmtMs = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));
const fmtRatio = (r: number): string => (r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2));

function table(): string {
  const head = ['id', 'comparison', 'subject', 'median ms', 'p99 ms', 'n', 'baseline', 'median ms', 'p99 ms', 'n', 'ratio', 'p90 ratio', 'p99 ratio', 'goal'];
  const body = rows.map((r) => [
    r.id,
    r.title,
    r.subject.label,
    fmtMs(r.subject.stats.median_ms),
    fmtMs(r.subject.stats.p99_ms),
    String(r.subject.stats.n),
    r.baseline.label,
    fmtMs(r.baseline.stats.median_ms),
    fmtMs(r.baseline.stats.p99_ms),
    String(r.baseline.stats.n),
    `${fmtRatio(r.ratio.median)}×`,
    `${fmtRatio(r.ratio.p90)}×`,
    `${fmtRatio(r.ratio.p99)}×`,
    r.goal ?? '',
  ]);
  const all = [head, ...body];
  const widths = head.map((_, i) => Math.max(...all.map((cells) => (cells[i] ?? '').length)));
  const numeric = new Set([3, 4, 5, 7, 8, 9, 10, 11, 12]);
  const fmt = (cells: string[]): string => cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(fmt)].join('\n');
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = os.loadavg();
  const dirs = new TempDirs();
  const closers: (() => Promise<void>)[] = [];
  try {
    // HOLON_BENCH_ONLY=e runs one comparison (a subset, e.g. "a,e", to try a change).
    const only = process.env['HOLON_BENCH_ONLY']?.split(',');
    const runs = (id: string): boolean => !only || only.includes(id);
    if (runs('e')) {
      await comparisonE(dirs, closers);
      for (const c of closers.splice(0).reverse()) await c();
    }
    if (runs('t')) {
      await comparisonT(dirs, closers);
      for (const c of closers.splice(0).reverse()) await c();
    }
    if (runs('x')) {
      await comparisonX(dirs, closers);
      for (const c of closers.splice(0).reverse()) await c();
    }
    if (runs('r')) {
      await comparisonR(dirs, closers);
      for (const c of closers.splice(0).reverse()) await c();
    }
    if (runs('hw')) {
      await comparisonHW(dirs, closers);
      for (const c of closers.splice(0).reverse()) await c();
    }
    if (runs('k')) await comparisonK(dirs);
    if (['a', 'b', 'c', 'd', 'f', 'g', 'h', 'u'].some(runs)) {
      const tpl = await comparisonA(dirs, closers);
      for (const c of closers.splice(0).reverse()) await c();
      if (runs('c')) await comparisonC(dirs, tpl);
      if (runs('h')) {
        await comparisonH(dirs, tpl, closers);
        for (const c of closers.splice(0).reverse()) await c();
      }
      if (runs('f')) await comparisonF(dirs, async (label) => {
        const dir = dirs.make(label);
        await seedState(dir);
        return dir;
      });
      if (runs('b') || runs('d') || runs('g') || runs('u')) {
        const million = await millionState(dirs, tpl);
        if (runs('u')) await comparisonU(dirs, million);
        // (d) first: it hard-links the journal for the design before, which must not see later appends.
        if (runs('d')) await comparisonD(dirs, million);
        if (runs('g')) await comparisonG(dirs, million);
        if (runs('b')) await comparisonB(dirs, tpl, million);
      }
    }
  } finally {
    for (const c of closers.reverse()) await c().catch(() => {});
    dirs.removeAll();
  }
  const cpu = os.cpus();
  const environment = {
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpus: `${cpu.length} × ${cpu[0]?.model ?? '?'}`,
    tmpdir: os.tmpdir(),
    // Other processes on the machine move fsync and scheduling latency; ratios are interleaved for that.
    loadavg_1m: { start: Math.round((loadBefore[0] ?? 0) * 100) / 100, end: Math.round((os.loadavg()[0] ?? 0) * 100) / 100 },
    quick: QUICK,
    agent: AGENT,
    elapsed_s: Math.round((performance.now() - started) / 100) / 10,
  };
  const results = { generated_at: new Date().toISOString(), environment, comparisons: rows, context };
  fs.writeFileSync(path.join(ROOT, 'bench', 'results.json'), JSON.stringify(results, null, 2) + '\n');

  const out = process.stdout;
  out.write(`Holon bench — ${environment.node}, ${environment.platform}, ${environment.cpus}, temp ${environment.tmpdir}, load ${environment.loadavg_1m.start} → ${environment.loadavg_1m.end}${QUICK ? ' (QUICK: not for reading)' : ''}\n`);
  out.write('Ratios are subject / baseline, both measured in this run, interleaved; durable (fsync) where Holon is.\n\n');
  out.write(table() + '\n\n');
  const work = context['per_call_journal_work'] as { transactions: number; writing_transactions: number; events: number } | undefined;
  if (work) out.write(`Per call_agent: ${work.transactions.toFixed(2)} journal transactions, ${work.writing_transactions.toFixed(2)} appends, ${work.events.toFixed(2)} events; transactions of ${JSON.stringify(context['transaction_bytes'])} bytes.\n`);
  const round = (_k: string, v: unknown): unknown => (typeof v === 'number' ? Math.round(v * 100) / 100 : v);
  const paid = context['t_per_call'] as { transactions: number; fdatasyncs: number } | undefined;
  if (paid) out.write(`Per atr_transact: ${paid.transactions.toFixed(2)} journal transactions, ${paid.fdatasyncs.toFixed(2)} fdatasyncs.\n`);
  for (const key of ['h_per_call', 'r_world_r-1k', 'r_world_r-big', 'k_cold_start', 'u_upgrade_1M', 'million', 'd_open_1M', 'f_throughput_calls_per_s', 'g_activation_ms', 'c_sizes']) {
    if (context[key] !== undefined) out.write(`${key}: ${JSON.stringify(context[key], round)}\n`);
  }
  if (context['e_matches_10k']) out.write(`(e) the first search over 10,000 agents (building the index): ${fmtMs(context['e_first_search_ms'] as number)} ms; matches: ${JSON.stringify(context['e_matches_10k'])}.\n`);
  out.write(`Whole bench: ${environment.elapsed_s} s. Written to bench/results.json.\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
