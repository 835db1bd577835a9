/**
 * Every message a webview sends is checked here before the host acts on it: a webview renders other
 * agents' text, so what comes back from it is treated like any untrusted input.
 */
import { z } from 'zod';
import type { HolonViewCommand } from '../webview/protocol/holonView.ts';
import type { MandateEditorCommand } from '../webview/protocol/mandateEditor.ts';
import type { ReceiptsCommand } from '../webview/protocol/receipts.ts';
import { RECEIPT_STATUSES } from '../webview/protocol/receipts.ts';

const Id = z.string().min(1).max(80);
const Ready = z.object({ type: z.literal('ready') }).strict();

const HolonViewCommandSchema = z.discriminatedUnion('type', [
  Ready,
  z.object({ type: z.literal('approve'), id: Id }).strict(),
  z.object({ type: z.literal('reject'), id: Id }).strict(),
  z.object({ type: z.literal('run'), command: z.enum(['selectMandate', 'fundAccount', 'showReceipts', 'createMandate']) }).strict(),
]);

const ReceiptsCommandSchema = z.discriminatedUnion('type', [
  Ready,
  z.object({ type: z.literal('select'), id: Id }).strict(),
  z.object({ type: z.literal('filter'), filter: z.enum(['all', ...RECEIPT_STATUSES]) }).strict(),
]);

const Text = z.string().max(500);
const MandateEditorCommandSchema = z.discriminatedUnion('type', [
  Ready,
  z.object({ type: z.literal('cancel') }).strict(),
  z
    .object({
      type: z.literal('save'),
      values: z
        .object({
          id: Text,
          grantee: Text,
          currency: Text,
          total: Text,
          perDay: Text,
          perCall: Text,
          threshold: Text,
          toolsets: z.array(Text).max(10),
          capabilities: Text,
          regions: Text,
          retentionDays: Text,
          training: z.boolean(),
          expiresAt: Text,
          status: z.enum(['active', 'suspended', 'revoked']),
        })
        .strict(),
    })
    .strict(),
]);

function parse<T>(schema: z.ZodType<T>, value: unknown): T | undefined {
  const r = schema.safeParse(value);
  return r.success ? r.data : undefined;
}

/** A Holon view command, or undefined if the message is not one. */
export const parseHolonViewCommand = (v: unknown): HolonViewCommand | undefined => parse(HolonViewCommandSchema, v) as HolonViewCommand | undefined;
/** A receipts panel command, or undefined. */
export const parseReceiptsCommand = (v: unknown): ReceiptsCommand | undefined => parse(ReceiptsCommandSchema, v) as ReceiptsCommand | undefined;
/** A mandate editor command, or undefined. */
export const parseMandateEditorCommand = (v: unknown): MandateEditorCommand | undefined => parse(MandateEditorCommandSchema, v) as MandateEditorCommand | undefined;
