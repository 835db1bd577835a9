/**
 * Journals written before spends had their own events recorded an agent call's hold inside
 * `call.started` and its settlement as `call.settled`, with reasons in words. They are read as the events
 * they stand for today; the journal itself is never rewritten (its hashes must hold).
 */
import type { ApprovalEvents } from '../approvals/slice.ts';
import { denial } from '../kernel/denials.ts';
import type { JournalEvent } from '../store/store.ts';
import type { ReceiptEvents } from '../market/receipts.ts';
import type { MandatesFields } from '../accounts/mandates.ts';
import type { Receipt } from '../kernel/model.ts';
import type { MoneyJson } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { SpendEvents } from '../money/spend.ts';

type LegacyReceipt = Omit<Receipt, 'denials'> & { reasons?: string[]; denials?: Receipt['denials'] };

function receiptOf(r: LegacyReceipt): Receipt {
  if (r.denials) return r as Receipt;
  const { reasons, ...rest } = r;
  return { ...rest, denials: (reasons ?? []).map((text) => denial('recorded', { text })) };
}

/** The events `e` stands for in today's vocabulary: itself, unless it is one of the old shapes. */
export function upcast(s: MandatesFields, e: JournalEvent): JournalEvent[] {
  const as = (type: string, data: unknown): JournalEvent => ({ ...e, type, data });
  switch (e.type) {
    case 'call.denied':
    case 'call.pending': {
      const d = e.data as { receipt: LegacyReceipt };
      return d.receipt.denials ? [e] : [as(e.type, { receipt: receiptOf(d.receipt) })];
    }
    case 'call.started': {
      const d = e.data as { receipt: LegacyReceipt; hold?: string; approval?: string | null };
      if (d.hold === undefined) return [e];
      const r = receiptOf(d.receipt);
      const m = s.mandates[r.mandate];
      const out: JournalEvent[] = [];
      if (d.approval) out.push(as('approval.used', { id: d.approval, by: r.id } satisfies ApprovalEvents['approval.used']));
      const placed: SpendEvents['hold.placed'] = {
        hold: r.id,
        mandate: r.mandate,
        account: m?.account ?? '',
        currency: m?.currency ?? r.worst_case?.currency ?? '',
        amount: d.hold,
        parent: r.parent,
        payee: { kind: 'agent', id: r.agent ?? '' },
      };
      out.push(as('hold.placed', placed), as('call.started', { receipt: r } satisfies ReceiptEvents['call.started']));
      return out;
    }
    case 'call.settled': {
      const d = e.data as Omit<ReceiptEvents['call.finished'], never> & { cost: MoneyJson; ended_at: string };
      const finished: ReceiptEvents['call.finished'] = {
        receipt: d.receipt,
        status: d.status,
        cost: d.cost,
        price_cost: d.price_cost,
        error: d.error,
        output_summary: d.output_summary,
        duration_ms: d.duration_ms,
      };
      const cost = M.parseUnits(d.cost.amount);
      const end =
        cost > 0n
          ? as('hold.settled', { hold: d.receipt, cost: d.cost.amount } satisfies SpendEvents['hold.settled'])
          : as('hold.released', { hold: d.receipt, reason: d.status } satisfies SpendEvents['hold.released']);
      return [as('call.finished', finished), end];
    }
    default:
      return [e];
  }
}
