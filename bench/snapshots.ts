/**
 * The snapshot at any size: (k) a fresh `holon mcp` answering tools/list on a ~300k-event world that
 * uses every toolset (intents, memory versions, mail threads; bench/reads.ts's builder) vs a nearly empty
 * state of the same shape; (u) the first start after a change of the snapshot's format, at a million
 * events: the same state with a snapshot of the monolithic format before (v4, migrated at start) vs
 * with today's. Each start is a new process and a real SDK client over stdio; its peak RSS is the
 * server's VmHWM.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { holonReducer } from '../src/core/fold/state.ts';
import { JOURNAL_FILE } from '../src/core/store/file/journal.ts';
import { INDEX_FILE } from '../src/core/store/file/journalIndex.ts';
import { openSnapshot, SNAPSHOT_FILE } from '../src/core/store/file/snapshot.ts';
import { loadOrCreateSigner } from '../src/core/store/keys.ts';
import { HOLON_BIN, MANDATE } from '../test/helpers.ts';
import { readSections, writeMonolithic } from '../test/store/snapshotFiles.ts';
import { PAYER, readsWorld } from './reads.ts';
import { context, log, n, QUICK, row, side } from './report.ts';
import { stdioClient } from './world.ts';
import { activateProbe } from './scale.ts';
import type { TempDirs } from './world.ts';

/** Records of each kind in the every-toolset world: about 8.5 events each, so ~300k events. */
const EVERY_TOOLSET = QUICK ? 2_000 : 35_000;

/** The every-toolset world a cold start is measured on (also the editor's journal-open row). */
export function everyToolsetWorld(dirs: TempDirs, label = 'k-world'): Promise<string> {
  return readsWorld(dirs, label, EVERY_TOOLSET).then((w) => w.dir);
}

/** The server's peak resident memory, in MB, from /proc (0 where there is none). */
function peakRssMb(pid: number | null): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** A fresh `holon mcp` for `mandate` on `dir` until it answers tools/list: how long, and its peak RSS. */
async function coldStart(dir: string, mandate: string): Promise<{ ms: number; rss: number }> {
  const t0 = performance.now();
  const { client, close, pid } = await stdioClient(process.execPath, [HOLON_BIN, 'mcp', '--mandate', mandate, '--state', dir]);
  const tools = await client.listTools();
  const ms = performance.now() - t0;
  if (tools.tools.length === 0) throw new Error('the server listed no tools');
  const rss = peakRssMb(pid());
  await close();
  return { ms, rss };
}

/** One round of cold starts, one per state, in an order that alternates with the round; each time and peak RSS by name. */
async function startsInTurn(
  states: Record<string, string>,
  round: number,
  mandate: string,
  ms: Record<string, number[]>,
  rss: Record<string, number[]>,
): Promise<void> {
  const names = Object.keys(states);
  for (const name of round % 2 === 0 ? names : [...names].reverse()) {
    const s = await coldStart(states[name]!, mandate);
    ms[name]?.push(s.ms);
    rss[name]?.push(s.rss);
  }
}

/** (k) cold start to tools/list on the every-toolset world vs a nearly empty one. */
export async function comparisonK(dirs: TempDirs): Promise<void> {
  log(`(k) generating the every-toolset world (${EVERY_TOOLSET} records of each kind)`);
  const world = await everyToolsetWorld(dirs);
  const empty = (await readsWorld(dirs, 'k-empty', 0)).dir;
  const ms: Record<string, number[]> = { world: [], empty: [] };
  const rss: Record<string, number[]> = { world: [], empty: [] };
  for (let i = 0; i < n(5, 2); i++) {
    await startsInTurn({ world, empty }, i, PAYER, ms, rss);
  }
  row(
    'k',
    'holon mcp cold start to tools/list: every-toolset world vs empty',
    side('tools/list, ~300k events', ms, 'world'),
    side('tools/list, empty', ms, 'empty'),
    '≤ 2× and ≤ 200 MB',
  );
  editorOpen(world, empty);
  const w = context['r_world_k-world'] as { events?: number; snapshot_bytes?: number } | undefined;
  context['k_cold_start'] = {
    goal: '≤ 2× empty and ≤ 200 MB peak RSS',
    events: w?.events,
    snapshot_bytes: w?.snapshot_bytes,
    peak_rss_mb: { world: Math.max(...(rss['world'] ?? [])), empty: Math.max(...(rss['empty'] ?? [])) },
  };
}

