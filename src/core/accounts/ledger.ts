/**
 * The ledger of tool calls: every call a toolset ledgers, and every call refused or failed with an
 * expected error — a missing capability, arguments that do not fit, a target outside its scope — with a
 * safe summary of its arguments (never a body, a charter, a secret, nor a value that did not parse).
 * Nothing is folded from these: they are the record an auditor reads back.
 */
import type { Denial } from '../kernel/denials.ts';
import type { EventStore } from '../store/store.ts';
import { eventsOf } from '../store/slice.ts';

/** The ledger's events. */
export interface LedgerEvents {
  /** The seed's `mcp.agent.<tool>`: `actor` is the grantee's slug (absent in journals written before). */
  'tool.called': { mandate: string; toolset: string; tool: string; actor?: string | null; summary: Record<string, unknown> };
  /** The seed's `run.denied (via: mcp)`: why, as denial codes. */
  'tool.denied': {
    mandate: string;
    toolset: string;
    tool: string;
    actor?: string | null;
    via?: 'mcp';
    summary: Record<string, unknown>;
    denials: Denial[];
  };
}

const ledgerEvent = eventsOf<LedgerEvents>();

/**
 * Records one call, before anything can refuse it. The line is group-committed: written at once, so a
 * process killed mid-call (kill -9) loses nothing, and made durable by the call's first durable append
 * (a durable append makes every line before it durable: a payment's settlement, before it leaves) or by
 * the store's flush, which the caller awaits before the call answers (see the pipeline's ledgerCall).
 */
export async function ledgerToolCall(store: EventStore<object>, entry: LedgerEvents['tool.called']): Promise<void> {
  await store.transact(() => ({ events: [ledgerEvent('tool.called', entry)], result: undefined }), { durable: false });
}

/**
 * Records a refused call with its denials. `withCall`: the call itself goes first, in the same
 * transaction — for a toolset that ledgers every call, when the refusal came before the call was recorded.
 */
export async function ledgerRefusal(
  store: EventStore<object>,
  entry: LedgerEvents['tool.called'],
  denials: Denial[],
  withCall: boolean,
): Promise<void> {
  await store.transact(() => ({
    events: [...(withCall ? [ledgerEvent('tool.called', entry)] : []), ledgerEvent('tool.denied', { ...entry, via: 'mcp', denials })],
    result: undefined,
  }));
}
