/** How the terminal shows mandates, budgets and approvals (the words themselves come from core/present.ts). */
import type { Approval } from '../core/approvals/model.ts';
import { approvalStatus } from '../core/approvals/model.ts';
import type { Mandate } from '../core/model.ts';
import * as M from '../core/amount.ts';
import { APPROVAL_KIND_LABELS, approvalView } from '../core/present.ts';
import type { BudgetView } from '../core/money/spend.ts';
import { budgetOf } from '../core/money/spend.ts';
import type { HolonState } from '../core/state.ts';

/** A mandate in a few lines: budget, limits, scope, data rules, expiry. */
export function mandateText(m: Mandate, s: HolonState, now: number): string {
  const b = budgetOf(s, m, now);
  const caps = m.capabilities.map((c) => `${c.name}${c.params ? ' ' + JSON.stringify(c.params) : ''}`).join(', ');
  return [
    `${m.id} (${m.status}) for ${m.grantee.name}, ${m.grantee.role}${m.grantee.manager ? `, reports to ${m.grantee.manager}` : ''}`,
    `  budget ${M.format(b.total)}, spent ${M.format(b.spent)}, held ${M.format(b.held)}, remaining ${M.format(b.remaining)}`,
    `  per day ${b.per_day ? M.format(b.per_day) : '-'}, per call ` +
      `${b.per_call ? M.format(b.per_call) : '-'}, approval above ${M.format(b.threshold)}`,
    `  toolsets ${m.toolsets.join(', ')}; capabilities ${caps || 'none'}`,
    `  data: regions ${m.data.regions?.join(', ') ?? 'any'}, retention ${m.data.retention_days ?? 'any'} ` +
      `days, training ${m.data.training ? 'allowed' : 'forbidden'}`,
    `  expires ${m.expires_at ?? 'never'}`,
  ].join('\n');
}

/** A budget as JSON. */
export function budgetJson(b: BudgetView): Record<string, unknown> {
  const j = (x: M.Money | null): M.MoneyJson | null => (x ? M.toJson(x) : null);
  return {
    total: j(b.total),
    spent: j(b.spent),
    held: j(b.held),
    remaining: j(b.remaining),
    per_day: j(b.per_day),
    spent_today: j(b.spent_today),
    per_call: j(b.per_call),
    threshold: j(b.threshold),
    account: { id: b.account.id, funded: j(b.account.funded), available: j(b.account.available) },
  };
}

/** One line per approval: id, status now, kind, mandate, what it is for and how much. */
export function approvalLine(a: Approval, now: number): string {
  const v = approvalView(a);
  return (
    `${a.id} ${approvalStatus(a, now).padEnd(8)} ` +
    `${APPROVAL_KIND_LABELS[a.kind].toLowerCase().padEnd(17)} ${a.mandate} ${v.title}` +
    `${v.amount ? ` — ${v.amount}${v.threshold ? ` (threshold ${v.threshold})` : ''}` : ''}` +
    `${a.origin ? ` · from ${a.origin.machine}` : ''}`
  );
}
