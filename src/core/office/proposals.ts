/**
 * HR proposals (seed 004): an agent may propose hiring a colleague or changing one's personnel file;
 * nothing changes until a human has seen the diff and merged it. A proposal waits as an approval of
 * kind `proposal` bound to its diff, and merging it is that approval's decision.
 */
import { approvalGate } from '../approvals/flow.ts';
import type { ApprovalsFields } from '../approvals/slice.ts';
import { CAP } from '../kernel/capabilities.ts';
import type { Clock } from '../kernel/deps.ts';
import { HolonError } from '../kernel/errors.ts';
import type { FxFields } from '../money/fx.ts';
import { convertTo } from '../money/fx.ts';
import { newId } from '../kernel/ids.ts';
import type { MandatesFields } from '../accounts/mandates.ts';
import { mandateOf } from '../accounts/mandates.ts';
import type { CapabilityGrant, Mandate } from '../kernel/model.ts';
import * as M from '../kernel/amount.ts';
import type { EventStore, NewEvent, Signer } from '../store/store.ts';
import type { Dict } from '../kernel/util.ts';
import { toDict } from '../kernel/util.ts';
import { colleagueMandate } from './colleagues.ts';
import type { Personnel, PersonnelCapability, PersonnelStatus } from './personnel.ts';
import { entryOfGrant, grantOfEntry, mergeGrants, personnelChange, personnelOf } from './personnel.ts';
import { personnelDiff } from './personnelDiff.ts';
import type { OfficeFields, Proposal } from './slice.ts';
import { officeEvent } from './slice.ts';

type Office = MandatesFields & OfficeFields & ApprovalsFields & FxFields;

const g = (name: string, params?: Record<string, unknown>): CapabilityGrant => (params ? { name, params } : { name });
const BASE = [g(CAP.mailRead), g(CAP.mailSend), g(CAP.officeRead), g(CAP.approvalRequest), g(CAP.artifactPublish)];

/** A role a hire can start from: its default capabilities, toolsets and budget. */
export interface RoleTemplate {
  title: string;
  toolsets: Mandate['toolsets'];
  capabilities: CapabilityGrant[];
  per_day: string;
  total: string;
}

/** The roles a hire can start from, by id; looked up by the role an agent names, so without a prototype. */
export const ROLE_TEMPLATES: Dict<RoleTemplate> = toDict<RoleTemplate>({
  engineer: {
    title: 'Engineer',
    toolsets: ['office'],
    capabilities: [...BASE, g(CAP.forgeRead, { repos: [] }), g(CAP.forgeWrite, { repos: [] })],
    per_day: '5.00',
    total: '50.00',
  },
  writer: { title: 'Writer', toolsets: ['office'], capabilities: BASE, per_day: '2.00', total: '20.00' },
  researcher: {
    title: 'Researcher',
    toolsets: ['office', 'market'],
    capabilities: [...BASE, g(CAP.marketCall, { capabilities: ['*'] })],
    per_day: '5.00',
    total: '50.00',
  },
  coordinator: {
    title: 'Coordinator',
    toolsets: ['office'],
    capabilities: [...BASE, g(CAP.forgeRead, { repos: [] }), g(CAP.hrPropose)],
    per_day: '2.00',
    total: '20.00',
  },
});

/** The daily budget given in USD, in the mandate's currency (by the human's rate when it is not USD). */
function perDayOf(s: FxFields, usd: string, currency: string): string {
  const amount = M.money(usd, 'USD');
  if (amount.units <= 0n) throw new HolonError('invalid_input', 'budget_usd_per_day must be positive');
  const converted = currency === 'USD' ? amount : convertTo(s, amount, currency);
  if (!converted)
    throw new HolonError(
      'invalid_input',
      `the budget is in ${currency} and no USD→${currency} rate is set (a human sets one with \`holon fx USD ${currency} RATE\`)`,
    );
  return M.formatUnits(converted.units);
}

