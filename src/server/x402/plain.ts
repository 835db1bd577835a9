/**
 * A plain x402 payment: an offer that advertises no terms, paid as every x402 buyer pays it, with x402's
 * own client (`@x402/core`'s `x402Client` and `@x402/evm`'s `exact` and `upto` schemes, which build the
 * payment and choose its nonce: a fresh random one, so the same seller can be paid again and again).
 *
 * What the client is given to sign with is Holon's gated signer: it signs only the typed data of the one
 * offer Holon chose and checked (the configured chain, a token Holon knows, the declared payee, no more than
 * the call holds), and refuses anything else the client might ask, so the official code builds the wire and
 * Holon keeps the decision.
 */
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import type { ClientEvmSigner } from '@x402/evm';
import { appendPaymentIdentifierToExtensions, generatePaymentId, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { getAddress, isAddress } from 'viem';
import type { ChainReader } from '../../core/rails/chain.ts';
import { knownAsset } from '../../core/rails/assets.ts';
import { PERMIT2, UPTO_PROXY } from '../../core/rails/schemes/upto.ts';
import type { TypedRequest, TypedValue, Wallet } from '../../core/local/wallet.ts';

/** An offer as x402's `accepts` lists it, read only as far as choosing among them needs. */
export interface Offered {
  scheme: string;
  network: string;
  asset: string;
}

/** Each offer of `accepts` by its scheme, network and asset, as a refusal names them (what does not read, skipped). */
export function offered(accepts: unknown[]): Offered[] {
  const out: Offered[] = [];
  for (const a of accepts.slice(0, 32)) {
    const o = a as Partial<Record<keyof Offered, unknown>>;
    if (typeof o?.scheme === 'string' && typeof o.network === 'string' && typeof o.asset === 'string')
      out.push({ scheme: o.scheme.slice(0, 40), network: o.network.slice(0, 60), asset: o.asset.slice(0, 80) });
  }
  return out;
}

/**
 * The offers of `accepts` Holon can pay plainly: `exact` by EIP-3009 (the transfer the token's own nonce
 * tracks, which Holon reads back) or `upto` by Permit2 through x402's proxy, on an EVM chain, with a token and
 * a payee that are addresses and an amount in whole units.
 */
export function payableOffers(accepts: unknown[]): PaymentRequirements[] {
  return accepts.filter((a): a is PaymentRequirements => {
    const o = a as Partial<PaymentRequirements>;
    if (typeof o?.network !== 'string' || !/^eip155:[0-9]{1,12}$/.test(o.network)) return false;
    if (typeof o.asset !== 'string' || !isAddress(o.asset) || typeof o.payTo !== 'string' || !isAddress(o.payTo)) return false;
    if (typeof o.amount !== 'string' || !/^[0-9]{1,78}$/.test(o.amount)) return false;
    if (typeof o.maxTimeoutSeconds !== 'number' || !Number.isInteger(o.maxTimeoutSeconds) || o.maxTimeoutSeconds < 1) return false;
    const method = (o.extra as Record<string, unknown> | undefined)?.['assetTransferMethod'];
    if (o.scheme === 'exact') return method === undefined || method === 'eip3009';
    return o.scheme === 'upto';
  });
}

/** The offer that costs least, of those on the configured chain in a token Holon knows (`exact` on a tie). */
export function cheapest(options: PaymentRequirements[], chain: ChainReader): PaymentRequirements | undefined {
  let best: PaymentRequirements | undefined;
  for (const o of options) {
    if (o.network !== chain.config.network || getAddress(o.asset) !== getAddress(chain.config.token)) continue;
    if (!knownAsset(o.network, o.asset)) continue;
    const [a, b] = [BigInt(o.amount), best ? BigInt(best.amount) : 0n];
    // A fixed price no higher than a worst case is never worse, and is known before anything is signed.
    if (!best || a < b || (a === b && o.scheme === 'exact' && best.scheme !== 'exact')) best = o;
  }
  return best;
}

/** Why the gated signer refused what the client asked it to sign. */
export class UnsignableRequest extends Error {}

const same = (a: unknown, b: string): boolean => typeof a === 'string' && isAddress(a) && getAddress(a) === getAddress(b);

/**
 * Throws unless `r` is what paying `option` from `from` signs: the token's EIP-3009 transfer of exactly its
 * amount to its payee (`exact`); Permit2's witness transfer of at most its amount to its payee through x402's
 * upto proxy (`upto`); or, for an `upto` payment, the token's EIP-2612 permit letting Permit2 move it.
 */
export function assertSignable(r: TypedRequest, option: PaymentRequirements, from: string, chainId: number): void {
  const domain = r.domain as Record<string, unknown>;
  const m = r.message as Record<string, unknown>;
  const refuse = (why: string): never => {
    throw new UnsignableRequest(`the x402 client asked the wallet to sign ${why}; Holon signs only the offer it chose`);
  };
  if (Number(domain['chainId']) !== chainId) refuse(`for chain ${String(domain['chainId'])}`);
  if (r.primaryType === 'TransferWithAuthorization' && option.scheme === 'exact') {
    if (!same(domain['verifyingContract'], option.asset)) refuse('a transfer of another token');
    if (!same(m['from'], from) || !same(m['to'], option.payTo)) refuse('a transfer between other accounts');
    if (String(m['value']) !== option.amount) refuse('a transfer of another amount');
    return;
  }
  if (r.primaryType === 'PermitWitnessTransferFrom' && option.scheme === 'upto') {
    const permitted = m['permitted'] as Record<string, unknown> | undefined;
    const witness = m['witness'] as Record<string, unknown> | undefined;
    if (!same(domain['verifyingContract'], PERMIT2) || !same(m['spender'], UPTO_PROXY))
      refuse('a Permit2 transfer through another spender');
    if (!same(permitted?.['token'], option.asset) || !same(witness?.['to'], option.payTo))
      refuse('a Permit2 transfer of another token or payee');
    if (BigInt(String(permitted?.['amount'] ?? 'x').replace(/[^0-9]/g, '') || '-1') > BigInt(option.amount))
      refuse('a Permit2 transfer of more than the offer');
    return;
  }
  if (r.primaryType === 'Permit' && option.scheme === 'upto') {
    if (!same(domain['verifyingContract'], option.asset) || !same(m['owner'], from) || !same(m['spender'], PERMIT2))
      refuse('a permit for another token or spender');
    return;
  }
  refuse(`a ${r.primaryType} for an ${option.scheme} offer`);
}

/** A value of the client's typed data in the wallet's words: integers as decimal strings, struct by struct. */
function asTyped(v: unknown): TypedValue {
  if (typeof v === 'bigint' || typeof v === 'number') return v.toString();
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asTyped(x)]));
  return String(v);
}

