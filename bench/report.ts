/** What every comparison of the bench shares: how long to run, and the rows and context it reports. */
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import type { Plan, Stats } from './timing.ts';
import { stats } from './timing.ts';

export const QUICK = process.env['HOLON_BENCH_QUICK'] === '1';
/** An interleaved comparison: short rounds, repeated for `seconds` (a fraction of a second when quick). */
export const plan = (seconds: number, minRounds = 10): Plan => (QUICK ? { minRounds: 2, budgetMs: 500 } : { minRounds, budgetMs: seconds * 1000 });
export const n = (full: number, quick = Math.max(1, Math.ceil(full / 5))): number => (QUICK ? quick : full);
/**
 * The calls a process on a call's path (`holon mcp`, an agent) is warmed with before it is timed. V8 takes
 * about 2,000 of them to settle on that path (a `holon mcp` answers in 6 ms at first, in under 3 ms from
 * there): a cold process beside a warm one, or four compiling at once beside one, would measure the
 * compiler, not the work.
 */
export const STEADY = n(2500, 5);

export interface Side {
  label: string;
  stats: Stats;
}

export interface Row {
  id: string;
  title: string;
  subject: Side;
  baseline: Side;
  ratio: { median: number; p90: number; p99: number };
  /** The ratio the issue asks for, when there is one (the table marks whether it holds). */
  goal?: string;
}

export const rows: Row[] = [];
export const context: Record<string, unknown> = {};

export function side(label: string, samples: Record<string, number[]>, name: string): Side {
  const s = samples[name];
  if (!s) throw new Error(`no samples for ${name}`);
  return { label, stats: stats(s) };
}

export function row(id: string, title: string, subject: Side, baseline: Side, goal?: string): void {
  const r = (k: 'median_ms' | 'p90_ms' | 'p99_ms'): number => subject.stats[k] / baseline.stats[k];
  rows.push({ id, title, subject, baseline, ratio: { median: r('median_ms'), p90: r('p90_ms'), p99: r('p99_ms') }, ...(goal ? { goal } : {}) });
}

export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/**
 * A full collection, so that one measurement does not pay for the garbage of the one before (a real
 * process opens its journal once, on a fresh heap).
 */
export const collectGarbage: () => void = (() => {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    return typeof gc === 'function' ? () => void gc() : () => {};
  } catch {
    return () => {};
  }
})();
