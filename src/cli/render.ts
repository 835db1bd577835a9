/** How the terminal shows mandates, budgets and approvals (the words themselves come from core/views/present.ts). */
import type { Approval } from '../core/approvals/model.ts';
import { approvalStatus } from '../core/approvals/model.ts';
import type { Mandate } from '../core/kernel/model.ts';
import * as M from '../core/kernel/amount.ts';
import { APPROVAL_KIND_LABELS, approvalView } from '../core/views/present.ts';
import { mandateDrawn } from '../core/money/mandateView.ts';
import type { HolonState } from '../core/fold/state.ts';

/** An amount, or "unknown" where a spend no rate converts leaves it unknown (never zero). */
const known = (x: M.Money | undefined): string => (x ? M.format(x) : 'unknown');

/** A mandate in a few lines: budget, limits, scope, data rules, expiry. */
export function mandateText(m: Mandate, s: HolonState, now: number): string {
  const d = mandateDrawn(s, m, now);
  const b = d.budget;
  const caps = m.capabilities.map((c) => `${c.name}${c.params ? ' ' + JSON.stringify(c.params) : ''}`).join(', ');
  const [first] = d.unconvertible;
  const why = first
    ? ` (spent in ${d.unconvertible.join(', ')}, which no rate converts to ${m.currency}: holon fx ${first} ${m.currency} RATE)`
    : '';
  return [
    `${m.id} (${m.status}) for ${m.grantee.name}, ${m.grantee.role}${m.grantee.manager ? `, reports to ${m.grantee.manager}` : ''}`,
    `  budget ${M.format(b.total)}, spent ${known(d.spent)}, held ${M.format(d.held)}, remaining ${known(d.remaining)}${why}`,
    `  per day ${b.per_day ? M.format(b.per_day) : '-'}, per call ` +
      `${b.per_call ? M.format(b.per_call) : '-'}, approval above ${M.format(b.threshold)}`,
    `  toolsets ${m.toolsets.join(', ')}; capabilities ${caps || 'none'}`,
    `  data: regions ${m.data.regions?.join(', ') ?? 'any'}, retention ${m.data.retention_days ?? 'any'} ` +
      `days, training ${m.data.training ? 'allowed' : 'forbidden'}`,
    `  expires ${m.expires_at ?? 'never'}`,
  ].join('\n');
}

/**
 * A mandate's budget as JSON. As in `get_mandate`, `spent`, `remaining` and `spent_today` are absent
 * together when a spend no rate converts makes them unknown (`unconvertible` names its currencies).
 */
export function budgetJson(m: Mandate, s: HolonState, now: number): Record<string, unknown> {
  const d = mandateDrawn(s, m, now);
  const b = d.budget;
  const j = (x: M.Money | null): M.MoneyJson | null => (x ? M.toJson(x) : null);
  const drawn = d.spent && d.remaining && d.spent_today;
  return {
    total: j(b.total),
    ...(drawn ? { spent: j(d.spent ?? null) } : {}),
    held: j(d.held),
    ...(drawn ? { remaining: j(d.remaining ?? null) } : {}),
    per_day: j(b.per_day),
    ...(drawn ? { spent_today: j(d.spent_today ?? null) } : {}),
    per_call: j(b.per_call),
    threshold: j(b.threshold),
    account: { id: b.account.id, funded: j(b.account.funded), available: j(b.account.available) },
    unconvertible: d.unconvertible,
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
