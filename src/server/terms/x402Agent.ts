/**
 * Agents that are HTTP resources answering 402 (catalog endpoint `x402`): the input is POSTed as JSON; a
 * 402 is paid the way `atr_transact` pays on `x402/exact/eip155` — H confirmed from bytes fetched here,
 * the amount in a token Holon knows and within what the call holds, the human's wallet signing — and
 * the request sent again with the payment. An agent offering x402's `upto` is paid its worst case at most
 * (x402Upto.ts), and charged what the chain shows it was paid. The call's receipt carries H. Anything else is a failure,
 * not charged: nothing is paid for terms that do not confirm. On a chain Holon reads, the payment is
 * recorded (its settlement, with a hold of its own drawn from the call's) before it is sent, and read back
 * from the chain once the seller answers: the transaction its `PAYMENT-RESPONSE` names is only where
 * Holon looks first.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import type { Clock, Logger } from '../../core/kernel/deps.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import type { AgentRunner, AgentRunResult } from '../../core/market/gateway.ts';
import type { Money } from '../../core/kernel/amount.ts';
import * as M from '../../core/kernel/amount.ts';
import type { FetchLike } from '../net/publicFetch.ts';
import type { TypedRequest, Wallet } from '../../core/local/wallet.ts';
import type { ChainReader } from '../../core/rails/chain.ts';
import { newId } from '../../core/kernel/ids.ts';
import type { ChainPayment } from '../../core/money/walletPay.ts';
import { checkLanding, flagSettlement, recordClaim } from '../../core/rails/landing.ts';
import { authorizedOf } from '../../core/rails/settlementView.ts';
import { recordSigned } from '../../core/rails/signing.ts';
import type { Authorization } from '../../core/rails/scheme.ts';
import type { EventStore } from '../../core/store/store.ts';
import type { HolonState } from '../../core/fold/state.ts';
import { knownAsset } from '../../core/rails/assets.ts';
import type { UptoAuthorization } from '../../core/rails/schemes/upto.ts';
import { uptoSettlementAuthorization } from '../../core/rails/schemes/upto.ts';
import { confirmedChoice, EXACT, exactOptions, paidByWallet, readAdvertised } from './x402Exact.ts';
import { choosePayment, paidUpto, UPTO, uptoOptions } from './x402Upto.ts';
import { assertExactNonceUnspent, assertOnConfiguredChain } from '../../core/rails/signing.ts';
import type { Denial } from '../../core/kernel/denials.ts';
import { denial } from '../../core/kernel/denials.ts';
import type { Endpoint } from '../../core/kernel/model.ts';
import { getAddress } from 'viem';

const failed = (errorCode: string): AgentRunResult => ({ isError: true, structured: null, text: '', units: 0, errorCode });

/** The refusals a call's receipt says in words: Holon's own, of values it checked the form of. */
const OWN_REFUSALS: ReadonlySet<Denial['code']> = new Set<Denial['code']>([
  'other_chain',
  'terms_paid',
  'payment_open',
  'payee_undeclared',
]);

/** An amount in a token's smallest units as Money (rounded up past Holon's six decimals). */
export function fromAtomic(amount: string, decimals: number, currency: string): Money {
  const atomic = BigInt(amount);
  const shift = M.SCALE - decimals;
  const units = shift >= 0 ? atomic * 10n ** BigInt(shift) : (atomic + 10n ** BigInt(-shift) - 1n) / 10n ** BigInt(-shift);
  return { units, currency };
}

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

/**
 * A seller's `PAYMENT-RESPONSE`, when it sent one that reads: whether it says it settled, the transaction it
 * names and, where it says one, the amount (the token's smallest units) it says it settled.
 */
export function paymentResponseOf(res: Response): { success: boolean; transaction: string; amount?: string } | undefined {
  const header = res.headers.get('payment-response');
  if (!header) return undefined;
  try {
    const r = decodePaymentResponseHeader(header);
    const amount = typeof r.amount === 'string' && /^[0-9]{1,78}$/.test(r.amount) ? { amount: r.amount } : {};
    return { success: r.success === true, transaction: typeof r.transaction === 'string' ? r.transaction : '', ...amount };
  } catch {
    return undefined;
  }
}

export class X402AgentRunner implements AgentRunner {
  constructor(
    private readonly deps: {
      fetch: FetchLike;
      wallet?: Wallet | undefined;
      now: () => number;
      logger: Logger;
      /** Where a payment is recorded before it is sent, and the chain it is read back from (none: not read). */
      store?: EventStore<HolonState>;
      clock?: Clock;
      chain?: ChainReader | undefined;
    },
  ) {}

