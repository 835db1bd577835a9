/**
 * The shared presentation of the core's data in plain English, for every edge that shows it to a person
 * or a model in words: market's reasons, the CLI, the editor, an elicitation form. One wording per fact,
 * so the panel, the terminal and the agent read the same sentence. Pure: no I/O, no vscode, no MCP.
 */
import type { Approval } from './approvals/model.ts';
import type { ReceiptTree } from './market/receiptTree.ts';
import type { TeamMember } from './team.ts';
import { denialsJson, denialTexts, fmt } from './words.ts';

/** A receipt tree as the tools and `holon receipts --json` show it: `receipt` for its id, reasons in words beside their codes. */
export function receiptJson(t: ReceiptTree): Record<string, unknown> {
  const { id, mandate: _mandate, children, descendants: _descendants, denials, ...rest } = t;
  return { receipt: id, ...rest, reasons: denialTexts(denials), denials: denialsJson(denials), children: children.map(receiptJson) };
}

/** One line per node, indented: a receipt tree in a terminal or a text answer. */
export function receiptLines(t: ReceiptTree, depth = 0): string[] {
  const pad = '  '.repeat(depth) + (depth > 0 ? '└─ ' : '');
  const dur = t.duration_ms !== null ? ` ${t.duration_ms} ms` : '';
  const line = `${pad}${t.id} ${t.agent ?? '(no agent)'}${t.version ? ` ${t.version}` : ''} ${t.status} ${fmt(t.cost)} / worst ${fmt(t.worst_case)}${dur}${t.approval ? ` approval ${t.approval}` : ''}`;
  const extra = t.status === 'denied' || t.status === 'rejected' ? denialTexts(t.denials).map((r) => `${'  '.repeat(depth + 1)}reason: ${r}`) : [];
  return [line, ...extra, ...t.children.flatMap((c) => receiptLines(c, depth + 1))];
}

/** An approval as a human reads it before deciding: the same in the panel, the terminal and a form. */
export interface ApprovalView {
  /** One line a busy human can approve. */
  title: string;
  /** Who or what it is about. */
  subject: string;
  amount: string | null;
  threshold: string | null;
  facts: { label: string; value: string }[];
  /** Longer text, shown collapsed: an input preview, a reason. */
  detail: string | null;
  /** What it takes away (a proposal's lost capabilities), for the human not to miss. */
  removals: string[];
}

/** The human words for each kind of approval. */
export const APPROVAL_KIND_LABELS: Record<Approval['kind'], string> = {
  agent_call: 'Agent call',
  payment: 'Payment',
  payment_intent: 'Payment intent',
  capability_window: 'Capability window',
  budget_override: 'Budget override',
  proposal: 'Proposal',
  action: 'Action',
};

/** How an approval is shown, by kind. */
export function approvalView(a: Approval): ApprovalView {
  const money = { amount: a.amount ? fmt(a.amount) : null, threshold: a.threshold ? fmt(a.threshold) : null };
  const s = a.subject;
  switch (s.kind) {
    case 'agent_call': {
      const delegated = s.delegated_calls.reduce((n, d) => n + d.max_count, 0);
      return {
        title: `Call ${s.agent} ${s.version}`,
        subject: s.agent,
        ...money,
        facts: [
          { label: 'Version', value: s.version },
          ...(delegated > 0 ? [{ label: 'Delegated calls', value: `up to ${delegated} (${s.delegated_calls.map((d) => `${d.capability} × ${d.max_count}`).join(', ')})` }] : []),
          { label: 'Input', value: `${s.input_bytes} bytes, SHA-256 ${s.input_sha256.slice(0, 16)}…` },
        ],
        detail: s.input_preview,
        removals: [],
      };
    }
    case 'payment':
      return {
        title: `Pay ${fmt(s.amount)} to ${s.payee}`,
        subject: s.payee,
        ...money,
        facts: [...(s.terms_hash ? [{ label: 'Terms hash', value: s.terms_hash }] : []), ...(s.purpose ? [{ label: 'Purpose', value: s.purpose }] : [])],
        detail: null,
        removals: [],
      };
    case 'payment_intent':
      return {
        title: `Release payment ${s.intent}: ${fmt(s.amount)} to ${s.payee}`,
        subject: s.payee,
        ...money,
        facts: [{ label: 'Intent', value: s.intent }, ...(s.purpose ? [{ label: 'Purpose', value: s.purpose }] : [])],
        detail: null,
        removals: [],
      };
    case 'capability_window':
      return {
        title: s.title,
        subject: s.capability.name,
        ...money,
        facts: [
          { label: 'Capability', value: `${s.capability.name}${s.capability.params ? ` ${JSON.stringify(s.capability.params)}` : ''}` },
          { label: 'For', value: `${s.hours} hours` },
        ],
        detail: s.reason,
        removals: [],
      };
    case 'budget_override':
      return { title: s.title, subject: fmt(s.amount), ...money, facts: [{ label: 'Amount', value: fmt(s.amount) }], detail: s.reason, removals: [] };
    case 'proposal':
      return {
        title: s.title,
        subject: s.slug,
        ...money,
        facts: [
          ...s.gains.map((g) => ({ label: 'Gains', value: g })),
          ...s.changes.map((c) => ({ label: 'Changes', value: c })),
        ],
        detail: null,
        removals: s.losses,
      };
    case 'action':
      return { title: s.title, subject: a.mandate, ...money, facts: [], detail: s.reason, removals: [] };
  }
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
  return may ? `You are an approver of account ${account}.` : `Waiting for an approver of account ${account}: this installation is not one.`;
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
    ...(v.amount ? [`${a.kind === 'agent_call' ? 'Worst case' : 'Amount'}: ${v.amount}${v.threshold ? ` (threshold ${v.threshold})` : ''}`] : []),
    ...v.facts.map((f) => `${f.label}: ${f.value}`),
    ...(v.removals.length > 0 ? [`REMOVES ${v.removals.length}: ${v.removals.join(', ')}`] : []),
    ...(v.detail ? [v.detail.length > 400 ? `${v.detail.slice(0, 400)}…` : v.detail] : []),
    `Approval ${a.id}, valid until ${a.expires_at}.`,
  ].join('\n');
}
