/**
 * The pairing x402/exact/eip155 against the local seller, which settles payments on the local chain:
 * confirm H, sign with a real key, finish, pay, check; and every lie a seller can tell about its ATR
 * refused with nothing signed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { atrBytes } from '../../src/core/terms/atr.ts';
import { publicFetch } from '../../src/server/net/publicFetch.ts';
import type { SignRequest } from '../../src/server/terms/x402Exact.ts';
import { check, confirm, finish, paidByWallet, readH } from '../../src/server/terms/x402Exact.ts';
import type { Seller, Variant } from '../../examples/sellers/x402Seller.ts';
import { startSeller, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { localChain } from '../../examples/chain/chain.ts';

const sellers: Seller[] = [];
after(async () => {
  for (const s of sellers) await s.close();
});
const seller = async (variant: Variant = 'honest'): Promise<Seller> => {
  const s = await startSeller(variant);
  sellers.push(s);
  return s;
};

const wallet = privateKeyToAccount(generatePrivateKey());
const account = `${TEST_NETWORK}:${wallet.address}`;
// The seller's facilitator settles on the local chain: the payer holds the token there.
before(async () => (await localChain()).fund(wallet.address, { usdc: 1_000_000n }));
// The sellers listen on loopback: reaching them takes the human's explicit setting.
const deps = { fetch: publicFetch({ allowPrivate: true, maxBytes: 64 * 1024 }), now: () => Date.now() };

/** What a wallet does with the request atr_confirm returned: sign exactly it. */
const sign = (r: SignRequest): Promise<`0x${string}`> =>
  wallet.signTypedData({
    domain: { ...r.domain, chainId: Number(r.domain.chainId) },
    types: r.types,
    primaryType: r.primaryType,
    message: { ...r.message, value: BigInt(r.message.value), validAfter: BigInt(r.message.validAfter), validBefore: BigInt(r.message.validBefore), nonce: r.message.nonce as `0x${string}` },
  });

const declined = (code: string) => (err: unknown) => HolonError.is(err) && err.denials[0]?.code === code;

