/**
 * A plain x402 payment, built by x402's own client (`@x402/core`, `@x402/evm`) and signed through Holon's
 * gate: the wallet signs only the offer Holon chose. The signatures are real and checked with viem; what the
 * client might ask beyond that offer (another chain, token, payee, amount, kind of signature) is refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import {
  declarePaymentIdentifierExtension,
  extractPaymentIdentifier,
  isValidPaymentId,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier';
import { authorizationTypes } from '@x402/evm';
import type { Address, Hex } from 'viem';
import { getAddress, verifyTypedData } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { ChainReader } from '../../src/core/rails/chain.ts';
import { chainConfig } from '../../src/core/rails/chain.ts';
import type { TypedRequest } from '../../src/core/local/wallet.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import { assertSignable, cheapest, payableOffers, signPlain, UnsignableRequest } from '../../src/server/x402/plain.ts';

const TOKEN: Address = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const NETWORK = 'eip155:31337';
const PAY_TO = privateKeyToAccount(generatePrivateKey()).address;
const wallet = walletFromKey(generatePrivateKey());
// Only the configuration is read to sign an `exact` payment: nothing here goes to a node.
const chain = { config: chainConfig({ rpcUrl: 'http://127.0.0.1:1', chainId: 31337, token: TOKEN, facilitator: null }) } as ChainReader;

const option = (over: Partial<PaymentRequirements> = {}): PaymentRequirements => ({
  scheme: 'exact',
  network: NETWORK,
  asset: TOKEN,
  amount: '1000',
  payTo: PAY_TO,
  maxTimeoutSeconds: 60,
  extra: { name: 'USD Coin', version: '2' },
  ...over,
});
const required = (accepts: PaymentRequirements[], extensions?: Record<string, unknown>): PaymentRequired => ({
  x402Version: 2,
  resource: { url: 'http://127.0.0.1/weather', description: 'weather', mimeType: 'application/json' },
  accepts,
  ...(extensions ? { extensions } : {}),
});
type Auth = { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex };
const authOf = (p: PaymentPayload): Auth => (p.payload as { authorization: Auth }).authorization;
const signatureOf = (p: PaymentPayload): Hex => (p.payload as { signature: Hex }).signature;

describe('a plain exact payment through the gate', () => {
  test('x402 client builds it, the wallet signs it: a real EIP-3009 signature of exactly the offer, a fresh random nonce each time', async () => {
    const o = option();
    const [a, b] = [await signPlain({ wallet, chain }, required([o]), o), await signPlain({ wallet, chain }, required([o]), o)];
    for (const p of [a, b]) {
      const auth = authOf(p);
      assert.deepEqual([auth.from, auth.to, auth.value], [wallet.address, getAddress(PAY_TO), '1000']);
      assert.deepEqual(p.accepted, o);
      const valid = await verifyTypedData({
        address: wallet.address,
        domain: { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: TOKEN },
        // The types as x402's own EVM package names them: an outside judge of what was signed.
        types: authorizationTypes,
        primaryType: 'TransferWithAuthorization',
        message: { ...auth, value: BigInt(auth.value), validAfter: BigInt(auth.validAfter), validBefore: BigInt(auth.validBefore) },
        signature: signatureOf(p),
      });
      assert.equal(valid, true, 'the wallet signed the authorization the payload carries');
    }
    assert.notEqual(authOf(a).nonce, authOf(b).nonce, 'each payment its own nonce');
  });

  test("a seller that takes x402's payment-identifier gets a valid one, fresh per payment; its document is left as it was", async () => {
    const o = option();
    const document = required([o], { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension() });
    const copy = structuredClone(document);
    const [a, b] = [await signPlain({ wallet, chain }, document, o), await signPlain({ wallet, chain }, document, o)];
    const ids = [extractPaymentIdentifier(a), extractPaymentIdentifier(b)];
    assert.ok(
      ids.every((id) => id !== null && isValidPaymentId(id)),
      JSON.stringify(ids),
    );
    assert.notEqual(ids[0], ids[1]);
    assert.deepEqual(document, copy);
    assert.equal(extractPaymentIdentifier(await signPlain({ wallet, chain }, required([o]), o)), null, 'none where the seller takes none');
  });

  test('the gate refuses whatever is not the chosen offer: chain, token, payer, payee, amount, kind of signature', () => {
    const o = option();
    const request = (over: Partial<TypedRequest> & { message?: Record<string, string> } = {}): TypedRequest => ({
      domain: { name: 'USD Coin', version: '2', chainId: '31337', verifyingContract: TOKEN },
      types: {},
      primaryType: 'TransferWithAuthorization',
      message: { from: wallet.address, to: PAY_TO, value: '1000', validAfter: '0', validBefore: '9', nonce: '0x00', ...over.message },
      ...(over.domain ? { domain: over.domain } : {}),
      ...(over.primaryType ? { primaryType: over.primaryType } : {}),
    });
    assert.doesNotThrow(() => assertSignable(request(), o, wallet.address, 31337));
    const other = privateKeyToAccount(generatePrivateKey()).address;
    const refused: [string, TypedRequest][] = [
      ['another chain', request({ domain: { name: 'USD Coin', version: '2', chainId: '8453', verifyingContract: TOKEN } })],
      ['another token', request({ domain: { name: 'USD Coin', version: '2', chainId: '31337', verifyingContract: other } })],
      ['another payer', request({ message: { from: other } })],
      ['another payee', request({ message: { to: other } })],
      ['another amount', request({ message: { value: '1001' } })],
      ['a permit', request({ primaryType: 'Permit' })],
      ['an order', request({ primaryType: 'Order' })],
    ];
    for (const [what, r] of refused) assert.throws(() => assertSignable(r, o, wallet.address, 31337), UnsignableRequest, what);
  });
});

describe('which offers are paid plainly', () => {
  test('exact by EIP-3009 and upto on an EVM chain, in whole units; the cheapest on the configured chain, exact on a tie', () => {
    const offers = [
      option({ amount: '3000' }),
      option({ scheme: 'upto', amount: '2000' }),
      option({ amount: '500', extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'permit2' } }),
      option({ network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' }),
      option({ amount: '1.5' }),
      option({ scheme: 'deferred', amount: '1' }),
      option({ network: 'eip155:8453', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', amount: '10' }),
    ];
    const payable = payableOffers(offers);
    assert.deepEqual(
      payable.map((o) => [o.scheme, o.network, o.amount]),
      [
        ['exact', NETWORK, '3000'],
        ['upto', NETWORK, '2000'],
        ['exact', 'eip155:8453', '10'],
      ],
    );
    assert.equal(cheapest(payable, chain)?.amount, '2000', 'the Base offer is cheaper, and on another chain');
    assert.equal(cheapest([option({ scheme: 'upto' }), option()], chain)?.scheme, 'exact');
  });
});
