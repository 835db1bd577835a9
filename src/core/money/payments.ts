/**
 * Every payment Holon signed on a chain, found again: by the settlement id every answer gave (an
 * `atr_transact`, a call's receipt tree, an intent's receipt, a purchase), with what it pays for and where
 * it landed (or why not); the newest of a mandate; and the one a spend's hold carries. Reads of the
 * settlement index (settlementIndex.ts): none scans the settlements.
 */
import type { MoneyJson } from '../kernel/amount.ts';
import { HolonError } from '../kernel/errors.ts';
import type { MoneyFields } from './slice.ts';
import type { Settlement, SettlementFields, SettlementFor } from '../rails/settlement.ts';
import type { SettlementView } from '../rails/settlementView.ts';
import { settlementFor } from '../rails/settlement.ts';
import { settlementView } from '../rails/settlementView.ts';
import { newestSettlementIds } from '../rails/settlementIndex.ts';

/** Every kind of spend a payment on a chain pays for (one word per kind of `SettlementFor`). */
export const PAID_FOR_KINDS = ['call', 'payment', 'intent', 'purchase', 'channel'] as const satisfies readonly SettlementFor['kind'][];

/** What a payment pays for: the spend whose receipt shows it. */
export interface PaidFor {
  /**
   * `call`: an x402 agent's call; `payment`: a payment under terms (atr_transact, atr_agree, a channel's deposit);
   * `intent`: a `pay` intent; `purchase`: a `buy`.
   */
  kind: SettlementFor['kind'];
  /** The call's receipt (get_receipt), the payment's spend, the intent, or the purchase. */
  id: string;
  /** An intent's idempotency key (get_job takes it); null for the others. */
  idempotency_key: string | null;
}

/** A payment on a chain as a receipt shows it on its own: the settlement's view, what it pays for, whose, and when. */
export interface SettlementDetail extends SettlementView {
  mandate: string;
  for: PaidFor;
  /** What the mandate's hold carries for it, in the mandate's currency. */
  held: MoneyJson;
  signed_at: string;
  updated_at: string;
}

type Fields = SettlementFields & Pick<MoneyFields, 'intents'>;

/** The detail of a settlement. */
export function settlementDetail(s: Fields, r: Settlement): SettlementDetail {
  const intent = r.for.kind === 'intent' ? s.intents[r.for.id] : undefined;
  return {
    ...settlementView(r),
    mandate: r.mandate,
    for: { kind: r.for.kind, id: r.for.id, idempotency_key: intent?.idempotency_key ?? null },
    held: { ...r.held },
    signed_at: r.signed_at,
    updated_at: r.updated_at,
  };
}

/** True when `id` has a settlement's form (what every answer names a payment on a chain by). */
export function isSettlementId(id: string): boolean {
  return id.startsWith('stl_');
}

/**
 * A settlement of `mandate` by its id; another mandate's is not found, as a missing one is: an agent never
 * reads another mandate's payments.
 */
export function mandateSettlement(s: SettlementFields, mandate: string, id: string): Settlement {
  const r = s.settlements[id];
  if (!r || r.mandate !== mandate) throw new HolonError('not_found', `no payment "${id}" under mandate ${mandate}`, { settlement: id });
  return r;
}

/** The payment a spend's hold carries, if one was signed on a chain for it (a call's is found by its receipt). */
export function settlementOfSpend(s: SettlementFields, spend: { id: string; kind: SettlementFor['kind'] }): Settlement | undefined {
  const byHold = s.settlement_by_hold[spend.id];
  const r = byHold !== undefined ? s.settlements[byHold] : undefined;
  return r ?? settlementFor(s, { kind: spend.kind, id: spend.id });
}

/** The newest payments signed on a chain, of one mandate or of every mandate, newest first. */
export function newestSettlements(s: SettlementFields, filter: { mandate: string | null; limit: number }): Settlement[] {
  return newestSettlementIds(s, filter).flatMap((id) => {
    const r = s.settlements[id];
    return r ? [r] : [];
  });
}
