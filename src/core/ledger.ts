/**
 * The ledger of tool calls: every call a toolset ledgers, and every call refused for a missing
 * capability, with a safe summary of its arguments (never a body, a charter or a secret). Nothing is
 * folded from these: they are the record an auditor reads back.
 */
import type { Denial } from './denials.ts';
import type { EventStore } from './store.ts';
import { eventsOf } from './slice.ts';

/** The ledger's events. */
export interface LedgerEvents {
  /** The seed's `mcp.agent.<tool>`: `actor` is the grantee's slug (absent in journals written before). */
  'tool.called': { mandate: string; toolset: string; tool: string; actor?: string | null; summary: Record<string, unknown> };
  /** The seed's `run.denied (via: mcp)`. */
  'tool.denied': { mandate: string; toolset: string; tool: string; actor?: string | null; via?: 'mcp'; summary: Record<string, unknown>; denials: Denial[] };
}

const ledgerEvent = eventsOf<LedgerEvents>();

/** Records one tool call (allowed, or refused with its denials). */
export async function ledgerToolCall(store: EventStore<object>, entry: LedgerEvents['tool.called'], denials?: Denial[]): Promise<void> {
  await store.transact(() => ({
    events: [denials ? ledgerEvent('tool.denied', { ...entry, via: 'mcp', denials }) : ledgerEvent('tool.called', entry)],
    result: undefined,
  }));
}
