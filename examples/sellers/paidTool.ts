/**
 * A paid MCP tool: an MCP server on loopback (Streamable HTTP) whose tool `sum_amounts` costs a dollar
 * price per call, paid the way x402's MCP transport says (coinbase/x402, specs/transports-v2/mcp.md):
 *
 * - Called without a payment, the tool answers `isError: true` with the `PaymentRequired` as its
 *   `structuredContent`, and the same wrapped as `{"x402/error": {code: 402, message, data}}` in
 *   `content[0].text`.
 * - Called again with a `PaymentPayload` in `_meta["x402/payment"]`, it has the facilitator verify it, does
 *   the work, has the facilitator settle it, and answers with the settlement in `_meta["x402/payment-response"]`.
 * - A payment that does not verify is answered like an unpaid call, its reason in `error`: nothing is settled.
 *   A settlement that fails is answered `isError: true`, the `PaymentRequired` carrying the failed
 *   `x402/payment-response`, and the work is not given.
 *
 * The x402 side is the official seller's: `@x402/core`'s `x402ResourceServer` with `@x402/evm`'s `exact`
 * scheme, reaching the facilitator it is given with `HTTPFacilitatorClient`. The price is money (`$0.002`),
 * turned into the local chain's token by the scheme's money parser, as a seller on a chain x402 does not
 * know names its own token.
 *
 * Streamable HTTP rather than stdio: a paid tool is someone else's service, reached where it runs and paid
 * to its owner's address, and one server answers every buyer. Holon reaches it as a catalog agent whose
 * endpoint is `{type: "http", url, tool, payee}`.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { convertToTokenAmount } from '@x402/core/utils';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { getAddress } from 'viem';
import { z } from 'zod';
import { NETWORK, TOKEN } from '../chain/network.ts';
import { requestOf, sendResponse } from '../../src/server/transports/webFetch.ts';
import { SELLER } from './x402Seller.ts';

/** The paid tool's name, as a catalog endpoint names it. */
export const PAID_TOOL = 'sum_amounts';

/** How the tool asks to be paid. */
export type PaidToolVariant =
  /** As the spec says: the `PaymentRequired` in `structuredContent` and, wrapped, in `content[0].text`. */
  | 'honest'
  /** Only the `x402/error` wrapper in `content[0].text`, which the spec requires (no `structuredContent`). */
  | 'text-only'
  /** `exact` by a Permit2 transfer instead of the token's own EIP-3009 authorization. */
  | 'permit2';

export interface PaidToolOptions {
  /** The facilitator that verifies and settles (a URL). */
  facilitator: string;
  /** A dollar price per call (`$0.002`), in the local chain's token. */
  price?: string;
  /** Where payments go (an address): the example seller's by default. */
  payTo?: string;
  variant?: PaidToolVariant;
  /** A port on loopback; a free one by default. */
  port?: number;
}

export interface PaidTool {
  /** The MCP endpoint (Streamable HTTP). */
  url: string;
  /** The payee a catalog entry declares for it (CAIP-10). */
  payee: string;
  /** What one call asks: the offer of its `PaymentRequired`. */
  offer: PaymentRequirements;
  /** Every payment it was sent, as it arrived. */
  received: PaymentPayload[];
  /** What the facilitator reported for each payment it settled, in order. */
  settled: SettleResponse[];
  /** Payments it did not take, by the reason it gave. */
  refused: string[];
  close(): Promise<void>;
}

/** The most amounts one call adds, and the most digits each may have on either side of the point. */
const MAX_AMOUNTS = 1000;
const AMOUNT = /^-?[0-9]{1,18}(\.[0-9]{1,18})?$/;

/**
 * The exact sum of decimal amounts, as a decimal with as many places as the most precise of them (no
 * floating point anywhere: each amount is scaled to an integer first).
 */
