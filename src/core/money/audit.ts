/**
 * A mandate's audit trail, in journal order: its intents' hash-linked job events and the events of every
 * payment it signed on a chain (an x402 agent's call, a payment under terms, a channel's deposit, a `pay`
 * intent's, a purchase's), each with where that payment landed, or why not. Two seeks in two indexes
 * (intentIndex.ts, settlementIndex.ts) merged: a page costs the page, whatever the trail's length.
 */
import type { HolonState } from '../fold/state.ts';
import { auditRange } from './intentIndex.ts';
import type { AuditEntry } from './intents.ts';
import type { SettlementDetail } from './payments.ts';
import { settlementDetail } from './payments.ts';
import { settlementTrailFrom } from '../rails/settlementIndex.ts';

/** One event of a payment on a chain, in a mandate's audit trail. */
export interface PaymentAuditEntry {
  /** The journal's sequence number of the event: the trail's order. */
  seq: number;
  at: string;
  /**
   * The event: `settlement.signed`, `.claimed`, `.landed`, `.expired`, `.flagged`, `.release_asked`, `.cancel_sent`,
   * `.decided`, `.refund_expected`, `.refunded`.
   */
  type: string;
  /** The payment as it stands now: where it landed, or why not, and what it pays for. */
  settlement: SettlementDetail;
}

/** One entry of a mandate's audit trail: an intent's job event, or a payment's event. */
export type TrailEntry = AuditEntry | PaymentAuditEntry;

/** True for a payment's entry. */
export function isPaymentEntry(e: TrailEntry): e is PaymentAuditEntry {
  return 'settlement' in e;
}

/**
 * A page of a mandate's audit trail, oldest first: at most `limit` entries after journal seq `after` (a
 * journal event is never split across pages), and the seq the next page starts after, null at the end.
 */
export function auditTrailPage(
  s: HolonState,
  mandate: string,
  after: number,
  limit: number,
): { entries: TrailEntry[]; next: number | null } {
  const jobs = s.intent_index[mandate];
  const paid = s.settlement_index[mandate];
  const j0 = auditRange(jobs, after, 0);
  const p0 = settlementTrailFrom(paid, after);
  let i = j0.from;
  const iEnd = j0.from + j0.left;
  let k = p0.from;
  const kEnd = p0.length;
  const entries: TrailEntry[] = [];
  let last: number | null = null;
  while (i < iEnd || k < kEnd) {
    const a = i < iEnd ? (jobs?.audit_seq[i] as number) : Infinity;
    const b = k < kEnd ? (paid?.audit_seq[k] as number) : Infinity;
    const seq = Math.min(a, b);
    if (entries.length >= limit && seq !== last) break;
    last = seq;
    if (a <= b) {
      const r = s.intents[jobs?.audit_intent[i] ?? ''];
      const e = r?.events.findLast((x) => x.seq === a);
      if (r && e) entries.push({ ...structuredClone(e), intent: r.id, idempotency_key: r.idempotency_key });
      i += 1;
    } else {
      const r = s.settlements[paid?.audit_settlement[k] ?? ''];
      if (r) entries.push({ seq: b, at: paid?.audit_at[k] ?? '', type: paid?.audit_type[k] ?? '', settlement: settlementDetail(s, r) });
      k += 1;
    }
  }
  const more = i < iEnd || k < kEnd;
  return { entries, next: more && last !== null ? last : null };
}

/** The newest `limit` entries of a mandate's payments' trail, oldest first (what `holon audit` shows). */
export function latestPaymentEntries(s: HolonState, mandate: string, limit: number): PaymentAuditEntry[] {
  const ix = s.settlement_index[mandate];
  if (!ix) return [];
  const out: PaymentAuditEntry[] = [];
  for (let k = Math.max(0, ix.audit_seq.length - limit); k < ix.audit_seq.length; k++) {
    const r = s.settlements[ix.audit_settlement[k] ?? ''];
    if (r)
      out.push({
        seq: ix.audit_seq[k] as number,
        at: ix.audit_at[k] ?? '',
        type: ix.audit_type[k] ?? '',
        settlement: settlementDetail(s, r),
      });
  }
  return out;
}
