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
 * Context rows and lines (not one of the four): the agent called directly, the journal lock, the
 * snapshot write and where an open with the snapshot spends its time.
 *
 * HOLON_BENCH_QUICK=1 runs every comparison with few iterations (to try the bench, not to read it).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import type { Logger } from '../src/core/deps.ts';
import { silentLogger, systemClock } from '../src/core/deps.ts';
import { openFileJournal, openState } from '../src/core/holon.ts';
import type { EventStore, TxResult } from '../src/core/store.ts';
import { JOURNAL_FILE, SNAPSHOT_FILE } from '../src/core/journal.ts';
import { buildSnapshot, INDEX_FILE } from '../src/core/journalIndex.ts';
import { JournalLock } from '../src/core/journalLock.ts';
import { loadOrCreateSigner } from '../src/core/keys.ts';
import type { HolonState } from '../src/core/state.ts';
import { holonReducer } from '../src/core/state.ts';
import { newId } from '../src/core/ids.ts';
import { EXAMPLES, FACTURE, ROOT } from '../test/helpers.ts';
import type { Case, Plan, Stats } from './timing.ts';
import { interleave, stats, timeOnce } from './timing.ts';
import { v0Call, writeV0State } from './v0State.ts';
import type { CallTemplate } from './world.ts';
import { AGENT, CALL_ARGS, callEvents, catalogState, echoInMemory, echoStdio, historyState, holonInMemory, holonStdio, readCallTemplate, seedState, stdioClient, TempDirs } from './world.ts';

const QUICK = process.env['HOLON_BENCH_QUICK'] === '1';
/** An interleaved comparison: short rounds, repeated for `seconds` (a fraction of a second when quick). */
const plan = (seconds: number, minRounds = 10): Plan => (QUICK ? { minRounds: 2, budgetMs: 500 } : { minRounds, budgetMs: seconds * 1000 });
const n = (full: number, quick = Math.max(1, Math.ceil(full / 5))): number => (QUICK ? quick : full);

interface Side {
  label: string;
  stats: Stats;
}

interface Row {
  id: string;
  title: string;
  subject: Side;
  baseline: Side;
  ratio: { median: number; p90: number };
}

/**
 * A full collection before each open in (d), so that one open does not pay for the garbage of the one
 * before (a real process opens its journal once, on a fresh heap).
 */
const collectGarbage: () => void = (() => {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    return typeof gc === 'function' ? () => void gc() : () => {};
  } catch {
    return () => {};
  }
})();

const rows: Row[] = [];
const context: Record<string, unknown> = {};

function side(label: string, samples: Record<string, number[]>, name: string): Side {
  const s = samples[name];
  if (!s) throw new Error(`no samples for ${name}`);
  return { label, stats: stats(s) };
}

function row(id: string, title: string, subject: Side, baseline: Side): void {
  rows.push({ id, title, subject, baseline, ratio: { median: subject.stats.median_ms / baseline.stats.median_ms, p90: subject.stats.p90_ms / baseline.stats.p90_ms } });
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** One call_agent; anything but a success stops the bench. */
async function callAgent(client: Client): Promise<void> {
  const r = await client.callTool({ name: 'call_agent', arguments: CALL_ARGS });
  const status = (r.structuredContent as { status?: string } | undefined)?.status;
  if (status !== 'succeeded') throw new Error(`call_agent did not succeed: ${JSON.stringify(r.content)}`);
}

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
      { name: 'holon', perRound: n(5, 3), warmup: n(30, 5), run: () => callAgent(holon.client) },
      { name: 'echo', perRound: n(30, 10), warmup: 100, run: () => callEcho(echo.client) },
      { name: 'agent', perRound: n(5, 3), warmup: n(30, 5), run: () => callAgentDirect(agent.client, facture) },
      floor1,
      floor2,
      // The cross-process lock each transaction takes: an exclusive create, a write, a close, an unlink.
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
  const st = await interleave(
    [
      { name: 'holon', perRound: n(5, 3), warmup: n(30, 5), run: () => callAgent(holonS.client) },
      { name: 'echo', perRound: n(20, 10), warmup: 100, run: () => callEcho(echoS.client) },
      { name: 'agent', perRound: n(5, 3), warmup: n(10, 3), run: () => callAgentDirect(agent.client, facture) },
      floor2,
    ],
    plan(12),
  );
  const holonStd = side('call_agent, holon mcp (stdio)', st, 'holon');
  row('a.ii', 'call_agent vs echo tool, stdio', holonStd, side('echo tool, stdio', st, 'echo'));
  row('a.ii.f2', 'call_agent stdio vs 2 durable appends', holonStd, side('2 appends+fsync', st, 'floor2'));
  row('a.ii.ag', 'call_agent stdio vs the agent alone (context)', holonStd, side('agent direct, stdio', st, 'agent'));
  row('a.x', 'stdio vs in-memory transport, echo (context)', side('echo tool, stdio', st, 'echo'), side('echo tool, in-memory', mem, 'echo'));
  return tpl;
}

