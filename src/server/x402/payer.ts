/**
 * Paying an agent that asks to be paid in x402's words (an HTTP resource's 402, or a paid MCP tool's
 * `PaymentRequired`), within what its call holds. One payer serves both, so a call pays the same way
 * whatever carries the offer:
 *
 * - An offer that advertises terms (seed 002's `extensions.atr`) is paid the way `atr_transact` pays on
 *   `x402/exact/eip155`: H confirmed from bytes fetched here, H the payment's nonce (`upto`: x402Upto.ts).
 * - An offer without terms is paid plainly (plain.ts), unless the mandate pays only on terms.
 *
 * Either way only the chain the human configured, a token Holon knows, the payee the human added the agent
 * with, and no more than the call holds. The payment is recorded (its settlement, with a hold of its own
 * drawn from the call's) before it is sent, and read back from the chain once the seller answers: the
 * transaction the seller names is only where Holon looks first.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { getAddress } from 'viem';
import type { Clock, Logger } from '../../core/kernel/deps.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import type { AgentRunResult, PayLimit } from '../../core/market/call.ts';
import type { Money } from '../../core/kernel/amount.ts';
import * as M from '../../core/kernel/amount.ts';
import type { FetchLike } from '../net/publicFetch.ts';
import type { TypedRequest, Wallet } from '../../core/local/wallet.ts';
import type { ChainReader } from '../../core/rails/chain.ts';
import { newId } from '../../core/kernel/ids.ts';
import type { ChainPayment } from '../../core/money/walletPay.ts';
import { checkLanding, flagSettlement, recordClaim } from '../../core/rails/landing.ts';
import { authorizedOf } from '../../core/rails/settlementView.ts';
import { assertExactNonceUnspent, assertOnConfiguredChain, readNonceSpent, recordSigned } from '../../core/rails/signing.ts';
import type { Authorization } from '../../core/rails/scheme.ts';
import type { EventStore } from '../../core/store/store.ts';
import type { HolonState } from '../../core/fold/state.ts';
import { fromAtomic, knownAsset } from '../../core/rails/assets.ts';
import type { UptoAuthorization } from '../../core/rails/schemes/upto.ts';
import { uptoSettlementAuthorization } from '../../core/rails/schemes/upto.ts';
import type { Denial } from '../../core/kernel/denials.ts';
import { denial } from '../../core/kernel/denials.ts';
import { confirmedChoice, EXACT, exactOptions, paidByWallet, readAdvertised } from '../terms/x402Exact.ts';
import { choosePayment, paidUpto, UPTO, uptoOptions } from '../terms/x402Upto.ts';
import { cheapest, offered, payableOffers, signPlain } from './plain.ts';

/** The refusals a call's receipt says in words: Holon's own, of values it checked the form of. */
const OWN_REFUSALS: ReadonlySet<Denial['code']> = new Set<Denial['code']>([
  'other_chain',
  'terms_paid',
  'payment_open',
  'payee_undeclared',
  'terms_required',
  'offer_unpayable',
  'offer_above_hold',
]);

/**
 * An x402 payment the wallet signed (an `exact` payment, a channel's opening, or an `upto` payment's Permit2
 * witness transfer), as its settlement keeps it.
 */
export function chainPaymentOf(signed: unknown, amount: Money): ChainPayment | undefined {
  const p = signed as Partial<PaymentPayload> & { payload?: { authorization?: Authorization; permit2Authorization?: UptoAuthorization } };
  if (!p?.accepted) return undefined;
  const base = { network: p.accepted.network, token: p.accepted.asset, payload: signed, amount };
  const permit2 = p.payload?.permit2Authorization;
  if (p.accepted.scheme === 'upto' && permit2) return { ...base, scheme: 'upto', authorization: uptoSettlementAuthorization(permit2) };
  const authorization = p.payload?.authorization;
  return authorization ? { ...base, authorization: { ...authorization } } : undefined;
}

/** What a seller says of a payment it was sent: settled or not, the transaction it names, the amount it says. */
export interface SellerSettlement {
  success: boolean;
  transaction: string;
  amount?: string;
}

/** A seller's settlement response (`PAYMENT-RESPONSE`, or a paid tool's `x402/payment-response`), where it reads. */
export function settlementOf(r: unknown): SellerSettlement | undefined {
  if (!r || typeof r !== 'object') return undefined;
  const v = r as Record<string, unknown>;
  const amount = typeof v['amount'] === 'string' && /^[0-9]{1,78}$/.test(v['amount']) ? { amount: v['amount'] } : {};
  return { success: v['success'] === true, transaction: typeof v['transaction'] === 'string' ? v['transaction'] : '', ...amount };
}

/** A payment ready to send, and what the call's receipt will say it paid. */
export interface OfferPayment {
  payload: PaymentPayload;
  paid: NonNullable<AgentRunResult['paid']>;
}

