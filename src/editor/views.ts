/** Core state → the webviews' protocol states. Pure, so the same mapping serves every panel. */
import { mayDecide } from '../core/decisions/decide.ts';
import type { PublicJwk } from '../core/local/mandateKey.ts';
import { pendingApprovals } from '../core/approvals/flow.ts';
import { accountOfApproval } from '../core/approvals/slice.ts';
import type { Approval } from '../core/approvals/model.ts';
import { settlementWords } from '../core/rails/settlementView.ts';
import { newestSettlements, settlementDetail, settlementOfSpend } from '../core/money/payments.ts';
import { recentRefusals, recentSpends, spendKind } from '../core/fold/activity.ts';
import type { ReceiptTree } from '../core/market/receiptTree.ts';
import type { ReceiptSource } from '../core/market/receiptTree.ts';
import { readReceipt, recentRootReceipts, treeOf } from '../core/market/receiptTree.ts';
import * as M from '../core/kernel/amount.ts';
import { APPROVAL_KIND_LABELS, approvalView, deciderText, paidForText } from '../core/views/present.ts';
import { kindSpec } from '../core/approvals/kinds/registry.ts';
import { denialTexts } from '../core/kernel/words.ts';
import { budgetOf } from '../core/money/spend.ts';
import type { HolonState } from '../core/fold/state.ts';
import type { Signer } from '../core/store/store.ts';
import { hasTeam } from '../core/accounts/team.ts';
import type {
  ApprovalFact,
  BudgetInfo,
  HolonViewState,
  PendingApproval,
  RefusalRow,
  SetupInfo,
  SpendInfo,
  StoreInfo,
} from '../webview/protocol/holonView.ts';
import { approvalRows } from '../webview/protocol/approvalRows.ts';
import type { StoreInUse } from './storeSetting.ts';
import type { ProposalState } from '../webview/protocol/proposal.ts';
import type {
  AccountRow,
  PurchaseRow,
  ReceiptNode,
  ReceiptRow,
  ReceiptsState,
  SpendNarrow,
  SpendRow,
} from '../webview/protocol/receipts.ts';
import { payeeKey, SPENDS_KEPT } from '../core/fold/activity.ts';
import { CHART_DAYS, payeeOf, SPEND_GROUP_LABELS, spendChart } from '../core/views/spendChart.ts';
import { purchasesOf } from '../core/commerce/purchases.ts';
import { approvalStatus } from '../core/approvals/model.ts';
import { displayJson, displayMoney, displayOrNull } from './amounts.ts';

/** How far back the view's refusals go: a refusal is news for a day, then it is the receipts' to keep. */
export const REFUSALS_SHOWN_MS = 24 * 3600 * 1000;
/** How many refusals the view shows at most. */
export const REFUSALS_SHOWN = 5;

/**
 * A moment in the editor's local time, the same words wherever the editor shows it (a card, a dialog):
 * formatted here, on the host, rather than in each webview, whose clock and locale may be the browser's.
 */
export function localTime(iso: string): string {
  const t = new Date(iso);
  return Number.isNaN(t.getTime()) ? iso : t.toLocaleString();
}

/**
 * Time left. Under an hour, as a countdown reads (`4:05`; `0:00` once it is past), since the seconds
 * matter; beyond, in the words the view uses for durations (`2 h 5 min`, `6 days 23 h`): a proposal's week
 * read `167:59:52`.
 */
export function countdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  if (days > 0) return `${days} ${days === 1 ? 'day' : 'days'}${h > 0 ? ` ${h} h` : ''}`;
  if (h > 0) return `${h} h${m > 0 ? ` ${m} min` : ''}`;
  return `${m}:${String(total % 60).padStart(2, '0')}`;
}

