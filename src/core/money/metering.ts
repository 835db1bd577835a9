/**
 * Metering of the money and records tools, per mandate: every call is counted in the journal, against a
 * rate limit (calls per UTC minute; it clears by itself, so the agent retries as is) and a quota (calls
 * per UTC day; only the human who set it can raise it). Only a human sets either (`holon limits`).
 */
import type { Clock } from '../kernel/deps.ts';
import { denial } from '../kernel/denials.ts';
import { HolonError } from '../kernel/errors.ts';
import { mandateOf } from '../accounts/mandates.ts';
import { denialTexts } from '../kernel/words.ts';
import type { HolonState } from '../fold/state.ts';
import type { EventStore } from '../store/store.ts';
import type { Dict } from '../kernel/util.ts';
import type { CallLimit, MeterRecord } from './slice.ts';
import { moneyEvent } from './slice.ts';

const MINUTE = 60_000;
const HOUR = 3600_000;
const DAY = 86400_000;

const total = (bucket: Dict<number> | undefined): number => Object.values(bucket ?? {}).reduce((n, c) => n + c, 0);

/** The start of the minute or day `now` is in, and of the next one. */
function period(now: number, per: CallLimit['per']): { key: string; resets_at: number } {
  const size = per === 'minute' ? MINUTE : DAY;
  const start = Math.floor(now / size) * size;
  return { key: new Date(start).toISOString().slice(0, per === 'minute' ? 16 : 10), resets_at: start + size };
}

/** Calls counted in the minute or day `now` is in. */
function usedIn(m: MeterRecord | undefined, per: CallLimit['per'], now: number): number {
  if (!m) return 0;
  const { key } = period(now, per);
  return total(per === 'minute' ? m.minutes[key] : m.days[key]);
}

/** Why a limit refuses one more call now, if it does. */
function limitDenial(m: MeterRecord | undefined, limit: CallLimit | null, kind: 'rate' | 'quota', now: number) {
  if (!limit || usedIn(m, limit.per, now) < limit.count) return undefined;
  const resets = period(now, limit.per).resets_at;
  return kind === 'quota'
    ? denial('quota_exceeded', { limit: limit.count, per: limit.per, resets_at: new Date(resets).toISOString() })
    : denial('rate_limited', { limit: limit.count, per: limit.per, retry_after_seconds: Math.max(1, Math.ceil((resets - now) / 1000)) });
}

/**
 * Counts one call of `tool` for `mandate`, or refuses it: the quota first (only a human can clear it),
 * then the rate limit. A refused call is not counted.
 */
export async function meterCall(store: EventStore<HolonState>, clock: Clock, mandate: string, tool: string): Promise<void> {
  await store.transact((s) => {
    const now = clock.now();
    const m = s.meters[mandate];
    const refused = limitDenial(m, m?.quota ?? null, 'quota', now) ?? limitDenial(m, m?.rate ?? null, 'rate', now);
    if (refused) {
      const retry =
        refused.code === 'rate_limited'
          ? { retry_after_seconds: refused.params.retry_after_seconds }
          : { resets_at: refused.params.resets_at };
      throw new HolonError('denied', denialTexts([refused]).join(''), retry, [refused]);
    }
    return { events: [moneyEvent('usage.metered', { mandate, tool })], result: undefined };
  });
}

/** Reads "60/min", "1000/day" (or "none"); anything else is invalid input. */
export function parseCallLimit(text: string): CallLimit | null {
  if (text === 'none') return null;
  const m = /^(\d{1,9})\/(min|minute|day)$/.exec(text.trim());
  const count = m ? Number(m[1]) : 0;
  if (!m || count < 1) throw new HolonError('invalid_input', `"${text}" is not a limit: N/min or N/day with N at least 1, or none`);
  return { count, per: m[2] === 'day' ? 'day' : 'minute' };
}

/** Sets a mandate's rate limit and quota (a human's act; undefined leaves one as it is, null clears it). */
export async function setCallLimits(
  store: EventStore<HolonState>,
  mandate: string,
  limits: { rate?: CallLimit | null | undefined; quota?: CallLimit | null | undefined },
): Promise<MeterRecord> {
  return store.transact((s) => {
    mandateOf(s, mandate);
    const m = s.meters[mandate];
    const rate = limits.rate === undefined ? (m?.rate ?? null) : limits.rate;
    const quota = limits.quota === undefined ? (m?.quota ?? null) : limits.quota;
    return {
      events: [moneyEvent('meter.limits.set', { mandate, rate, quota })],
      result: { rate, quota, minutes: {}, hours: {}, days: {} } as MeterRecord,
    };
  });
}

/** The windows `get_usage` counts over. */
export const USAGE_WINDOWS = ['1m', '1h', '24h', '7d', '30d'] as const;
export type UsageWindow = (typeof USAGE_WINDOWS)[number];

/** A limit and how much of its period is used. */
export interface LimitUsage {
  limit: number;
  per: CallLimit['per'];
  used: number;
  resets_at: string;
}

/** Metered calls over a window, with the limits that apply. */
export interface Usage {
  mandate: string;
  window: UsageWindow;
  /** The start of the first bucket counted (buckets are whole UTC minutes or hours). */
  from: string;
  to: string;
  calls: number;
  by_tool: Record<string, number>;
  rate_limit: LimitUsage | null;
  quota: LimitUsage | null;
}

/** A mandate's metered calls over `window` ending now. */
export function usageOf(s: HolonState, mandate: string, window: UsageWindow, now: number): Usage {
  mandateOf(s, mandate);
  const m = s.meters[mandate];
  const [size, buckets, cut] = window === '1m' || window === '1h' ? [MINUTE, m?.minutes, 16] : [HOUR, m?.hours, 13];
  const span = { '1m': MINUTE, '1h': HOUR, '24h': DAY, '7d': 7 * DAY, '30d': 30 * DAY }[window];
  // The buckets whose start falls in the window, the current one included.
  const first = Math.floor((now - span) / size) * size + size;
  const from = new Date(first).toISOString().slice(0, cut);
  const by: Record<string, number> = {};
  for (const [k, b] of Object.entries(buckets ?? {}))
    if (k >= from) for (const [tool, n] of Object.entries(b)) by[tool] = (by[tool] ?? 0) + n;
  const limitUsage = (l: CallLimit | null): LimitUsage | null =>
    l ? { limit: l.count, per: l.per, used: usedIn(m, l.per, now), resets_at: new Date(period(now, l.per).resets_at).toISOString() } : null;
  return {
    mandate,
    window,
    from: new Date(first).toISOString(),
    to: new Date(now).toISOString(),
    calls: Object.values(by).reduce((n, c) => n + c, 0),
    by_tool: by,
    rate_limit: limitUsage(m?.rate ?? null),
    quota: limitUsage(m?.quota ?? null),
  };
}
