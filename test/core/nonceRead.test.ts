/**
 * The chain's read of whether a nonce is spent, started before the payment may be signed (while the ATR
 * that must hash to it is fetched): a read that fails decides the payment only where it is taken, and a
 * read never taken (the terms did not confirm, the call ended first) fails no one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChainReader } from '../../src/core/rails/chain.ts';
import { assertExactNonceUnspent, readNonceSpent } from '../../src/core/rails/signing.ts';
import { initialState } from '../../src/core/fold/state.ts';

const FROM = '0x1111111111111111111111111111111111111111';
const NONCE = `0x${'ab'.repeat(32)}`;

/** A chain whose every nonce read fails, counting them. */
function unreachable(): { reader: ChainReader; reads: () => number } {
  let reads = 0;
  const reader = {
    authorizationSpent: () => {
      reads += 1;
      return Promise.reject(new Error('the chain did not answer'));
    },
  } as unknown as ChainReader;
  return { reader, reads: () => reads };
}

/** A chain that has spent exactly the nonces given, each in a transaction it names. */
function spending(spent: string[]): ChainReader {
  return {
    authorizationSpent: async (_from: string, nonce: string) => spent.includes(nonce),
    spentIn: async (_from: string, nonce: string) => (spent.includes(nonce) ? `0x${'ee'.repeat(32)}` : undefined),
  } as unknown as ChainReader;
}

test('a read that fails and is never taken fails no one', async () => {
  const unhandled: unknown[] = [];
  const note = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', note);
  try {
    const chain = unreachable();
    void readNonceSpent(chain.reader, { authorization: { from: FROM, nonce: NONCE } });
    // A bad address is refused by the scheme itself, synchronously: still only a read that failed.
    void readNonceSpent(chain.reader, { authorization: { from: '0xnot-an-address' as `0x${string}`, nonce: NONCE } });
    assert.equal(chain.reads(), 1, 'the read was made at once');
    // Rejections nobody handles are reported once the queue of promise jobs is empty: after this turn of the loop.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', note);
  }
});

test('a read that fails, taken, refuses the payment with its error; one never started is made when the check runs', async () => {
  const chain = unreachable();
  const early = readNonceSpent(chain.reader, { authorization: { from: FROM, nonce: NONCE } });
  await assert.rejects(assertExactNonceUnspent(initialState(), chain.reader, { from: FROM, nonce: NONCE }, early), /the chain did not answer/);
  assert.equal(chain.reads(), 1, 'the early read was taken, not made again');
  await assert.rejects(assertExactNonceUnspent(initialState(), chain.reader, { from: FROM, nonce: NONCE }), /the chain did not answer/);
  assert.equal(chain.reads(), 2);
});

test('an early read decides as the check would: a spent nonce is refused terms_paid, an unspent one passes', async () => {
  const reader = spending([NONCE]);
  const other = `0x${'cd'.repeat(32)}`;
  const spent = readNonceSpent(reader, { authorization: { from: FROM, nonce: NONCE } });
  await assert.rejects(assertExactNonceUnspent(initialState(), reader, { from: FROM, nonce: NONCE }, spent), (err: { denials?: { code: string }[] }) => {
    assert.deepEqual(err.denials, [{ code: 'terms_paid', params: { transaction: `0x${'ee'.repeat(32)}` } }]);
    return true;
  });
  await assertExactNonceUnspent(initialState(), reader, { from: FROM, nonce: other }, readNonceSpent(reader, { authorization: { from: FROM, nonce: other } }));
});