/** The selected mandate's budget: its own spend beside its account's, at the currency's precision. */
export function budgetInfo(s: HolonState, mandateId: string, now: number): BudgetInfo | null {
  const m = s.mandates[mandateId];
  if (!m) return null;
  const b = budgetOf(s, m, now);
  const d = displayMoney;
  const room = M.sub(M.sub(b.total, b.spent), b.held);
  const others = M.sub(b.account.spent, b.spent);
  return {
    mandate: m.id,
    status: m.status,
    total: d(b.total),
    spent: d(b.spent),
    held: d(b.held),
    remaining: d(b.remaining),
    perDay: b.per_day ? d(b.per_day) : null,
    spentToday: d(b.spent_today),
    perCall: b.per_call ? d(b.per_call) : null,
    threshold: d(b.threshold),
    account: {
      id: b.account.id,
      funded: d(b.account.funded),
      spent: d(b.account.spent),
      held: d(b.account.held),
      available: d(b.account.available),
      otherMandatesSpent: d(others.units > 0n ? others : M.zero(b.currency)),
    },
    // What is left is the account's when the account has less than the mandate's own room.
    limitedBy: M.compare(b.account.available, room) < 0 ? 'account' : 'mandate',
  };
}

/** The selected mandate's spend at a glance (the fold's day totals), formatted; null when there is no such mandate. */
export function spendInfo(s: HolonState, mandateId: string, now: number): SpendInfo | null {
  const c = spendChart(s, mandateId, now);
  if (!c) return null;
  return {
    days: c.days.map((d) => ({ day: d.day, amount: displayMoney(d.spent), empty: d.spent.units === 0n, permille: d.permille })),
    payees: c.payees.map((p) => ({ key: p.key, kind: p.payee.kind, id: p.payee.id, amount: displayMoney(p.spent), permille: p.permille })),
    groups: c.groups.map((g) => ({ label: SPEND_GROUP_LABELS[g.group], amount: displayMoney(g.spent) })),
    total: displayMoney(c.total),
    perDay: c.perDay ? displayMoney(c.perDay) : null,
    perDayPermille: c.perDayPermille,
    otherCurrencies: c.otherCurrencies,
  };
}

/** What is set up yet: whether some account has money, and how many mandates there are. */
export function setupInfo(s: HolonState): SetupInfo {
  const funded = Object.values(s.accounts).some((a) => Object.values(a.funded).some((units) => units > 0n));
  return { funded, mandates: Object.keys(s.mandates).length };
}

/** What an approval's card and dialog need besides the approval: who this installation is, and the state's wallet. */
export interface ApprovalContext {
  /** This installation: whether it may decide is shown. */
  decider?: Pick<Signer, 'publicKey'> | undefined;
  /** The address of this state's wallet, which signs a payment to a seller; null when there is none. */
  wallet?: string | null | undefined;
}

/** A payment the wallet signs (to a seller under terms); a merchant's order is paid at its checkout. */
function walletSigns(a: Approval): boolean {
  return a.subject.kind === 'payment' && !a.subject.payee.startsWith('merchant:');
}

/**
 * A core approval in the view's shape: the shared presentation of every kind, with its id and local
 * times, who asked and from which machine, whether this installation may decide it, and for a payment
 * the address that will sign it. The view's card and the Approve command's dialog both show this.
 */
export function pendingApprovalView(s: HolonState, a: Approval, context: ApprovalContext = {}): PendingApproval {
  const account = accountOfApproval(s, a);
  const may = mayDecide(s, a, context.decider);
  const v = approvalView(a);
  const signs: ApprovalFact[] = walletSigns(a)
    ? [{ label: 'Signed by', value: context.wallet ?? 'no wallet yet: this payment cannot be signed (Holon: Create Wallet)' }]
    : [];
  return {
    id: a.id,
    kind: a.kind,
    kindLabel: APPROVAL_KIND_LABELS[a.kind],
    mandate: a.mandate,
    title: v.title,
    subject: v.subject,
    amount: displayOrNull(a.amount),
    amountLabel: kindSpec(a.kind).amountLabel,
    threshold: displayOrNull(a.threshold),
    facts: [...v.facts, ...signs],
    detail: v.detail,
    removals: v.removals,
    requestedAt: a.requested_at,
    expiresAt: a.expires_at,
    requested: localTime(a.requested_at),
    expires: localTime(a.expires_at),
    askedBy: s.mandates[a.mandate]?.grantee.name ?? a.mandate,
    machine: a.origin?.machine ?? null,
    mayDecide: may,
    // Who may decide is worth saying only where there is a team: alone, this installation decides everything.
    decider: deciderText(hasTeam(s) ? may : null, account),
  };
}

