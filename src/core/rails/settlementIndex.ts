/**
 * What the reads of one mandate's payments on a chain need, kept as the journal folds and carried in the
 * snapshot like every field of the state: its settlements in the order they were signed (the newest
 * payments are a walk back from the end), and every event of theirs in journal order (the payments' part
 * of the audit trail: a page is a seek, its cursor a journal position). Beside them, the newest settlement
 * each hold carries, so that a spend's payment is one lookup. Ids and positions only: each settlement
 * stays in `settlements`.
 */
import type { Dict } from '../kernel/util.ts';
import { dict, firstNotBefore, toDict } from '../kernel/util.ts';

/** One mandate's settlements, indexed. */
export interface MandateSettlements {
  /** Its settlements in the order they were signed, and the journal seq each was signed at (ascending). */
  signed: string[];
  signed_seq: number[];
  /** Every event of its settlements, ascending by journal seq: the seq, the settlement, the event's type and time. */
  audit_seq: number[];
  audit_settlement: string[];
  audit_type: string[];
  audit_at: string[];
}

/** The index's part of the state. */
export interface SettlementIndexFields {
  /** Mandate → its settlements, indexed. */
  settlement_index: Dict<MandateSettlements>;
  /** Hold → the newest settlement whose money it carries (a payment's, an intent's or a purchase's own hold; a call's payment hold). */
  settlement_by_hold: Dict<string>;
}

function indexOf(s: SettlementIndexFields, mandate: string): MandateSettlements {
  return (s.settlement_index[mandate] ??= {
    signed: [],
    signed_seq: [],
    audit_seq: [],
    audit_settlement: [],
    audit_type: [],
    audit_at: [],
  });
}

/** Files a settlement just signed (journal seq `seq`) under its mandate and its hold. */
export function fileSigned(s: SettlementIndexFields, r: { id: string; mandate: string; hold: string }, seq: number): void {
  const ix = indexOf(s, r.mandate);
  ix.signed.push(r.id);
  ix.signed_seq.push(seq);
  s.settlement_by_hold[r.hold] = r.id;
}

/** Files one event of a settlement of `mandate` in its trail (the journal folds in seq order: an append). */
export function fileSettlementEvent(
  s: SettlementIndexFields,
  mandate: string,
  id: string,
  e: { seq: number; type: string; time: string },
): void {
  const ix = indexOf(s, mandate);
  ix.audit_seq.push(e.seq);
  ix.audit_settlement.push(id);
  ix.audit_type.push(e.type);
  ix.audit_at.push(e.time);
}

/**
 * The newest settlements signed before journal seq `before` (every one by default), of one mandate or of
 * every mandate (their lists merged), newest first, at most `limit`: a walk back from the end of each list.
 */
export function newestSettlementIds(
  s: SettlementIndexFields,
  filter: { mandate: string | null; limit: number; before?: number | undefined },
): string[] {
  const lists =
    filter.mandate === null ? Object.values(s.settlement_index) : [s.settlement_index[filter.mandate]].filter((x) => x !== undefined);
  const before = filter.before ?? Number.MAX_SAFE_INTEGER;
  const at = lists.map((ix) => firstNotBefore(ix.signed_seq.length, (i) => (ix.signed_seq[i] as number) < before) - 1);
  const out: string[] = [];
  while (out.length < filter.limit) {
    let best = -1;
    for (let k = 0; k < lists.length; k++) {
      const i = at[k] as number;
      if (i < 0) continue;
      const seq = lists[k]?.signed_seq[i] as number;
      if (best < 0 || seq > (lists[best]?.signed_seq[at[best] as number] as number)) best = k;
    }
    if (best < 0) break;
    const i = at[best] as number;
    out.push(lists[best]?.signed[i] as string);
    at[best] = i - 1;
  }
  return out;
}

/** Where the part of a mandate's payment trail after journal seq `after` starts, and how long the trail is. */
export function settlementTrailFrom(ix: MandateSettlements | undefined, after: number): { from: number; length: number } {
  if (!ix) return { from: 0, length: 0 };
  return { from: firstNotBefore(ix.audit_seq.length, (i) => (ix.audit_seq[i] as number) <= after), length: ix.audit_seq.length };
}

/** The index as a snapshot's JSON.parse gave it back. */
export function reviveSettlementIndex(s: Partial<SettlementIndexFields>): SettlementIndexFields {
  return { settlement_index: toDict(s.settlement_index), settlement_by_hold: toDict(s.settlement_by_hold) };
}

/** An empty index. */
export function emptySettlementIndex(): SettlementIndexFields {
  return { settlement_index: dict(), settlement_by_hold: dict() };
}
