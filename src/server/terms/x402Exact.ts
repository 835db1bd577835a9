/**
 * The pairing `x402/exact/eip155`: x402 v2's `exact` scheme on an EVM chain, with H bound into the
 * payment as the EIP-3009 authorization's nonce. How Holon reads it (docs/terms-pairings.md says it for
 * a human):
 *
 * - The seller's document is the x402 v2 `PaymentRequired` (the 402's `PAYMENT-REQUIRED` header,
 *   decoded). It advertises H and where the ATR is in `extensions.atr: {hash, url}`.
 * - The ATR is fetched from `extensions.atr.url` (public addresses only) and must hash to H.
 * - The payment is an EIP-3009 `transferWithAuthorization`, signed as EIP-712 typed data, whose 32-byte
 *   `nonce` is H: a seller cannot settle it under terms other than the ones hashed.
 * - H is read back from a completed payment's `payload.authorization.nonce`.
 */
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { getAddress, isAddress, verifyTypedData } from 'viem';
import * as z from 'zod';
import type { Denial } from '../../core/kernel/denials.ts';
import { denial } from '../../core/kernel/denials.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import { denialText } from '../../core/kernel/words.ts';
import type { AtrView } from '../../core/terms/atr.ts';
import { atrHash, atrView, HASH_PATTERN } from '../../core/terms/atr.ts';
import { withMac } from '../../core/terms/mac.ts';
import { TRANSFER_TYPES } from '../../core/rails/schemes/exact.ts';
import type { FetchLike } from '../net/publicFetch.ts';

export const EXACT = 'x402/exact/eip155';

/** A decline of the terms tools, as a refusal with its denial. */
export const refuse = (d: Denial): HolonError => new HolonError('denied', denialText(d), {}, [d]);
/** `offer-unreadable`, naming what could not be read. */
export const unreadable = (read: string): HolonError => refuse(denial('offer_unreadable', { read }));

const Hex = z.string().regex(/^0x[0-9a-fA-F]*$/);
const Requirement = z.object({
  scheme: z.string(),
  network: z.string().regex(/^eip155:[0-9]{1,12}$/),
  asset: z.string(),
  amount: z.string().regex(/^[0-9]{1,78}$/),
  payTo: z.string(),
  maxTimeoutSeconds: z.number().int().min(1).max(86_400),
  extra: z.record(z.string(), z.unknown()),
});
const Document = z.object({
  x402Version: z.literal(2),
  resource: z.object({ url: z.string().max(2048) }).passthrough(),
  accepts: z.array(z.unknown()).min(1).max(32),
  extensions: z.record(z.string(), z.unknown()).optional(),
});
const AtrLink = z.object({ hash: z.string().regex(HASH_PATTERN), url: z.string().url().max(2048) });

/** The seller's document as this pairing reads it: H, the ATR's link, and the `exact` EVM options. */
export interface ReadDocument {
  required: PaymentRequired;
  hash: string;
  url: string;
  options: PaymentRequirements[];
}

/**
 * What every x402 pairing reads first: a v2 `PaymentRequired` and the H and ATR link it advertises in
 * `extensions.atr`; each pairing then picks its own options from `accepts`.
 */
export function readAdvertised(document: unknown): { required: PaymentRequired; hash: string; url: string; accepts: unknown[] } {
  const doc = Document.safeParse(document);
  if (!doc.success) throw unreadable('x402/not-a-v2-payment-required');
  const link = AtrLink.safeParse(doc.data.extensions?.['atr']);
  if (!link.success) throw refuse(denial('atr_not_advertised', {}));
  return { required: document as PaymentRequired, hash: link.data.hash.toLowerCase(), url: link.data.url, accepts: doc.data.accepts };
}

/**
 * The options of `accepts` in `scheme` on an EVM chain that read: a token and a payee that are addresses,
 * and whatever `extra` the scheme needs (`extra` says whether it has it).
 */
export function evmOptions(accepts: unknown[], scheme: string, extra: (e: Record<string, unknown>) => boolean): PaymentRequirements[] {
  const options: PaymentRequirements[] = [];
  for (const raw of accepts) {
    const r = Requirement.safeParse(raw);
    if (!r.success || r.data.scheme !== scheme || !isAddress(r.data.asset) || !isAddress(r.data.payTo) || !extra(r.data.extra)) continue;
    options.push(r.data as PaymentRequirements);
  }
  return options;
}

/** The `exact` EVM options of `accepts`: EIP-3009 needs the token's EIP-712 name and version. */
export function exactOptions(accepts: unknown[]): PaymentRequirements[] {
  return evmOptions(accepts, 'exact', (e) => typeof e['name'] === 'string' && typeof e['version'] === 'string');
}

/** Reads an x402 v2 `PaymentRequired` for this pairing; refuses what it cannot read, naming what. */
export function readDocument(document: unknown): ReadDocument {
  const { accepts, ...read } = readAdvertised(document);
  const options = exactOptions(accepts);
  if (options.length === 0) throw unreadable('x402/no-exact-eip155-option');
  return { ...read, options };
}

