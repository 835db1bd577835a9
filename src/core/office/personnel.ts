/**
 * The personnel file (seed 004): a mandate seen as an agent's job — role, department, manager, status,
 * capabilities in `personnel.yaml` form, run settings and budget — and the plain-English difference
 * between two of them, which is what a human reads before merging a proposal.
 */
import * as M from '../kernel/amount.ts';
import type { CapabilityGrant, Mandate } from '../kernel/model.ts';
import { CAP, isObjectMemberName } from '../kernel/capabilities.ts';
import { HolonError } from '../kernel/errors.ts';
import { canonicalHash, toDict } from '../kernel/util.ts';

/** How a capability is written in `personnel.yaml`: a bare name, or `{name: params}`. */
export type PersonnelCapability = string | Record<string, unknown>;

/** A colleague's status as the office names it. */
export type PersonnelStatus = 'hired' | 'suspended' | 'retired';

/** The personnel file of one agent. */
export interface Personnel {
  slug: string;
  name: string;
  role: string;
  department: string | null;
  manager: string | null;
  status: PersonnelStatus;
  capabilities: PersonnelCapability[];
  run: { model: string | null; toolsets: string[] };
  budget: { currency: string; total: string; per_day: string | null; per_call: string | null };
}

const STATUS_OF_MANDATE: Record<Mandate['status'], PersonnelStatus> = { active: 'hired', suspended: 'suspended', revoked: 'retired' };
const MANDATE_STATUS: Record<PersonnelStatus, Mandate['status']> = { hired: 'active', suspended: 'suspended', retired: 'revoked' };

/** The office status of a mandate's grantee. */
export function personnelStatus(m: Mandate): PersonnelStatus {
  return STATUS_OF_MANDATE[m.status];
}

/** The mandate status a personnel status stands for. */
export function mandateStatus(s: PersonnelStatus): Mandate['status'] {
  return MANDATE_STATUS[s];
}

/**
 * The list parameter a capability's shorthand `{name: [...]}` stands for, so `{"mail.send": ["ada"]}`
 * and `{"mail.send": {"to": ["ada"]}}` are the same grant. Looked up by the name an agent wrote, so
 * without a prototype.
 */
const SHORTHAND_KEY = toDict<string>({
  [CAP.mailSend]: 'to',
  [CAP.forgeRead]: 'repos',
  [CAP.forgeWrite]: 'repos',
  [CAP.marketCall]: 'capabilities',
  [CAP.pay]: 'payees',
});

const CAPABILITY_NAME = /^[a-z][a-z0-9_-]*(\.[a-z0-9_*-]+)*$/;

/** Whether `name` can name a capability: dotted lower-case words, none a name every object carries. */
function isCapabilityName(name: string): boolean {
  return CAPABILITY_NAME.test(name) && !isObjectMemberName(name);
}

/**
 * The parameters a capability Holon checks may carry, each a list of strings. A grant of one of these
 * with any other key, or a list that is not a list of strings, is refused: a parameter that does not
 * check as written would be read as "no restriction", wider than what the human was shown.
 */
const LIST_PARAMS = toDict<readonly string[]>({
  [CAP.mailSend]: ['to'],
  [CAP.forgeRead]: ['repos'],
  [CAP.forgeWrite]: ['repos'],
  [CAP.marketCall]: ['capabilities'],
  [CAP.pay]: ['payees'],
});

function checkedParams(name: string, params: Record<string, unknown>): CapabilityGrant {
  const allowed = LIST_PARAMS[name];
  if (allowed) {
    for (const [key, value] of Object.entries(params)) {
      if (!allowed.includes(key))
        throw new HolonError('invalid_input', `capability "${name}" takes only ${allowed.map((k) => `"${k}"`).join(', ')}, not "${key}"`);
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v.length > 0 && v.length <= 200) || value.length > 200) {
        throw new HolonError('invalid_input', `capability "${name}": "${key}" is a list of names`);
      }
    }
  }
  return Object.keys(params).length === 0 ? { name } : { name, params: structuredClone(params) };
}

/** The grant a `personnel.yaml` entry describes; a malformed one is refused with what is wrong. */
export function grantOfEntry(entry: PersonnelCapability): CapabilityGrant {
  if (typeof entry === 'string') {
    if (!isCapabilityName(entry)) throw new HolonError('invalid_input', `capability "${entry}" is not a capability name`);
    return { name: entry };
  }
  const keys = Object.keys(entry);
  const name = keys[0];
  if (keys.length !== 1 || name === undefined)
    throw new HolonError('invalid_input', 'a capability is a name, or an object with exactly one name and its parameters');
  if (!isCapabilityName(name)) throw new HolonError('invalid_input', `capability "${name}" is not a capability name`);
  const value = entry[name];
  if (value === null || value === undefined || value === true) return { name };
  if (Array.isArray(value)) return checkedParams(name, { [SHORTHAND_KEY[name] ?? 'values']: value });
  if (typeof value === 'object') return checkedParams(name, value as Record<string, unknown>);
  throw new HolonError('invalid_input', `capability "${name}": its parameters are a list or an object`);
}

