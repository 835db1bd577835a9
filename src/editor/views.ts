/** Core state → the webviews' protocol states. Pure, so the same mapping serves every panel. */
import { mayDecide } from '../core/decisions/decide.ts';
import { pendingApprovals } from '../core/approvals/flow.ts';
import { accountOfApproval } from '../core/approvals/slice.ts';
import type { Approval } from '../core/approvals/model.ts';
import type { ReceiptTree } from '../core/market/receiptTree.ts';
import type { ReceiptSource } from '../core/market/receiptTree.ts';
import { readReceipt, recentRootReceipts, treeOf } from '../core/market/receiptTree.ts';
import * as M from '../core/amount.ts';
import { APPROVAL_KIND_LABELS, approvalView, deciderText } from '../core/present.ts';
import { denialTexts } from '../core/words.ts';
import { budgetOf } from '../core/money/spend.ts';
import type { HolonState } from '../core/state.ts';
import type { Signer } from '../core/store/store.ts';
import { hasTeam } from '../core/team.ts';
import type { BudgetInfo, HolonViewState, PendingApproval, StoreInfo } from '../webview/protocol/holonView.ts';
import type { StoreInUse } from './storeSetting.ts';
import type { ProposalState } from '../webview/protocol/proposal.ts';
import type { PurchaseRow, ReceiptNode, ReceiptRow, ReceiptsState } from '../webview/protocol/receipts.ts';
import { purchasesOf } from '../core/commerce/purchases.ts';
import { approvalStatus } from '../core/approvals/model.ts';

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

/**
 * A core approval in the view's shape: the shared presentation of every kind, with its id and dates, who
 * asked and from which machine, and whether `decider` (this installation) may decide it.
 */
export function pendingApprovalView(s: HolonState, a: Approval, decider?: Pick<Signer, 'publicKey'>): PendingApproval {
  const account = accountOfApproval(s, a);
  const may = mayDecide(s, a, decider);
  return {
    id: a.id,
    kind: a.kind,
    kindLabel: APPROVAL_KIND_LABELS[a.kind],
    mandate: a.mandate,
    ...approvalView(a),
    requestedAt: a.requested_at,
    expiresAt: a.expires_at,
    askedBy: s.mandates[a.mandate]?.grantee.name ?? a.mandate,
    machine: a.origin?.machine ?? null,
    mayDecide: may,
    // Who may decide is worth saying only where there is a team: alone, this installation decides everything.
    decider: deciderText(hasTeam(s) ? may : null, account),
  };
}

/**
 * The Holon view's state; `decider` is this installation, whose right to decide each approval is shown;
 * `store` is where the ledger is.
 */
export function holonViewState(
  s: HolonState,
  mandateId: string | null,
  now: number,
  panelApprovals: boolean,
  wallet: string | null = null,
  decider?: Pick<Signer, 'publicKey'>,
  store: StoreInfo = storeInfo({ kind: 'journal' }),
): HolonViewState {
  return {
    mandate: mandateId,
    budget: mandateId ? budgetInfo(s, mandateId, now) : null,
    approvals: pendingApprovals(s, now).map((a) => pendingApprovalView(s, a, decider)),
    panelApprovals,
    wallet,
    ...officeRows(s),
    store,
  };
}

/** Where the ledger is, as the view shows it: the team store's `host/database`, never its URL. */
export function storeInfo(where: StoreInUse, failure?: string): StoreInfo {
  return where.kind === 'team'
    ? { kind: 'team', label: where.label, error: failure ?? null }
    : { kind: 'journal', label: "this workspace's journal", error: failure ?? null };
}

