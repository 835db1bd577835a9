/**
 * The terms tools of the channel pairing: keeping a channel the agent opened, recording the seller's
 * cumulative charge, and signing a later payment (or the refund that closes it) within the held channel.
 */
import * as z from 'zod';
import { CAP } from '../../core/kernel/capabilities.ts';
import { denial } from '../../core/kernel/denials.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import { mandateDenials, mandateOf } from '../../core/accounts/mandates.ts';
import { payeeDenial } from '../../core/money/walletPay.ts';
import { denialText } from '../../core/kernel/words.ts';
import { atrBytes } from '../../core/terms/atr.ts';
import { settlementView } from '../../core/rails/settlementView.ts';
import { channelSettlement, expectRefund } from '../../core/rails/refund.ts';
import { SettlementSchema } from './settlementSchema.ts';
import { CHANNEL, nextPayment, openChannel, recordCharge, signedByPayer, signInChannel, voucherPayload } from '../terms/x402Channel.ts';
import { defineTool } from './toolDef.ts';
import { anyJson, jsonLine, jsonObject, READ, WRITE } from './toolKit.ts';
import { Atr, declined, Hash, Json, outcome, walletOf, withWallet } from './termsKit.ts';

const ChannelPairing = z.enum([CHANNEL]).describe("The channel's pairing");
const HoldArg = z.record(z.string(), Json).describe('The latest hold, exactly as returned, mac included');
const HoldOut = jsonObject(Json);

export const atrChannelOpen = defineTool({
  name: 'atr_channel_open',
  title: 'Keep an opened channel',
  description:
    'Keeps a channel you opened: takes the signed opening, its landed receipt where there was one, and the mac returned beside them, ' +
    'and returns atrHash and the hold (pass the latest hold back exactly as returned).',
  toolset: 'terms',
  capability: null,
  input: z.object({
    pairing: ChannelPairing,
    atr: Atr,
    signed: Json.describe('The signed opening, exactly as returned'),
    landed: Json.nullish().describe('The landed receipt returned beside the opening, exactly as returned, where one was'),
    mac: z.string().max(100).describe('The mac returned beside the opening'),
  }),
  output: outcome({ atrHash: Hash, hold: HoldOut }),
  annotations: READ,
  summary: (a) => ({ pairing: a.pairing }),
  handler: async (args) => {
    const o = openChannel(atrBytes(args.atr), args.signed, args.landed ?? null, args.mac);
    return jsonLine({ atrHash: o.atrHash, hold: o.hold });
  },
});

export const atrChannelRecordCharge = defineTool({
  name: 'atr_channel_record_charge',
  title: "Record the seller's charge",
  description:
    "Records the seller's cumulative charge in a held channel. Returns atrHash and the updated hold. A hold not returned by this " +
    'server process, unchanged, is declined hold-unverified.',
  toolset: 'terms',
  capability: null,
  input: z.object({ hold: HoldArg, charged: z.string().max(80).describe("The seller's cumulative charge, decimal") }),
  output: outcome({ atrHash: Hash, hold: HoldOut }),
  annotations: READ,
  summary: () => ({}),
  handler: async (args) => {
    const r = recordCharge(args.hold, args.charged);
    return jsonLine({ atrHash: r.atrHash, hold: r.hold });
  },
});

export const atrChannelWithin = defineTool({
  name: 'atr_channel_within',
  title: 'Pay within a held channel',
  description:
    "Offered with the human's wallet. Signs one later payment in a held channel: the ATR, H and the channel come from the hold, the " +
    "amount from the seller's new document (which must advertise the held H and name the held channel); never above the deposit, and " +
    'only while this mandate still allows the payee. refund: {} signs the close instead.',
  toolset: 'terms',
  capability: CAP.pay,
  input: z.object({
    pairing: ChannelPairing,
    hold: HoldArg,
    document: Json.nullish().describe("The seller's new payment request"),
    refund: z
      .object({
        amount: z
          .string()
          .max(80)
          .nullish()
          .describe("What comes back, in the token's smallest units; by default all the deposit left beyond what was signed and charged"),
        paymentResponse: Json.nullish().describe(
          'The decoded PAYMENT-RESPONSE the seller answered a refund with; this pairing does not read it',
        ),
      })
      .nullish()
      .describe('Sign a refund instead of a voucher: {} closes the channel'),
    inputs: z.record(z.string(), Json).nullish().describe("The buyer's own values a refund's build needs"),
  }),
  output: outcome({ atrHash: Hash, signed: anyJson(Json), hold: HoldOut, settlement: SettlementSchema }),
  annotations: { ...WRITE, openWorldHint: true },
  summary: (a) => ({ pairing: a.pairing, refund: a.refund ? true : false }),
  offered: withWallet,
  handler: async (args, ctx) => {
    const wallet = walletOf(ctx);
    const next = nextPayment(args.hold, args.document ?? null, args.refund ?? null);
    // Holon's mandate on top of the seed's rules: still active, and still allowed to pay this payee.
    const s = ctx.deps.store.state;
    const payee = payeeDenial(s, ctx.mandate, `${next.h.network}:${next.h.payTo}`);
    const refusals = [...mandateDenials(mandateOf(s, ctx.mandate), ctx.deps.clock.now()), ...(payee ? [payee] : [])];
    if (refusals.length > 0) throw new HolonError('denied', refusals.map(denialText).join('; '), {}, refusals);
    if (wallet.address.toLowerCase() !== next.h.payer.toLowerCase()) {
      throw new HolonError('conflict', "the channel was opened by another wallet than this state's");
    }
    const { signed, hold } = await signInChannel(next, async (request) => {
      const signature = await wallet.signTypedData(request);
      if (!(await signedByPayer(next.h, request, signature))) throw declined(denial('signature_invalid', {}));
      return voucherPayload(next.h, request, signature, next.close);
    });
    // Closing gives back what the seller does not keep: looked for on the chain, and credited to the mandate once there.
    const deposit = next.close ? channelSettlement(s, next.h) : undefined;
    const back = BigInt(next.h.deposit) - BigInt(next.cumulative);
    if (deposit && back > 0n) await expectRefund({ store: ctx.deps.store, chain: ctx.deps.chain }, deposit.id, back);
    const paid = deposit ? ctx.deps.store.state.settlements[deposit.id] : undefined;
    return jsonLine({ atrHash: next.h.atrHash, signed, hold, ...(paid ? { settlement: settlementView(paid) } : {}) });
  },
});
