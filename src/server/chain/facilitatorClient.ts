/**
 * The facilitator Holon settles its own payments through (`pay` to an `eip155:` account): the one the human
 * configured, reached with `@x402/core`'s HTTP facilitator client, as any x402 resource server reaches
 * one. A request that gets no answer throws: the facilitator may have submitted the payment all the same,
 * which is why the core records the payment first and reads the chain after (core/rails/chainPay.ts).
 */
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { FacilitatorAnswer, FacilitatorClient } from '../../core/rails/chainPay.ts';

/** How long a settlement may take before Holon stops waiting for the facilitator's answer (it may still land). */
const SETTLE_TIMEOUT_MS = 30_000;

/** A client of the facilitator at `url`. */
export function httpFacilitator(url: string, options: { timeoutMs?: number } = {}): FacilitatorClient {
  const client = new HTTPFacilitatorClient({ url, timeoutMs: options.timeoutMs ?? SETTLE_TIMEOUT_MS });
  return {
    settle: async (payload, requirements): Promise<FacilitatorAnswer> => {
      try {
        const r = await client.settle(payload as PaymentPayload, requirements as unknown as PaymentRequirements);
        return {
          success: r.success === true,
          transaction: typeof r.transaction === 'string' ? r.transaction : '',
          errorReason: r.errorReason,
        };
      } catch (err) {
        // A refusal the facilitator answered (a SettleError carries its reason) is an answer; anything else is none.
        const reason = (err as { errorReason?: unknown }).errorReason;
        if (typeof reason === 'string') return { success: false, transaction: '', errorReason: reason };
        throw err;
      }
    },
  };
}