/** Why Holon did not pay (`refusal`, where it is one of its own words; otherwise only logged). */
export type NotPaid = { refusal?: Denial };

/** The `PaymentRequired` of a 402's `PAYMENT-REQUIRED` header, or undefined where it does not decode. */
export function requiredOfHeader(header: string | null): unknown {
  if (!header) return undefined;
  try {
    return decodePaymentRequiredHeader(header);
  } catch {
    return undefined;
  }
}

export interface PayerDeps {
  fetch: FetchLike;
  wallet?: Wallet | undefined;
  now: () => number;
  logger: Logger;
  /** Where a payment is recorded before it is sent, and the chain it is read back from (none: not read). */
  store?: EventStore<HolonState>;
  clock?: Clock;
  chain?: ChainReader | undefined;
}

export class X402Payer {
  constructor(private readonly deps: PayerDeps) {}

  /**
   * The payment for `document` (an x402 v2 `PaymentRequired`) to `payee`, the address the agent's catalog
   * entry declares, or why Holon will not sign it.
   */
  async pay(document: unknown, limit: PayLimit | undefined, payee: string | undefined): Promise<OfferPayment | NotPaid> {
    const { wallet, store } = this.deps;
    if (!wallet || !limit || document === undefined || !store) return {};
    try {
      const terms = (document as { extensions?: Record<string, unknown> } | null)?.extensions?.['atr'] !== undefined;
      if (terms) return await this.payOnTerms(wallet, store, document, limit, payee);
      if (limit.requireTerms) return { refusal: denial('terms_required', { agent: limit.agent }) };
      return await this.payPlainly(wallet, store, document as PaymentRequired, limit, payee);
    } catch (err) {
      this.deps.logger.warn(`an agent's payment request was not paid: ${HolonError.is(err) ? err.message : String(err)}`);
      const refusal = HolonError.is(err) ? err.denials[0] : undefined;
      return refusal && OWN_REFUSALS.has(refusal.code) ? { refusal } : {};
    }
  }

  /**
   * The checks every offer passes before anything is signed: the configured chain (it is where Holon reads
   * the payment back), a token Holon knows, the declared payee, and no more than the call holds. Gives the
   * amount, and the amount as the call counts it.
   */
  private gate(option: PaymentRequirements, limit: PayLimit, payee: string | undefined): { amount: Money; counted: Money } | NotPaid {
    assertOnConfiguredChain(this.deps.chain, option.network, option.asset);
    const asset = knownAsset(option.network, option.asset);
    if (!asset) return { refusal: denial('offer_unpayable', { agent: limit.agent, offered: offered([option]) }) };
    const payTo = `${option.network}:${getAddress(option.payTo)}`;
    if (!payee || payee.toLowerCase() !== payTo.toLowerCase())
      return { refusal: denial('payee_undeclared', { agent: limit.agent, payee: payTo, declared: payee ?? null }) };
    const amount = fromAtomic(option.amount, asset.decimals, asset.currency);
    const counted = limit.convert(amount);
    // Never more than the call holds: for `upto`, its worst case.
    if (!counted || counted.currency !== limit.limit.currency) return {};
    if (M.compare(counted, limit.limit) > 0)
      return { refusal: denial('offer_above_hold', { agent: limit.agent, amount: M.toJson(counted), limit: M.toJson(limit.limit) }) };
    return { amount, counted };
  }

  /** An offer without terms: the cheapest the wallet can pay, signed by x402's client through the gate. */
  private async payPlainly(
    wallet: Wallet,
    store: EventStore<HolonState>,
    required: PaymentRequired,
    limit: PayLimit,
    payee: string | undefined,
  ) {
    const accepts = Array.isArray(required?.accepts) ? (required.accepts as unknown[]) : [];
    if (required?.x402Version !== 2 || accepts.length === 0)
      return { refusal: denial('offer_unpayable', { agent: limit.agent, offered: offered(accepts) }) };
    const payable = payableOffers(accepts);
    const chain = this.deps.chain;
    const option = chain ? cheapest(payable, chain) : undefined;
    if (!option) {
      // On another chain than the configured one: said as such; otherwise nothing here is payable.
      const elsewhere = payable[0];
      if (elsewhere) assertOnConfiguredChain(chain, elsewhere.network, elsewhere.asset);
      return { refusal: denial('offer_unpayable', { agent: limit.agent, offered: offered(accepts) }) };
    }
    const gated = this.gate(option, limit, payee);
    if (!('amount' in gated)) return gated;
    const signed = await signPlain({ wallet, chain: chain as ChainReader }, required, option);
    const settlement = await this.record(limit, signed, gated.amount, gated.counted);
    return { payload: signed, paid: { amount: M.toJson(gated.amount), terms_hash: null, ...(settlement ? { settlement } : {}) } };
  }

