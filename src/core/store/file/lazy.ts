/**
 * Opening a state from its snapshot: the header is checked, and each slice's section is read the first
 * time the slice is used, checked against the SHA-256 the header signed. A section that is missing (a
 * slice the snapshot's build did not have), of a shape its slice cannot migrate, or not what the header
 * signed (altered on disk, even after this process opened it) is never used: the slice's fields are
 * folded from the journal up to the snapshot's position instead, so no wrong value is ever returned.
 */
import type { Reducer, SectionCodec, SectionSource, Signer } from '../store.ts';
import { foldRange, foldTx } from './foldRange.ts';
import { migrateMonolithic } from './migrate.ts';
import type { IndexCover, Position, SnapshotFile } from './snapshot.ts';
import { MONOLITHIC_VERSION, openSnapshot } from './snapshot.ts';

/** A state opened from its snapshot: the state (sections loaded as used), where it was taken, the index it covers. */
export interface OpenedState<S> {
  state: S;
  snap: SnapshotFile;
  pos: Position;
  index: IndexCover | null;
  /** The sections this state has read (or folded) so far. */
  loaded: Set<string>;
}

/** How a reducer's state is written as sections; one without slices is one section holding all of it. */
export function codecOf<S>(reducer: Reducer<S>): SectionCodec<S> {
  return (
    reducer.sections ?? {
      list: [{ name: 'state', version: 1, fields: [], migrates: false }],
      write: (state) => reducer.serialize(state),
      lazy: (source) => reducer.deserialize(source('state').text),
    }
  );
}

/** What opening needs besides the folder: the reducer, the key that seals the journal, and a way to warn. */
export interface OpenStateOptions<S> {
  reducer: Reducer<S>;
  key: string;
  /** Signs the migration of an older snapshot; without it an older snapshot is not used. */
  signer?: Signer;
  warn(message: string): void;
}

/**
 * The state of the snapshot beside `journalFile`, its sections read as they are used, or undefined (and
 * a warning, unless there is none) when it cannot be used. A snapshot in the monolithic format this
 * installation signed is migrated first.
 */
export function openState<S>(dir: string, journalFile: string, o: OpenStateOptions<S>): OpenedState<S> | undefined {
  let read = openSnapshot(dir, journalFile);
  if (!read.ok && read.stale && read.version === MONOLITHIC_VERSION && o.signer) {
    const failed = migrateMonolithic(dir, codecOf(o.reducer).list, o.signer);
    read = failed ? { ok: false, problem: `it is of an older format, and ${failed}` } : openSnapshot(dir, journalFile);
  }
  if (!read.ok) {
    if (read.problem !== 'there is none') o.warn(`journal: the snapshot is not used (${read.problem}); folding from the start`);
    return undefined;
  }
  const snap = read.snap;
  const h = snap.header;
  const pos: Position = { offset: h.offset, seq: h.seq, hash: h.hash, legacy: h.legacy === true };
  const codec = codecOf(o.reducer);
  const loaded = new Set<string>();
  let folded: S | undefined;
  const source: SectionSource = (name) => {
    loaded.add(name);
    const want = codec.list.find((s) => s.name === name);
    const got = snap.section(name);
    if (got && want && (got.version === want.version || want.migrates)) return got;
    if (snap.place(name)) o.warn(`journal: the snapshot's section "${name}" is not what its header signed; folding it from the journal`);
    folded ??= foldTo(journalFile, o.reducer, pos, o.key);
    return { text: codec.write(folded, name), version: want?.version ?? 1 };
  };
  return { state: codec.lazy(source), snap, pos, index: h.index, loaded };
}

/** The journal folded from its start to `to`, every transaction checked as a snapshot job checks it. */
function foldTo<S>(journalFile: string, reducer: Reducer<S>, to: Position, key: string): S {
  const state = reducer.initial();
  foldRange(journalFile, { offset: 0, seq: 0, hash: '', legacy: true }, { ...to }, key, (tx) => foldTx(reducer, state, tx));
  return state;
}
