/**
 * The pairing `x402/channel/eip155`: a payment channel on an EVM chain, for a seller paid again and again
 * under the same terms. Holon's own (docs/terms-pairings.md):
 *
 * - The document is an x402 v2 `PaymentRequired` with `extensions.atr: {hash, url}` and an `accepts`
 *   entry of `scheme: "channel"` whose `extra` has the token's EIP-712 `name` and `version` and
 *   `channel: {escrow, deposit}`; its `amount` is the price of one request.
 * - The opening is an EIP-3009 authorization of `deposit` to `escrow` whose nonce is H (as in
 *   `x402/exact/eip155`); the channel's id is the SHA-256 of the opening's signature.
 * - Each later payment is a voucher, EIP-712 `Voucher(bytes32 channel, uint256 cumulative, bytes32 terms)`
 *   under the escrow's domain (`x402 channel`, version 1): the total the seller may take so far, never
 *   above the deposit, with `terms` = H. A refund is `Close(bytes32 channel, uint256 cumulative, bytes32
 *   terms)`: the seller keeps `cumulative`, the rest of the deposit goes back.
 * - H is read back from the opening's nonce, and from a voucher's or a close's `terms`.
 */
import { createHash } from 'node:crypto';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { getAddress, isAddress, verifyTypedData } from 'viem';
import * as z from 'zod';
import { denial } from '../../core/kernel/denials.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import type { AtrView } from '../../core/terms/atr.ts';
import { atrHash, atrView, HASH_PATTERN } from '../../core/terms/atr.ts';
import { macVerifies, withMac } from '../../core/terms/mac.ts';
import type { FetchLike } from '../net/publicFetch.ts';
import type { TypedRequest } from '../../core/local/wallet.ts';
import { typedMessage } from '../../core/local/wallet.ts';
import { confirmedChoice, readAdvertised, refuse, TRANSFER_TYPES, unreadable } from './x402Exact.ts';

export const CHANNEL = 'x402/channel/eip155';

const Amount = z.string().regex(/^[0-9]{1,78}$/);

const ChannelOption = z.object({
  scheme: z.literal('channel'),
  network: z.string().regex(/^eip155:[0-9]{1,12}$/),
  asset: z.string().refine((a) => isAddress(a)),
  amount: Amount,
  payTo: z.string().refine((a) => isAddress(a)),
  maxTimeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(86_400 * 30),
  extra: z
    .object({
      name: z.string(),
      version: z.string(),
      channel: z.object({ escrow: z.string().refine((a) => isAddress(a)), deposit: Amount }).passthrough(),
    })
    .passthrough(),
});
type ChannelOption = z.infer<typeof ChannelOption>;

/** The document's H, its ATR's link, and its channel options. */
export function readChannelDocument(document: unknown): { required: PaymentRequired; hash: string; url: string; options: ChannelOption[] } {
  const { accepts, ...read } = readAdvertised(document);
  const options = accepts.flatMap((raw) => {
    const r = ChannelOption.safeParse(raw);
    return r.success && BigInt(r.data.amount) <= BigInt(r.data.extra.channel.deposit) ? [r.data] : [];
  });
  if (options.length === 0) throw unreadable('x402/no-channel-option');
  return { ...read, options };
}

const VOUCHER_TYPES = {
  Voucher: [
    { name: 'channel', type: 'bytes32' },
    { name: 'cumulative', type: 'uint256' },
    { name: 'terms', type: 'bytes32' },
  ],
} as const;
const CLOSE_TYPES = {
  Close: [
    { name: 'channel', type: 'bytes32' },
    { name: 'cumulative', type: 'uint256' },
    { name: 'terms', type: 'bytes32' },
  ],
} as const;

/** `chosen` for a channel: what the opening is built from, MAC'd (a channel's `chosen` is only taken back verified). */
export interface ChannelChosen {
  pairing: typeof CHANNEL;
  atrHash: string;
  resource: PaymentRequired['resource'];
  option: ChannelOption;
  from: `0x${string}`;
  validBefore: string;
  mac: string;
}

