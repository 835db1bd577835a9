/**
 * The bench at scale: a journal of a million events, made once per run in a temporary folder, and what
 * it costs to call, open and activate on it; and three servers calling at once on one state.
 *
 * (b) call_agent at 1M vs 1k prior events, each through its own `holon mcp` (stdio).
 * (d) opening the 1M-event journal in a fresh process: this design vs the design before it (the
 *     commit BASELINE_COMMIT, built from a git worktree), each with its own snapshot; time and RSS.
 * (f) three `holon mcp` processes calling at once on one state vs one alone: per-call latency (p99) and
 *     throughput.
 * (g) activate() of the built extension in a fresh process, at 1M events vs an empty state.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { JOURNAL_FILE } from '../src/core/store/file/journal.ts';
import { buildSnapshot } from '../src/core/store/file/journalIndex.ts';
import { loadOrCreateSigner } from '../src/core/store/keys.ts';
import { holonReducer } from '../src/core/fold/state.ts';
import { ROOT } from '../test/helpers.ts';
import { context, log, n, plan, QUICK, row, side } from './report.ts';
import type { Stats } from './timing.ts';
import { interleave, stats } from './timing.ts';
import type { CallTemplate, TempDirs } from './world.ts';
import { CALL_ARGS, historyState, holonStdio } from './world.ts';

/** The design this issue replaced: the last commit before the journal was reworked. */
const BASELINE_COMMIT = '90c9fbf';
const MILLION = QUICK ? 100_000 : 1_000_000;

type Client = Awaited<ReturnType<typeof holonStdio>>['client'];

async function callAgent(client: Client): Promise<void> {
  const r = await client.callTool({ name: 'call_agent', arguments: CALL_ARGS });
  const status = (r.structuredContent as { status?: string } | undefined)?.status;
  if (status !== 'succeeded') throw new Error(`call_agent did not succeed: ${JSON.stringify(r.content)}`);
}

/** A state whose journal holds a million events of prior calls, with the snapshot a server would have written. */
export async function millionState(dirs: TempDirs, tpl: CallTemplate): Promise<string> {
  log(`generating a journal of ${MILLION.toLocaleString('en')} events (once per run)`);
  const t0 = performance.now();
  const h = await historyState(dirs, 'm-1M', tpl, { events: MILLION });
  const t1 = performance.now();
  const file = path.join(h.dir, JOURNAL_FILE);
  await buildSnapshot(h.dir, file, holonReducer, { offset: h.bytes, seq: h.events, hash: h.head, legacy: false }, loadOrCreateSigner(h.dir));
  context['million'] = {
    events: h.events,
    calls: h.calls,
    journal_bytes: h.bytes,
    snapshot_bytes: fs.statSync(path.join(h.dir, 'snapshot.json')).size,
    index_bytes: fs.statSync(path.join(h.dir, 'journal.idx')).size,
    generate_s: Math.round(t1 - t0) / 1000,
    snapshot_from_scratch_s: Math.round(performance.now() - t1) / 1000,
  };
  return h.dir;
}

/** (b) call_agent at 1M vs 1k prior events. */
export async function comparisonB(dirs: TempDirs, tpl: CallTemplate, million: string): Promise<void> {
  const small = await historyState(dirs, 'b-1k', tpl, { events: 1_000 });
  const a = await holonStdio(small.dir);
  const b = await holonStdio(million);
  try {
    log('(b) call_agent at 1k vs 1M prior events (stdio)');
    const s = await interleave(
      [
        { name: 'call1k', perRound: n(10, 3), warmup: n(30, 5), run: () => callAgent(a.client) },
        { name: 'call1M', perRound: n(10, 3), warmup: n(30, 5), run: () => callAgent(b.client) },
      ],
      plan(40),
    );
    row('b', `call_agent, ${MILLION.toLocaleString('en')} vs 1,000 prior events`, side('call_agent @1M events', s, 'call1M'), side('call_agent @1k events', s, 'call1k'), '≤ 1.1× at the median and p99');
  } finally {
    await a.close();
    await b.close();
  }
}