/** The office's mail waiting to be read (what woke someone) and its newest artifacts. */
export function officeRows(s: HolonState, limit = 20): Pick<HolonViewState, 'mail' | 'artifacts'> {
  const newest = <T extends { at: string }>(rows: T[]): T[] =>
    rows.sort((a, b) => (a.at > b.at ? -1 : a.at < b.at ? 1 : 0)).slice(0, limit);
  return {
    mail: newest(
      Object.values(s.office.threads)
        .filter((t) => t.state === 'new')
        .map((t) => ({ id: t.id, to: t.to, from: t.from, subject: t.subject, woke: t.woke, at: t.created_at })),
    ),
    artifacts: newest(
      Object.values(s.office.artifacts)
        .reverse()
        .map((a) => ({ id: a.id, title: a.title, kind: a.kind, author: a.slug, at: a.created_at })),
    ),
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
    reasons: denialTexts(t.denials),
    error: t.error ? `${t.error.code}: ${t.error.message}${t.error.charged ? ' (charged)' : ''}` : null,
    startedAt: t.started_at,
    children: t.children.map((c) => node(s, c)),
  };
}

/** The receipts panel's state: the newest root calls (of every mandate), filtered, and one tree, read back from the journal. */
export async function receiptsState(
  store: ReceiptSource & { state: HolonState },
  filter: ReceiptsState['filter'],
  selected: string | null,
  limit = 50,
): Promise<ReceiptsState> {
  const roots = await recentRootReceipts(store, { status: filter === 'all' ? undefined : filter, limit });
  const recent: ReceiptRow[] = await Promise.all(
    roots.map(async (r) => {
      const t = await treeOf(store, r);
      return {
        id: r.id,
        mandate: r.mandate,
        agent: r.agent,
        status: r.status,
        totalCost: fmt(t.total_cost),
        startedAt: r.started_at,
        delegatedCalls: t.descendants,
      };
    }),
  );
  const chosen = (selected ? await readReceipt(store, selected) : undefined) ?? roots[0];
  return {
    filter,
    recent,
    selected: chosen ? node(store.state, await treeOf(store, chosen)) : null,
    purchases: purchaseRows(store.state, limit),
  };
}

/** The newest completed purchases, with their orders and lines. */
export function purchaseRows(s: HolonState, limit = 50): PurchaseRow[] {
  return purchasesOf(s)
    .slice(0, limit)
    .map((p) => ({
      id: p.id,
      mandate: p.mandate,
      merchant: p.merchant,
      order: p.order?.id ?? '',
      lines: (p.order?.lines ?? []).map((l) => ({
        product: l.product,
        title: l.title,
        quantity: l.quantity,
        unitPrice: fmt(l.unit_price) ?? '',
        total: fmt(l.total) ?? '',
      })),
      total: fmt(p.order?.total ?? p.total) ?? '',
      charged: fmt(p.charged),
      at: p.updated_at,
    }));
}

/** The proposal an approval of kind `proposal` is for, if any. */
export function proposalOfApproval(s: HolonState, approvalId: string): string | undefined {
  const a = s.approvals[approvalId];
  return a?.subject.kind === 'proposal' ? a.subject.proposal : undefined;
}

/** The diff panel's state for one proposal: the removals, the words, and the file side by side. */
export async function proposalState(s: HolonState, id: string, now: number, panelApprovals: boolean): Promise<ProposalState> {
  // The YAML and diff libraries load when a proposal is first shown, never to activate the extension.
  const { personnelYaml, sideBySide } = await import('../core/office/personnelDiff.ts');
  const p = s.office.proposals[id];
  if (!p)
    return {
      id: null,
      approval: null,
      kind: 'change',
      title: id,
      slug: '',
      proposer: '',
      reason: '',
      status: 'missing',
      removals: [],
      gains: [],
      changes: [],
      rows: [],
      decidable: false,
    };
  const a = s.approvals[p.approval];
  const expired = p.status === 'open' && (!a || approvalStatus(a, now) === 'expired');
  const status = expired ? 'expired' : p.status;
  return {
    id: p.id,
    approval: p.approval,
    kind: p.kind,
    title: p.title,
    slug: p.slug,
    proposer: `${p.proposer.slug} (${p.proposer.mandate})`,
    reason: p.reason,
    status,
    removals: p.change.losses,
    gains: p.change.gains,
    changes: p.change.changes,
    rows: sideBySide(personnelYaml(p.before), personnelYaml(p.after)),
    decidable: status === 'open' && panelApprovals,
  };
}