describe('x402/exact/eip155', () => {
  test('confirmed, signed, finished: the seller\'s facilitator settles it and the seller serves; the payment carries H', async () => {
    const s = await seller();
    const c = await confirm(deps, s.document, account);
    assert.equal(c.atrHash, s.hash);
    assert.deepEqual(c.atr, { base64: s.atr.toString('base64'), utf8: s.atr.toString('utf8') });
    assert.equal(c.request.message.nonce, s.hash, 'the nonce the wallet signs is H');
    assert.equal(c.request.message.value, '250000');
    const signature = await sign(c.request);
    const f = await finish(atrBytes(c.atr.base64), c.chosen, signature);
    assert.equal(f.atrHash, s.hash);
    const res = await fetch(`${s.url}/resource`, { headers: { 'payment-signature': encodePaymentSignatureHeader(f.signed) } });
    assert.equal(res.status, 200, s.refused.join());
    assert.ok(res.headers.get('payment-response'));
    assert.equal(s.accepted.length, 1);
    assert.deepEqual(check(atrBytes(c.atr.base64), f.signed), { atrHash: s.hash });
  });

  test("the wallet's own payment (atr_transact's) is exactly the one finish builds from the same signature", async () => {
    const s = await seller();
    const c = await confirm(deps, s.document, account);
    const asked: SignRequest[] = [];
    const own = await paidByWallet(c.chosen, c.atrHash, (r) => {
      asked.push(r);
      return sign(r);
    });
    assert.deepEqual(asked, [c.request], 'the wallet signs the request atr_confirm returns');
    const f = await finish(atrBytes(c.atr.base64), c.chosen, await sign(c.request));
    assert.deepEqual(own, f.signed);
    assert.equal(readH(own), s.hash);
  });

  test('a signature over other terms, another payee or amount, or by another key never finishes', async () => {
    const s = await seller();
    const c = await confirm(deps, s.document, account);
    const otherTerms = await sign({ ...c.request, message: { ...c.request.message, nonce: `0x${'00'.repeat(32)}` } });
    await assert.rejects(finish(atrBytes(c.atr.base64), c.chosen, otherTerms), declined('signature_invalid'));
    const moreMoney = await sign({ ...c.request, message: { ...c.request.message, value: '1' } });
    await assert.rejects(finish(atrBytes(c.atr.base64), c.chosen, moreMoney), declined('signature_invalid'));
    const stranger = privateKeyToAccount(generatePrivateKey());
    const r = c.request;
    const byStranger = await stranger.signTypedData({ domain: { ...r.domain, chainId: Number(r.domain.chainId) }, types: r.types, primaryType: r.primaryType, message: { ...r.message, value: BigInt(r.message.value), validAfter: 0n, validBefore: BigInt(r.message.validBefore), nonce: r.message.nonce as `0x${string}` } });
    await assert.rejects(finish(atrBytes(c.atr.base64), c.chosen, byStranger), declined('signature_invalid'));
    // Other ATR bytes than the confirmed ones: the payment is rebuilt with their H, so the signature fails.
    const good = await sign(c.request);
    await assert.rejects(finish(new TextEncoder().encode('other terms'), c.chosen, good), declined('signature_invalid'));
    await assert.rejects(finish(atrBytes(c.atr.base64), { ...c.chosen, option: { ...c.chosen.option, payTo: '0x000000000000000000000000000000000000dEaD' } }, good), declined('signature_invalid'));
    assert.equal(s.accepted.length, 0);
  });

  test('every lie about the ATR is declined before anything is signed', async () => {
    const wrong = await seller('wrong-bytes');
    await assert.rejects(confirm(deps, wrong.document, account), declined('hash_mismatch'));
    const redirect = await seller('redirect');
    await assert.rejects(confirm(deps, redirect.document, account), declined('atr_unfetchable'));
    const endless = await seller('endless');
    await assert.rejects(confirm(deps, endless.document, account), declined('atr_unfetchable'));
    const honest = await seller();
    await assert.rejects(confirm({ ...deps, fetch: publicFetch() }, honest.document, account), declined('atr_unfetchable'), 'a seller on a private address, without the setting');
    const { extensions: _e, ...bare } = honest.document;
    await assert.rejects(confirm(deps, bare, account), declined('atr_not_advertised'));
    await assert.rejects(confirm(deps, { ...honest.document, accepts: [{ ...honest.document.accepts[0], scheme: 'upto' }] }, account), declined('offer_unreadable'));
    await assert.rejects(confirm(deps, { nonsense: true }, account), declined('offer_unreadable'));
    await assert.rejects(confirm(deps, honest.document, 'eip155:1:0x0000000000000000000000000000000000000001'), declined('offer_unreadable'), 'no option on the payer\'s chain');
  });

  test('an ATR that changes after the first fetch: what was confirmed is what is signed', async () => {
    const s = await seller('changing');
    const c = await confirm(deps, s.document, account);
    assert.equal(c.atrHash, s.hash);
    const f = await finish(atrBytes(c.atr.base64), c.chosen, await sign(c.request));
    assert.equal(f.atrHash, s.hash);
    // A second confirmation sees the new bytes, which do not hash to the H the seller advertises.
    await assert.rejects(confirm(deps, s.document, account), declined('hash_mismatch'));
  });

  test('check: a payment that carries no H is not bound; one for other bytes does not match', async () => {
    const s = await seller();
    const c = await confirm(deps, s.document, account);
    const f = await finish(atrBytes(c.atr.base64), c.chosen, await sign(c.request));
    assert.throws(() => check(atrBytes(c.atr.base64), { payload: {} }), declined('signed_not_bound'));
    assert.throws(() => check(new TextEncoder().encode('x'), f.signed), declined('hash_mismatch'));
  });
});
