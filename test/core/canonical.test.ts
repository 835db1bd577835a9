/**
 * The journal's own canonical form and lines: every event is hashed as json-canonicalize writes it (RFC
 * 8785), and its line is JSON.stringify of the event. The store writes both itself, faster; these
 * tests hold it to the library and to JSON.stringify on every kind of value, so no hash a journal
 * already holds can change.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { canonicalize } from 'json-canonicalize';
import type { JournalEvent } from '../../src/core/store/store.ts';
import { asStored, canonicalJson, eventHash, eventLine, linkEvents, seal } from '../../src/core/store/store.ts';

/** A reproducible source of randomness (the bench's generator): the same values on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
}

// Keys whose order differs between RFC 8785 (UTF-16 code units) and a JS object's own order (integer-like
// keys first, ascending), keys that are special to objects, and strings JSON escapes.
const KEYS = ['a', 'b', 'B', '10', '9', '0', '-1', '1.5', '__proto__', 'toString', '', 'é', 'e\u0301', '\u{1F600}', '\uFFFF', 'a\u0000b', '"q"', '\\', 'z'];
const STRINGS = ['', 'plain', 'line\nbreak', 'tab\t', 'quote"', 'back\\slash', '\u0007bell', '\u2028\u2029', '\uD800', '\uDC00x', '\u{1F600}', 'ünï', '</script>'];
const NUMBERS = [0, -0, 1, -1, 0.1, 0.1 + 0.2, 1e21, 1e-7, 123456789012345680000, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE, 5e-324, -1.5e300, 333333333.3333333];

function value(rand: () => number, depth: number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const r = rand();
  if (depth <= 0 || r < 0.35) {
    const k = Math.floor(rand() * 5);
    return k === 0 ? null : k === 1 ? rand() < 0.5 : k === 2 ? pick(NUMBERS) : k === 3 ? pick(STRINGS) : Math.floor(rand() * 1e6) / 100;
  }
  if (r < 0.6) return Array.from({ length: Math.floor(rand() * 5) }, () => value(rand, depth - 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(rand() * 6); i > 0; i--) Object.defineProperty(o, pick(KEYS), { value: value(rand, depth - 1), enumerable: true, configurable: true, writable: true });
  return o;
}

test('canonicalJson writes what json-canonicalize writes, on JSON values of every shape', () => {
  const rand = random(7);
  for (let i = 0; i < 3000; i++) {
    const v = value(rand, 5);
    assert.equal(canonicalJson(v), canonicalize(v), JSON.stringify(v));
    // What a journal line gives back is what is hashed.
    const read = JSON.parse(JSON.stringify(v)) as unknown;
    assert.equal(canonicalJson(read), canonicalize(read));
  }
});

test('canonicalJson follows the library where JSON has no plain answer', () => {
  const sparse: unknown[] = [1];
  sparse[3] = 2;
  const cases: unknown[] = [
    { b: undefined, a: 1 },
    [undefined, 1],
    sparse,
    { toJSON: 5, b: 1, a: 2 },
    { when: new Date(0), z: { y: 1, x: 2 } },
    { f: () => 1 },
    [() => 1],
    undefined,
    'just a string',
    Object.assign(Object.create(null) as object, { b: 1, a: 2 }),
  ];
  for (const v of cases) assert.equal(canonicalJson(v), canonicalize(v), String(JSON.stringify(v)));
  for (const bad of [Number.NaN, Infinity, { a: -Infinity }]) {
    assert.throws(() => canonicalJson(bad));
    assert.throws(() => canonicalize(bad));
  }
  assert.throws(() => canonicalJson({ a: 1n }), TypeError);
});

test("an event's hash is the SHA-256 of the library's canonical form, and its line is JSON.stringify of it", () => {
  const rand = random(11);
  const signer = { publicKey: 'cHVibGlj', sign: (m: string) => Buffer.from(m).toString('base64') };
  let after = { seq: 41, hash: 'f'.repeat(64) };
  for (let i = 0; i < 300; i++) {
    const events = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({ type: `t.${i}`, data: value(rand, 4) }));
    const linked = linkEvents(events, after, new Date(1_700_000_000_000 + i).toISOString());
    if (rand() < 0.5) seal(linked.map((x) => x.e), signer);
    for (const [k, x] of linked.entries()) {
      const { e } = x;
      const stored = asStored(events[k]?.data);
      assert.deepEqual(e.data, stored);
      const envelope = { seq: e.seq, time: e.time, type: e.type, data: e.data, prev: e.prev };
      assert.equal(e.hash, createHash('sha256').update(canonicalize(envelope)).digest('hex'));
      assert.equal(eventHash(e), e.hash);
      assert.equal(eventLine(x), JSON.stringify(e));
      assert.deepEqual(JSON.parse(eventLine(x)) as JournalEvent, e);
    }
    const last = linked.at(-1)?.e as JournalEvent;
    after = { seq: last.seq, hash: last.hash };
  }
});
