/**
 * How a payment Holon signed on a chain reads in any tool's result: where it stands, `landed in block N`
 * or not, and the transaction Holon read it in (core/rails/settlement.ts). One schema for every toolset
 * whose receipts carry one: a call's, an intent's, a purchase's.
 */
import * as z from 'zod';
import { PAID_FOR_KINDS } from '../../core/money/payments.ts';
import { SETTLEMENT_STATUSES } from '../../core/rails/settlement.ts';
import { MoneySchema } from '../../core/kernel/schemas.ts';

export const SettlementSchema = z
  .object({
    id: z.string(),
    status: z.enum(SETTLEMENT_STATUSES),
    summary: z.string().describe('landed in block N, or not landed and why'),
    network: z.string(),
    payee: z.string(),
    amount: MoneySchema.describe("What it paid, by Holon's reading of the chain (an upto payment not landed yet: the most it may pay)"),
    authorized: MoneySchema.nullable().describe('An upto payment: the most the wallet authorized (the worst case held); null for exact'),
    transaction: z.string().nullable().describe('The transaction Holon read the payment in, on the chain itself'),
    block: z.string().nullable(),
    claimed_transaction: z.string().nullable().describe("The transaction the payee named (its word, not Holon's reading)"),
    flag: z.object({ reason: z.enum(['not_on_chain', 'other_amount']), detail: z.string(), approval: z.string().nullable() }).nullable(),
    refund: z
      .object({
        amount: MoneySchema,
        transaction: z.string().nullable().describe('Where Holon read the refund on the chain; null until it did'),
        block: z.string().nullable(),
        credited: MoneySchema.nullable().describe('What went back to the mandate, in its currency'),
      })
      .nullable()
      .describe("A channel's deposit: what its closing gives back"),
  })
  .describe("The payment on the chain, as Holon's own reading of the chain found it");

/** A payment on a chain found on its own, by its settlement id: the payment, what it pays for, whose, and when. */
export const SettlementDetailSchema = SettlementSchema.extend({
  mandate: z.string(),
  for: z
    .object({
      kind: z.enum(PAID_FOR_KINDS),
      id: z.string().describe("The call's receipt (get_receipt takes it), the payment's spend, the intent, or the purchase"),
      idempotency_key: z.string().nullable().describe("An intent's idempotency key (get_job takes it); null for the others"),
    })
    .describe('What it pays for: an x402 call, a payment under terms (atr_transact, atr_agree, a channel), a pay intent, a purchase'),
  held: MoneySchema.describe("What the mandate's hold carries for it, in the mandate's currency"),
  signed_at: z.string(),
  updated_at: z.string(),
}).describe("A payment on the chain, found by its settlement id, as Holon's own reading of the chain found it");
