/**
 * Exchange rates, only the ones a human set. An amount no rate converts is unknown, never zero.
 */
import { HolonError } from '../kernel/errors.ts';
import type { EventStore } from '../store/store.ts';
import type { Money } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { Slice } from '../store/slice.ts';
import { eventsOf } from '../store/slice.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';

/** The rates' part of the state: "FROM/TO" → units of TO per one FROM, as a decimal string. */
export interface FxFields {
  fx: Dict<string>;
  /** Counts rate changes, so what is priced from the rates (the market index) knows when to rebuild. */
  fx_version: number;
}

export interface FxEvents {
  'fx.set': { from: string; to: string; rate: string };
}

const fxEvent = eventsOf<FxEvents>();

export const fxSlice: Slice<FxFields, FxEvents> = {
  initial: () => ({ fx: dict(), fx_version: 0 }),
  on: {
    'fx.set': (s, d) => {
      s.fx[`${d.from}/${d.to}`] = d.rate;
      s.fx_version += 1;
    },
  },
  revive: (s) => {
    s.fx = toDict(s.fx);
    s.fx_version ??= 0;
  },
};

/** Sets the rate: one unit of `from` is worth `rate` units of `to`. */
export async function setFx(store: EventStore<FxFields>, from: string, to: string, rate: string): Promise<void> {
  M.currency(from);
  M.currency(to);
  if (from === to) throw new HolonError('invalid_input', 'a rate needs two different currencies');
  if (M.parseUnits(rate) <= 0n) throw new HolonError('invalid_input', 'the rate must be positive');
  await store.transact(() => ({ events: [fxEvent('fx.set', { from, to, rate: M.formatUnits(M.parseUnits(rate)) })], result: undefined }));
}

/** Converts with a human-set rate (direct, or the inverse of the reverse rate); undefined when unknown. */
export function convertTo(s: FxFields, amount: Money, to: string): Money | undefined {
  if (amount.currency === to) return amount;
  const direct = s.fx[`${amount.currency}/${to}`];
  if (direct) return M.convert(amount, to, direct);
  const inverse = s.fx[`${to}/${amount.currency}`];
  if (inverse) return M.divideByRatio({ units: amount.units, currency: to }, M.parseUnits(inverse));
  return undefined;
}
