/**
 * The shared presentation of the core's data in plain English, for every edge that shows it to a person
 * or a model in words: market's reasons, the CLI, the editor, an elicitation form. One wording per fact,
 * so the panel, the terminal and the agent read the same sentence. Pure: no I/O, no vscode, no MCP.
 */
import type { ApprovalKind } from '../../shared/approvalKinds.ts';
import type { KindView } from '../approvals/kinds/kind.ts';
import { APPROVAL_KIND_SPECS, kindSpec } from '../approvals/kinds/registry.ts';
import type { Approval } from '../approvals/model.ts';
import type { ReceiptTree } from '../market/receiptTree.ts';
import type { PaidFor, SettlementDetail } from '../money/payments.ts';
import type { TeamMember } from '../accounts/team.ts';
import { denialsJson, denialTexts, fmt } from '../kernel/words.ts';

/** A receipt tree as the tools and `holon receipts --json` show it: `receipt` for its id, reasons in words beside their codes. */
export function receiptJson(t: ReceiptTree): Record<string, unknown> {
  const { id, mandate: _mandate, children, descendants: _descendants, denials, ...rest } = t;
  return { receipt: id, ...rest, reasons: denialTexts(denials), denials: denialsJson(denials), children: children.map(receiptJson) };
}

/** One line per node, indented: a receipt tree in a terminal or a text answer. */
export function receiptLines(t: ReceiptTree, depth = 0): string[] {
  const pad = '  '.repeat(depth) + (depth > 0 ? '└─ ' : '');
  const dur = t.duration_ms !== null ? ` ${t.duration_ms} ms` : '';
  const who = `${t.agent ?? '(no agent)'}${t.version ? ` ${t.version}` : ''}`;
  const approval = t.approval ? ` approval ${t.approval}` : '';
  const paid = t.settlement ? ` · paid ${fmt(t.settlement.amount)}: ${t.settlement.summary}` : '';
  const line = `${pad}${t.id} ${who} ${t.status} ${fmt(t.cost)} / worst ${fmt(t.worst_case)}${dur}${approval}${paid}`;
  const refused = t.status === 'denied' || t.status === 'rejected';
  const extra = refused ? denialTexts(t.denials).map((r) => `${'  '.repeat(depth + 1)}reason: ${r}`) : [];
  return [line, ...extra, ...t.children.flatMap((c) => receiptLines(c, depth + 1))];
}

/** What a payment on a chain pays for, in words: `call rcpt_…`, `intent int_… (key k-1)`. */
export function paidForText(f: PaidFor): string {
  return `${f.kind} ${f.id}${f.idempotency_key !== null ? ` (idempotency key ${f.idempotency_key})` : ''}`;
}

/** A payment on a chain, found by its settlement id, in a few lines: a terminal's or a text answer's. */
export function settlementText(d: SettlementDetail): string {
  const lines = [
    `Payment ${d.id} (${d.mandate}): ${fmt(d.amount)} to ${d.payee}, ${d.summary}`,
    `For ${paidForText(d.for)}; held ${fmt(d.held)}; signed ${d.signed_at}`,
  ];
  if (d.transaction) lines.push(`Transaction ${d.transaction}, block ${d.block ?? '?'}`);
  if (d.claimed_transaction !== null && d.claimed_transaction !== d.transaction) lines.push(`The payee named ${d.claimed_transaction}`);
  return lines.join('\n');
}

/**
 * An approval as a human reads it before deciding: the same in the panel, the terminal and a form. Its
 * kind gives the title, subject, facts, detail and removals; the amount and the threshold are the same
 * for every kind.
 */
export interface ApprovalView extends KindView {
  amount: string | null;
  threshold: string | null;
}

/** The human words for each kind of approval, as each kind declares them. */
export const APPROVAL_KIND_LABELS: Readonly<Record<ApprovalKind, string>> = Object.fromEntries(
  Object.values(APPROVAL_KIND_SPECS).map((k) => [k.kind, k.label]),
) as Record<ApprovalKind, string>;

/** How an approval is shown: as its kind shows its subject, with the money at stake. */
export function approvalView(a: Approval): ApprovalView {
  const v = kindSpec(a.subject.kind).view(a.subject, a);
  const money = { amount: a.amount ? fmt(a.amount) : null, threshold: a.threshold ? fmt(a.threshold) : null };
  return { title: v.title, subject: v.subject, ...money, facts: v.facts, detail: v.detail, removals: v.removals };
}

/**
 * Who asked for an approval and from where: "demo/sandbox on dev-laptop". The mandate names the agent
 * that asked (its grantee); the machine is absent on approvals recorded before it was.
 */
export function approvalOriginText(a: Approval): string {
  return a.origin ? `${a.mandate} on ${a.origin.machine}` : a.mandate;
}

/** Whether this installation may decide an approval, in words; null when anyone at a channel may. */
export function deciderText(may: boolean | null, account: string): string | null {
  if (may === null) return null;
  if (may) return `You are an approver of account ${account}.`;
  return `Waiting for an approver of account ${account}: this installation is not one.`;
}

/** A team member in one line: name, role, key and the machine its key registered. */
export function memberLine(m: TeamMember, machine: string | undefined): string {
  return `${m.name}  ${m.role}  ${m.key}  ${machine ?? '(not registered yet)'}`;
}

/** What the human reads before deciding, as plain text (the CLI, an elicitation form). */
export function approvalMessage(a: Approval): string {
  const v = approvalView(a);
  return [
    `Holon · ${a.mandate}: approve this ${APPROVAL_KIND_LABELS[a.kind].toLowerCase()}?`,
    v.title,
    ...(a.origin ? [`Asked by ${approvalOriginText(a)}`] : []),
    ...(v.amount ? [`${kindSpec(a.kind).amountLabel}: ${v.amount}${v.threshold ? ` (threshold ${v.threshold})` : ''}`] : []),
    ...v.facts.map((f) => `${f.label}: ${f.value}`),
    ...(v.removals.length > 0 ? [`REMOVES ${v.removals.length}: ${v.removals.join(', ')}`] : []),
    ...(v.detail ? [v.detail.length > 400 ? `${v.detail.slice(0, 400)}…` : v.detail] : []),
    `Approval ${a.id}, valid until ${a.expires_at}.`,
  ].join('\n');
}
