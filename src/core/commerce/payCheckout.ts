/**
 * Paying a merchant's checkout on a chain: where the merchant offers x402's `exact` payment handler on the
 * chain Holon reads, in a token it knows, `buy` pays the cart's total in that token (converted with the
 * human's rates) by an EIP-3009 authorization the wallet signs, recorded with its settlement before it
 * is sent; the merchant settles it through its facilitator before it completes the order; Holon reads the
 * chain afterwards. A merchant that completes without being paid, or whose order says another total than
 * what was paid, is flagged to the human.
 */
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { convertTo } from '../money/fx.ts';
import type { Money } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { HolonState } from '../fold/state.ts';
import type { TypedRequest, Wallet } from '../local/wallet.ts';
import { knownAsset } from '../rails/assets.ts';
import type { ChainReader } from '../rails/chain.ts';
import { tokenUnits } from '../rails/chainPay.ts';
import { reads } from '../rails/signing.ts';
import type { Authorization } from '../rails/scheme.ts';
import { TRANSFER_TYPES } from '../rails/schemes/exact.ts';
import type { Cart, X402Offer } from './checkout.ts';

/** The chain `buy` may pay on: the reader of the configured chain and the wallet that signs. */
export interface CheckoutChain {
  reader: ChainReader;
  wallet: Wallet;
}

/** A merchant's x402 offer Holon can pay: on the chain it reads, in a token it knows, for the cart's total converted. */
export interface PayableOffer {
  offer: X402Offer;
  /** The cart's total in the token's currency. */
  amount: Money;
}

/** The merchant's x402 offer, when Holon can pay it here: the chain it reads, a token it knows, a rate for the total. */
export function payableOffer(s: HolonState, cart: Cart, chain: CheckoutChain | undefined): PayableOffer | undefined {
  const offer = cart.x402;
  if (!offer || !chain || !cart.total || !reads(chain.reader, offer.network, offer.asset)) return undefined;
  const asset = knownAsset(offer.network, offer.asset);
  if (!asset) return undefined;
  const amount = convertTo(s, M.fromJson(cart.total), asset.currency);
  return amount ? { offer, amount } : undefined;
}

/** The x402 payment of an offer, signed by the wallet: what the merchant is sent, and its authorization. */
export async function signCheckoutPayment(
  chain: CheckoutChain,
  offer: X402Offer,
  amount: Money,
  resource: string,
  now: number,
): Promise<{ payload: unknown; authorization: Authorization }> {
  const asset = knownAsset(offer.network, offer.asset);
  if (!asset) throw new Error(`${offer.asset} is not a token Holon knows on ${offer.network}`);
  const value = tokenUnits(amount, asset.decimals).toString();
  const authorization: Authorization = {
    from: chain.wallet.address,
    to: getAddress(offer.payTo),
    value,
    validAfter: '0',
    validBefore: String(Math.floor(now / 1000) + offer.maxTimeoutSeconds),
    nonce: `0x${randomBytes(32).toString('hex')}`,
  };
  // The token's own EIP-712 domain, from Holon's table: never the merchant's word for it.
  const request: TypedRequest = {
    domain: {
      name: asset.name,
      version: asset.version,
      chainId: offer.network.slice('eip155:'.length),
      verifyingContract: getAddress(offer.asset),
    },
    types: TRANSFER_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: { ...authorization },
  };
  const signature = await chain.wallet.signTypedData(request);
  const accepted = {
    scheme: 'exact',
    network: offer.network,
    asset: getAddress(offer.asset),
    amount: value,
    payTo: getAddress(offer.payTo),
    maxTimeoutSeconds: offer.maxTimeoutSeconds,
    extra: { name: asset.name, version: asset.version },
  };
  return { payload: { x402Version: 2, resource: { url: resource }, accepted, payload: { signature, authorization } }, authorization };
}

/** Why an order does not match what was paid for it, if it does not: its total, in the token, against the payment. */
export function orderMismatch(s: HolonState, orderTotal: M.MoneyJson, paid: Money): string | undefined {
  const total = convertTo(s, M.fromJson(orderTotal), paid.currency);
  if (total && total.units === paid.units) return undefined;
  const ordered = `${M.formatUnits(M.fromJson(orderTotal).units)} ${orderTotal.currency}`;
  return `the merchant completed an order of ${ordered}, and was paid ${M.formatUnits(paid.units)} ${paid.currency} on chain`;
}