  async run(request: Parameters<AgentRunner['run']>[0]): Promise<AgentRunResult> {
    const endpoint = request.endpoint;
    if (endpoint.type !== 'x402') return failed('unreachable');
    const body = JSON.stringify(request.input ?? {});
    const post = (headers: Record<string, string> = {}): Promise<Response> =>
      this.deps.fetch(endpoint.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body,
        ...(request.signal ? { signal: request.signal } : {}),
      });
    let res: Response;
    try {
      res = await post();
    } catch {
      return failed('unreachable');
    }
    let paid: AgentRunResult['paid'];
    if (res.status === 402) {
      const payment = await this.pay(res, request.pay, endpoint);
      if (!('paid' in payment)) return { ...failed('payment_refused'), ...(payment.refusal ? { refusal: payment.refusal } : {}) };
      paid = payment.paid;
      try {
        res = await post({ 'payment-signature': payment.header });
      } catch {
        // Sent, and the answer lost: the chain says whether it landed (the payment keeps its own hold meanwhile).
        await this.landed(paid.settlement, undefined);
        return { ...failed('unreachable'), paid };
      }
      await this.landed(paid.settlement, paymentResponseOf(res));
    }
    const text = await res.text().catch(() => '');
    if (res.status !== 200) return { ...failed(res.status === 402 ? 'payment_refused' : 'unreachable'), ...(paid ? { paid } : {}) };
    let structured: unknown = null;
    try {
      structured = JSON.parse(text);
    } catch {
      structured = null;
    }
    return { isError: false, structured, text, units: 0, ...(paid ? { paid } : {}) };
  }

  /**
   * The payment for a 402, or why Holon will not sign it (`refusal`, where the refusal is one of its own
   * words: another chain, another payee, terms paid already; otherwise only logged).
   */
  private async pay(
    res: Response,
    limit: Parameters<AgentRunner['run']>[0]['pay'],
    endpoint: Extract<Endpoint, { type: 'x402' }>,
  ): Promise<{ header: string; paid: NonNullable<AgentRunResult['paid']> } | { refusal?: Denial }> {
    const wallet = this.deps.wallet;
    const header = res.headers.get('payment-required');
    const store = this.deps.store;
    if (!wallet || !limit || !header || !store) return {};
    try {
      const document = decodePaymentRequiredHeader(header);
      const { accepts, ...read } = readAdvertised(document);
      // `exact`, or `upto` (its worst case authorized, the real cost settled: x402Upto.ts), whichever authorizes less,
      // on the chain the human configured only.
      const chain = this.deps.chain;
      const option = choosePayment(accepts, chain);
      if (!option) {
        const elsewhere = [...exactOptions(accepts), ...uptoOptions(accepts)][0];
        if (elsewhere) assertOnConfiguredChain(chain, elsewhere.network, elsewhere.asset);
        return {};
      }
      assertOnConfiguredChain(chain, option.network, option.asset);
      const asset = knownAsset(option.network, option.asset);
      if (!asset) return {};
      // Only to the payee the human added the agent with.
      const payTo = `${option.network}:${getAddress(option.payTo)}`;
      if (!endpoint.payee || endpoint.payee.toLowerCase() !== payTo.toLowerCase())
        return { refusal: denial('payee_undeclared', { agent: limit.agent, payee: payTo, declared: endpoint.payee ?? null }) };
      const amount = fromAtomic(option.amount, asset.decimals, asset.currency);
      const counted = limit.convert(amount);
      // Never more than the call holds: for `upto`, its worst case.
      if (!counted || counted.currency !== limit.limit.currency || M.compare(counted, limit.limit) > 0) return {};
      const upto = option.scheme === 'upto';
      const { unsigned, served } = await confirmedChoice(
        { fetch: this.deps.fetch, now: this.deps.now },
        { ...read, options: [option] },
        `${option.network}:${wallet.address}`,
        upto ? UPTO : EXACT,
      );
      // The nonce is H: terms paid already, or whose payment may still land, are never signed again.
      if (!upto) await assertExactNonceUnspent(store.state, chain, { from: wallet.address, nonce: served });
      const signed = upto
        ? await paidUpto(
            { wallet, chain, state: store.state },
            { option, resource: unsigned.resource, deadline: unsigned.validBefore, extensions: read.required.extensions },
            served,
          )
        : await paidByWallet({ ...unsigned, pairing: EXACT }, served, (r) => wallet.signTypedData(r as unknown as TypedRequest));
      const settlement = await this.record(limit, signed, amount, counted);
      return {
        header: encodePaymentSignatureHeader(signed),
        paid: { amount: M.toJson(amount), terms_hash: served, ...(settlement ? { settlement } : {}) },
      };
    } catch (err) {
      this.deps.logger.warn(`an agent's 402 was not paid: ${HolonError.is(err) ? err.message : String(err)}`);
      const refusal = HolonError.is(err) ? err.denials[0] : undefined;
      return refusal && OWN_REFUSALS.has(refusal.code) ? { refusal } : {};
    }
  }

  /** Records the signed payment before it leaves (its settlement, drawing its own hold from the call's). */
  private async record(limit: NonNullable<Parameters<AgentRunner['run']>[0]['pay']>, signed: PaymentPayload, amount: Money, held: Money) {
    const store = this.deps.store;
    const payment = chainPaymentOf(signed, amount);
    if (!store || !payment) throw new Error('a payment signed for an agent could not be recorded');
    const draft = { ...payment, mandate: limit.mandate, for: { kind: 'call' as const, id: limit.hold }, hold: newId('pay'), held };
    return (await recordSigned({ store, chain: this.deps.chain }, draft, { parent: limit.hold })).id;
  }

  /**
   * Reads the chain for a payment the seller answered: what its `PAYMENT-RESPONSE` names is only where to
   * look first. An `upto` seller that says it settled nothing did not claim a payment (the permit still may
   * be settled until its deadline: its hold waits for that); one that says it settled another amount than
   * the chain moved is flagged, and the chain's amount is what is charged.
   */
  private async landed(settlement: string | undefined, response: ReturnType<typeof paymentResponseOf>): Promise<void> {
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
