/**
 * Purchases from merchants, kept by the replay key their buyer chose: what was asked (merchant and
 * lines), the checkout it went through, the hold while it ran, and the order it became. The journal is
 * the only memory of a replay key, so the same key never buys twice, from any process.
 */
import type { MoneyJson } from '../kernel/amount.ts';
import type { Slice } from '../store/slice.ts';
import { eventsOf } from '../store/slice.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';
import type { Ap2Evidence } from './ap2.ts';
import type { CheckoutProtocol, LineRequest, Order, Presentation } from './checkout.ts';

/** Where a purchase stands: running (its hold open), completed (an order), or failed (retry with the same key). */
export type PurchaseStatus = 'pending' | 'completed' | 'failed';

/** One purchase under one replay key. */
export interface Purchase {
  id: string;
  mandate: string;
  replay_key: string;
  merchant: string;
  protocol: CheckoutProtocol;
  /** The merchant's checkout it goes through; a retry completes the same one. */
  checkout: string;
  lines: LineRequest[];
  status: PurchaseStatus;
  /** The hold of the latest attempt (open while pending). */
  hold: string;
  /** The merchant's total when it was authorized, in the merchant's currency. */
  total: MoneyJson;
  /** What was held for it, in the mandate's currency. */
  amount: MoneyJson;
  order: Order | null;
  /** What the mandate was charged for the order, in its currency. */
  charged: MoneyJson | null;
  /** Why the latest attempt failed. */
  failure: string | null;
  /** At a merchant that negotiated AP2: the mandates' digests and disclosed claims, the merchant's checkout signature. */
  ap2?: Ap2Evidence | null;
  started_at: string;
  updated_at: string;
}

/** The purchases' part of the state, by `purchaseKey(mandate, replay_key)`. */
export interface PurchasesFields {
  purchases: Dict<Purchase>;
  /**
   * The AP2 mandates presented for a purchase, by its id: kept only so that a retry sends the merchant the
   * very same request (its Idempotency-Key answers it); never shown, never returned by a tool.
   */
  presentations: Dict<Presentation>;
}

/** The purchases' events. */
export interface PurchaseEvents {
  /** An attempt was authorized and its hold placed (a retry after a failure starts again, same purchase). */
  'purchase.started': {
    purchase: string;
    mandate: string;
    replay_key: string;
    merchant: string;
    protocol: CheckoutProtocol;
    checkout: string;
    lines: LineRequest[];
    hold: string;
    total: MoneyJson;
    amount: MoneyJson;
  };
  /** The gate held it at a merchant that negotiated AP2: the mandates signed for it, presented with the completion. */
  'purchase.mandated': { purchase: string; mandate: string; replay_key: string; evidence: Ap2Evidence; presentation: Presentation };
  /** The merchant completed the checkout: the order, its lines and total, and what the mandate paid. */
  'purchase.completed': { purchase: string; mandate: string; replay_key: string; merchant: string; order: Order; charged: MoneyJson };
  /** The attempt failed and its hold was released; the same replay key may try again. */
  'purchase.failed': { purchase: string; mandate: string; replay_key: string; reason: string };
}

export const purchaseEvent = eventsOf<PurchaseEvents>();

/** The key a purchase is kept under: a replay key belongs to one mandate. */
export function purchaseKey(mandate: string, replayKey: string): string {
  return `${mandate}#${replayKey}`;
}

export const purchasesSlice: Slice<PurchasesFields, PurchaseEvents> = {
  initial: () => ({ purchases: dict(), presentations: dict() }),
  on: {
    'purchase.started': (s, d, e) => {
      const key = purchaseKey(d.mandate, d.replay_key);
      const before = s.purchases[key];
      s.purchases[key] = {
        id: d.purchase,
        mandate: d.mandate,
        replay_key: d.replay_key,
        merchant: d.merchant,
        protocol: d.protocol,
        checkout: d.checkout,
        lines: d.lines.map((l) => ({ ...l })),
        status: 'pending',
        hold: d.hold,
        total: { ...d.total },
        amount: { ...d.amount },
        order: null,
        charged: null,
        failure: null,
        ap2: before?.ap2 && before.checkout === d.checkout ? before.ap2 : null,
        started_at: before?.started_at ?? e.time,
        updated_at: e.time,
      };
    },
    'purchase.mandated': (s, d, e) => {
      const p = s.purchases[purchaseKey(d.mandate, d.replay_key)];
      if (!p || p.id !== d.purchase) return;
      p.ap2 = structuredClone(d.evidence);
      s.presentations[d.purchase] = { ...d.presentation };
      p.updated_at = e.time;
    },
    'purchase.completed': (s, d, e) => {
      const p = s.purchases[purchaseKey(d.mandate, d.replay_key)];
      if (!p || p.id !== d.purchase) return;
      p.status = 'completed';
      p.order = structuredClone(d.order);
      p.charged = { ...d.charged };
      p.failure = null;
      p.updated_at = e.time;
    },
    'purchase.failed': (s, d, e) => {
      const p = s.purchases[purchaseKey(d.mandate, d.replay_key)];
      if (!p || p.id !== d.purchase || p.status === 'completed') return;
      p.status = 'failed';
      p.failure = d.reason;
      p.updated_at = e.time;
    },
  },
  revive: (s) => {
    s.purchases = toDict(s.purchases);
    s.presentations = toDict(s.presentations ?? {});
  },
};

/**
 * The completed purchases, newest first (of one mandate, when given): each with its order, lines,
 * total and what was charged — what the receipts panel and `holon` show.
 */
export function purchasesOf(s: PurchasesFields, mandate?: string): Purchase[] {
  return Object.values(s.purchases)
    .filter((p) => p.status === 'completed' && (mandate === undefined || p.mandate === mandate))
    .sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
}
