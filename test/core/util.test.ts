import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { newId } from '../../src/core/kernel/ids.ts';
import { canonicalHash as inputHash, checkJsonLimits, dict, JSON_LIMITS, summarize, toDict } from '../../src/core/kernel/util.ts';

describe('canonicalHash', () => {
  test('is the SHA-256 of the RFC 8785 canonical JSON', () => {
    const expected = createHash('sha256').update('{"a":1,"b":[true,null,"x"],"c":{"d":0.5}}').digest('hex');
    assert.equal(inputHash({ c: { d: 0.5 }, b: [true, null, 'x'], a: 1 }), expected);
  });

  test('key order does not matter, at any depth', () => {
    const a = { file: 'holon://files/a.pdf', options: { pages: [1, 2], lang: 'fr' }, z: null };
    const b = { z: null, options: { lang: 'fr', pages: [1, 2] }, file: 'holon://files/a.pdf' };
    assert.equal(inputHash(a), inputHash(b));
    assert.equal(inputHash(1), inputHash(1.0));
  });

  test('any change of content changes the hash', () => {
    const base = inputHash({ file: 'holon://files/a.pdf', pages: [1, 2] });
    assert.notEqual(inputHash({ file: 'holon://files/b.pdf', pages: [1, 2] }), base);
    assert.notEqual(inputHash({ file: 'holon://files/a.pdf', pages: [2, 1] }), base, 'array order matters');
    assert.notEqual(inputHash({ file: 'holon://files/a.pdf', pages: [1, 2], extra: null }), base);
    assert.notEqual(inputHash({ file: 'holon://files/a.pdf', pages: ['1', 2] }), base);
    assert.match(base, /^[0-9a-f]{64}$/);
  });
});

describe('newId and summarize', () => {
  test('ids carry their prefix and do not repeat', () => {
    const ids = new Set(Array.from({ length: 500 }, () => newId('rcpt')));
    assert.equal(ids.size, 500);
    for (const id of ids) assert.match(id, /^rcpt_[A-Za-z0-9_-]{12}$/);
  });

  test('summaries are JSON, cut to the limit with the full length', () => {
    assert.equal(summarize({ a: 1 }), '{"a":1}');
    const long = summarize({ text: 'x'.repeat(1000) }, 50);
    assert.equal(long, `${JSON.stringify({ text: 'x'.repeat(1000) }).slice(0, 50)}… (1011 chars)`);
    assert.equal(summarize(undefined), 'undefined');
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    assert.equal(summarize(cyclic), '[object Object]');
  });
});

describe('checkJsonLimits', () => {
  const nested = (depth: number): unknown => {
    let v: unknown = 'leaf';
    for (let i = 0; i < depth; i++) v = i % 2 === 0 ? { a: v } : [v];
    return v;
  };
  const refusal = (value: unknown): HolonError => {
    try {
      checkJsonLimits(value, 'the input');
    } catch (err) {
      assert.ok(HolonError.is(err, 'invalid_input'), String(err));
      return err;
    }
    assert.fail('expected a refusal');
  };

  test('a value nested 3,000 levels deep is refused as invalid_input, without overflowing the stack', () => {
    assert.equal(refusal(nested(3000)).details['limit'], 'depth');
    // What the hash would have done with it: a stack overflow, not a clean refusal.
    assert.throws(() => inputHash(nested(200_000)), RangeError);
    assert.equal(refusal(nested(200_000)).details['limit'], 'depth');
  });

  test('up to the depth limit is fine; one more level is not', () => {
    checkJsonLimits(nested(JSON_LIMITS.depth - 1), 'the input');
    assert.equal(refusal(nested(JSON_LIMITS.depth + 1)).details['limit'], 'depth');
  });

  test('more bytes of JSON than the limit is refused, and says how many', () => {
    const big = { text: 'x'.repeat(JSON_LIMITS.bytes) };
    const err = refusal(big);
    assert.equal(err.details['limit'], 'bytes');
    assert.equal(err.details['bytes'], JSON.stringify(big).length);
    checkJsonLimits({ text: 'x'.repeat(JSON_LIMITS.bytes - 20) }, 'the input');
  });
});

describe('dict', () => {
  test('names on Object.prototype are plain keys, never inherited members', () => {
    const d = dict<number>();
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) assert.equal(d[name], undefined, name);
    d['__proto__'] = 1;
    assert.equal(d['__proto__'], 1);
    assert.deepEqual(Object.keys(d), ['__proto__']);
    const parsed = toDict(JSON.parse('{"__proto__": 2, "constructor": 3}') as Record<string, number>);
    assert.equal(parsed['__proto__'], 2);
    assert.equal(parsed['constructor'], 3);
    assert.equal(parsed['toString'], undefined);
  });
});
