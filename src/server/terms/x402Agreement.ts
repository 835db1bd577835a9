/**
 * The pairing `x402/agreement/eip155`: a seller that has the buyer agree to its terms once, by a payment
 * that carries H, and then takes ordinary payments. Holon's own (docs/terms-pairings.md):
 *
 * - The document is an x402 v2 `PaymentRequired` for the resource with `extensions.atr: {hash, url}` and
 *   `extensions.agreement: {url}`; its `accepts` are `exact` EVM options.
 * - The agreement URL, asked unpaid, answers 402 with the agreement payment's own `PaymentRequired`
 *   (which must advertise the same H), 202 while a payment settles, or 200 with the receipt
 *   `{atrHash, agreed: true, network, transaction}` once the agreement is recorded.
 * - The agreement payment is an `exact` EIP-3009 authorization whose nonce is H, sent to the agreement
 *   URL as `PAYMENT-SIGNATURE`. The resource's payment is an ordinary `exact` one: the proof of the terms
 *   is the agreement payment and its receipt, so H is not read from the resource's payment.
 */
import { randomBytes } from 'node:crypto';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { canonicalize } from 'json-canonicalize';
import * as z from 'zod';
import { denial } from '../../core/kernel/denials.ts';
import type { AtrView } from '../../core/terms/atr.ts';
import { atrHash, atrView, HASH_PATTERN } from '../../core/terms/atr.ts';
import { macVerifies, withMac } from '../../core/terms/mac.ts';
import type { FetchLike } from '../net/publicFetch.ts';
import type { SignRequest } from './x402Exact.ts';
import { confirmedAtr, payerOf, readDocument, readH, refuse, requestFor, signedPayment, unreadable } from './x402Exact.ts';

export const AGREEMENT = 'x402/agreement/eip155';

/** The receipt of a recorded agreement, as the agreement URL states it. */
export interface AgreementReceipt {
  atrHash: string;
  agreed: true;
  network: string;
  transaction: string;
}
const Receipt = z.object({
  atrHash: z.string().regex(HASH_PATTERN),
  agreed: z.literal(true),
  network: z.string().min(1).max(100),
  transaction: z.string().min(1).max(200),
});

/** A receipt's form, for this H; otherwise why not. */
export function receiptFor(receipt: unknown, h: string): AgreementReceipt {
  const r = Receipt.safeParse(receipt);
  if (!r.success)
    throw refuse(denial('agreement_failed', { reason: 'not an agreement receipt: {atrHash, agreed: true, network, transaction}' }));
  if (r.data.atrHash.toLowerCase() !== h) throw refuse(denial('agreement_failed', { reason: 'the receipt names another ATR hash' }));
  return r.data as AgreementReceipt;
}

/** `chosen` for an agreement pairing; MAC'd, since atr_agree takes the agreement URL only from it. */
export interface AgreementChosen {
  pairing: typeof AGREEMENT;
  atrHash: string;
  agreement: string;
  resource: PaymentRequired['resource'];
  option: PaymentRequirements;
  from: `0x${string}`;
  validBefore: string;
  /** The resource payment's own nonce (the agreement carries H, not this payment). */
  nonce: string;
  mac: string;
}

/** `atr_confirm` for an agreement pairing: no `request` until a receipt for this H is given. */
export async function confirmAgreement(
  deps: { fetch: FetchLike; now: () => number },
  document: unknown,
  account: string,
  receipt: unknown,
): Promise<{ atrHash: string; atr: AtrView; bytes: Uint8Array; chosen: AgreementChosen; request: SignRequest | null }> {
  const payer = payerOf(account);
  const read = readDocument(document);
  const agreement = z
    .object({ url: z.string().url().max(2048) })
    .safeParse((document as { extensions?: Record<string, unknown> }).extensions?.['agreement']);
  if (!agreement.success) throw unreadable('x402/no-agreement');
  const { option, bytes, served } = await confirmedAtr(deps.fetch, read, payer.network);
  const unsigned = {
    pairing: AGREEMENT,
    atrHash: served,
    agreement: agreement.data.url,
    resource: read.required.resource,
    option,
    from: payer.address,
    validBefore: String(Math.floor(deps.now() / 1000) + option.maxTimeoutSeconds),
    nonce: `0x${randomBytes(32).toString('hex')}`,
  } as const;
  const chosen = withMac(unsigned) as AgreementChosen;
  let request: SignRequest | null = null;
  if (receipt !== undefined && receipt !== null) {
    receiptFor(receipt, served);
    request = requestFor({ ...unsigned, pairing: 'x402/exact/eip155' }, unsigned.nonce);
  }
  return { atrHash: served, atr: atrView(bytes), bytes, chosen, request };
}

/** `atr_finish` for an agreement pairing: the resource's payment, rebuilt and checked; the proof is the agreement. */
export async function finishAgreement(
  bytes: Uint8Array,
  chosen: unknown,
  signature: unknown,
): Promise<{ atrHash: string; signed: PaymentPayload }> {
  const nonce = (chosen as { nonce?: unknown } | null)?.nonce;
  if (typeof nonce !== 'string' || !HASH_PATTERN.test(nonce)) throw unreadable('x402/chosen-unreadable');
  return { atrHash: atrHash(bytes), signed: await signedPayment(chosen, signature, nonce) };
}

