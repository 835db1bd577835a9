/**
 * The folded state is made of slices, one per module (mandates, rates, spends, approvals, catalog,
 * receipts): each owns its fields, its events and how they fold. `combineSlices` joins them into the one
 * reducer every process folds the journal with.
 */
import type { FiledKey, JournalEvent, NewEvent, Reducer, Section, SectionSource } from './store.ts';

/** How one module folds its events into its own fields of the state. */
export interface Slice<F extends object, E extends object> {
  /** The slice's fields in an empty state. */
  initial(): F;
  /** Event type → how it changes this slice's fields. A slice may also react to another module's event. */
  on: { [K in keyof E]?: (state: F, data: E[K], event: JournalEvent) => void } & Record<
    string,
    ((state: F, data: never, event: JournalEvent) => void) | undefined
  >;
  /** Turns the fields as a snapshot's JSON.parse gave them back into live values (bigints, maps without a prototype). */
  revive(fields: F): void;
  /** The keys an event is filed under, to be read back on demand (see Reducer.keys). */
  keys?(state: F, event: JournalEvent): FiledKey[];
  /** The name of the slice's section in a snapshot (default: its first field's name). */
  name?: string;
  /** The shape of the slice's section (default 1): raised when its fields change, with `migrate`. */
  version?: number;
  /** Turns a section written at an older `version` into today's fields (as JSON.parse gives them). */
  migrate?(fields: unknown, from: number): F;
}

/** A typed event constructor for one module's events. */
export function eventsOf<E extends object>(): <K extends keyof E & string>(type: K, data: E[K]) => NewEvent & { type: K; data: E[K] } {
  return (type, data) => ({ type, data });
}

// Slices are stored with their field and event types erased; each is only ever called with its own events.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySlice = Slice<any, any>;

/**
 * One reducer from many slices. Unknown event types are skipped, so an older build can read a newer
 * journal. Bigints are written as decimal strings in a snapshot and revived by each slice.
 */
export function combineSlices<S extends object>(slices: AnySlice[]): Reducer<S> {
  const handlers = new Map<string, ((state: S, data: unknown, event: JournalEvent) => void)[]>();
  for (const slice of slices) {
    for (const [type, fn] of Object.entries(slice.on)) {
      if (!fn) continue;
      const list = handlers.get(type) ?? [];
      list.push(fn as (state: S, data: unknown, event: JournalEvent) => void);
      handlers.set(type, list);
    }
  }
  const sections = sectionsOf(slices);
  const keyed = slices.flatMap((sl) => (sl.keys ? [sl.keys.bind(sl) as (state: S, event: JournalEvent) => FiledKey[]] : []));
  return {
    keys: (state, event) => (keyed.length === 1 ? keyed[0]!(state, event) : keyed.flatMap((k) => k(state, event))),
    initial: () => Object.assign({}, ...slices.map((sl) => sl.initial())) as S,
    apply: (state, event) => {
      const list = handlers.get(event.type);
      if (list) for (const fn of list) fn(state, event.data, event);
    },
    serialize: (state) => JSON.stringify(state, bigintText),
    deserialize: (text) => {
      const parsed = JSON.parse(text) as S;
      const state = Object.assign({}, ...slices.map((sl) => sl.initial()), parsed) as S;
      for (const sl of slices) sl.revive(state);
      return state;
    },
    sections: {
      list: sections.map((x) => x.section),
      write: (state, name) => {
        const fields = sections.find((x) => x.section.name === name)?.section.fields ?? [];
        const own: Record<string, unknown> = {};
        for (const f of fields) own[f] = (state as Record<string, unknown>)[f];
        return JSON.stringify(own, bigintText);
      },
      lazy: (source) => lazyState<S>(sections, source),
    },
  };
}

const bigintText = (_k: string, v: unknown): unknown => (typeof v === 'bigint' ? v.toString() : v);

interface SliceSection {
  slice: AnySlice;
  section: Section;
}

/** Each slice's section: its name, version and fields (a field two slices declare belongs to the first). */
function sectionsOf(slices: AnySlice[]): SliceSection[] {
  const seen = new Set<string>();
  return slices.map((slice) => {
    const fields = Object.keys(slice.initial() as object).filter((f) => !seen.has(f));
    for (const f of fields) seen.add(f);
    const name = slice.name ?? fields[0] ?? '';
    return { slice, section: { name, version: slice.version ?? 1, fields, migrates: slice.migrate !== undefined } };
  });
}

/**
 * A state whose slices are read from `source` on first use: each field is an accessor that, read or
 * written, loads its slice's section, revives it, and puts plain values in place of the slice's
 * accessors. A slice never touched is never read.
 */
function lazyState<S extends object>(sections: SliceSection[], source: SectionSource): S {
  const state = {} as Record<string, unknown>;
  for (const { slice, section } of sections) {
    let loaded = false;
    const load = (): void => {
      if (loaded) return;
      loaded = true;
      const got = source(section.name);
      const parsed = JSON.parse(got.text) as unknown;
      const own = got.version === section.version ? parsed : slice.migrate!(parsed, got.version);
      const fields = Object.assign(slice.initial() as object, own) as Record<string, unknown>;
      slice.revive(fields);
      for (const f of section.fields)
        Object.defineProperty(state, f, { value: fields[f], writable: true, enumerable: true, configurable: true });
    };
    for (const f of section.fields) {
      Object.defineProperty(state, f, {
        get: () => {
          load();
          return state[f];
        },
        set: (v: unknown) => {
          load();
          state[f] = v;
        },
        enumerable: true,
        configurable: true,
      });
    }
  }
  return state as S;
}

/** A bigint from a snapshot's decimal string (or a number), 0 for anything else. */
export function big(v: unknown): bigint {
  return BigInt(typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' ? v : 0);
}
