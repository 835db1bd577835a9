/**
 * What the reads of one mandate's intents need, kept as the journal folds and carried in the snapshot
 * like every field of the state: where each job event of its intents is in the journal (a page of the
 * audit trail is a seek, its cursor a journal position), its intents by recorded status in the order they
 * were submitted (a page of `list_intents`, newest first, is a walk back from a position), and its parked
 * intents by when their approval lapses (`pay` releases the lapsed ones without looking at any other
 * intent). It holds ids and positions only: each intent stays in `intents`, each job event in its intent.
 */
import type { Dict } from '../kernel/util.ts';
import { dict, firstNotBefore, toDict } from '../kernel/util.ts';

/** One mandate's intents, indexed. */
export interface MandateIntents {
  /** The journal seq of every job event of the mandate's intents, ascending, and the intent each belongs to. */
  audit_seq: number[];
  audit_intent: string[];
  /** Intent ids by recorded status, each list in the order the intents were submitted (created_seq). */
  by_status: Dict<string[]>;
  /**
   * The parked intents (recorded pending, with an approval), ascending by when their approval lapses
   * (ms): NEVER when it cannot (an expiry that is no date), ALWAYS when the approval is not known.
   */
  lapse_ms: number[];
  lapse_intent: string[];
}

/**
 * What the index reads of an intent. An intent record (the slice's IntentRecord) is one; the index names
 * only what it reads, so that it does not import its slice.
 */
export interface IndexedIntent {
  id: string;
  mandate: string;
  status: string;
  approval: string | null;
  created_seq: number;
}

/** The index's part of the money fields, its intents of type R. */
export interface IntentIndexFields<R extends IndexedIntent = IndexedIntent> {
  intents: Dict<R>;
  intent_index: Dict<MandateIntents>;
}

/** Lapse times beyond any date (JSON keeps them, unlike ±Infinity): a date is within ±8.64e15 ms. */
const ALWAYS = -9e15;
const NEVER = 9e15;

/** When a parked intent's approval lapses, as the queue orders it: `expires_at` of an approval, if known. */
export function lapseMs(expiresAt: string | undefined): number {
  if (expiresAt === undefined) return ALWAYS;
  const ms = Date.parse(expiresAt);
  return Number.isNaN(ms) ? NEVER : ms;
}

function indexOf(s: IntentIndexFields, mandate: string): MandateIntents {
  return (s.intent_index[mandate] ??= { audit_seq: [], audit_intent: [], by_status: dict(), lapse_ms: [], lapse_intent: [] });
}

const createdSeq = (s: IntentIndexFields, id: string | undefined): number => (id === undefined ? 0 : (s.intents[id]?.created_seq ?? 0));

/** Where intent `r` is, or would go, in a list ordered by created_seq. */
function placeIn(s: IntentIndexFields, list: string[], r: IndexedIntent): number {
  return firstNotBefore(list.length, (i) => createdSeq(s, list[i]) < r.created_seq);
}

function addToStatus(s: IntentIndexFields, ix: MandateIntents, r: IndexedIntent): void {
  const list = (ix.by_status[r.status] ??= []);
  list.splice(placeIn(s, list, r), 0, r.id);
}

function removeFromStatus(s: IntentIndexFields, ix: MandateIntents, r: IndexedIntent, status: string): void {
  const list = ix.by_status[status];
  if (!list) return;
  const at = placeIn(s, list, r);
  const i = list[at] === r.id ? at : list.indexOf(r.id);
  if (i >= 0) list.splice(i, 1);
}

function removeLapse(ix: MandateIntents, id: string): void {
  const i = ix.lapse_intent.indexOf(id);
  if (i < 0) return;
  ix.lapse_ms.splice(i, 1);
  ix.lapse_intent.splice(i, 1);
}

function addLapse(ix: MandateIntents, id: string, ms: number): void {
  const at = firstNotBefore(ix.lapse_ms.length, (i) => (ix.lapse_ms[i] as number) <= ms);
  ix.lapse_ms.splice(at, 0, ms);
  ix.lapse_intent.splice(at, 0, id);
}

/** An intent as it was before an event changed it: what the index filed it under. */
export interface Filed {
  status: string;
  approval: string | null;
}

/**
 * Files what an event just did to intent `r` (its job event at `seq` appended): the audit entry, its
 * move between statuses, its place in the lapse queue. `was` is what it was filed under before (null for
 * a new intent); `expiresAt` tells when an approval lapses, as the approvals slice folded it.
 */