/**
 * `atr_check` for an agreement pairing: the pairing reads H only from the agreement payment, whose nonce
 * is H. A resource payment's nonce is its own random 32 bytes, which nothing tells apart from the hash of
 * other terms, so a nonce that is not the H of the bytes given is read as no H: `signed-not-bound` (seed
 * 002: "a payment from which the pairing reads no H"), never `hash-mismatch`, which would claim the
 * payment names other terms.
 */
export function checkAgreement(bytes: Uint8Array, presented: unknown): { atrHash: string } {
  const h = atrHash(bytes);
  if (readH(presented) !== h) throw refuse(denial('signed_not_bound', {}));
  return { atrHash: h };
}

/** What the agent approves to pay an agreement: the option, the agreement URL and its payment request. */
export interface Approve {
  option: Pick<PaymentRequirements, 'amount' | 'asset' | 'payTo' | 'network'>;
  url: string;
  required: PaymentRequired;
}

/** The agreement URL, asked unpaid: the receipt, 202, or the payment it asks for. */
export async function askAgreement(
  fetch: FetchLike,
  url: string,
  h: string,
): Promise<{ receipt: AgreementReceipt } | { pending: true } | { required: PaymentRequired }> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' } });
  } catch {
    throw refuse(denial('atr_unfetchable', {}));
  }
  if (res.status === 200) return { receipt: receiptFor(await res.json().catch(() => null), h) };
  if (res.status === 202) return { pending: true };
  const header = res.headers.get('payment-required');
  if (res.status !== 402 || !header) throw refuse(denial('agreement_failed', { reason: `the agreement URL answered ${res.status}` }));
  let required: PaymentRequired;
  try {
    required = decodePaymentRequiredHeader(header);
  } catch {
    throw unreadable('x402/payment-required-unreadable');
  }
  return { required };
}

/** The approve an agent is shown: the first exact option on `network` of the agreement's payment request. */
export function approveFrom(url: string, required: PaymentRequired, h: string, network: string): Approve {
  const read = readDocument(required);
  if (read.hash !== h) throw refuse(denial('agreement_failed', { reason: 'the agreement payment advertises another ATR hash' }));
  const o = read.options.find((x) => x.network === network);
  if (!o) throw unreadable('x402/no-option-on-payer-network');
  return { option: { amount: o.amount, asset: o.asset, payTo: o.payTo, network: o.network }, url, required };
}

/**
 * Checks an `approved` before anything is fetched or signed: its URL is `chosen`'s agreement URL, its
 * `required` advertises this H, and its option is one of `required.accepts` (by RFC 8785 form).
 */
export function checkApproved(approved: unknown, chosen: AgreementChosen): { option: PaymentRequirements; required: PaymentRequired } {
  const a = approved as Approve | null;
  if (!a || typeof a !== 'object' || a.url !== chosen.agreement) throw unreadable('x402/agreement-url-not-chosen');
  let read;
  try {
    read = readDocument(a.required);
  } catch {
    throw unreadable('x402/agreement-required-unreadable');
  }
  if (read.hash !== chosen.atrHash) throw unreadable('x402/agreement-required-other-hash');
  const accepts = Array.isArray(a.required.accepts) ? a.required.accepts : [];
  const option = read.options.find(
    (o) => canonicalize({ amount: o.amount, asset: o.asset, payTo: o.payTo, network: o.network }) === canonicalize(a.option),
  );
  if (accepts.length > 32 || !option) throw unreadable('x402/option-not-in-document');
  return { option, required: a.required };
}

/**
 * An agreement `chosen`: `chosen-unverified` unless its MAC verifies; a verified one that names no
 * agreement (another pairing's, say an exact `chosen`) is `offer-unreadable`, as seed 002 says.
 */
export function verifiedChosen(chosen: unknown): AgreementChosen {
  if (!macVerifies(chosen)) throw refuse(denial('chosen_unverified', {}));
  const c = chosen as unknown as AgreementChosen;
  if (c.pairing !== AGREEMENT || typeof c.agreement !== 'string') throw unreadable('x402/no-agreement');
  return c;
}

/** Sends the signed agreement payment: the receipt, or pending, or why it failed. */
export async function payAgreement(
  fetch: FetchLike,
  url: string,
  signed: PaymentPayload,
  h: string,
): Promise<{ receipt: AgreementReceipt } | { pending: true }> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { 'payment-signature': encodePaymentSignatureHeader(signed), accept: 'application/json' } });
  } catch {
    return { pending: true };
  }
  if (res.status === 202) return { pending: true };
  if (res.status !== 200) throw refuse(denial('agreement_failed', { reason: `the agreement URL answered ${res.status}` }));
  return { receipt: receiptFor(await res.json().catch(() => null), h) };
}
