/**
 * Mandates: the one policy object (who may spend what, on what, until when), which is also its grantee's
 * personnel file. Only a human changes one — through the CLI, the editor's form or a merged proposal —
 * and every change is a patch: what it does not name stays as it was.
 */
import { allowedProducts } from '../kernel/products.ts';
import { CAP } from '../kernel/capabilities.ts';
import type { Clock } from '../kernel/deps.ts';
import type { Denial } from '../kernel/denials.ts';
import { denial } from '../kernel/denials.ts';
import { HolonError } from '../kernel/errors.ts';
import { mandateId as checkMandateId } from '../kernel/ids.ts';
import type { EventStore } from '../store/store.ts';
import type { CapabilityGrant, Mandate } from '../kernel/model.ts';
import * as M from '../kernel/amount.ts';
import type { MandateInput, MandatePatch } from '../kernel/schemas.ts';
import type { Slice } from '../store/slice.ts';
import { eventsOf } from '../store/slice.ts';
import type { Dict } from '../kernel/util.ts';
import { defined, dict, toDict } from '../kernel/util.ts';

/** The mandates' part of the state. */
export interface MandatesFields {
  mandates: Dict<Mandate>;
}

/** The mandates' events: the whole mandate after each change, so one event reads on its own. */
export interface MandateEvents {
  'mandate.created': { mandate: Mandate };
  'mandate.updated': { mandate: Mandate };
}

export const mandateEvent = eventsOf<MandateEvents>();

export const mandatesSlice: Slice<MandatesFields, MandateEvents> = {
  initial: () => ({ mandates: dict() }),
  on: {
    'mandate.created': (s, d) => {
      s.mandates[d.mandate.id] = structuredClone(d.mandate);
    },
    'mandate.updated': (s, d) => {
      s.mandates[d.mandate.id] = structuredClone(d.mandate);
    },
  },
  revive: (s) => {
    s.mandates = toDict(s.mandates);
  },
};

/** The mandate, or a not_found error. */
export function mandateOf(s: MandatesFields, id: string): Mandate {
  const m = s.mandates[id];
  if (!m) throw new HolonError('not_found', `no mandate "${id}"`, { mandate: id });
  return m;
}

/** Why a mandate cannot act at all right now (status, expiry). */
export function mandateDenials(mandate: Mandate, now: number): Denial[] {
  const out: Denial[] = [];
  if (mandate.status !== 'active') out.push(denial('mandate_inactive', { mandate: mandate.id, status: mandate.status }));
  if (mandate.expires_at && Date.parse(mandate.expires_at) <= now)
    out.push(denial('mandate_expired', { mandate: mandate.id, expires_at: mandate.expires_at }));
  return out;
}

/** The mandate, if its amounts and grants are well formed; otherwise an invalid_input error. */
export function checkedMandate(m: Mandate): Mandate {
  const positive = (what: string, v: string | null): void => {
    if (v !== null && M.parseUnits(v) <= 0n) throw new HolonError('invalid_input', `mandate: ${what} must be positive`);
  };
  M.currency(m.currency);
  positive('budget.total', m.budget.total);
  positive('budget.per_call', m.budget.per_call);
  positive('budget.per_day', m.budget.per_day);
  M.parseUnits(m.approval_threshold);
  const names = m.capabilities.map((c) => c.name);
  if (new Set(names).size !== names.length) throw new HolonError('invalid_input', 'mandate: a capability is granted twice');
  allowedProducts(m);
  return m;
}

/** The mandate a full input describes; everything not given takes a careful default. */
function fromInput(id: string, i: MandateInput, now: string): Mandate {
  const [account = '', name = ''] = id.split('/');
  return {
    id,
    account,
    name,
    grantee: { slug: name, name: `Agent on ${id}`, role: 'coding agent', manager: null, ...defined(i.grantee) },
    currency: i.currency ?? 'EUR',
    budget: { total: i.budget?.total ?? '5.00', per_day: i.budget?.per_day ?? null, per_call: i.budget?.per_call ?? null },
    approval_threshold: i.approval_threshold ?? '0.50',
    toolsets: i.toolsets ?? ['market'],
    capabilities: i.capabilities ?? [{ name: CAP.marketCall, params: { capabilities: ['*'] } }],
    data: { regions: i.data?.regions ?? null, retention_days: i.data?.retention_days ?? null, training: i.data?.training ?? false },
    expires_at: i.expires_at ?? null,
    status: i.status ?? 'active',
    created_at: now,
    updated_at: now,
  };
}

