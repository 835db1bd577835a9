/**
 * Every payment scheme Holon signs and reads on a chain, in one table the compiler checks: each entry is a
 * whole `Scheme` filed under its own name. Adding a scheme is its file in schemes/ and its line here; a
 * settlement names its scheme by that key, and everything that reads, settles or words a settlement asks
 * its scheme through `schemeOf`.
 */
import type { Scheme } from './scheme.ts';
import { exact } from './schemes/exact.ts';
import { upto } from './schemes/upto.ts';

/** The schemes, by name. */
export const SCHEMES = { exact, upto } satisfies Record<string, Scheme>;

/** A scheme's name. */
export type SchemeName = keyof typeof SCHEMES;

// Each filed under its own name: a scheme under another's key does not compile.
const _filedByName: { readonly [K in SchemeName]: { readonly name: K } } = SCHEMES;

/**
 * A scheme as a settlement record names it. `exact` is named by no name at all (the journal keeps `scheme`
 * only for the others, as it did before schemes had a table), so old journals fold as they always did.
 */
export type RecordedScheme = Exclude<SchemeName, 'exact'>;

/** The scheme of a settlement: the one its record names, else `exact` (a record names none, or one Holon does not know). */
export function schemeOf(r: { scheme?: string | undefined }): Scheme {
  return r.scheme !== undefined && Object.hasOwn(SCHEMES, r.scheme) ? SCHEMES[r.scheme as SchemeName] : SCHEMES.exact;
}

/** The record's `scheme` member for a payment of scheme `name`: none for `exact`. */
export function recordedScheme(name: SchemeName | undefined): { scheme?: RecordedScheme } {
  return name === undefined || name === 'exact' ? {} : { scheme: name };
}