/** The option on the payer's chain, and the ATR's bytes fetched and checked against the advertised H. */
export async function confirmedAtr<O extends { network: string }>(
  fetch: FetchLike,
  read: { hash: string; url: string; options: O[] },
  network: string,
): Promise<{ option: O; bytes: Uint8Array; served: string }> {
  const option = read.options.find((o) => o.network === network);
  if (!option) throw unreadable('x402/no-option-on-payer-network');
  const bytes = await fetchAtr(fetch, read.url);
  const served = atrHash(bytes);
  if (served !== read.hash) throw refuse(denial('hash_mismatch', { advertised: read.hash, served }));
  return { option, bytes, served };
}

/**
 * What `atr_confirm` chooses, before its MAC, for any x402 pairing: the ATR fetched and checked against
 * the advertised H, the option on the payer's network, the payer, and how long the signature may wait.
 */
export async function confirmedChoice<P extends string, O extends { network: string; maxTimeoutSeconds: number }, R>(
  deps: { fetch: FetchLike; now: () => number },
  read: { hash: string; url: string; options: O[]; required: { resource: R } },
  account: string,
  pairing: P,
) {
  const payer = payerOf(account);
  const { option, bytes, served } = await confirmedAtr(deps.fetch, read, payer.network);
  const unsigned = {
    pairing,
    atrHash: served,
    resource: read.required.resource,
    option,
    from: payer.address,
    validBefore: String(Math.floor(deps.now() / 1000) + option.maxTimeoutSeconds),
  } as const;
  return { unsigned, bytes, served };
}

/** The ATR's bytes from its link, through the server's fetch; only a 200 with a body under the limit counts. */
export async function fetchAtr(fetch: FetchLike, url: string): Promise<Uint8Array> {
  try {
    const res = await fetch(url, { headers: { accept: '*/*' } });
    if (res.status !== 200) throw new Error(String(res.status));
    return new Uint8Array(await res.arrayBuffer());
  } catch {
    throw refuse(denial('atr_unfetchable', {}));
  }
}

/** The payer of a CAIP-10 account `eip155:<chain>:<address>`. */
export function payerOf(account: string): { network: string; address: `0x${string}` } {
  const m = /^(eip155:[0-9]{1,12}):(0x[0-9a-fA-F]{40})$/.exec(account);
  if (!m) throw new HolonError('invalid_input', 'account must be a CAIP-10 EVM account, eip155:<chain id>:<address>');
  return { network: m[1] as string, address: getAddress(m[2] as string) };
}

/** What `atr_confirm` hands back to be passed to `atr_finish` unchanged. */
export interface Chosen {
  pairing: typeof EXACT;
  atrHash: string;
  resource: PaymentRequired['resource'];
  option: PaymentRequirements;
  from: `0x${string}`;
  validBefore: string;
  mac: string;
}

/** EIP-3009's `transferWithAuthorization` (core/rails/schemes/exact.ts): what every pairing here has the wallet sign first. */
export { TRANSFER_TYPES };

/** The EIP-712 typed data the wallet signs, with every uint256 as a decimal string (seed 002's JSON). */
export interface SignRequest {
  domain: { name: string; version: string; chainId: string; verifyingContract: `0x${string}` };
  types: typeof TRANSFER_TYPES;
  primaryType: 'TransferWithAuthorization';
  message: { from: `0x${string}`; to: `0x${string}`; value: string; validAfter: string; validBefore: string; nonce: string };
}

/** The payment `chosen` stands for, bound to `h` (the H of the bytes in hand, never one read from elsewhere). */
export function requestFor(chosen: Omit<Chosen, 'mac'>, h: string): SignRequest {
  const o = chosen.option;
  return {
    domain: {
      name: String(o.extra['name']),
      version: String(o.extra['version']),
      chainId: o.network.slice('eip155:'.length),
      verifyingContract: getAddress(o.asset),
    },
    types: TRANSFER_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: { from: chosen.from, to: getAddress(o.payTo), value: o.amount, validAfter: '0', validBefore: chosen.validBefore, nonce: h },
  };
}

/**
 * The payment a document asks for, for `account`, once its ATR is fetched and hashes to the advertised
 * H: what `atr_confirm` returns before its MAC, and what Holon's own wallet signs in `atr_transact`.
 */
export async function confirmRead(
  deps: { fetch: FetchLike; now: () => number },
  read: ReadDocument,
  account: string,
): Promise<{ atrHash: string; atr: AtrView; bytes: Uint8Array; unsigned: Omit<Chosen, 'mac'>; request: SignRequest }> {
  const { unsigned, bytes, served } = await confirmedChoice(deps, read, account, EXACT);
  return { atrHash: served, atr: atrView(bytes), bytes, unsigned, request: requestFor(unsigned, served) };
}

/** `atr_confirm` for this pairing: fetch the ATR, check it hashes to the advertised H, choose the option. */
export async function confirm(
  deps: { fetch: FetchLike; now: () => number },
  document: unknown,
  account: string,
): Promise<{ atrHash: string; atr: AtrView; bytes: Uint8Array; chosen: Chosen; request: SignRequest }> {
  const { unsigned, ...c } = await confirmRead(deps, readDocument(document), account);
  return { ...c, chosen: withMac(unsigned) as Chosen };
}