/** Builds a probe that opens a state with the `openState` of the tree at `tree`, into `out`. */
async function buildOpenProbe(tree: string, out: string): Promise<void> {
  const contents = `
    import { openState } from './src/core/holon.ts';
    const [dir, every] = process.argv.slice(2);
    const t0 = performance.now();
    const store = openState(dir, { clock: { now: () => Date.now() }, logger: { info() {}, warn(m) { process.stderr.write(m + '\\n'); }, error() {} }, watch: false, snapshotEvery: Number(every) });
    const ms = performance.now() - t0;
    process.stdout.write(JSON.stringify({ ms, rss: process.memoryUsage().rss, seq: store.seq }) + '\\n');
    process.exit(0);
  `;
  await esbuild.build({ stdin: { contents, resolveDir: tree, loader: 'ts', sourcefile: 'openProbe.ts' }, bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: out, logLevel: 'error' });
}

interface Opened {
  ms: number;
  rss: number;
  seq: number;
}

function probe(script: string, dir: string, snapshotEvery: number): Opened {
  const r = spawnSync(process.execPath, [script, dir, String(snapshotEvery)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`open probe failed: ${r.stderr}`);
  if (r.stderr.trim().length > 0) throw new Error(`the open probe warned (its snapshot was not used?): ${r.stderr}`);
  return JSON.parse(r.stdout) as Opened;
}

/** The design before this issue, built from a git worktree of BASELINE_COMMIT; undefined when git cannot give it. */
function baselineTree(): string | undefined {
  const tree = path.join(os.tmpdir(), `holon-bench-baseline-${BASELINE_COMMIT}`);
  try {
    if (!fs.existsSync(path.join(tree, 'src', 'core', 'holon.ts'))) {
      fs.rmSync(tree, { recursive: true, force: true });
      execFileSync('git', ['worktree', 'prune'], { cwd: ROOT, stdio: 'ignore' });
      execFileSync('git', ['worktree', 'add', '--detach', tree, BASELINE_COMMIT], { cwd: ROOT, stdio: 'ignore' });
    }
    if (!fs.existsSync(path.join(tree, 'node_modules'))) fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'));
    return tree;
  } catch (err) {
    log(`(d) no baseline: ${(err as Error).message}`);
    return undefined;
  }
}

/** (d) opening the 1M journal: this design vs the one before, each in a fresh process with its own snapshot. */
export async function comparisonD(dirs: TempDirs, million: string): Promise<void> {
  const probes = dirs.make('d-probes');
  const now = path.join(probes, 'open-now.cjs');
  await buildOpenProbe(ROOT, now);
  const tree = baselineTree();
  const before = tree ? path.join(probes, 'open-before.cjs') : undefined;
  if (tree && before) await buildOpenProbe(tree, before);
  // The old design gets its own copy (the journal hard-linked, read only) and writes its own snapshot.
  const oldDir = dirs.make('d-old');
  for (const f of [JOURNAL_FILE, 'keys']) execFileSync('cp', ['-al', path.join(million, f), path.join(oldDir, f)]);
  if (before) {
    log('(d) the design before writes its own snapshot of the 1M journal (untimed)');
    spawnSync(process.execPath, [before, oldDir, '5000'], { stdio: 'ignore' });
  }
  log('(d) opening the 1M journal in fresh processes');
  const samples: Record<string, number[]> = { now: [], before: [], nowFold: [] };
  const rss: Record<string, number[]> = { now: [], before: [] };
  const rounds = n(5, 2);
  for (let i = 0; i < rounds; i++) {
    const a = probe(now, million, 0);
    samples['now']?.push(a.ms);
    rss['now']?.push(a.rss / 1e6);
    if (before) {
      const b = probe(before, oldDir, 0);
      if (b.seq !== a.seq) throw new Error(`the two designs opened different journals (${a.seq} vs ${b.seq} events)`);
      samples['before']?.push(b.ms);
      rss['before']?.push(b.rss / 1e6);
    }
  }
  const nowSide = side('open 1M events, with snapshot (this design)', samples, 'now');
  if (before) row('d', 'open a 1M-event journal: this design vs the design before', nowSide, side(`open 1M events, with snapshot (${BASELINE_COMMIT})`, samples, 'before'), '≤ 0.5 s and ≤ 200 MB RSS');
  context['d_open_1M'] = {
    goal: '≤ 500 ms and ≤ 200 MB RSS',
    now: { ...stats(samples['now'] ?? []), rss_mb: stats(rss['now'] ?? []) },
    ...(before ? { before: { ...stats(samples['before'] ?? []), rss_mb: stats(rss['before'] ?? []) } } : { before: 'no baseline (git worktree unavailable)' }),
  };
}

/** `count` calls one after another through `client`: each call's latency. */
async function sequence(client: Client, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await callAgent(client);
    out.push(performance.now() - t0);
  }
  return out;
}

