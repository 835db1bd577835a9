/**
 * What an agent may ask a human for (seed 004's `approval_request`): a one-off action, a capability for
 * a few hours, or running past the daily budget. Asking never blocks the agent, and the approval does
 * its work when the human decides (decisions/effects.ts): a window opens, the day's limit is raised.
 */
import type { Approval, ApprovalSubject } from '../approvals/model.ts';
import { approvalGate } from '../approvals/flow.ts';
import type { ApprovalsFields } from '../approvals/slice.ts';
import type { Clock } from '../kernel/deps.ts';
import { HolonError } from '../kernel/errors.ts';
import type { FxFields } from '../money/fx.ts';
import { convertTo } from '../money/fx.ts';
import type { MandatesFields } from '../accounts/mandates.ts';
import { mandateOf } from '../accounts/mandates.ts';
import type { Money } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { EventStore, Signer } from '../store/store.ts';
import type { PersonnelCapability } from './personnel.ts';
import { grantOfEntry } from './personnel.ts';

/** The longest a capability window may stay open. */
export const MAX_WINDOW_HOURS = 168;
export const DEFAULT_WINDOW_HOURS = 4;

export interface ApprovalRequest {
  title: string;
  reason: string;
  kind: 'action' | 'capability.window' | 'budget.override';
  capability?: PersonnelCapability | undefined;
  hours?: number | undefined;
}

/** The amount of a `{"budget.override": {"usd": 5}}` capability, in the mandate's currency. */
function overrideAmount(s: FxFields, capability: PersonnelCapability | undefined, currency: string): Money {
  const grant = capability === undefined ? undefined : grantOfEntry(capability);
  if (!grant || grant.name !== 'budget.override' || !grant.params) {
    throw new HolonError('invalid_input', 'a budget.override names its amount: capability {"budget.override": {"usd": 5}}');
  }
  const entries = Object.entries(grant.params);
  const [code, value] = entries[0] ?? [];
  if (entries.length !== 1 || code === undefined || (typeof value !== 'string' && typeof value !== 'number')) {
    throw new HolonError('invalid_input', 'a budget.override names one currency and its amount, e.g. {"budget.override": {"usd": 5}}');
  }
  // A JSON number is read as the decimal it was written as; the amount is never kept as a float.
  const asked = M.money(String(value), code.toUpperCase());
  if (asked.units <= 0n) throw new HolonError('invalid_input', 'a budget.override amount must be positive');
  const inCurrency = asked.currency === currency ? asked : convertTo(s, asked, currency);
  if (!inCurrency) throw new HolonError('invalid_input', `the budget is in ${currency} and no ${asked.currency}→${currency} rate is set`);
  return inCurrency;
}

/** Asks a human; returns the pending approval at once. `installation` is named on it as who asked. */
export function requestApproval(
  store: EventStore<MandatesFields & ApprovalsFields & FxFields>,
  clock: Clock,
  mandate: string,
  r: ApprovalRequest,
  installation?: Pick<Signer, 'publicKey'>,
): Promise<Approval> {
  return store.transact((s) => {
    const m = mandateOf(s, mandate);
    let subject: ApprovalSubject;
    let amount: Money | null = null;
    if (r.kind === 'capability.window') {
      if (r.capability === undefined) {
        throw new HolonError('invalid_input', 'a capability.window names its capability, e.g. {"net.egress": ["api.example.com"]}');
      }
      const hours = r.hours ?? DEFAULT_WINDOW_HOURS;
      if (!(hours > 0 && hours <= MAX_WINDOW_HOURS)) {
        throw new HolonError('invalid_input', `hours is more than 0 and at most ${MAX_WINDOW_HOURS}`);
      }
      subject = { kind: 'capability_window', title: r.title, reason: r.reason, capability: grantOfEntry(r.capability), hours };
    } else if (r.kind === 'budget.override') {
      amount = overrideAmount(s, r.capability, m.currency);
      subject = { kind: 'budget_override', title: r.title, reason: r.reason, amount: M.toJson(amount) };
    } else {
      subject = { kind: 'action', title: r.title, reason: r.reason };
    }
    const gate = approvalGate(s, {
      mandate: m.id,
      subject,
      amount,
      threshold: null,
      needed: true,
      approvalId: undefined,
      ref: null,
      now: clock.now(),
      installation,
    });
    if (gate.kind !== 'ask') throw new Error('an approval request always asks a human');
    return { events: gate.events, result: gate.approval };
  });
}