  /** An offer that advertises terms: paid only on terms that confirm, H the payment's nonce. */
  private async payOnTerms(wallet: Wallet, store: EventStore<HolonState>, document: unknown, limit: PayLimit, payee: string | undefined) {
    const { accepts, ...read } = readAdvertised(document);
    // `exact`, or `upto` (its worst case authorized, the real cost settled: x402Upto.ts), whichever authorizes less,
    // on the chain the human configured only.
    const chain = this.deps.chain;
    const option = choosePayment(accepts, chain);
    if (!option) {
      const elsewhere = [...exactOptions(accepts), ...uptoOptions(accepts)][0];
      if (elsewhere) assertOnConfiguredChain(chain, elsewhere.network, elsewhere.asset);
      return { refusal: denial('offer_unpayable', { agent: limit.agent, offered: offered(accepts) }) };
    }
    const gated = this.gate(option, limit, payee);
    if (!('amount' in gated)) return gated;
    const reader = chain as ChainReader;
    const upto = option.scheme === 'upto';
    // The nonce of an exact payment is the advertised H, which the ATR must hash to: whether the chain has
    // it spent already is read while the ATR is fetched, not after.
    const spent = upto ? undefined : readNonceSpent(reader, { authorization: { from: wallet.address, nonce: read.hash } });
    const { unsigned, served } = await confirmedChoice(
      { fetch: this.deps.fetch, now: this.deps.now },
      { ...read, options: [option] },
      `${option.network}:${wallet.address}`,
      upto ? UPTO : EXACT,
    );
    // The nonce is H: terms paid already, or whose payment may still land, are never signed again.
    if (!upto) await assertExactNonceUnspent(store.state, reader, { from: wallet.address, nonce: served }, spent);
    const signed = upto
      ? await paidUpto(
          { wallet, chain: reader, state: store.state },
          { option, resource: unsigned.resource, deadline: unsigned.validBefore, extensions: read.required.extensions },
          served,
        )
      : await paidByWallet({ ...unsigned, pairing: EXACT }, served, (r) => wallet.signTypedData(r as unknown as TypedRequest));
    const settlement = await this.record(limit, signed, gated.amount, gated.counted);
    return { payload: signed, paid: { amount: M.toJson(gated.amount), terms_hash: served, ...(settlement ? { settlement } : {}) } };
  }

  /** Records the signed payment before it leaves (its settlement, drawing its own hold from the call's). */
  private async record(limit: PayLimit, signed: PaymentPayload, amount: Money, held: Money) {
    const store = this.deps.store;
    const payment = chainPaymentOf(signed, amount);
    if (!store || !payment) throw new Error('a payment signed for an agent could not be recorded');
    const draft = { ...payment, mandate: limit.mandate, for: { kind: 'call' as const, id: limit.hold }, hold: newId('pay'), held };
    return (await recordSigned({ store, chain: this.deps.chain, wallet: this.deps.wallet }, draft, { parent: limit.hold })).id;
  }

  /**
   * Reads the chain for a payment the seller answered: what it says it settled is only where to look first.
   * An `upto` seller that says it settled nothing did not claim a payment (the permit still may be settled
   * until its deadline: its hold waits for that); one that says it settled another amount than the chain
   * moved is flagged, and the chain's amount is what is charged.
   */
  async landed(settlement: string | undefined, response: SellerSettlement | undefined): Promise<void> {
    const store = this.deps.store;
    if (!settlement || !store || !this.deps.clock) return;
    try {
      const claimed = response?.success === true && response.amount !== '0';
      if (claimed && response.transaction) await recordClaim({ store }, settlement, response.transaction, 'seller');
      const deps = { store, clock: this.deps.clock, chain: this.deps.chain, logger: this.deps.logger };
      const read = await checkLanding(deps, settlement, { claimed });
      const moved = read?.landed?.value;
      const asset = read && knownAsset(read.network, read.token);
      if (
        read?.status === 'landed' &&
        // A scheme that may settle for less than it authorized: the seller's word for how much is checked.
        authorizedOf(read) !== null &&
        asset &&
        claimed &&
        response.amount !== undefined &&
        moved !== response.amount
      ) {
        const words = (v: string): string => M.format(fromAtomic(v, asset.decimals, asset.currency));
        const detail = `the seller said it settled ${words(response.amount)}, and the chain moved ${words(moved ?? '0')}`;
        await flagSettlement(deps, settlement, 'other_amount', detail);
      }
    } catch (err) {
      // The chain is read again by the watch (landing.ts): the payment keeps its hold until then.
      this.deps.logger.warn(`could not read the chain for payment ${settlement} yet: ${(err as Error).message}`);
    }
  }
}