/** The Approve command's dialog: the card's lines, labels and local times, as text. */
export function approvalPrompt(p: PendingApproval): { message: string; detail: string } {
  const lines = approvalRows(p).map((r) => `${r.label}: ${r.text}`);
  if (p.removals.length > 0) lines.push('', `Removes ${p.removals.length}:`, ...p.removals.map((r) => `− ${r}`));
  if (p.detail !== null) lines.push('', p.detail.length > 1200 ? `${p.detail.slice(0, 1200)}…` : p.detail);
  if (p.decider !== null) lines.push('', p.decider);
  return { message: `Approve this ${p.kindLabel.toLowerCase()}? ${p.title}`, detail: lines.join('\n') };
}

/** The refusals of the last day, newest first, with their reasons in words. */
export function refusalRows(s: HolonState, now: number, limit = REFUSALS_SHOWN): RefusalRow[] {
  return recentRefusals(s, { since: new Date(now - REFUSALS_SHOWN_MS).toISOString(), limit }).map((r) => ({
    id: String(r.seq),
    at: r.at,
    when: localTime(r.at),
    mandate: r.mandate,
    what: r.agent ? `${r.tool} ${r.agent}` : r.tool,
    reasons: denialTexts(r.denials),
  }));
}

/**
 * The Holon view's state. `wallet` is this state's wallet, `decider` this installation (whose right to
 * decide each approval is shown), `store` where the ledger is.
 */
export function holonViewState(
  s: HolonState,
  mandateId: string | null,
  now: number,
  panelApprovals: boolean,
  wallet: string | null = null,
  decider?: Pick<Signer, 'publicKey'>,
  store: StoreInfo = storeInfo({ kind: 'journal' }),
  holdings: HolonViewState['holdings'] = null,
): HolonViewState {
  return {
    mandate: mandateId,
    budget: mandateId ? budgetInfo(s, mandateId, now) : null,
    approvals: pendingApprovals(s, now).map((a) => pendingApprovalView(s, a, { decider, wallet })),
    panelApprovals,
    wallet,
    holdings: wallet ? holdings : null,
    spend: mandateId ? spendInfo(s, mandateId, now) : null,
    setup: setupInfo(s),
    refusals: refusalRows(s, now),
    payments: chainPaymentRows(s, mandateId),
    ...officeRows(s),
    store,
  };
}

/**
 * The newest payments signed on a chain (of the selected mandate, when one is), newest first, as Holon read
 * them: every scheme (x402 exact and upto, a channel's deposit, `pay`, `buy`), each with what it pays for.
 */
export function chainPaymentRows(s: HolonState, mandate: string | null, limit = 10): HolonViewState['payments'] {
  return newestSettlements(s, { mandate, limit }).map((r) => {
    const d = settlementDetail(s, r);
    return {
      id: d.id,
      paysFor: paidForText(d.for),
      at: d.updated_at,
      mandate: d.mandate,
      payee: d.payee,
      amount: `${d.amount.amount} ${d.amount.currency}`,
      status: d.status,
      summary: d.summary,
      transaction: d.transaction,
    };
  });
}

/** Where the ledger is, as the view shows it: the team store's `host/database`, never its URL; and whether it is still opening. */
export function storeInfo(where: StoreInUse, failure?: string, loading = false): StoreInfo {
  const error = failure ?? null;
  return where.kind === 'team'
    ? { kind: 'team', label: where.label, error, loading: loading && error === null }
    : { kind: 'journal', label: "this workspace's journal", error, loading: loading && error === null };
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
    cost: displayOrNull(t.cost),
    totalCost: displayOrNull(t.total_cost),
    worstCase: displayOrNull(t.worst_case),
    durationMs: t.duration_ms,
    approval: t.approval,
    approvalChannel: channel,
    reasons: denialTexts(t.denials),
    error: t.error ? `${t.error.code}: ${t.error.message}${t.error.charged ? ' (charged)' : ''}` : null,
    startedAt: t.started_at,
    children: t.children.map((c) => node(s, c)),
  };
}

