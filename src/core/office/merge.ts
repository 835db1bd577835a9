/**
 * Merging a proposal: what a human's approval of it writes. Apart from proposals.ts (which makes the
 * diff) so that every process can decide approvals without the YAML and diff libraries.
 */
import { HolonError } from '../kernel/errors.ts';
import type { MandatesFields } from '../accounts/mandates.ts';
import { checkedMandate, mandateEvent } from '../accounts/mandates.ts';
import type { Mandate } from '../kernel/model.ts';
import type { NewEvent } from '../store/store.ts';
import { grantOfEntry, mandateStatus, personnelOf, samePersonnel } from './personnel.ts';
import type { OfficeFields, Proposal } from './slice.ts';
import { officeEvent } from './slice.ts';

/**
 * The events of merging a proposal: the mandate as the proposal's `after` says. A change whose file was
 * edited since it was proposed is refused: the human saw a diff against a file that no longer is.
 */
export function mergeEvents(s: MandatesFields & OfficeFields, p: Proposal, now: number): NewEvent[] {
  const at = new Date(now).toISOString();
  const grantee = (base: Mandate['grantee']): Mandate['grantee'] => ({
    ...base,
    name: p.after.name,
    role: p.after.role,
    department: p.after.department,
    manager: p.after.manager,
    model: p.after.run.model,
  });
  if (p.kind === 'change') {
    const old = s.mandates[p.target];
    if (!old) throw new HolonError('conflict', `${p.target} no longer exists; reject this proposal`, { proposal: p.id });
    if (!samePersonnel(personnelOf(old), p.before))
      throw new HolonError('conflict', `${p.slug}'s personnel file changed after this proposal was made; reject it and ask for a new one`, {
        proposal: p.id,
      });
    const m = checkedMandate({
      ...old,
      grantee: grantee(old.grantee),
      capabilities: p.after.capabilities.map(grantOfEntry),
      status: mandateStatus(p.after.status),
      budget: { ...old.budget, per_day: p.after.budget.per_day },
      updated_at: at,
    });
    return [mandateEvent('mandate.updated', { mandate: m }), officeEvent('policy.merged', { id: p.id, mandate: m.id })];
  }
  if (s.mandates[p.target]) throw new HolonError('conflict', `${p.target} already exists; reject this proposal`, { proposal: p.id });
  const proposer = s.mandates[p.proposer.mandate];
  const [account = '', name = ''] = p.target.split('/');
  const m = checkedMandate({
    id: p.target,
    account,
    name,
    grantee: grantee({ slug: p.slug, name: p.after.name, role: p.after.role, manager: p.after.manager }),
    currency: p.after.budget.currency,
    budget: { total: p.after.budget.total, per_day: p.after.budget.per_day, per_call: p.after.budget.per_call },
    approval_threshold: proposer?.approval_threshold ?? '0.50',
    toolsets: p.after.run.toolsets as Mandate['toolsets'],
    capabilities: p.after.capabilities.map(grantOfEntry),
    data: proposer ? structuredClone(proposer.data) : { regions: null, retention_days: null, training: false },
    expires_at: null,
    status: mandateStatus(p.after.status),
    created_at: at,
    updated_at: at,
  });
  return [mandateEvent('mandate.created', { mandate: m }), officeEvent('policy.merged', { id: p.id, mandate: m.id })];
}