function removalBlock(losses: string[]): string {
  return losses.length === 0
    ? ''
    : [
        `⚠ This change removes ${losses.length} capabilit${losses.length === 1 ? 'y' : 'ies'}:`,
        ...losses.map((l) => `- loses: ${l}`),
        '',
      ].join('\n');
}

function proposalBody(reason: string, change: Proposal['change']): string {
  return (
    [removalBlock(change.losses), reason, '', ...change.gains, ...change.losses.map((l) => `loses: ${l}`), ...change.changes]
      .join('\n')
      .trim() + '\n'
  );
}

function propose(
  s: Office,
  now: number,
  p: Omit<Proposal, 'id' | 'approval' | 'status' | 'created_at' | 'diff' | 'diff_sha256' | 'change' | 'body'>,
  installation?: Pick<Signer, 'publicKey'>,
): { proposal: Proposal; events: NewEvent[] } {
  const change = personnelChange(p.before, p.after);
  if (p.before && change.gains.length + change.losses.length + change.changes.length === 0)
    throw new HolonError('invalid_input', 'the proposal changes nothing in the personnel file');
  const { diff, sha256 } = personnelDiff(p.slug, p.before, p.after);
  const id = newId('prop');
  const title = change.losses.length > 0 ? `${p.title} ⚠ removes ${change.losses.length}` : p.title;
  const gate = approvalGate(s, {
    mandate: p.proposer.mandate,
    subject: {
      kind: 'proposal',
      proposal: id,
      slug: p.slug,
      title,
      diff_sha256: sha256,
      gains: change.gains,
      losses: change.losses,
      changes: change.changes,
    },
    amount: null,
    threshold: null,
    needed: true,
    approvalId: undefined,
    ref: id,
    now,
    installation,
  });
  if (gate.kind !== 'ask') throw new Error('a proposal always asks a human');
  const proposal: Proposal = {
    ...p,
    id,
    title,
    change,
    diff,
    diff_sha256: sha256,
    body: proposalBody(p.reason, change),
    approval: gate.approval.id,
    status: 'open',
    created_at: new Date(now).toISOString(),
  };
  return { proposal, events: [...gate.events, officeEvent('policy.proposed', { proposal })] };
}

export interface HireInput {
  slug: string;
  name: string;
  role: string;
  reason: string;
  department?: string | undefined;
  manager?: string | undefined;
  capabilities?: PersonnelCapability[] | undefined;
  budget_usd_per_day?: string | undefined;
  charter?: string | undefined;
}

/** Proposes hiring a new colleague: the role's defaults, with the given capabilities merged in by name. */
export function proposeHire(
  store: EventStore<Office>,
  clock: Clock,
  mandate: string,
  i: HireInput,
  installation?: Pick<Signer, 'publicKey'>,
): Promise<Proposal> {
  return store.transact((s) => {
    const me = mandateOf(s, mandate);
    const role = ROLE_TEMPLATES[i.role];
    if (!role)
      throw new HolonError('invalid_input', `role "${i.role}" is not a role template (${Object.keys(ROLE_TEMPLATES).join(', ')})`, {
        role: i.role,
      });
    if (colleagueMandate(s, i.slug, me.account))
      throw new HolonError('conflict', `"${i.slug}" already has a personnel file; propose a change instead`, { slug: i.slug });
    const target = `${me.account}/${i.slug}`;
    if (s.mandates[target]) throw new HolonError('conflict', `mandate ${target} already exists`, { mandate: target });
    const capabilities = mergeGrants(role.capabilities, (i.capabilities ?? []).map(grantOfEntry));
    const after: Personnel = {
      slug: i.slug,
      name: i.name,
      role: i.role,
      department: i.department ?? me.grantee.department ?? null,
      manager: i.manager ?? me.grantee.manager,
      status: 'hired',
      capabilities: capabilities.map(entryOfGrant),
      run: { model: null, toolsets: [...role.toolsets] },
      budget: {
        currency: me.currency,
        total: role.total,
        per_day: i.budget_usd_per_day ? perDayOf(s, i.budget_usd_per_day, me.currency) : role.per_day,
        per_call: null,
      },
    };
    const { proposal, events } = propose(
      s,
      clock.now(),
      {
        kind: 'hire',
        slug: i.slug,
        target,
        proposer: { mandate: me.id, slug: me.grantee.slug },
        title: `Hire ${i.slug} as ${i.role}`,
        reason: i.reason,
        before: null,
        after,
        base_updated_at: null,
        charter: i.charter ?? null,
      },
      installation,
    );
    return { events, result: proposal };
  });
}

