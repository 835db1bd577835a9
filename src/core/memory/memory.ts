/**
 * Remembering and reading back: a record version appended under a mandate, and a point-in-time
 * snapshot (valid-as-of × system-as-of, pinned to a journal position) resolved from the index, with the
 * contents of the records it shows read back from the journal.
 */
import { createHash } from 'node:crypto';
import { HolonError } from '../kernel/errors.ts';
import { newId } from '../kernel/ids.ts';
import { mandateDenials, mandateOf } from '../accounts/mandates.ts';
import type { MandatesFields } from '../accounts/mandates.ts';
import { denialTexts } from '../kernel/words.ts';
import type { EventStore, NewEvent } from '../store/store.ts';
import type { MemoryEvents, MemoryFields, MemoryVersion } from './slice.ts';
import { memoryEvent, memoryKey } from './slice.ts';
import type { Bound, KeyIndex } from './keyIndex.ts';
import { LATEST, recordWeight } from './keyIndex.ts';
import type { Dict } from '../kernel/util.ts';
import { firstNotBefore } from '../kernel/util.ts';

/** What one record may hold, and how a key may look: the tool schemas and the core check the same numbers. */
export const MEMORY_LIMITS = {
  /** UTF-8 bytes of one record's content. */
  contentBytes: 64 * 1024,
  /** Characters of a key (and of a prefix). */
  keyChars: 256,
  /** Keys one recall or assemble may name. */
  keys: 100,
  /** Records one page of a recall may return. */
  pageSize: 100,
} as const;

/** A key: printable, one line, no control characters. */
export const MEMORY_KEY = /^[^\u0000-\u001f\u007f]+$/;

/** The store as memory uses it: the state with mandates and the memory index, and keys read back. */
export type MemoryStoreView = Pick<EventStore<MandatesFields & MemoryFields>, 'state' | 'seq' | 'readKey' | 'transact'>;

/** What an agent asks to remember. */
export interface RememberInput {
  key: string;
  content: string;
  /** ISO 8601; default: now. */
  valid_from?: string | null | undefined;
  /** ISO 8601, after valid_from; default: open-ended. */
  valid_to?: string | null | undefined;
}

/** A version as the agent is told about it. */
export interface RememberedVersion extends MemoryVersion {
  mandate: string;
}

/** An instant as the canonical ISO form every comparison and display uses; invalid_input when it is none. */
export function isoInstant(text: string, what: string): string {
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw new HolonError('invalid_input', `${what} is not an ISO 8601 date-time: "${text}"`, { field: what });
  return new Date(ms).toISOString();
}