/** (f) three servers calling at once on one state vs one alone: p99 latency and throughput. */
export async function comparisonF(dirs: TempDirs, seeded: (label: string) => Promise<string>): Promise<void> {
  log('(f) three holon mcp processes calling at once on one state vs one alone');
  const oneDir = await seeded('f-one');
  const threeDir = await seeded('f-three');
  const one = await holonStdio(oneDir);
  const three = await Promise.all([0, 1, 2].map(() => holonStdio(threeDir)));
  try {
    const per = n(20, 5);
    for (const c of [one, ...three]) await sequence(c.client, n(10, 2));
    const lat: Record<string, number[]> = { one: [], three: [] };
    const rate: Record<string, number[]> = { one: [], three: [] };
    const started = performance.now();
    for (let r = 0; r < (QUICK ? 2 : 10) || performance.now() - started < (QUICK ? 500 : 30_000); r++) {
      let t0 = performance.now();
      lat['one']?.push(...(await sequence(one.client, per)));
      rate['one']?.push(per / ((performance.now() - t0) / 1000));
      t0 = performance.now();
      const all = await Promise.all(three.map((c) => sequence(c.client, per)));
      rate['three']?.push((3 * per) / ((performance.now() - t0) / 1000));
      lat['three']?.push(...all.flat());
    }
    row('f', '3 processes calling at once vs 1 alone, per call', side('call_agent, 3 servers at once', lat, 'three'), side('call_agent, 1 server', lat, 'one'), 'p99 ≤ 3×');
    const s1: Stats = stats(rate['one'] ?? []);
    const s3: Stats = stats(rate['three'] ?? []);
    context['f_throughput_calls_per_s'] = { goal: '3 servers ≥ 1 server', one: s1, three: s3, ratio_median: s3.median_ms / s1.median_ms };
  } finally {
    await one.close();
    for (const c of three) await c.close();
  }
}

/** (g) activate() of the built extension at 1M events vs an empty state, each in a fresh process. */
/** What one activation in a fresh process took (bench/activateProbe.cjs): ms, and the thread's longest stall while the journal opened. */
export interface Activation {
  require_ms: number;
  activate_ms: number;
  loaded_ms: number;
  longest_stall_ms: number;
}

/** The built extension activated on `dir` in a fresh process, until its journal has loaded. */
export function activateProbe(dir: string): Activation {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bench', 'activateProbe.cjs'), ROOT, dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`activate probe failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Activation;
}

export async function comparisonG(dirs: TempDirs, million: string): Promise<void> {
  log('(g) activate() in fresh processes, at 1M events vs an empty state');
  const empty = dirs.make('g-empty');
  const once = activateProbe;
  const s: Record<string, number[]> = { empty: [], million: [], requireEmpty: [], loadedEmpty: [], loadedMillion: [] };
  const rounds = n(15, 3);
  for (let i = 0; i < rounds; i++) {
    for (const [name, dir] of i % 2 === 0 ? ([['empty', empty], ['million', million]] as const) : ([['million', million], ['empty', empty]] as const)) {
      const r = once(dir);
      s[name]?.push(r.activate_ms);
      if (name === 'empty') s['requireEmpty']?.push(r.require_ms);
      s[name === 'empty' ? 'loadedEmpty' : 'loadedMillion']?.push(r.loaded_ms);
    }
  }
  row('g', 'activate(), at 1M events vs an empty state', side('activate() @1M events', s, 'million'), side('activate() @empty state', s, 'empty'), '≤ 1.1×');
  context['g_activation_ms'] = {
    'require(dist/extension.js)': stats(s['requireEmpty'] ?? []),
    'journal opened after activate(), empty': stats(s['loadedEmpty'] ?? []),
    'journal opened after activate(), 1M events': stats(s['loadedMillion'] ?? []),
  };
}
