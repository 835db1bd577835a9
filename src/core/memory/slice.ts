/**
 * Memory (seed 003), bi-temporal and mandate-scoped: every record version has a valid time (when what it
 * says is true, given by the agent) and a system time (when Holon recorded it: the journal's own seq and
 * time). A correction is a new version; nothing is rewritten, and there is no forgetting.
 *
 * The folded state keeps only an index — key, times, size and hash of each version, and the keys in order
 * with the valid time each covers (keyIndex.ts) — so that a snapshot can be resolved without reading
 * anything back, and a page of it without resolving every key; the contents are filed under a key per
 * version and read from the journal on demand, so memory held by every process does not grow with what
 * agents remember.
 */
import type { KeyIndexJson } from './keyIndex.ts';
import { KeyIndex } from './keyIndex.ts';
import type { Slice } from '../store/slice.ts';
import { eventsOf } from '../store/slice.ts';
import type { FiledKey, JournalEvent } from '../store/store.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';

/** One version of a record, as the index keeps it (no content). */
export interface MemoryVersion {
  /** The version's id, e.g. "mem_3kq9…". */
  id: string;
  key: string;
  /** Valid time: from (inclusive) … to (exclusive; null: open-ended), ISO 8601 UTC. */
  valid_from: string;
  valid_to: string | null;
  /** System time: the journal position and time at which the version was recorded. */
  system_seq: number;
  recorded_at: string;
  /** UTF-8 bytes of the content, and its SHA-256 (hex). */
  bytes: number;
  sha256: string;
  /** The versions of the same key whose valid time this one overlapped when it was recorded (it wins there). */
  supersedes: string[];
}

/** The memory's part of the state: mandate → key → versions, oldest first; and what the reads seek with. */
export interface MemoryFields {
  memory: Dict<Dict<MemoryVersion[]>>;
  /** Mandate → its keys in order and what each covers (keyIndex.ts); a snapshot keeps its JSON form. */
  memory_index: Dict<KeyIndex>;
}

/** The memory's events. The content is in the event (the journal is the store), never in the folded state. */
export interface MemoryEvents {
  'memory.remembered': {
    id: string;
    mandate: string;
    key: string;
    content: string;
    valid_from: string;
    valid_to: string | null;
    sha256: string;
    supersedes: string[];
  };
}

/** Builds a memory event. */
export const memoryEvent = eventsOf<MemoryEvents>();

/** The key a version's event is filed under, to read its content back. */
export const memoryKey = (id: string): string => `mem:${id}`;

/** The index entry an event makes. */
export function versionOf(d: MemoryEvents['memory.remembered'], e: Pick<JournalEvent, 'seq' | 'time'>): MemoryVersion {
  return {
    id: d.id,
    key: d.key,
    valid_from: d.valid_from,
    valid_to: d.valid_to,
    system_seq: e.seq,
    recorded_at: e.time,
    bytes: Buffer.byteLength(d.content, 'utf8'),
    sha256: d.sha256,
    supersedes: [...d.supersedes],
  };
}

export const memorySlice: Slice<MemoryFields, MemoryEvents> = {
  initial: () => ({ memory: dict(), memory_index: dict() }),
  on: {
    'memory.remembered': (s, d, e) => {
      const byKey = (s.memory[d.mandate] ??= dict());
      const v = versionOf(d, e);
      (byKey[d.key] ??= []).push(v);
      // Filed under the key as the map holds it (a property name is its key's string).
      (s.memory_index[d.mandate] ??= new KeyIndex()).add(String(d.key), v);
    },
  },
  keys: (_s, e): FiledKey[] =>
    e.type === 'memory.remembered' ? [{ key: memoryKey((e.data as MemoryEvents['memory.remembered']).id), first: true }] : [],
  revive: (s) => {
    s.memory = toDict(s.memory, (byKey) => toDict(byKey));
    // A snapshot holds each index as its JSON form (KeyIndex.toJSON).
    const json = (s.memory_index ?? {}) as unknown as Record<string, KeyIndexJson>;
    s.memory_index = dict();
    for (const [mandate, j] of Object.entries(json)) {
      // An index from before it kept what each version added to its key's cover is made again from the versions.
      s.memory_index[mandate] = KeyIndex.fromJson(j) ?? KeyIndex.ofVersions(Object.values(s.memory[mandate] ?? {}).flat());
    }
  },
};