async function comparisonB(dirs: TempDirs, tpl: CallTemplate): Promise<string> {
  log('(b) generating journals with 1k and 100k prior events');
  const t0 = performance.now();
  const small = await historyState(dirs, 'b-1k', tpl, { events: 1_000 });
  const t1 = performance.now();
  const big = await historyState(dirs, 'b-100k', tpl, { events: 100_000 });
  context['generate_ms'] = { '1k': Math.round(t1 - t0), '100k': Math.round(performance.now() - t1) };
  context['journals'] = { '1k': { events: small.events, bytes: small.bytes }, '100k': { events: big.events, bytes: big.bytes } };

  // The first open folds everything (and, past 5000 events, writes the snapshot): not part of a call.
  const open = async (dir: string): Promise<{ h: Awaited<ReturnType<typeof holonInMemory>>; ms: number }> => {
    const start = performance.now();
    const h = await holonInMemory(dir);
    return { h, ms: performance.now() - start };
  };
  const a = await open(small.dir);
  const b = await open(big.dir);
  context['first_open_ms'] = { '1k': a.ms, '100k (folds and writes the snapshot)': b.ms };
  try {
    log('(b) call_agent and the journal work per call at 1k vs 100k prior events');
    const s = await interleave(
      [
        { name: 'call1k', perRound: n(5, 3), warmup: n(30, 5), run: () => callAgent(a.h.client) },
        { name: 'call100k', perRound: n(5, 3), warmup: n(30, 5), run: () => callAgent(b.h.client) },
        { name: 'jw1k', perRound: n(5, 3), warmup: 10, run: journalCall(a.h.runtime.store, tpl) },
        { name: 'jw100k', perRound: n(5, 3), warmup: 10, run: journalCall(b.h.runtime.store, tpl) },
      ],
      plan(15),
    );
    row('b', 'call_agent, 100k vs 1k prior events', side('call_agent @100k events', s, 'call100k'), side('call_agent @1k events', s, 'call1k'));
    row('b.j', 'journal work per call, 100k vs 1k (context)', side('2 transactions @100k', s, 'jw100k'), side('2 transactions @1k', s, 'jw1k'));
  } finally {
    await a.h.close();
    await b.h.close();
  }
  return big.dir;
}

async function comparisonC(dirs: TempDirs, tpl: CallTemplate): Promise<void> {
  log('(c) generating a journal with 10k receipts; the v0 state.json of the same state');
  const h = await historyState(dirs, 'c-10k', tpl, { calls: 10_000 });
  const store = openState(h.dir, { clock: systemClock, logger: silentLogger });
  try {
    const v0Dir = dirs.make('c-v0');
    const v0 = writeV0State(v0Dir, store.state);
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

async function comparisonD(dir: string): Promise<void> {
  log('(d) opening the 100k-event journal with and without its snapshot');
  const snapshot = path.join(dir, SNAPSHOT_FILE);
  const aside = `${snapshot}.aside`;
  const warnings: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (m) => warnings.push(m) };

  // A fresh snapshot at the journal's end, from the start (what the worker does at most); timed too.
  const store = openFileJournal(dir, { clock: systemClock, logger: silentLogger, watch: false, snapshotEvery: 0 });
  const writes: number[] = [];
  try {
    const at = store.position;
    const signer = loadOrCreateSigner(dir);
    for (let i = 0; i < n(5, 2); i++) {
      fs.rmSync(snapshot, { force: true });
      fs.rmSync(path.join(dir, INDEX_FILE), { force: true });
      writes.push(await timeOnce(() => buildSnapshot(dir, path.join(dir, JOURNAL_FILE), holonReducer, at, signer)));
    }
    context['d_sizes'] = { events: store.seq, journal_bytes: fs.statSync(store.file).size, snapshot_bytes: fs.statSync(snapshot).size };
  } finally {
    store.close();
  }
  const w = stats(writes);
  const eventsPerCall = (context['per_call_journal_work'] as { events: number } | undefined)?.events ?? 2;
  context['snapshot_write_100k'] = { ...w, every_events: 5000, amortized_ms_per_call: (w.median_ms * eventsPerCall) / 5000 };

  const s = await interleave(
    [
      {
        name: 'with',
        perRound: 1,
        warmup: 1,
        before: () => {
          if (fs.existsSync(aside)) fs.renameSync(aside, snapshot);
          if (!fs.existsSync(snapshot)) throw new Error('the snapshot is missing');
          collectGarbage();
        },
        run: () => openState(dir, { clock: systemClock, logger, watch: false }).close(),
      },
      {
        name: 'without',
        perRound: 1,
        warmup: 1,
        before: () => {
          if (fs.existsSync(snapshot)) fs.renameSync(snapshot, aside);
          collectGarbage();
        },
        run: () => openState(dir, { clock: systemClock, logger, watch: false, snapshotEvery: 0 }).close(),
      },
    ],
    { minRounds: n(10, 2) },
  );
  if (warnings.length > 0) throw new Error(`the snapshot was not used: ${warnings.join('; ')}`);
  row('d', 'open 100k-event journal, without vs with snapshot', side('open, no snapshot (fold all)', s, 'without'), side('open with snapshot', s, 'with'));

  // Where an open with the snapshot goes: reading the file, and parsing its body with the reducer's
  // bigint reviver (what loadSnapshot does) or without one.
  if (fs.existsSync(aside)) fs.renameSync(aside, snapshot);
  const text = fs.readFileSync(snapshot, 'utf8');
  const body = text.slice(text.indexOf('\n') + 1);
  const parts = await interleave(
    [
      { name: 'read', perRound: 1, warmup: 0, before: collectGarbage, run: () => fs.readFileSync(snapshot, 'utf8') },
      { name: 'deserialize', perRound: 1, warmup: 0, before: collectGarbage, run: () => holonReducer.deserialize(body) },
      { name: 'parse', perRound: 1, warmup: 0, before: collectGarbage, run: () => JSON.parse(body) },
    ],
    { minRounds: n(5, 1) },
  );
  collectGarbage();
  const heap0 = process.memoryUsage().heapUsed;
  const opened = openState(dir, { clock: systemClock, logger, watch: false });
  collectGarbage();
  context['d_heap_mb_of_folded_state'] = Math.round((process.memoryUsage().heapUsed - heap0) / 1e5) / 10;
  opened.close();
  row('d.p', "loadSnapshot's parse: deserialize vs plain JSON.parse (context)", side('holonReducer.deserialize', parts, 'deserialize'), side('plain JSON.parse', parts, 'parse'));
  context['d_open_with_snapshot_parts_median_ms'] = {
    'readFileSync(snapshot, utf8)': stats(parts['read'] ?? []).median_ms,
    'holonReducer.deserialize(body) (JSON.parse, then bigint maps)': stats(parts['deserialize'] ?? []).median_ms,
    'JSON.parse(body) without reviver': stats(parts['parse'] ?? []).median_ms,
  };
}

const fmtMs = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));
const fmtRatio = (r: number): string => (r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2));

