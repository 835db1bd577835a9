/**
 * Agents that are HTTP resources answering 402 (catalog endpoint `x402`): the input is POSTed as JSON; a
 * 402 is paid the way `atr_transact` pays on `x402/exact/eip155` — H confirmed from bytes fetched here,
 * the amount in a token Holon knows and within what the call holds, the human's wallet signing — and
 * the request sent again with the payment. The call's receipt carries H. Anything else is a failure,
 * not charged: nothing is paid for terms that do not confirm.
 */
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { Logger } from '../../core/deps.ts';
import { HolonError } from '../../core/errors.ts';
import type { AgentRunner, AgentRunResult } from '../../core/market/gateway.ts';
import type { Money } from '../../core/amount.ts';
import * as M from '../../core/amount.ts';
import type { FetchLike } from '../net/publicFetch.ts';
import type { TypedRequest, Wallet } from '../../core/wallet.ts';
import { knownAsset } from '../../core/money/assets.ts';
import { confirm, finish, readDocument } from './x402Exact.ts';

const failed = (errorCode: string): AgentRunResult => ({ isError: true, structured: null, text: '', units: 0, errorCode });

/** An amount in a token's smallest units as Money (rounded up past Holon's six decimals). */
export function fromAtomic(amount: string, decimals: number, currency: string): Money {
  const atomic = BigInt(amount);
  const shift = M.SCALE - decimals;
  const units = shift >= 0 ? atomic * 10n ** BigInt(shift) : (atomic + 10n ** BigInt(-shift) - 1n) / 10n ** BigInt(-shift);
  return { units, currency };
}

export class X402AgentRunner implements AgentRunner {
  constructor(private readonly deps: { fetch: FetchLike; wallet?: Wallet | undefined; now: () => number; logger: Logger }) {}

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
      const payment = await this.pay(res, request.pay);
      if (!payment) return failed('payment_refused');
      try {
        res = await post({ 'payment-signature': payment.header });
      } catch {
        return failed('unreachable');
      }
      paid = payment.paid;
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

  /** The payment for a 402, or nothing when Holon will not sign it. */
  private async pay(
    res: Response,
    limit: Parameters<AgentRunner['run']>[0]['pay'],
  ): Promise<{ header: string; paid: NonNullable<AgentRunResult['paid']> } | undefined> {
    const wallet = this.deps.wallet;
    const header = res.headers.get('payment-required');
    if (!wallet || !limit || !header) return undefined;
    try {
      const document = decodePaymentRequiredHeader(header);
      const option = readDocument(document).options.find((o) => knownAsset(o.network, o.asset));
      if (!option) return undefined;
      const asset = knownAsset(option.network, option.asset);
      if (!asset) return undefined;
      const amount = fromAtomic(option.amount, asset.decimals, asset.currency);
      const counted = limit.convert(amount);
      // Never more than the call holds.
      if (!counted || counted.currency !== limit.limit.currency || M.compare(counted, limit.limit) > 0) return undefined;
      const c = await confirm({ fetch: this.deps.fetch, now: this.deps.now }, document, `${option.network}:${wallet.address}`);
      const f = await finish(c.bytes, c.chosen, await wallet.signTypedData(c.request as unknown as TypedRequest));
      return { header: encodePaymentSignatureHeader(f.signed), paid: { amount: M.toJson(amount), terms_hash: f.atrHash } };
    } catch (err) {
      this.deps.logger.warn(`an agent's 402 was not paid: ${HolonError.is(err) ? err.message : String(err)}`);
      return undefined;
    }
  }
}
