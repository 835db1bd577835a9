/** Timing helpers: per-iteration wall times, interleaved cases, medians and p90. Nothing is asserted. */

/** Summary of one case's samples, in milliseconds. */
export interface Stats {
  n: number;
  median_ms: number;
  p90_ms: number;
  p99_ms: number;
  mean_ms: number;
  min_ms: number;
  max_ms: number;
}

/** One thing to time: a single iteration, sync or async. */
export interface Case {
  name: string;
  run: () => unknown;
  /** Iterations per round (cheap cases run more often so each round takes a similar time). */
  perRound: number;
  /** Warm-up iterations before any timing (default: perRound). */
  warmup?: number;
  /** Untimed preparation before each iteration. */
  before?: () => unknown;
  /** Untimed clean-up after each iteration (e.g. collecting its garbage, so the next case does not pay for it). */
  after?: () => unknown;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] ?? Number.NaN;
  const b = sorted[hi] ?? Number.NaN;
  return a + (b - a) * (pos - lo);
}

/** Median, p90, p99, mean and min of samples (ms). */
export function stats(samples: number[]): Stats {
  const s = [...samples].sort((x, y) => x - y);
  const sum = s.reduce((t, x) => t + x, 0);
  return { n: s.length, median_ms: quantile(s, 0.5), p90_ms: quantile(s, 0.9), p99_ms: quantile(s, 0.99), mean_ms: s.length ? sum / s.length : Number.NaN, min_ms: s[0] ?? Number.NaN, max_ms: s[s.length - 1] ?? Number.NaN };
}

/** Times one iteration of `fn` with process.hrtime.bigint, in milliseconds. */
export async function timeOnce(fn: () => unknown): Promise<number> {
  const t0 = process.hrtime.bigint();
  const r = fn();
  if (r instanceof Promise) await r;
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** How long an interleaved comparison runs: at least `minRounds` rounds, and on until `budgetMs` has passed. */
export interface Plan {
  minRounds: number;
  budgetMs?: number;
}

/**
 * Warms every case up, then runs short rounds; in each round every case runs its `perRound`
 * iterations, the order of the cases rotating from round to round. Rounds go on for the plan's time
 * budget, so that a subject and its baseline see the same drift (page cache, CPU frequency, GC, other
 * processes' fsyncs on a shared disk) spread over seconds rather than a burst.
 */
export async function interleave(cases: Case[], plan: Plan): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  for (const c of cases) {
    out[c.name] = [];
    for (let i = 0; i < (c.warmup ?? c.perRound); i++) {
      await c.before?.();
      await timeOnce(c.run);
      await c.after?.();
    }
  }
  const start = performance.now();
  for (let r = 0; r < plan.minRounds || (plan.budgetMs !== undefined && performance.now() - start < plan.budgetMs); r++) {
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(k + r) % cases.length];
      if (!c) continue;
      const into = out[c.name] ?? [];
      for (let i = 0; i < c.perRound; i++) {
        await c.before?.();
        into.push(await timeOnce(c.run));
        await c.after?.();
      }
    }
  }
  return out;
}
