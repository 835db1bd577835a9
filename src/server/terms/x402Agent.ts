/**
 * Agents that are HTTP resources answering 402 (catalog endpoint `x402`): the call's input becomes the
 * request as the endpoint says (a JSON body, or the query string of a GET), and a 402's `PAYMENT-REQUIRED`
 * offer is paid by the payer (x402/payer.ts: on terms where the seller advertises them, plainly where it
 * does not) and the request sent again with the payment. Anything else is a failure, not charged.
 *
 * A paid request whose answer is lost is sent again with the same payment, never a new one: a seller that
 * takes x402's `payment-identifier` answers it as the first; one that does not refuses it, and the chain
 * says whether the first landed.
 */
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { AgentRunner, AgentRunResult } from '../../core/market/gateway.ts';
import type { Endpoint } from '../../core/kernel/model.ts';
import type { PayerDeps } from '../x402/payer.ts';
import { requiredOfHeader, settlementOf, X402Payer } from '../x402/payer.ts';

const failed = (errorCode: string): AgentRunResult => ({ isError: true, structured: null, text: '', units: 0, errorCode });

/** How many times a paid request is sent in all when its answer is lost (each time with the same payment). */
const PAID_SENDS = 2;

/** A seller's `PAYMENT-RESPONSE`, when it sent one that reads. */
export function paymentResponseOf(res: Response): ReturnType<typeof settlementOf> {
  const header = res.headers.get('payment-response');
  if (!header) return undefined;
  try {
    return settlementOf(decodePaymentResponseHeader(header));
  } catch {
    return undefined;
  }
}

type X402Endpoint = Extract<Endpoint, { type: 'x402' }>;

/** The request the call's input makes: its URL and init, as the endpoint names its method and input. */
export function requestOf(
  endpoint: X402Endpoint,
  input: unknown,
): { url: string; init: { method: string; headers: Record<string, string>; body?: string } } {
  const method = endpoint.method ?? 'POST';
  const inQuery = endpoint.input === 'query' || (endpoint.input === undefined && (method === 'GET' || method === 'DELETE'));
  if (!inQuery)
    return {
      url: endpoint.url,
      init: { method, headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(input ?? {}) },
    };
  const url = new URL(endpoint.url);
  if (input && typeof input === 'object' && !Array.isArray(input))
    for (const [k, v] of Object.entries(input as Record<string, unknown>)) {
      if (v === undefined || v === null) continue;
      // A nested value has no one query form: it goes as its JSON, which is what a typed reader parses.
      url.searchParams.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
  return { url: url.toString(), init: { method, headers: { accept: 'application/json' } } };
}

export class X402AgentRunner implements AgentRunner {
  private readonly payer: X402Payer;

  constructor(private readonly deps: PayerDeps) {
    this.payer = new X402Payer(deps);
  }

  /** The payer, which a paid MCP tool's call shares (agentClient.ts). */
  get paying(): X402Payer {
    return this.payer;
  }

  async run(request: Parameters<AgentRunner['run']>[0]): Promise<AgentRunResult> {
    const endpoint = request.endpoint;
    if (endpoint.type !== 'x402') return failed('unreachable');
    const { url, init } = requestOf(endpoint, request.input);
    const send = (headers: Record<string, string> = {}): Promise<Response> =>
      this.deps.fetch(url, {
        ...init,
        headers: { ...init.headers, ...headers },
        ...(request.signal ? { signal: request.signal } : {}),
      });
    let res: Response;
    try {
      res = await send();
    } catch {
      return failed('unreachable');
    }
    let paid: AgentRunResult['paid'];
    if (res.status === 402) {
      const payment = await this.payer.pay(requiredOfHeader(res.headers.get('payment-required')), request.pay, endpoint.payee);
      if (!('paid' in payment)) return { ...failed('payment_refused'), ...(payment.refusal ? { refusal: payment.refusal } : {}) };
      paid = payment.paid;
      const header = { 'payment-signature': encodePaymentSignatureHeader(payment.payload) };
      let answered: Response | undefined;
      for (let i = 0; i < PAID_SENDS && !answered && !request.signal?.aborted; i++) answered = await send(header).catch(() => undefined);
      // Sent, and every answer lost: the chain says whether it landed (the payment keeps its own hold meanwhile).
      await this.payer.landed(paid.settlement, answered && paymentResponseOf(answered));
      if (!answered) return { ...failed('unreachable'), paid };
      res = answered;
    }
    const text = await res.text().catch(() => '');
    // Asked again after it was paid: it did not take the payment (a 402 before any payment is a refusal of Holon's, above).
    if (res.status !== 200)
      return { ...failed(res.status === 402 && paid ? 'payment_not_taken' : 'unreachable'), ...(paid ? { paid } : {}) };
    let structured: unknown = null;
    try {
      structured = JSON.parse(text);
    } catch {
      structured = null;
    }
    return { isError: false, structured, text, units: 0, ...(paid ? { paid } : {}) };
  }
}