export function sumAmounts(amounts: readonly string[]): string {
  const places = Math.max(0, ...amounts.map((a) => a.split('.')[1]?.length ?? 0));
  let total = 0n;
  for (const a of amounts) {
    const negative = a.startsWith('-');
    const [whole = '0', fraction = ''] = (negative ? a.slice(1) : a).split('.');
    const units = BigInt(whole + fraction.padEnd(places, '0'));
    total += negative ? -units : units;
  }
  const sign = total < 0n ? '-' : '';
  const digits = (total < 0n ? -total : total).toString().padStart(places + 1, '0');
  return places === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

/** The tool's result for a call that must be paid (again): the spec's two forms, or the text one only. */
function paymentRequiredResult(required: PaymentRequired, variant: PaidToolVariant, message: string): CallToolResult {
  const text = JSON.stringify({ 'x402/error': { code: 402, message, data: required } });
  return {
    isError: true,
    ...(variant === 'text-only' ? {} : { structuredContent: required as unknown as Record<string, unknown> }),
    content: [{ type: 'text', text }],
  };
}

/** Starts the paid tool on loopback, settling through `options.facilitator`. */
export async function startPaidTool(options: PaidToolOptions): Promise<PaidTool> {
  const variant = options.variant ?? 'honest';
  const payTo = getAddress(options.payTo ?? SELLER);
  // The local chain is not one x402 knows a token for: its money parser names the chain's own (6 decimals,
  // the EIP-712 domain its authorizations are signed in). Elsewhere the scheme's own table applies.
  const scheme = new ExactEvmScheme().registerMoneyParser(async (amount, network) =>
    network === NETWORK
      ? {
          amount: convertToTokenAmount(String(amount), 6),
          asset: TOKEN,
          extra: { name: 'USD Coin', version: '2', ...(variant === 'permit2' ? { assetTransferMethod: 'permit2' } : {}) },
        }
      : null,
  );
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: options.facilitator }));
  resourceServer.register(NETWORK, scheme);
  await resourceServer.initialize();
  const accepts = await resourceServer.buildPaymentRequirements({
    scheme: 'exact',
    network: NETWORK,
    payTo,
    price: options.price ?? '$0.002',
    maxTimeoutSeconds: 300,
  });
  const resource = { url: `mcp://tool/${PAID_TOOL}`, description: 'The exact sum of decimal amounts', mimeType: 'application/json' };
  const required = (error: string, payment?: PaymentPayload): Promise<PaymentRequired> =>
    resourceServer.createPaymentRequiredResponse(accepts, resource, error, undefined, undefined, payment);

  const tool: PaidTool = {
    url: '',
    payee: `${NETWORK}:${payTo}`,
    offer: accepts[0] as PaymentRequirements,
    received: [],
    settled: [],
    refused: [],
    close: async () => undefined,
  };

  /** One call of the tool: asked to pay, or paid, verified, done and settled. */
  const call = async (amounts: string[], payment: unknown): Promise<CallToolResult> => {
    if (payment === undefined) return paymentRequiredResult(await required('Payment required'), variant, 'Payment required');
    const payload = payment as PaymentPayload;
    tool.received.push(payload);
    const refuse = async (reason: string): Promise<CallToolResult> => {
      tool.refused.push(reason);
      return paymentRequiredResult(await required(reason, payload), variant, `Payment invalid: ${reason}`);
    };
    // Anything a buyer sends is read with care: a payment that is not one matches nothing.
    let matched: PaymentRequirements | undefined;
    try {
      matched = payload && typeof payload === 'object' ? resourceServer.findMatchingRequirements(accepts, payload) : undefined;
    } catch {
      matched = undefined;
    }
    if (!matched) return refuse('no_matching_requirements');
    let verified: Awaited<ReturnType<x402ResourceServer['verifyPayment']>>;
    try {
      verified = await resourceServer.verifyPayment(payload, matched);
    } catch (err) {
      return refuse(err instanceof Error ? err.message : 'verification_failed');
    }
    if (!verified.isValid) return refuse(verified.invalidReason ?? 'invalid_payment');
    const answer = { total: sumAmounts(amounts), count: amounts.length };
    let settlement: SettleResponse;
    try {
      settlement = await resourceServer.settlePayment(payload, matched);
    } catch (err) {
      settlement = {
        success: false,
        errorReason: err instanceof Error ? err.message : 'settlement_failed',
        transaction: '',
        network: matched.network,
      };
    }
    if (!settlement.success) {
      // The spec's settlement failure: the PaymentRequired again, carrying what the settlement said; no work.
      tool.refused.push(settlement.errorReason ?? 'settlement_failed');
      const failed = {
        ...(await required(`Payment settlement failed: ${settlement.errorReason ?? ''}`, payload)),
        'x402/payment-response': settlement,
      };
      return paymentRequiredResult(failed as PaymentRequired, variant, 'Payment settlement failed');
    }
    tool.settled.push(settlement);
    return {
      structuredContent: answer,
      content: [{ type: 'text', text: JSON.stringify(answer) }],
      _meta: { 'x402/payment-response': settlement },
    };
  };

  const mcpServer = (): McpServer => {
    const server = new McpServer({ name: 'paid-sum', version: '1.0.0' });
    // No outputSchema: the payment-required answer carries the PaymentRequired as structuredContent, which a
    // client that has listed the tools would check against it.
    server.registerTool(
      PAID_TOOL,
      {
        title: 'Sum amounts',
        description: `The exact sum of decimal amounts (no floating point). Paid per call through x402: ${options.price ?? '$0.002'}.`,
        inputSchema: z.object({ amounts: z.array(z.string().regex(AMOUNT, 'a decimal amount, such as 12.50 or -3')).min(1).max(MAX_AMOUNTS) }),
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async ({ amounts }, ctx) => call(amounts, ctx.mcpReq._meta?.['x402/payment']),
    );
    return server;
  };

  const httpServer = http.createServer((req, res) => {
    void (async () => {
      if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') return void res.writeHead(404).end();
      // Stateless at every revision: the SDK's per-request entry, a server per request.
      const handler = createMcpHandler(mcpServer);
      res.on('close', () => void handler.close());
      await sendResponse(res, await handler.fetch(requestOf(req, res, false)));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((r) => httpServer.listen(options.port ?? 0, '127.0.0.1', r));
  tool.url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
  tool.close = async () => {
    httpServer.closeAllConnections();
    await new Promise<void>((r) => httpServer.close(() => r()));
  };
  return tool;
}