/** SHA-256 (hex) of a content's UTF-8 bytes. */
export function contentHash(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

/** True when the two half-open valid-time intervals share an instant. */
function overlaps(a: { valid_from: string; valid_to: string | null }, b: { valid_from: string; valid_to: string | null }): boolean {
  const aFrom = Date.parse(a.valid_from);
  const bFrom = Date.parse(b.valid_from);
  const aTo = a.valid_to === null ? Infinity : Date.parse(a.valid_to);
  const bTo = b.valid_to === null ? Infinity : Date.parse(b.valid_to);
  return aFrom < bTo && bFrom < aTo;
}

/** Refuses a mandate that cannot act now (suspended, revoked, expired), as the capability check would. */
export function checkMandateActive(state: MandatesFields, mandate: string, now: number): void {
  const m = mandateOf(state, mandate);
  const inactive = mandateDenials(m, now);
  if (inactive.length > 0) throw new HolonError('denied', denialTexts(inactive).join('; '), { mandate }, inactive);
}

/** Checks a key against the limits, as invalid_input. */
export function checkKey(key: string, what = 'key'): void {
  if (key.length < 1 || key.length > MEMORY_LIMITS.keyChars || !MEMORY_KEY.test(key)) {
    throw new HolonError(
      'invalid_input',
      `${what} must be 1 to ${MEMORY_LIMITS.keyChars} characters on one line, without control characters`,
      { field: what },
    );
  }
}

/** The valid time of `input`, once it is checked against the limits (invalid_input otherwise). */
function checkedInterval(input: RememberInput, now: number): { valid_from: string; valid_to: string | null } {
  checkKey(input.key);
  const bytes = Buffer.byteLength(input.content, 'utf8');
  if (bytes > MEMORY_LIMITS.contentBytes) {
    throw new HolonError('invalid_input', `content is ${bytes} bytes; a record holds at most ${MEMORY_LIMITS.contentBytes}`, {
      field: 'content',
      bytes,
      max: MEMORY_LIMITS.contentBytes,
    });
  }
  const valid_from = input.valid_from ? isoInstant(input.valid_from, 'valid_from') : new Date(now).toISOString();
  const valid_to = input.valid_to ? isoInstant(input.valid_to, 'valid_to') : null;
  if (valid_to !== null && Date.parse(valid_to) <= Date.parse(valid_from)) {
    throw new HolonError('invalid_input', `valid_to (${valid_to}) must be after valid_from (${valid_from})`, { field: 'valid_to' });
  }
  return { valid_from, valid_to };
}

/**
 * The event that remembers `input` under `mandate` as version `id`, decided on the state `s`: the input
 * checked against the limits, the mandate active, and the older versions of the key it overlaps named as
 * superseded. What `remember` appends; the bench writes its worlds with it too.
 */
export function rememberEvent(
  s: MandatesFields & MemoryFields,
  mandate: string,
  input: RememberInput,
  id: string,
  now: number,
): NewEvent & { type: 'memory.remembered'; data: MemoryEvents['memory.remembered'] } {
  const { valid_from, valid_to } = checkedInterval(input, now);
  checkMandateActive(s, mandate, now);
  const older = s.memory[mandate]?.[input.key] ?? [];
  const supersedes = older.filter((v) => overlaps(v, { valid_from, valid_to })).map((v) => v.id);
  return memoryEvent('memory.remembered', {
    id,
    mandate,
    key: input.key,
    content: input.content,
    valid_from,
    valid_to,
    sha256: contentHash(input.content),
    supersedes,
  });
}

/**
 * Appends one record version under `mandate`. A key already remembered gets a new version that wins
 * wherever its valid time overlaps the older ones'; those stay, readable as of before it.
 */
export async function remember(store: MemoryStoreView, mandate: string, input: RememberInput, now: number): Promise<RememberedVersion> {
  // Bad input is refused before the lock is taken.
  checkedInterval(input, now);
  const id = newId('mem');
  await store.transact((s) => ({ events: [rememberEvent(s, mandate, input, id, now)], result: undefined }));
  const v = store.state.memory[mandate]?.[input.key]?.find((x) => x.id === id);
  if (!v) throw new Error(`memory version ${id} was appended but is not in the folded state`);
  return { ...v, mandate };
}

/** A point-in-time view of one mandate's memory, pinned to a journal position. */
export interface SnapshotQuery {
  mandate: string;
  /** The journal position the snapshot is sealed at: nothing recorded after it is seen. */
  system_seq: number;
  /** System time: only what was recorded at or before it (ISO 8601 UTC). */
  system_as_of: string;
  /** Valid time: what was true at that instant (ISO 8601 UTC). */
  valid_as_of: string;
  /** Only these keys, in this order; null: every key, in key order. */
  keys: string[] | null;
  /** Only keys starting with it. */
  prefix: string | null;
}

/**
 * The version of a key a snapshot shows: recorded within it (at or before its journal position and its
 * system time), valid at its instant, and of those the latest recorded. Versions are kept in the order
 * they were recorded, so the first from the newest that qualifies is the one; those after the snapshot's
 * journal position are passed over by a seek, not one by one.
 */
function visibleIn(
  versions: readonly MemoryVersion[] | undefined,
  q: SnapshotQuery,
  systemMs: number,
  validMs: number,
): MemoryVersion | undefined {
  if (!versions) return undefined;
  const seq = seqBound(q);
  for (let i = firstNotBefore(versions.length, (k) => (versions[k] as MemoryVersion).system_seq <= seq) - 1; i >= 0; i--) {
    const v = versions[i] as MemoryVersion;
    if (v.system_seq > seq || Date.parse(v.recorded_at) > systemMs) continue;
    if (Date.parse(v.valid_from) > validMs || (v.valid_to !== null && Date.parse(v.valid_to) <= validMs)) continue;
    return v;
  }
  return undefined;
}

/** A snapshot's journal position as a number to compare: one that is no number excludes nothing, as a comparison with NaN reads it. */
const seqBound = (q: SnapshotQuery): number => (Number.isNaN(q.system_seq) ? Infinity : q.system_seq);

/** A snapshot's system bounds as its key index reads them (a record time that is no date excludes nothing). */
const boundIn = (ix: KeyIndex, q: SnapshotQuery, systemMs: number): Bound =>
  ix.bound(seqBound(q), Number.isNaN(systemMs) ? LATEST : systemMs);

/** Where a read of a snapshot starts: after `offset` records, which end at key `after` when the cursor says so. */
export interface SnapshotPlace {
  offset: number;
  /** The key the records before this place end on (a query of every key, or of a prefix, only). */
  after?: string | null | undefined;
}

/**
 * A record of a snapshot as a read first meets it: enough to list or weigh it (its weight is recordWeight's)
 * without reading its version; `version()` reads that.
 */
export interface SnapshotEntry {
  key: string;
  id: string;
  bytes: number;
  weight: number;
  version: () => MemoryVersion;
}

const entryOf = (v: MemoryVersion): SnapshotEntry => ({ key: v.key, id: v.id, bytes: v.bytes, weight: recordWeight(v), version: () => v });

/**
 * The records of a snapshot in order — the keys' order when it names keys, key order otherwise — from
 * `from`, one at a time: a page reads only its own keys (and, without `after`, those before it), never
 * every key of the memory. With `room`, a key none of whose versions weighs as little as `room()` says
 * now (recordWeight) is passed over unread, unless the snapshot names its keys: what an assembly that
 * has no room for it left does not need to see.
 *
 * A key whose latest version is within the snapshot's bounds and valid at its instant shows that version
 * (visibleIn looks at it first), and the key index keeps enough of it to say so: such a record is met
 * without reading its key's versions, which at 100k keys are scattered over a large heap (an assembly
 * lists a hundred it leaves out). Any other key is resolved as visibleIn does.
 */
export function* snapshotEntries(
  state: MemoryFields,
  q: SnapshotQuery,
  from: SnapshotPlace = { offset: 0 },
  room?: () => number,
): Generator<SnapshotEntry> {
  const byKey = state.memory[q.mandate];
  if (!byKey) return;
  const systemMs = Date.parse(q.system_as_of);
  const validMs = Date.parse(q.valid_as_of);
  let skip = !q.keys && typeof from.after === 'string' ? 0 : from.offset;
  const shown = (key: string): SnapshotEntry | undefined => {
    const v = visibleIn(byKey[key], q, systemMs, validMs);
    return v && entryOf(v);
  };
  const entries = q.keys ? named(new Set(q.keys), shown) : indexed(state, q, from, room, byKey, systemMs, validMs, shown);
  for (const e of entries) {
    if (!e || (q.prefix !== null && !e.key.startsWith(q.prefix))) continue;
    if (skip > 0) skip -= 1;
    else yield e;
  }
}

function* named(keys: Iterable<string>, shown: (key: string) => SnapshotEntry | undefined): Generator<SnapshotEntry | undefined> {
  for (const k of keys) yield shown(k);
}

/** The entries of every key (or a prefix's) in key order, through the key index: see snapshotEntries. */
function* indexed(
  state: MemoryFields,
  q: SnapshotQuery,
  from: SnapshotPlace,
  room: (() => number) | undefined,
  byKey: Dict<MemoryVersion[]>,
  systemMs: number,
  validMs: number,
  shown: (key: string) => SnapshotEntry | undefined,
): Generator<SnapshotEntry | undefined> {
  const ix = state.memory_index[q.mandate];
  if (!ix) return;
  // With no instant to read covers at (never a query the tools make), every key is resolved as it is.
  const bound = Number.isNaN(validMs) ? undefined : boundIn(ix, q, systemMs);
  for (const e of ix.entriesFrom(typeof from.after === 'string' ? from.after : null, q.prefix, room)) {
    // A bound that is no number fails these comparisons, and the key is resolved as visibleIn reads it.
    if (e.seq <= q.system_seq && e.rec <= systemMs && e.from <= validMs && validMs < e.to) {
      const { key, id, bytes, weight } = e;
      yield { key, id, bytes, weight, version: () => latestOf(byKey, key, id) };
    } else if (!bound || ix.shows(e, bound, validMs) !== false) yield shown(e.key);
  }
}

/** A key's latest version, which the key index says is `id`. */
function latestOf(byKey: Dict<MemoryVersion[]>, key: string, id: string): MemoryVersion {
  const v = byKey[key]?.at(-1);
  if (v?.id !== id) throw new Error(`the memory index says the latest version of "${key}" is ${id}; the state says ${v?.id ?? 'none'}`);
  return v;
}

/** The records of a snapshot in order, from `from` (snapshotEntries, each version read). */
export function* snapshotRecords(
  state: MemoryFields,
  q: SnapshotQuery,
  from: SnapshotPlace = { offset: 0 },
  room?: () => number,
): Generator<MemoryVersion> {
  for (const e of snapshotEntries(state, q, from, room)) yield e.version();
}

/**
 * How many records a snapshot shows. Named keys are resolved one by one (at most MEMORY_LIMITS.keys); every
 * key or a prefix is counted by the key index: what none of whose versions came after the snapshot's
 * bounds is counted from the valid time it covers, and only the keys written since are resolved.
 */
export function snapshotTotal(state: MemoryFields, q: SnapshotQuery): number {
  const byKey = state.memory[q.mandate];
  if (!byKey) return 0;
  const systemMs = Date.parse(q.system_as_of);
  const validMs = Date.parse(q.valid_as_of);
  const shows = (key: string): boolean => visibleIn(byKey[key], q, systemMs, validMs) !== undefined;
  const ix = state.memory_index[q.mandate];
  if (q.keys) return [...new Set(q.keys)].filter((k) => (q.prefix === null || k.startsWith(q.prefix)) && shows(k)).length;
  if (!ix) return 0;
  if (Number.isNaN(validMs)) {
    // No instant to count covers at (never a query the tools make): every key is resolved as it is.
    let n = 0;
    for (const k of ix.keysFrom(null, q.prefix)) if (shows(k)) n += 1;
    return n;
  }
  return ix.count(q.prefix, boundIn(ix, q, systemMs), validMs, shows);
}

/** The version of each key visible in a snapshot, all of them: recorded within it, valid at its instant, latest recorded wins. */
export function resolveSnapshot(state: MemoryFields, q: SnapshotQuery): MemoryVersion[] {
  return [...snapshotRecords(state, q)];
}

/** Every version of one mandate's memory, key by key, oldest first: the human's history view. */
export function allVersions(state: MemoryFields, mandate: string): MemoryVersion[] {
  const byKey = state.memory[mandate];
  const ix = state.memory_index[mandate];
  if (!byKey || !ix) return [];
  return [...ix.keysFrom(null, null)].flatMap((k) => byKey[k] ?? []);
}

/**
 * The contents of `versions`, read back from the journal (each event checked by the store), and each
 * checked against the index: the mandate, and the hash it was remembered with.
 */
export async function readContents(
  store: Pick<MemoryStoreView, 'readKey'>,
  mandate: string,
  versions: readonly MemoryVersion[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const v of versions) {
    const [e] = await store.readKey(memoryKey(v.id));
    const d = e?.data as MemoryEvents['memory.remembered'] | undefined;
    if (!e || e.type !== 'memory.remembered' || !d || d.id !== v.id || d.mandate !== mandate || contentHash(d.content) !== v.sha256) {
      throw new HolonError('corrupt_journal', `memory record ${v.id} could not be read back as it was recorded; run \`holon verify\``, {
        record: v.id,
      });
    }
    out.set(v.id, d.content);
  }
  return out;
}
