/** Core state → the webviews' protocol states. Pure, so the same mapping serves every panel. */
import type { Approval } from '../core/model.ts';
import * as M from '../core/money.ts';
import { budgetOf } from '../core/policy.ts';
import type { HolonState } from '../core/state.ts';
import type { BudgetInfo, HolonViewState, PendingApproval } from '../webview/protocol/holonView.ts';
import type { ReceiptNode, ReceiptRow, ReceiptsState } from '../webview/protocol/receipts.ts';
import { receiptTree, recentRootReceipts } from '../core/gateway.ts';
import type { ReceiptTree } from '../core/gateway.ts';

const fmt = (m: M.MoneyJson | null | undefined): string | null => (m ? M.format(M.fromJson(m)) : null);

/** The selected mandate's budget, formatted. */
export function budgetInfo(s: HolonState, mandateId: string, now: number): BudgetInfo | null {
  const m = s.mandates[mandateId];
  if (!m) return null;
  const b = budgetOf(s, m, now);
  return {
    mandate: m.id,
    status: m.status,
    total: M.format(b.total),
    spent: M.format(b.spent),
    held: M.format(b.held),
    remaining: M.format(b.remaining),
    perDay: b.per_day ? M.format(b.per_day) : null,
    spentToday: M.format(b.spent_today),
    perCall: b.per_call ? M.format(b.per_call) : null,
    threshold: M.format(b.threshold),
  };
}

/** Approvals still waiting (not decided, not expired), oldest first. */
export function pendingApprovals(s: HolonState, now: number): Approval[] {
  return Object.values(s.approvals)
    .filter((a) => a.status === 'pending' && Date.parse(a.expires_at) > now)
    .sort((a, b) => (a.requested_at < b.requested_at ? -1 : 1));
}

/** How much of an approval's input the view shows; the rest is cut, with a note. */
export const DETAIL_LIMIT = 4000;

/** Pretty-printed JSON, cut to `DETAIL_LIMIT` characters with a note saying so. */
function preview(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? String(value);
  if (text.length <= DETAIL_LIMIT) return text;
  // Never end on half a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(DETAIL_LIMIT - 1)) ? DETAIL_LIMIT - 1 : DETAIL_LIMIT;
  return `${text.slice(0, end)}\n… cut: the first ${end} of ${text.length} characters.`;
}

/** A core approval in the view's shape. Only agent calls exist in the core today. */
export function approvalView(a: Approval): PendingApproval {
  const delegated = a.delegated_calls.reduce((n, d) => n + d.max_count, 0);
  const facts = [{ label: 'Version', value: a.version }];
  if (delegated > 0) {
    facts.push({ label: 'Delegated calls', value: `up to ${delegated} (${a.delegated_calls.map((d) => `${d.capability} × ${d.max_count}`).join(', ')})` });
  }
  return {
    id: a.id,
    kind: 'agent_call',
    mandate: a.mandate,
    title: `Call ${a.agent} ${a.version}`,
    subject: a.agent,
    amount: fmt(a.worst_case),
    threshold: fmt(a.threshold),
    facts,
    detail: preview(a.input),
    removals: [],
    requestedAt: a.requested_at,
    expiresAt: a.expires_at,
  };
}

/** The Holon view's state. */
export function holonViewState(s: HolonState, mandateId: string | null, now: number, panelApprovals: boolean): HolonViewState {
  return {
    mandate: mandateId,
    budget: mandateId ? budgetInfo(s, mandateId, now) : null,
    approvals: pendingApprovals(s, now).map(approvalView),
    panelApprovals,
  };
}

function node(s: HolonState, t: ReceiptTree): ReceiptNode {
  const channel = t.approval ? (s.approvals[t.approval]?.channel ?? null) : null;
  return {
    id: t.id,
    mandate: t.mandate,
    agent: t.agent,
    version: t.version,
    status: t.status,
    cost: fmt(t.cost),
    totalCost: fmt(t.total_cost),
    worstCase: fmt(t.worst_case),
    durationMs: t.duration_ms,
    approval: t.approval,
    approvalChannel: channel,
    reasons: t.reasons,
    error: t.error ? `${t.error.code}: ${t.error.message}${t.error.charged ? ' (charged)' : ''}` : null,
    startedAt: t.started_at,
    children: t.children.map((c) => node(s, c)),
  };
}

function count(t: ReceiptTree): number {
  return t.children.reduce((n, c) => n + 1 + count(c), 0);
}

/** The receipts panel's state: the newest root calls (of every mandate), filtered, and one tree. */
export function receiptsState(s: HolonState, filter: ReceiptsState['filter'], selected: string | null, limit = 50): ReceiptsState {
  const roots = recentRootReceipts(s, { status: filter === 'all' ? undefined : filter, limit });
  const recent: ReceiptRow[] = roots.map((r) => {
    const t = receiptTree(s, r.id);
    return { id: r.id, mandate: r.mandate, agent: r.agent, status: r.status, totalCost: fmt(t.total_cost), startedAt: r.started_at, delegatedCalls: count(t) };
  });
  const chosen = selected && s.receipts[selected] ? selected : (recent[0]?.id ?? null);
  return { filter, recent, selected: chosen ? node(s, receiptTree(s, chosen)) : null };
}