export function fileIntentEvent(
  s: IntentIndexFields,
  r: IndexedIntent,
  was: Filed | null,
  seq: number,
  expiresAt: (approval: string) => string | undefined,
): void {
  const ix = indexOf(s, r.mandate);
  ix.audit_seq.push(seq);
  ix.audit_intent.push(r.id);
  if (was?.status !== r.status) {
    if (was) removeFromStatus(s, ix, r, was.status);
    addToStatus(s, ix, r);
  }
  const parked = (f: Filed | null): boolean => f?.status === 'pending' && f.approval !== null;
  if (parked(was) && (!parked(r) || was?.approval !== r.approval)) removeLapse(ix, r.id);
  if (parked(r) && (!parked(was) || was?.approval !== r.approval)) addLapse(ix, r.id, lapseMs(expiresAt(r.approval as string)));
}

/**
 * Takes an intent out of the index before its record is replaced (an `intent.submitted` for an id that
 * exists: never written by Holon, but folded as the journal says). Costs a pass over its mandate's trail.
 */
export function forgetIntent(s: IntentIndexFields, r: IndexedIntent): void {
  const ix = s.intent_index[r.mandate];
  if (!ix) return;
  const keep = ix.audit_intent.map((id) => id !== r.id);
  ix.audit_seq = ix.audit_seq.filter((_, i) => keep[i]);
  ix.audit_intent = ix.audit_intent.filter((_, i) => keep[i]);
  removeFromStatus(s, ix, r, r.status);
  removeLapse(ix, r.id);
}

/** An approval asked for again under an id a parked intent waits on: its place in the lapse queue follows. */
export function refileLapse(s: IntentIndexFields, approval: string, expiresAt: string | undefined): void {
  for (const ix of Object.values(s.intent_index)) {
    for (let i = ix.lapse_intent.length - 1; i >= 0; i--) {
      const id = ix.lapse_intent[i] as string;
      if (s.intents[id]?.approval !== approval) continue;
      removeLapse(ix, id);
      addLapse(ix, id, lapseMs(expiresAt));
    }
  }
}

/**
 * The part of a mandate's audit trail after journal seq `after`: positions [from, to) of at most `limit`
 * entries, and how many follow `from`.
 */
export function auditRange(ix: MandateIntents | undefined, after: number, limit: number): { from: number; to: number; left: number } {
  if (!ix) return { from: 0, to: 0, left: 0 };
  const seqs = ix.audit_seq;
  const from = firstNotBefore(seqs.length, (i) => (seqs[i] as number) <= after);
  let to = Math.min(seqs.length, from + limit);
  // A page never splits a journal event.
  while (to > from && to < seqs.length && seqs[to] === seqs[to - 1]) to += 1;
  return { from, to, left: seqs.length - from };
}

/** The mandate's intents in `statuses` submitted before journal seq `before`, newest first (the lists merged). */
export function* newestFirst<R extends IndexedIntent>(
  s: IntentIndexFields<R>,
  ix: MandateIntents | undefined,
  statuses: readonly string[],
  before: number,
): Generator<R> {
  if (!ix) return;
  const lists = statuses.map((st) => ix.by_status[st] ?? []);
  const at = lists.map((list) => firstNotBefore(list.length, (i) => createdSeq(s, list[i]) < before) - 1);
  for (;;) {
    let best = -1;
    for (let k = 0; k < lists.length; k++) {
      const i = at[k] as number;
      if (i >= 0 && (best < 0 || createdSeq(s, lists[k]?.[i]) > createdSeq(s, lists[best]?.[at[best] as number]))) best = k;
    }
    if (best < 0) return;
    const id = lists[best]?.[at[best] as number] as string;
    at[best] = (at[best] as number) - 1;
    const r = s.intents[id];
    if (r) yield r;
  }
}

/** The parked intents of a mandate whose approval may have lapsed by `now` (to be checked), in submission order. */
export function mayHaveLapsed<R extends IndexedIntent>(s: IntentIndexFields<R>, ix: MandateIntents | undefined, now: number): R[] {
  if (!ix) return [];
  const n = firstNotBefore(ix.lapse_ms.length, (i) => (ix.lapse_ms[i] as number) <= now);
  const out: R[] = [];
  for (let i = 0; i < n; i++) {
    const r = s.intents[ix.lapse_intent[i] as string];
    if (r) out.push(r);
  }
  return out.sort((a, b) => a.created_seq - b.created_seq);
}

/** The index as a snapshot's JSON.parse gave it back. */
export function reviveIntentIndex(v: Dict<MandateIntents> | undefined): Dict<MandateIntents> {
  return toDict(v, (x) => ({ ...x, by_status: toDict(x.by_status) }));
}