/**
 * The mandate after a patch. Grants are replaced or added by name and revoked by name, so a patch that
 * sets the hiring scope keeps every other grant; `capabilities` replaces the whole list only when given.
 * The grantee's fields, the budget and the data rules are merged field by field.
 */
export function applyMandatePatch(old: Mandate, p: MandatePatch, now: string): Mandate {
  let capabilities: CapabilityGrant[] = p.capabilities ? structuredClone(p.capabilities) : structuredClone(old.capabilities);
  for (const g of p.grants ?? []) {
    const i = capabilities.findIndex((c) => c.name === g.name);
    if (i >= 0) capabilities[i] = structuredClone(g);
    else capabilities.push(structuredClone(g));
  }
  if (p.revoke) capabilities = capabilities.filter((c) => !p.revoke?.includes(c.name));
  return {
    ...old,
    grantee: { ...old.grantee, ...defined(p.grantee) },
    currency: p.currency ?? old.currency,
    budget: { ...old.budget, ...defined(p.budget) },
    approval_threshold: p.approval_threshold ?? old.approval_threshold,
    toolsets: p.toolsets ?? old.toolsets,
    capabilities,
    data: { ...old.data, ...defined(p.data) },
    expires_at: p.expires_at !== undefined ? p.expires_at : old.expires_at,
    status: p.status ?? old.status,
    updated_at: now,
  };
}

/** Creates a mandate `account/name`; everything not given takes a careful default. */
export async function createMandate(store: EventStore<MandatesFields>, clock: Clock, id: string, input: unknown): Promise<Mandate> {
  checkMandateId(id);
  // The schemas (zod) are loaded on the first write that needs them, never to fold or read a state.
  const { firstIssue, MandateInputSchema } = await import('../kernel/schemas.ts');
  const parsed = MandateInputSchema.strict().safeParse(input);
  if (!parsed.success) throw new HolonError('invalid_input', `mandate: ${firstIssue(parsed.error)}`);
  const m = checkedMandate(fromInput(id, parsed.data, new Date(clock.now()).toISOString()));
  return store.transact((s) => {
    if (s.mandates[id]) throw new HolonError('conflict', `mandate ${id} already exists; edit it instead`);
    return { events: [mandateEvent('mandate.created', { mandate: m })], result: m };
  });
}

/**
 * What a mandate's edit must know of what it has spent: the spend slice's fields (money/spend.ts) have
 * this shape, named here so that the mandates, which every module builds on, import none of them.
 */
interface SpentSoFar {
  spend: Record<string, { spent: bigint; held: bigint } | undefined>;
}

/** Changes a mandate by a patch; what the patch does not name stays as it was. */
export async function patchMandate(
  store: EventStore<MandatesFields & SpentSoFar>,
  clock: Clock,
  id: string,
  patch: unknown,
): Promise<Mandate> {
  const { firstIssue, MandatePatchSchema } = await import('../kernel/schemas.ts');
  const parsed = MandatePatchSchema.safeParse(patch);
  if (!parsed.success) throw new HolonError('invalid_input', `mandate: ${firstIssue(parsed.error)}`);
  return store.transact((s) => {
    const old = mandateOf(s, id);
    const m = checkedMandate(applyMandatePatch(old, parsed.data, new Date(clock.now()).toISOString()));
    const sp = s.spend[id];
    if (m.currency !== old.currency && sp && sp.spent + sp.held > 0n) {
      throw new HolonError('conflict', `mandate ${id} has already spent in ${old.currency}; its currency cannot change`, {
        currency: old.currency,
      });
    }
    return { events: [mandateEvent('mandate.updated', { mandate: m })], result: m };
  });
}