const ChosenShape = z.object({
  pairing: z.string(),
  atrHash: z.string().regex(HASH_PATTERN),
  resource: z.object({ url: z.string() }).passthrough(),
  option: Requirement,
  from: z.string().refine((a) => isAddress(a)),
  validBefore: z.string().regex(/^[0-9]{1,20}$/),
  // Not read: the payment is rebuilt from the members above and the signature checked against it.
  mac: z.string().optional(),
});

/**
 * The `exact` payment `chosen` stands for with `nonce`, joined with the wallet's signature once it is the
 * payer's over exactly that. Nothing in `chosen` is trusted that is not rebuilt here.
 */
export async function signedPayment(chosen: unknown, signature: unknown, nonce: string): Promise<PaymentPayload> {
  const c = ChosenShape.safeParse(chosen);
  if (!c.success) throw unreadable('x402/chosen-unreadable');
  const sig = Hex.safeParse(signature);
  if (!sig.success || sig.data.length !== 132) throw refuse(denial('signature_invalid', {}));
  const base = { ...c.data, from: getAddress(c.data.from), option: c.data.option as PaymentRequirements, pairing: EXACT } as const;
  const request = requestFor(base, nonce);
  const ok = await verifyTypedData({
    address: base.from,
    domain: { ...request.domain, chainId: Number(request.domain.chainId) },
    types: request.types,
    primaryType: request.primaryType,
    message: {
      ...request.message,
      value: BigInt(request.message.value),
      validAfter: 0n,
      validBefore: BigInt(request.message.validBefore),
      nonce: nonce as `0x${string}`,
    },
    signature: sig.data as `0x${string}`,
  }).catch(() => false);
  if (!ok) throw refuse(denial('signature_invalid', {}));
  return paymentOf(base, request, sig.data as `0x${string}`);
}

/** The completed `exact` payment: the request as signed, and the signature. */
function paymentOf(chosen: Omit<Chosen, 'mac'>, request: SignRequest, signature: `0x${string}`): PaymentPayload {
  return {
    x402Version: 2,
    resource: chosen.resource,
    accepted: chosen.option,
    payload: { signature, authorization: request.message },
  };
}

/**
 * The `exact` payment `chosen` stands for with `nonce`, signed by the human's wallet (`sign`) over the
 * request built here: Holon's own choice, bound to H, signed by Holon's own key. The signature is not
 * checked again, unlike one that arrives from outside (`signedPayment`, for atr_finish): recovering its
 * signer costs several signatures and would only tell whether the wallet signed what it was handed.
 * The seller checks it in any case, and a signature that is not the payer's moves nothing.
 */
export async function paidByWallet(
  chosen: Omit<Chosen, 'mac'>,
  nonce: string,
  sign: (request: SignRequest) => Promise<`0x${string}`>,
): Promise<PaymentPayload> {
  const request = requestFor(chosen, nonce);
  return paymentOf(chosen, request, await sign(request));
}

/**
 * The `exact` payment `chosen` stands for, as the human's account signed it when they approved it: its
 * authorization and signature exactly as recorded (its nonce is H, which the approval bound).
 */
export function paidByAccount(
  chosen: Omit<Chosen, 'mac'>,
  account: { authorization: { [K in keyof SignRequest['message']]: string }; signature: string },
): PaymentPayload {
  return {
    x402Version: 2,
    resource: chosen.resource,
    accepted: chosen.option,
    payload: { signature: account.signature, authorization: { ...account.authorization } as SignRequest['message'] },
  };
}

/**
 * `atr_finish` for this pairing: rebuilds the payment from `chosen` and the ATR's bytes (the nonce is the
 * H of those bytes, whatever `chosen` says), checks the wallet's signature is the payer's over exactly
 * that, and reads H back from the completed payment.
 */
export async function finish(bytes: Uint8Array, chosen: unknown, signature: unknown): Promise<{ atrHash: string; signed: PaymentPayload }> {
  const h = atrHash(bytes);
  const signed = await signedPayment(chosen, signature, h);
  if (readH(signed) !== h) throw refuse(denial('signed_not_bound', {}));
  return { atrHash: h, signed };
}

/** The H this pairing reads from a payment, if it reads one. */
export function readH(presented: unknown): string | undefined {
  const nonce = (presented as { payload?: { authorization?: { nonce?: unknown } } } | null)?.payload?.authorization?.nonce;
  return typeof nonce === 'string' && HASH_PATTERN.test(nonce.toLowerCase()) ? nonce.toLowerCase() : undefined;
}

/** `atr_check` for this pairing: the H read from the payment is the SHA-256 of the given bytes. */
export function check(bytes: Uint8Array, presented: unknown): { atrHash: string } {
  const read = readH(presented);
  if (!read) throw refuse(denial('signed_not_bound', {}));
  const h = atrHash(bytes);
  if (read !== h) throw refuse(denial('hash_mismatch', { advertised: read, served: h }));
  return { atrHash: h };
}