/** The client's request to sign (its integers bigints) as the wallet takes one (integers as strings). */
function typedRequest(request: Parameters<ClientEvmSigner['signTypedData']>[0]): TypedRequest {
  const domain = request.domain as Record<string, unknown>;
  return {
    ...request,
    domain: { ...domain, chainId: String(domain['chainId']) } as TypedRequest['domain'],
    types: request.types as TypedRequest['types'],
    message: asTyped(request.message) as Record<string, TypedValue>,
  };
}

/**
 * The wallet behind the gate, as `@x402/evm` takes a signer: it signs only `option`'s payment, and reads only
 * what the upto scheme reads first (the token's allowance to Permit2 and its permit nonce).
 */
function gatedSigner(wallet: Wallet, chain: ChainReader, option: PaymentRequirements): ClientEvmSigner {
  return {
    address: wallet.address,
    signTypedData: async (request) => {
      const r = typedRequest(request);
      assertSignable(r, option, wallet.address, chain.config.chainId);
      return wallet.signTypedData(r);
    },
    readContract: async ({ address, functionName, args }) => {
      const [owner, spender] = (args ?? []) as string[];
      if (same(address, option.asset) && same(owner, wallet.address)) {
        if (functionName === 'allowance' && spender && same(spender, PERMIT2)) return chain.allowance(wallet.address, PERMIT2);
        if (functionName === 'nonces') return chain.permitNonce(wallet.address);
      }
      throw new UnsignableRequest(`the x402 client asked to read ${functionName}, which a payment needs not`);
    },
  };
}

/**
 * Signs the payment of `option`, one of `required`'s offers, with x402's client and the gated wallet. Where
 * the seller takes x402's `payment-identifier`, the payment carries a fresh one, the key a retry of the same
 * request repeats so the seller answers it once.
 */
export async function signPlain(
  deps: { wallet: Wallet; chain: ChainReader },
  required: PaymentRequired,
  option: PaymentRequirements,
): Promise<PaymentPayload> {
  // The choice is Holon's (made and checked before): the client is given that one offer and no spending
  // rules of its own, which would only stand in for the mandate's.
  const client = new x402Client(() => option).setSpendControls(false);
  const signer = gatedSigner(deps.wallet, deps.chain, option);
  client.register(option.network as `${string}:${string}`, new ExactEvmScheme(signer));
  client.register(option.network as `${string}:${string}`, new UptoEvmScheme(signer));
  const payload = await client.createPaymentPayload({ ...required, accepts: [option] });
  const identified = required.extensions?.[PAYMENT_IDENTIFIER] !== undefined;
  // (The helper writes into the object it is given: a copy, so the seller's document stays as it was read.)
  return identified
    ? { ...payload, extensions: appendPaymentIdentifierToExtensions(structuredClone(payload.extensions ?? {}), generatePaymentId()) }
    : payload;
}
