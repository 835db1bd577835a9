/**
 * What the terms tools share: the schemas of an ATR, a hash and a decline; the errors a terms tool
 * declines with; the wallet, the network and the cancellation of one call; and paying within the mandate
 * with the settlement record of what was signed.
 */
import * as z from 'zod';
import { denial } from '../../core/kernel/denials.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import { foreignFields } from '../../core/kernel/foreign.ts';
import type { AccountSigned, PaymentAsk } from '../../core/money/walletPay.ts';
import { payWithin } from '../../core/money/walletPay.ts';
import { denialText } from '../../core/kernel/words.ts';
import { isCanonicalBase64 } from '../../core/terms/atr.ts';
import type { Wallet } from '../../core/local/wallet.ts';
import { createApprovalWaiter } from '../approvalWait.ts';
import type { ServerDeps } from '../serverDeps.ts';
import type { FetchLike } from '../net/publicFetch.ts';
import { AGREEMENT } from '../terms/x402Agreement.ts';
import { chainPaymentOf } from '../x402/payer.ts';
import { settlementView } from '../../core/rails/settlementView.ts';
import { CHANNEL } from '../terms/x402Channel.ts';
import { EXACT } from '../terms/x402Exact.ts';
import type { ToolContext } from './toolDef.ts';

/** The pairings Holon implements (docs/terms-pairings.md); the input schema refuses any other id. */
export const PAIRINGS = [EXACT, AGREEMENT, CHANNEL] as const;
export const Pairing = z
  .enum(PAIRINGS)
  .describe('The pairing: how the seller advertises H and the ATR, and how H is bound into the payment');
export const Atr = z
  .string()
  .max(1_400_000)
  .refine(isCanonicalBase64, 'must be the ATR bytes as canonical padded standard base64 (atr.base64 as returned)')
  .describe("The ATR's bytes: atr.base64 exactly as atr_confirm returned it");
export const Json = z.json();
export const Hash = z.string().regex(/^0x[0-9a-f]{64}$/);
export const AtrView = z.object({ base64: z.string(), utf8: z.string().nullable() });
export const Approved = z
  .record(z.string(), Json)
  .nullish()
  .describe('The agreement payment the agent approved: approve from a previous call, unchanged');

export const DeclineShape = z.object({ code: z.string(), detail: z.string() });
export const Moved = z.object({ signed: Json, atr: AtrView, atrHash: Hash });

/**
 * A terms tool's output schema: its result's members, or a decline (with `moved` where a payment was
 * sent). Both are the same tool's structured content, and a client checks a decline against the schema
 * too, so every member is optional and the two shapes share one object.
 */
export function outcome<T extends z.ZodRawShape>(shape: T) {
  return z.object(shape).partial().extend({ decline: DeclineShape.optional(), moved: Moved.optional() });
}

/** A decline of one of Holon's own denials. */
export function declined(d: ReturnType<typeof denial>): HolonError {
  return new HolonError('denied', denialText(d), {}, [d]);
}

/** A payment the human has not allowed (yet): rejected, or waiting for them. */
export function waiting(kind: 'pending' | 'rejected', approval: string): HolonError {
  const d = kind === 'rejected' ? denial('rejected', { approval }) : denial('approval_pending', { approval });
  return new HolonError('denied', denialText(d), { approval }, [d]);
}

/**
 * The ATR as the agent reads it: its bytes as they are (the hash and every later call need them exactly),
 * and its text, the seller's words exactly (seed 002: "the text"), noted as the seller's.
 */
export function atrOut(atr: AtrViewOf): AtrViewOf {
  return foreignFields('seller', { base64: atr.base64, utf8: atr.utf8 }, ['utf8']);
}

/** The tools that sign are offered only where the human's wallet is. */
export const withWallet = (deps: ServerDeps): boolean => deps.wallet !== undefined;

/** The human's wallet; a tool that signs is offered only with one, so this guards a server's mistake. */
export function walletOf(ctx: ToolContext): Wallet {
  const wallet = ctx.deps.wallet;
  if (!wallet) throw new HolonError('not_found', 'no wallet: the human creates one with `holon wallet create`');
  return wallet;
}