function table(): string {
  const head = ['id', 'comparison', 'subject', 'median ms', 'p90 ms', 'n', 'baseline', 'median ms', 'p90 ms', 'n', 'ratio', 'p90 ratio'];
  const body = rows.map((r) => [
    r.id,
    r.title,
    r.subject.label,
    fmtMs(r.subject.stats.median_ms),
    fmtMs(r.subject.stats.p90_ms),
    String(r.subject.stats.n),
    r.baseline.label,
    fmtMs(r.baseline.stats.median_ms),
    fmtMs(r.baseline.stats.p90_ms),
    String(r.baseline.stats.n),
    `${fmtRatio(r.ratio.median)}×`,
    `${fmtRatio(r.ratio.p90)}×`,
  ]);
  const all = [head, ...body];
  const widths = head.map((_, i) => Math.max(...all.map((cells) => (cells[i] ?? '').length)));
  const numeric = new Set([3, 4, 5, 7, 8, 9, 10, 11]);
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
    if (runs('a') || runs('b') || runs('c') || runs('d')) {
      const tpl = await comparisonA(dirs, closers);
      for (const c of closers.splice(0).reverse()) await c();
      const bigDir = await comparisonB(dirs, tpl);
      await comparisonC(dirs, tpl);
      await comparisonD(bigDir);
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
  const snap = context['snapshot_write_100k'] as (Stats & { amortized_ms_per_call: number }) | undefined;
  if (work) out.write(`Per call_agent: ${work.transactions.toFixed(2)} journal transactions, ${work.writing_transactions.toFixed(2)} fsynced appends, ${work.events.toFixed(2)} events; transactions of ${JSON.stringify(context['transaction_bytes'])} bytes.\n`);
  if (snap) out.write(`Snapshot write at ${JSON.stringify(context['d_sizes'])}: median ${fmtMs(snap.median_ms)} ms, every 5000 events ≈ ${fmtMs(snap.amortized_ms_per_call)} ms per call amortized.\n`);
  if (snap) out.write(`Open with snapshot, parts (median ms): ${JSON.stringify(context['d_open_with_snapshot_parts_median_ms'], (_k, v: unknown) => (typeof v === 'number' ? Math.round(v) : v))}; the folded state at 100k events takes ${String(context['d_heap_mb_of_folded_state'])} MB of heap.\n`);
  if (work) out.write(`First open of the runtimes in (b), ms: ${JSON.stringify(context['first_open_ms'], (_k, v: unknown) => (typeof v === 'number' ? Math.round(v) : v))}. (c) sizes: ${JSON.stringify(context['c_sizes'])}.\n`);
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