/**
 * (k.e) the editor's open of the same world: activate() in a fresh process until its journal has loaded,
 * with the longest the extension host's thread was held meanwhile. Its snapshot is current (the cold
 * starts above left it so) and one behind by the world's last ~20k events, folded in the worker.
 */
function editorOpen(world: string, empty: string): void {
  const s: Record<string, number[]> = { world: [], empty: [], stallWorld: [], stallEmpty: [] };
  for (let i = 0; i < n(7, 2); i++) {
    for (const name of i % 2 === 0 ? (['world', 'empty'] as const) : (['empty', 'world'] as const)) {
      const r = activateProbe(name === 'world' ? world : empty);
      s[name]?.push(r.loaded_ms);
      s[name === 'world' ? 'stallWorld' : 'stallEmpty']?.push(r.longest_stall_ms);
    }
  }
  row('k.e', "the editor's journal open: every-toolset world vs empty", side('journal loaded, ~300k events', s, 'world'), side('journal loaded, empty', s, 'empty'), '≤ 2×');
  context['k_editor_open'] = {
    goal: "≤ 2× empty; the extension host's thread never held for the journal",
    longest_stall_ms: { world: Math.max(...(s['stallWorld'] ?? [])), empty: Math.max(...(s['stallEmpty'] ?? [])) },
  };
}

/** Rewrites the snapshot of `dir` in the monolithic format before (v4), signed as the build before would have. */
function downgrade(dir: string): void {
  const read = openSnapshot(dir, path.join(dir, JOURNAL_FILE));
  if (!read.ok) throw new Error(`no snapshot to downgrade: ${read.problem}`);
  const { header } = read.snap;
  const state = holonReducer.sections!.lazy((name) => read.snap.section(name)!);
  writeMonolithic(dir, holonReducer, state, header, header.index, loadOrCreateSigner(dir));
  read.snap.close();
}

/** (u) the first start after a format change at 1M events: a v4 snapshot (migrated at start) vs today's. */
export async function comparisonU(dirs: TempDirs, million: string): Promise<void> {
  log('(u) first start after a snapshot format change, at 1M events');
  const copies: Record<string, string> = {};
  for (const name of ['v4', 'now']) {
    const dir = dirs.make(`u-${name}`);
    for (const f of [JOURNAL_FILE, INDEX_FILE, SNAPSHOT_FILE, 'keys'])
      fs.cpSync(path.join(million, f), path.join(dir, f), { recursive: true });
    copies[name] = dir;
  }
  const v4Bytes: number[] = [];
  const ms: Record<string, number[]> = { v4: [], now: [] };
  const rss: Record<string, number[]> = { v4: [], now: [] };
  for (let i = 0; i < n(3, 1); i++) {
    downgrade(copies['v4']!);
    v4Bytes.push(fs.statSync(path.join(copies['v4']!, SNAPSHOT_FILE)).size);
    await startsInTurn({ v4: copies['v4']!, now: copies['now']! }, i, MANDATE, ms, rss);
    if (readSections(copies['v4']!).header.version !== 5) throw new Error('the v4 snapshot was not migrated at start');
  }
  row(
    'u',
    'first start after a snapshot format change at 1M events: v4 snapshot vs current',
    side('tools/list, v4 snapshot', ms, 'v4'),
    side('tools/list, current snapshot', ms, 'now'),
    'for info (≤ 10 s, ≤ 500 MB)',
  );
  context['u_upgrade_1M'] = {
    goal: '≤ 10 s and ≤ 500 MB peak RSS',
    v4_snapshot_bytes: v4Bytes[0],
    max_ms: Math.round(Math.max(...(ms['v4'] ?? []))),
    peak_rss_mb: { v4: Math.max(...(rss['v4'] ?? [])), now: Math.max(...(rss['now'] ?? [])) },
  };
}