/** A call the client cancelled (`notifications/cancelled`): nothing more is fetched, signed or sent for it. */
export function cancelled(): HolonError {
  return new HolonError('conflict', 'the client cancelled the call: nothing more was fetched, signed or sent');
}

/**
 * The network a call's tool uses: the server's fetch (its whole network policy), ended at once by the
 * client's cancellation of this call, as the library's `signal` ends its exchange (seed 002). Without
 * it, a request the seller holds open would end only at the fetch's own time limit; after cancellation
 * no fetch starts at all.
 */
export function netOf(ctx: ToolContext): { fetch: FetchLike; now: () => number } {
  const signal = ctx.extra.mcpReq.signal;
  const fetch: FetchLike = (input, init = {}) => {
    if (signal.aborted) return Promise.reject(cancelled());
    return ctx.deps.fetch(input, { ...init, signal: init.signal ? AbortSignal.any([init.signal, signal]) : signal });
  };
  return { fetch, now: () => ctx.deps.clock.now() };
}

/**
 * Pays within the mandate, waiting for the human where one must decide (in the panel, `holon approve`, or
 * the client's own form), and returns what the wallet signed; a payment not allowed (yet) is declined.
 * A call the client cancelled signs nothing (nothing is held). What the wallet signed on a chain (an
 * x402 payment and its EIP-3009 authorization, read from the result by `signedOf`) gets its settlement
 * record before it is returned, read back from the chain Holon is configured for, from the block `head`
 * (read by the caller beside its own reads of the chain, or here). Where the human's approval carried the
 * payment signed by their account, `sign` is handed it and sends it (a pairing that cannot is refused
 * before anything leaves).
 */
export async function signRecorded<T>(
  ctx: ToolContext,
  ask: PaymentAsk,
  sign: (account?: AccountSigned) => Promise<T>,
  options: { signedOf?: (result: T) => unknown; head?: Promise<bigint | null> } = {},
): Promise<{ result: T; settlement?: string }> {
  const wait = ctx.server ? { wait: createApprovalWaiter(ctx.deps, ctx.server, ctx.extra, ctx.round) } : {};
  const signal = ctx.extra.mcpReq.signal;
  const unlessCancelled = (account?: AccountSigned): Promise<T> => (signal.aborted ? Promise.reject(cancelled()) : sign(account));
  const signedOf = options.signedOf ?? ((r: T): unknown => r);
  const chain = {
    reader: ctx.deps.chain,
    payment: (r: T) => chainPaymentOf(signedOf(r), ask.amount),
    ...(options.head ? { head: options.head } : {}),
  };
  const paid = await payWithin(ctx.deps.store, ctx.deps.clock, ask, unlessCancelled, { signal, chain, ...wait });
  if (paid.kind !== 'paid') throw waiting(paid.kind, paid.approval.id);
  return { result: paid.result, ...(paid.settlement ? { settlement: paid.settlement } : {}) };
}

/**
 * `sign` for a payment whose form cannot carry the payment the human's account signed at approval (a
 * channel's deposit, an agreement's payments, whose nonces are not the approval's): where the approval
 * carried one, it is refused before the hot key signs anything, never paid by the hot key instead.
 */
export function walletOnly<T>(sign: () => Promise<T>): (account?: AccountSigned) => Promise<T> {
  return async (account) => {
    if (account)
      throw new HolonError(
        'denied',
        'your account signed this payment when you approved it, and this pairing cannot send that signature: nothing was signed ' +
          'or sent (pay it on the exact pairing, or approve it without the chain)',
        { reason: 'account_authorization' },
      );
    return sign();
  };
}

/** A settlement as a tool's result shows it. */
export function settlementOut(ctx: ToolContext, id: string | undefined) {
  const r = id ? ctx.deps.store.state.settlements[id] : undefined;
  return r ? { settlement: settlementView(r) } : {};
}

/** The ATR as a tool shows it: its bytes as base64, and its text where it is UTF-8. */
export type AtrViewOf = { base64: string; utf8: string | null };