export interface ChangeInput {
  slug: string;
  reason: string;
  add_capabilities?: PersonnelCapability[] | undefined;
  remove_capabilities?: string[] | undefined;
  capabilities?: PersonnelCapability[] | undefined;
  confirm_removals?: boolean | undefined;
  status?: PersonnelStatus | undefined;
  manager?: string | undefined;
  budget_usd_per_day?: string | undefined;
  model?: string | undefined;
}

/**
 * Proposes a change to a colleague's file (the caller's own included). A full `capabilities` list that
 * would take away more than half of the current ones is refused unless `confirm_removals` says it is meant.
 */
export function proposeChange(
  store: EventStore<Office>,
  clock: Clock,
  mandate: string,
  i: ChangeInput,
  installation?: Pick<Signer, 'publicKey'>,
): Promise<{ proposal: Proposal; warning: string | null }> {
  return store.transact((s) => {
    const me = mandateOf(s, mandate);
    const given = [i.add_capabilities, i.remove_capabilities, i.capabilities, i.status, i.manager, i.budget_usd_per_day, i.model].filter(
      (x) => x !== undefined,
    );
    if (given.length === 0)
      throw new HolonError(
        'invalid_input',
        'name at least one change: add_capabilities, remove_capabilities, capabilities, status, manager, budget_usd_per_day or model',
      );
    const target = colleagueMandate(s, i.slug, me.account);
    if (!target) throw new HolonError('not_found', `no colleague "${i.slug}" in this office`, { slug: i.slug });
    const before = personnelOf(target);
    let grants = structuredClone(target.capabilities);
    if (i.capabilities) {
      const next = i.capabilities.map(grantOfEntry);
      const removed = grants.filter((c) => !next.some((n) => n.name === c.name)).length;
      if (removed * 2 > grants.length && !i.confirm_removals) {
        throw new HolonError(
          'invalid_input',
          `this capabilities list removes ${removed} of ${grants.length} current ` +
            `capabilities; use add_capabilities / remove_capabilities, or set ` +
            `confirm_removals: true if that is meant`,
          { removes: removed },
        );
      }
      grants = next;
    }
    if (i.add_capabilities) grants = mergeGrants(grants, i.add_capabilities.map(grantOfEntry));
    for (const name of i.remove_capabilities ?? []) {
      if (!grants.some((c) => c.name === name))
        throw new HolonError('invalid_input', `${i.slug} has no capability "${name}" to remove`, { capability: name });
      grants = grants.filter((c) => c.name !== name);
    }
    const after: Personnel = {
      ...before,
      capabilities: grants.map(entryOfGrant),
      status: i.status ?? before.status,
      manager: i.manager ?? before.manager,
      run: { ...before.run, model: i.model ?? before.run.model },
      budget: {
        ...before.budget,
        per_day: i.budget_usd_per_day ? perDayOf(s, i.budget_usd_per_day, target.currency) : before.budget.per_day,
      },
    };
    const { proposal, events } = propose(
      s,
      clock.now(),
      {
        kind: 'change',
        slug: i.slug,
        target: target.id,
        proposer: { mandate: me.id, slug: me.grantee.slug },
        title: `Change ${i.slug}`,
        reason: i.reason,
        before,
        after,
        base_updated_at: target.updated_at,
        charter: null,
      },
      installation,
    );
    const losses = proposal.change.losses;
    const warning =
      losses.length > 0
        ? `This proposal removes ${losses.length} capabilit${losses.length === 1 ? 'y' : 'ies'} from ${i.slug}: ${losses.join(', ')}.`
        : null;
    return { events, result: { proposal, warning } };
  });
}