/** The `personnel.yaml` entry of a grant. */
export function entryOfGrant(g: CapabilityGrant): PersonnelCapability {
  return g.params && Object.keys(g.params).length > 0 ? { [g.name]: structuredClone(g.params) } : g.name;
}

/**
 * An amount as every office tool writes it, `whoami`'s budget and a budget override's included: the one
 * format of `formatUnits` ("2.00", "0.0238"). A mandate keeps its limits as a human typed them ("2").
 */
function amountText(amount: string): string {
  try {
    return M.formatUnits(M.parseUnits(amount));
  } catch {
    // A limit no build would have accepted is shown as it is, never hidden.
    return amount;
  }
}

/** A budget with its amounts in the office's one format. */
function budgetText(b: Personnel['budget']): Personnel['budget'] {
  const opt = (a: string | null): string | null => (a === null ? null : amountText(a));
  return { currency: b.currency, total: amountText(b.total), per_day: opt(b.per_day), per_call: opt(b.per_call) };
}

/**
 * Whether two personnel files say the same. Their amounts are compared in the one format, so that a file
 * an earlier build kept as a proposal's `before` ("2") is still the same file as today's ("2.00").
 */
export function samePersonnel(a: Personnel, b: Personnel | null): boolean {
  return b !== null && canonicalHash({ ...a, budget: budgetText(a.budget) }) === canonicalHash({ ...b, budget: budgetText(b.budget) });
}

/** A mandate as its grantee's personnel file, its amounts in the office's one format. */
export function personnelOf(m: Mandate): Personnel {
  return {
    slug: m.grantee.slug,
    name: m.grantee.name,
    role: m.grantee.role,
    department: m.grantee.department ?? null,
    manager: m.grantee.manager,
    status: personnelStatus(m),
    capabilities: m.capabilities.map(entryOfGrant),
    run: { model: m.grantee.model ?? null, toolsets: [...m.toolsets] },
    budget: budgetText({ currency: m.currency, total: m.budget.total, per_day: m.budget.per_day, per_call: m.budget.per_call }),
  };
}

/** Merges grants by name: one with the same name replaces the old, the rest stay in their order. */
export function mergeGrants(base: CapabilityGrant[], add: CapabilityGrant[]): CapabilityGrant[] {
  const out = structuredClone(base);
  for (const g of add) {
    const i = out.findIndex((c) => c.name === g.name);
    if (i >= 0) out[i] = structuredClone(g);
    else out.push(structuredClone(g));
  }
  return out;
}

function grantText(g: CapabilityGrant): string {
  return g.params && Object.keys(g.params).length > 0 ? `${g.name} ${JSON.stringify(g.params)}` : g.name;
}

function paramsText(g: CapabilityGrant): string {
  return g.params && Object.keys(g.params).length > 0 ? JSON.stringify(g.params) : '(no parameters)';
}

/** The plain-English change between two files, one line per difference. */
export interface PersonnelChange {
  gains: string[];
  /** Capability names taken away: what a human must never miss. */
  losses: string[];
  changes: string[];
}

/**
 * What changes from `before` to `after`: capabilities gained, lost, and re-parameterised (a capability
 * that stays with other parameters is a change, not a loss), and every other field that differs.
 */
export function personnelChange(before: Personnel | null, after: Personnel): PersonnelChange {
  const old = (before?.capabilities ?? []).map(grantOfEntry);
  const now = after.capabilities.map(grantOfEntry);
  const gains = now.filter((g) => !old.some((o) => o.name === g.name)).map((g) => `gains: ${grantText(g)}`);
  const losses = old.filter((o) => !now.some((g) => g.name === o.name)).map((o) => o.name);
  const changes: string[] = [];
  for (const g of now) {
    const o = old.find((c) => c.name === g.name);
    if (o && canonicalHash(o.params ?? {}) !== canonicalHash(g.params ?? {}))
      changes.push(`changes: ${g.name} (${paramsText(o)} → ${paramsText(g)})`);
  }
  // A hire is measured against an empty file, so every field it sets is in the words the human reads.
  const field = (label: string, a: unknown, b: unknown): void => {
    if (canonicalHash(a ?? null) !== canonicalHash(b ?? null))
      changes.push(`changes: ${label} (${String(a ?? 'none')} → ${String(b ?? 'none')})`);
  };
  field('name', before?.name, after.name);
  field('role', before?.role, after.role);
  field('department', before?.department, after.department);
  field('manager', before?.manager, after.manager);
  field('status', before?.status, after.status);
  field('model', before?.run.model, after.run.model);
  field('toolsets', before?.run.toolsets.join(', '), after.run.toolsets.join(', '));
  field('budget total', before && `${before.budget.total} ${before.budget.currency}`, `${after.budget.total} ${after.budget.currency}`);
  field(
    'budget per day',
    before?.budget.per_day && `${before.budget.per_day} ${before.budget.currency}`,
    after.budget.per_day && `${after.budget.per_day} ${after.budget.currency}`,
  );
  return { gains, losses, changes };
}
