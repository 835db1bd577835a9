import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';
import { HolonError } from './errors.ts';

/**
 * A map with no prototype: a key an agent chose ("constructor", "__proto__", "toString") is just a key,
 * never an inherited member. Every map the state keeps by id is one of these.
 */
export type Dict<T> = Record<string, T>;

/** A new empty map without a prototype. */
export function dict<T>(): Dict<T> {
  return Object.create(null) as Dict<T>;
}

/** Adds `by` to the total kept under `key` (a currency, a day), starting from 0. */
export function bump(rec: Dict<bigint>, key: string, by: bigint): void {
  rec[key] = (rec[key] ?? 0n) + by;
}

/** The entries of `o` (JSON.parse's plain object, say) copied into a map without a prototype. */
export function toDict<T>(o: Record<string, T> | null | undefined, each?: (v: T) => T): Dict<T> {
  const d = dict<T>();
  if (!o) return d;
  for (const k of Object.keys(o)) d[k] = each ? each(o[k] as T) : (o[k] as T);
  return d;
}

/** The object without its undefined fields, so spreading a partial change never blanks a field. */
export function defined<T extends object>(o: T | undefined): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/**
 * Binary search over a sorted sequence of `length` items: the first index whose item is not `before` the
 * one sought (`length` when every item is). What every sorted index of the state seeks with.
 */
export function firstNotBefore(length: number, before: (i: number) => boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** SHA-256 (hex) of a value's RFC 8785 canonical JSON: what approvals and bindings are made of. */
export function canonicalHash(value: unknown): string {
  return createHash('sha256').update(canonicalize(value)).digest('hex');
}

/** How deep and how large a JSON value an agent may send; anything larger is refused before it is hashed or kept. */
export const JSON_LIMITS = { depth: 64, bytes: 1024 * 1024 } as const;

/**
 * Refuses a value nested deeper than `depth` or larger than `bytes` of JSON, as invalid_input. The walk
 * keeps its own stack, so a hostile nesting cannot overflow the process's.
 */
export function checkJsonLimits(value: unknown, what: string, limits: { depth: number; bytes: number } = JSON_LIMITS): void {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (d > limits.depth)
      throw new HolonError('invalid_input', `${what} is nested deeper than ${limits.depth} levels`, { limit: 'depth', max: limits.depth });
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  const size = Buffer.byteLength(JSON.stringify(value) ?? '');
  if (size > limits.bytes)
    throw new HolonError('invalid_input', `${what} is ${size} bytes of JSON; at most ${limits.bytes} are accepted`, {
      limit: 'bytes',
      max: limits.bytes,
      bytes: size,
    });
}

/** A short, safe description of a value for the ledger: its JSON, cut short. */
export function summarize(value: unknown, limit = 160): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'undefined';
  } catch {
    text = String(value);
  }
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length} chars)`;
}

/** How much of an input a human is shown beside an approval; the hash covers all of it. */
export const PREVIEW_LIMIT = 4000;

/** A value as pretty-printed JSON for a human, cut to `limit` characters with a note saying so. */
export function previewJson(value: unknown, limit = PREVIEW_LIMIT): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    text = String(value);
  }
  if (text.length <= limit) return text;
  // Never end on half a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(limit - 1)) ? limit - 1 : limit;
  return `${text.slice(0, end)}\n… cut: the first ${end} of ${text.length} characters.`;
}
