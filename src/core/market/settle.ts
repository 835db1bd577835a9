/**
 * How a call that ran ends: what the agent's answer counts as (judge), and the transaction that settles
 * its hold and finishes its receipt (finishCall). The agent's own words never reach the receipt.
 */
import type { HolonState } from '../fold/state.ts';
import type { Money } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { AgentEntry, Receipt } from '../kernel/model.ts';
import { convertTo } from '../money/fx.ts';
import { chargeOf } from '../rails/settlementView.ts';
import { endHold, spendEvent } from '../money/spend.ts';
import type { NewEvent } from '../store/store.ts';
import type { AgentRunResult, SchemaValidator } from './call.ts';
import { CALL_FAILURES, MAX_OUTPUT_BYTES } from './call.ts';
import { costOf } from './policy.ts';
import type { ReceiptEvents } from './receipts.ts';
import { applyToReceipt, receiptEvent } from './receipts.ts';

/** What an agent's answer counts as (see judge). */
export type Judged = ReturnType<typeof judge>;

/**
 * What an agent's answer counts as. A declared error is charged as the manifest says; an output over
 * the size cap or outside the declared output schema is a failure, never charged, and counts against
 * the agent's record. The agent's own words never reach the receipt: only a code and a description
 * Holon or the manifest wrote.
 */
export function judge(
  entry: AgentEntry,
  r: AgentRunResult,
  validate: SchemaValidator | undefined,
): { result: AgentRunResult | null; error: Receipt['error']; charged: boolean; units: number; summary?: string } {
  const fail = (code: keyof typeof CALL_FAILURES): { result: null; error: Receipt['error']; charged: false; units: 0 } => ({
    result: null,
    error: { code, message: CALL_FAILURES[code], charged: false },
    charged: false,
    units: 0,
  });
  if (r.isError) {
    const declared = entry.manifest.errors.find((e) => e.code === r.errorCode);
    if (declared)
      return {
        result: r,
        error: { code: declared.code, message: declared.description, charged: declared.charged },
        charged: declared.charged,
        units: r.units,
      };
    const own: readonly string[] = [
      'timeout',
      'unreachable',
      'payment_refused',
      'payment_not_taken',
    ] satisfies (keyof typeof CALL_FAILURES)[];
    if (r.errorCode && own.includes(r.errorCode)) return fail(r.errorCode as keyof typeof CALL_FAILURES);
    return { ...fail('undeclared_error'), result: r };
  }
  // Written to JSON once: its size here, and in the receipt's summary.
  const json = r.structured !== null && r.structured !== undefined ? JSON.stringify(r.structured) : undefined;
  const size = Buffer.byteLength(json ?? r.text);
  if (size > MAX_OUTPUT_BYTES) return fail('output_too_large');
  const value = json !== undefined ? r.structured : parseOr(r.text);
  const problems = validate?.(entry.manifest.output_schema, value) ?? [];
  if (problems.length > 0) return fail('invalid_output');
  return { result: r, error: null, charged: true, units: r.units, summary: describeOutput(r, json) };
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The shape and size of an output (its structured part as `json`, when it has one), never its text:
 * what the ledger keeps of another agent's words.
 */
function describeOutput(r: AgentRunResult, json: string | undefined): string {
  if (json === undefined) return `text, ${r.text.length} chars`;
  return `${Array.isArray(r.structured) ? 'JSON array' : 'JSON object'}, ${json.length} bytes`;
}

/** A call that ran, as finishCall settles it. */
export interface RanCall {
  receipt: Receipt;
  entry: AgentEntry;
  /** What the call held. */
  hold: Money;
  result: AgentRunResult;
  judged: Judged;
  duration: number;
  endedAt: string;
}

/**
 * The events that settle a call's hold and finish its receipt, decided on the latest state, and the
 * receipt as the journal will read it back.
 */
export function finishCall(s: HolonState, call: RanCall): { events: NewEvent[]; result: Receipt } {
  const { receipt, entry, hold, result, judged, duration, endedAt } = call;
  // What an agent was paid through the terms pairings is what it cost; otherwise its price.
  const priceCost = !judged.charged
    ? M.zero(entry.manifest.price.currency)
    : result.paid
      ? M.fromJson(result.paid.amount)
      : costOf(entry, judged.units);
  const currency = s.mandates[receipt.mandate]?.currency ?? hold.currency;
  // A payment on a chain Holon reads holds its own money, drawn from this call's, until the chain
  // says where it went (rails/landing.ts): the call's own hold then owes nothing more for it.
  const stl = result.paid?.settlement ? s.settlements[result.paid.settlement] : undefined;
  // (An `upto` payment that landed already carries what the chain moved, no longer its worst case.)
  const carries = stl !== undefined && stl.status !== 'unchecked' && stl.held.currency === currency;
  const carried = carries ? M.fromJson(stl.status === 'landed' ? chargeOf(stl) : stl.held).units : 0n;
  // Never charge more than was held for this call (what its children did not use).
  const cost = carries ? M.zero(currency) : (convertTo(s, priceCost, currency) ?? M.zero(currency));
  const end =
    carries && s.holds[receipt.id]
      ? { events: [spendEvent('hold.settled', { hold: receipt.id, cost: '0.00' })], charged: 0n }
      : endHold(s, receipt.id, cost, judged.error?.code ?? 'succeeded');
  const finished: ReceiptEvents['call.finished'] = {
    receipt: receipt.id,
    status: judged.error ? 'failed' : 'succeeded',
    cost: M.toJson({ units: end.charged + carried, currency }),
    price_cost: M.toJson(priceCost),
    error: judged.error,
    output_summary: judged.error ? null : (judged.summary ?? null),
    duration_ms: duration,
    ended_at: endedAt,
    terms_hash: result.paid?.terms_hash ?? null,
    // Why Holon refused to pay it, where it was a refusal of its own: said as every refusal is.
    ...(judged.error?.code === 'payment_refused' && result.refusal ? { denials: [result.refusal] } : {}),
  };
  // The receipt as the journal will read it back, built here: it has left the folded state.
  const open = s.open_receipts[receipt.id] ?? receipt;
  const done = applyToReceipt(open, { type: 'call.finished', data: finished }, endedAt) ?? open;
  return { events: [receiptEvent('call.finished', finished), ...end.events], result: structuredClone(done) };
}