/** The opening the wallet signs: the deposit to the escrow, its nonce H. */
export function openingRequest(c: Omit<ChannelChosen, 'mac'>, h: string): TypedRequest & { message: { nonce: string } } {
  const o = c.option;
  return {
    domain: {
      name: o.extra.name,
      version: o.extra.version,
      chainId: o.network.slice('eip155:'.length),
      verifyingContract: getAddress(o.asset),
    },
    types: TRANSFER_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: c.from,
      to: getAddress(o.extra.channel.escrow),
      value: o.extra.channel.deposit,
      validAfter: '0',
      validBefore: c.validBefore,
      nonce: h,
    },
  };
}

/** `atr_confirm` for a channel. */
export async function confirmChannel(
  deps: { fetch: FetchLike; now: () => number },
  document: unknown,
  account: string,
): Promise<{ atrHash: string; atr: AtrView; bytes: Uint8Array; chosen: ChannelChosen; request: TypedRequest }> {
  const { unsigned, bytes, served } = await confirmedChoice(deps, readChannelDocument(document), account, CHANNEL);
  return {
    atrHash: served,
    atr: atrView(bytes),
    bytes,
    chosen: withMac(unsigned) as ChannelChosen,
    request: openingRequest(unsigned, served),
  };
}

/** A signed opening: the x402 payload the seller takes, and the channel it opens. */
export interface Opening {
  x402Version: 2;
  resource: PaymentRequired['resource'];
  accepted: PaymentRequirements;
  payload: { signature: `0x${string}`; authorization: Record<string, string> };
}

const typed = (r: TypedRequest, signature: `0x${string}`, address: `0x${string}`): Promise<boolean> => {
  const message = typedMessage(r.types, r.primaryType, r.message);
  return verifyTypedData({
    address,
    domain: { ...r.domain, chainId: Number(r.domain.chainId) },
    types: r.types,
    primaryType: r.primaryType,
    message,
    signature,
  } as never).catch(() => false);
};

const channelIdOf = (signature: string): string =>
  `0x${createHash('sha256')
    .update(Buffer.from(signature.slice(2), 'hex'))
    .digest('hex')}`;

/**
 * `atr_finish` for a channel: `chosen` only with its MAC, the opening rebuilt from it and the ATR's bytes,
 * the wallet's signature checked; returns the opening with a MAC over it, for atr_channel_open.
 */
export async function finishChannel(
  bytes: Uint8Array,
  chosen: unknown,
  signature: unknown,
): Promise<{ atrHash: string; signed: Opening; mac: string }> {
  if (!macVerifies(chosen)) throw refuse(denial('chosen_unverified', {}));
  const c = chosen as unknown as ChannelChosen;
  const h = atrHash(bytes);
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature)) throw refuse(denial('signature_invalid', {}));
  const request = openingRequest(c, h);
  if (!(await typed(request, signature as `0x${string}`, getAddress(c.from)))) throw refuse(denial('signature_invalid', {}));
  const signed: Opening = {
    x402Version: 2,
    resource: c.resource,
    accepted: c.option as unknown as PaymentRequirements,
    payload: { signature: signature as `0x${string}`, authorization: request.message as Record<string, string> },
  };
  return { atrHash: h, signed, mac: openingMac(signed, null) };
}

/** The MAC an opening is returned with, over the pairing, the opening and its landed receipt. */
export function openingMac(signed: unknown, landed: unknown): string {
  return withMac({ pairing: CHANNEL, signed, landed: landed ?? null }).mac;
}

/** A channel hold: what the channel tools take back only as this process returned it. */
export interface Hold {
  pairing: typeof CHANNEL;
  atrHash: string;
  atr: string;
  channel: string;
  network: string;
  asset: string;
  payTo: string;
  escrow: string;
  name: string;
  version: string;
  payer: string;
  deposit: string;
  /** The seller's cumulative charge, as last recorded. */
  charged: string;
  /** The cumulative total the latest voucher signed. */
  signed: string;
  closed: boolean;
  mac: string;
}

/**
 * The latest hold this process returned, per channel: only it is taken back (docs/terms-pairings.md). A
 * MAC tells a hold this process made from any other, never an older one from the latest, so the process
 * remembers, as it keeps its MAC key: in memory, for its life (a restart refuses every hold anyway). A
 * hold a signing call is using is marked `inUse` until that call ends, so two calls cannot sign from it.
 */