/** The spends behind one bar of the Holon view's chart: of one UTC day, or of one payee over the chart's days. */
export interface SpendBar {
  day: string | null;
  payee: string | null;
}

/** What the receipts panel is narrowed to: a mandate (or every one), the calls' status, and a bar of the chart. */
export interface ReceiptsFilter {
  mandate: string | null;
  status: ReceiptsState['filter'];
  bar?: SpendBar | null;
}

/** The first UTC day of the chart's window at `now`. */
function chartStart(now: number): string {
  return new Date(now - (CHART_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Every spend of the accounts (of one mandate, when narrowed), newest first: calls, payments, intents,
 * purchases; with `bar`, only those the bar counts — settled on its day, or paid to its payee since the
 * chart's first day (the chart counts a spend on the day it settled).
 */
export function spendRows(s: HolonState, mandate: string | null, limit = 200, bar: SpendBar | null = null, now = Date.now()): SpendRow[] {
  const since = chartStart(now);
  const counted = (e: { status: string; ended_at: string | null; payee: Parameters<typeof payeeKey>[0] }): boolean => {
    if (!bar) return true;
    const day = e.status === 'settled' ? (e.ended_at?.slice(0, 10) ?? null) : null;
    if (day === null) return false;
    if (bar.day !== null && day !== bar.day) return false;
    return bar.payee === null || (payeeKey(e.payee) === bar.payee && day >= since);
  };
  const found = recentSpends(s, {
    mandate: mandate ?? undefined,
    limit: bar ? SPENDS_KEPT * Math.max(1, Object.keys(s.accounts).length) : limit,
  });
  return found
    .filter(counted)
    .slice(0, limit)
    .map((e) => {
      const kind = spendKind(e, (id) => s.intents[id] !== undefined);
      // What Holon read on the chain for the payment that pays it, found by its hold (or, for a call, its receipt).
      const paid = settlementOfSpend(s, { id: e.id, kind });
      // Open: what it holds. Ended: what it cost (a released call may still have paid for its delegated calls).
      const amount = { amount: e.status === 'held' ? e.held : (e.cost ?? '0'), currency: e.currency };
      return {
        id: e.id,
        kind,
        mandate: e.mandate,
        account: e.account,
        to: e.payee.id,
        amount: displayJson(amount),
        status: e.status,
        reason: e.reason === null ? null : e.reason.replaceAll('_', ' '),
        at: e.placed_at,
        receipt: kind === 'call' ? e.id : null,
        onChain: paid ? `${settlementWords(paid)}${paid.landed ? ` · ${paid.landed.transaction}` : ''}` : null,
        settlement: paid?.id ?? null,
      };
    });
}

/** The accounts `mandates` spend from (every account when none is named), in each one's currencies. */
export function accountRows(s: HolonState, mandates: readonly string[] | null): AccountRow[] {
  const ids = mandates
    ? [...new Set(mandates.flatMap((m) => (s.mandates[m] ? [s.mandates[m].account] : [])))]
    : Object.keys(s.accounts).sort();
  return ids.flatMap((id) => {
    const a = s.accounts[id];
    if (!a) return [];
    const currencies = [...new Set([...Object.keys(a.funded), ...Object.keys(a.spent), ...Object.keys(a.held)])].sort();
    return currencies.map((currency) => {
      const u = (units: bigint | undefined): M.Money => ({ units: units ?? 0n, currency });
      const left = (a.funded[currency] ?? 0n) - (a.spent[currency] ?? 0n) - (a.held[currency] ?? 0n);
      return {
        id,
        funded: displayMoney(u(a.funded[currency])),
        spent: displayMoney(u(a.spent[currency])),
        held: displayMoney(u(a.held[currency])),
        available: displayMoney(u(left > 0n ? left : 0n)),
      };
    });
  });
}

/**
 * The receipts panel's state: every spend of the accounts, the newest root calls, one tree read back
 * from the journal, and the purchases — of one mandate, or of every mandate.
 */
/** A bar of the chart, in words: what the receipts panel shows. */
export function barLabel(bar: SpendBar): SpendNarrow['label'] {
  const to = bar.payee === null ? null : payeeOf(bar.payee).id;
  if (bar.day !== null) return to === null ? `Spends settled on ${bar.day}` : `Spends paid to ${to} on ${bar.day}`;
  return `Spends paid to ${to ?? 'anyone'} in the last ${CHART_DAYS} days`;
}

export async function receiptsState(
  store: ReceiptSource & { state: HolonState },
  filter: ReceiptsFilter,
  selected: string | null,
  limit = 50,
  now = Date.now(),
  human?: PublicJwk,
): Promise<ReceiptsState> {
  const s = store.state;
  // A mandate that is gone (or was never there) narrows nothing.
  const mandate = filter.mandate !== null && s.mandates[filter.mandate] ? filter.mandate : null;
  const roots = await recentRootReceipts(store, {
    mandate: mandate ?? undefined,
    status: filter.status === 'all' ? undefined : filter.status,
    limit,
  });
  const recent: ReceiptRow[] = await Promise.all(
    roots.map(async (r) => {
      const t = await treeOf(store, r);
      return {
        id: r.id,
        mandate: r.mandate,
        agent: r.agent,
        status: r.status,
        totalCost: displayOrNull(t.total_cost),
        startedAt: r.started_at,
        delegatedCalls: t.descendants,
      };
    }),
  );
  const bar = filter.bar ?? null;
  const spends = spendRows(s, mandate, 200, bar, now);
  // Narrowed to a bar: the calls behind it, not every recent one.
  const shown = bar ? new Set(spends.flatMap((sp) => (sp.receipt ? [sp.receipt] : []))) : null;
  const chosen = (selected ? await readReceipt(store, selected) : undefined) ?? roots[0];
  return {
    mandate,
    narrow: bar ? { ...bar, label: barLabel(bar) } : null,
    mandates: Object.keys(s.mandates).sort(),
    accounts: accountRows(s, mandate ? [mandate] : null),
    spends,
    filter: filter.status,
    recent: shown ? recent.filter((r) => shown.has(r.id)) : recent,
    selected: chosen ? node(s, await treeOf(store, chosen)) : null,
    purchases: await withConsent(s, purchaseRows(s, limit, mandate), human),
  };
}

/** The purchases' rows with their chains of consent, re-verified against the human's key. */
async function withConsent(s: HolonState, rows: PurchaseRow[], human: PublicJwk | undefined): Promise<PurchaseRow[]> {
  if (!rows.some((r) => Object.values(s.purchases).some((p) => p.id === r.id && p.ap2))) return rows;
  // The SD-JWT libraries load when a purchase with mandates is first shown, never to activate the extension.
  const { consentChain } = await import('../core/commerce/consent.ts');
  const out: PurchaseRow[] = [];
  for (const row of rows) {
    const p = Object.values(s.purchases).find((x) => x.id === row.id);
    const chain = p ? await consentChain(s, p, human) : undefined;
    out.push(chain ? { ...row, consent: { holds: chain.holds, steps: chain.steps } } : row);
  }
  return out;
}

/** The newest completed purchases (of one mandate, when named), with their orders and lines. */
export function purchaseRows(s: HolonState, limit = 50, mandate: string | null = null): PurchaseRow[] {
  return purchasesOf(s, mandate ?? undefined)
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
        unitPrice: displayJson(l.unit_price),
        total: displayJson(l.total),
      })),
      total: displayJson(p.order?.total ?? p.total),
      charged: displayOrNull(p.charged),
      at: p.updated_at,
      consent: null,
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