const latestHolds = new Map<string, { hold: Hold; inUse: boolean }>();

/** `hold`, returned by this process, and from now on the latest of its channel. */
function issued(hold: Hold): Hold {
  latestHolds.set(hold.channel, { hold, inUse: false });
  return hold;
}

/** `atr_channel_open`: keeps a channel opened by an opening this process returned, with its MAC. */
export function openChannel(bytes: Uint8Array, signed: unknown, landed: unknown, mac: unknown): { atrHash: string; hold: Hold } {
  if (typeof mac !== 'string' || !macVerifies({ pairing: CHANNEL, signed, landed: landed ?? null, mac }))
    throw refuse(denial('opening_unverified', {}));
  const o = signed as Opening;
  const h = atrHash(bytes);
  if ((o.payload.authorization['nonce'] ?? '').toLowerCase() !== h)
    throw refuse(denial('hash_mismatch', { advertised: String(o.payload.authorization['nonce']), served: h }));
  // A channel already kept gives back its latest hold: a fresh one would forget what was signed and charged.
  const kept = latestHolds.get(channelIdOf(o.payload.signature));
  if (kept) return { atrHash: h, hold: kept.hold };
  const extra = (o.accepted.extra as ChannelOption['extra']).channel;
  const hold = withMac({
    pairing: CHANNEL,
    atrHash: h,
    atr: Buffer.from(bytes).toString('base64'),
    channel: channelIdOf(o.payload.signature),
    network: o.accepted.network,
    asset: o.accepted.asset,
    payTo: o.accepted.payTo,
    escrow: extra.escrow,
    name: String(o.accepted.extra['name']),
    version: String(o.accepted.extra['version']),
    payer: String(o.payload.authorization['from']),
    deposit: extra.deposit,
    charged: '0',
    signed: '0',
    closed: false,
  }) as Hold;
  return { atrHash: h, hold: issued(hold) };
}

/**
 * A hold, only when its MAC verifies and it is its channel's latest, not in use by a signing call: an
 * older one is `hold-unverified` too, whose words already ask for the latest hold exactly as returned.
 */
export function verifiedHold(hold: unknown): Hold {
  if (!macVerifies(hold) || (hold as { pairing?: unknown }).pairing !== CHANNEL) throw refuse(denial('hold_unverified', {}));
  const h = hold as unknown as Hold;
  const latest = latestHolds.get(h.channel);
  if (!latest || latest.inUse || latest.hold.mac !== h.mac) throw refuse(denial('hold_unverified', {}));
  return h;
}

/** `atr_channel_record_charge`: the seller's cumulative charge, never less than before nor above the deposit. */
export function recordCharge(hold: unknown, charged: string): { atrHash: string; hold: Hold } {
  const h = verifiedHold(hold);
  if (!/^[0-9]{1,78}$/.test(charged))
    throw new HolonError('invalid_input', "charged is a whole number of the token's smallest units, in decimal");
  if (BigInt(charged) < BigInt(h.charged) || BigInt(charged) > BigInt(h.deposit))
    throw new HolonError('invalid_input', `charged must be between ${h.charged} (recorded) and ${h.deposit} (the deposit)`);
  const { mac: _m, ...rest } = h;
  return { atrHash: h.atrHash, hold: issued(withMac({ ...rest, charged }) as Hold) };
}

/** The voucher (or the close) the wallet signs next in a held channel. */
export function voucherRequest(h: Hold, cumulative: string, close: boolean): TypedRequest {
  return {
    domain: { name: 'x402 channel', version: '1', chainId: h.network.slice('eip155:'.length), verifyingContract: getAddress(h.escrow) },
    types: close ? CLOSE_TYPES : VOUCHER_TYPES,
    primaryType: close ? 'Close' : 'Voucher',
    message: { channel: h.channel, cumulative, terms: h.atrHash },
  };
}

/**
 * What `atr_channel_within` signs: the next voucher for the new document's price (the document must
 * advertise the held H and name the held channel), or the close. Never above the deposit.
 */
export function nextPayment(
  hold: unknown,
  document: unknown,
  refund: { amount?: string | null | undefined } | null | undefined,
): { h: Hold; cumulative: string; close: boolean; request: TypedRequest } {
  const h = verifiedHold(hold);
  if (h.closed) throw new HolonError('conflict', 'the channel is closed');
  if (refund) {
    // The seller keeps what was signed (and charged, if more); the rest of the deposit comes back, or
    // `refund.amount` of it when the seller asked for less back.
    const owed = BigInt(h.signed) > BigInt(h.charged) ? BigInt(h.signed) : BigInt(h.charged);
    const back = refund.amount ?? (BigInt(h.deposit) - owed).toString();
    if (!/^[0-9]{1,78}$/.test(back) || BigInt(back) > BigInt(h.deposit) - owed)
      throw new HolonError(
        'invalid_input',
        `refund.amount is what comes back, at most ${(BigInt(h.deposit) - owed).toString()} ` +
          `(the deposit less what was signed and charged)`,
      );
    const keep = (BigInt(h.deposit) - BigInt(back)).toString();
    return { h, cumulative: keep, close: true, request: voucherRequest(h, keep, true) };
  }
  const read = readChannelDocument(document);
  if (read.hash !== h.atrHash) throw refuse(denial('hash_mismatch', { advertised: read.hash, served: h.atrHash }));
  const option = read.options.find(
    (o) =>
      o.network === h.network &&
      getAddress(o.payTo) === getAddress(h.payTo) &&
      (o.extra.channel['id'] === undefined || o.extra.channel['id'] === h.channel),
  );
  if (!option || option.extra.channel['id'] !== h.channel) throw unreadable('x402/channel-not-named');
  const cumulative = (BigInt(h.signed) + BigInt(option.amount)).toString();
  if (BigInt(cumulative) > BigInt(h.deposit)) throw unreadable('x402/channel-exhausted');
  return { h, cumulative, close: false, request: voucherRequest(h, cumulative, false) };
}

/**
 * Signs `next` with `sign` and returns what it signed with the hold after it, from then on the latest.
 * The hold is taken while `sign` runs, so a second call with it is declined rather than signing beside
 * this one; when `sign` fails, the hold it was given stays the latest.
 */
export async function signInChannel<T>(
  next: { h: Hold; cumulative: string; close: boolean; request: TypedRequest },
  sign: (request: TypedRequest) => Promise<T>,
): Promise<{ signed: T; hold: Hold }> {
  const h = verifiedHold(next.h);
  const taken = { hold: h, inUse: true };
  latestHolds.set(h.channel, taken);
  let signed: T;
  try {
    signed = await sign(next.request);
  } catch (err) {
    if (latestHolds.get(h.channel) === taken) latestHolds.set(h.channel, { hold: h, inUse: false });
    throw err;
  }
  const { mac: _m, ...rest } = h;
  return { signed, hold: issued(withMac({ ...rest, signed: next.cumulative, closed: next.close }) as Hold) };
}

/** A signed voucher or close, as the seller takes it (`PAYMENT-SIGNATURE`). */
export function voucherPayload(h: Hold, request: TypedRequest, signature: `0x${string}`, close: boolean): Record<string, unknown> {
  return {
    x402Version: 2,
    accepted: { scheme: 'channel', network: h.network, asset: h.asset, payTo: h.payTo },
    payload: { signature, voucher: request.message, close },
  };
}

/** Whether `signature` is the channel's payer's over `request`. */
export function signedByPayer(h: Hold, request: TypedRequest, signature: `0x${string}`): Promise<boolean> {
  return typed(request, signature, getAddress(h.payer));
}

/** The H a channel payment carries: an opening's nonce, or a voucher's or close's `terms`. */
export function readChannelH(presented: unknown): string | undefined {
  const p = presented as { payload?: { authorization?: { nonce?: unknown }; voucher?: { terms?: unknown } } } | null;
  const v = p?.payload?.authorization?.nonce ?? p?.payload?.voucher?.terms;
  return typeof v === 'string' && HASH_PATTERN.test(v.toLowerCase()) ? v.toLowerCase() : undefined;
}
