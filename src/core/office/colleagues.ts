/**
 * Who is in the office and what each may do right now: the workspace's mandates are the colleagues
 * (one per grantee slug), and what a mandate grants is widened only by a window a human approved,
 * for as long as it is open.
 */
import type { MandatesFields } from '../accounts/mandates.ts';
import type { CapabilityGrant, Mandate } from '../kernel/model.ts';
import { HolonError } from '../kernel/errors.ts';
import type { CapabilityWindow, OfficeFields } from './slice.ts';
import { officeEvent } from './slice.ts';
import type { Clock } from '../kernel/deps.ts';
import type { EventStore } from '../store/store.ts';
import type { PersonnelStatus } from './personnel.ts';
import { personnelStatus } from './personnel.ts';

/**
 * The office a mandate works in: its account. Its colleagues are that account's mandates that offer the
 * office toolset — not every mandate of the state (a human's own market mandate is nobody's colleague).
 */
function inOffice(m: Mandate, office: string): boolean {
  return m.account === office && m.toolsets.includes('office');
}

/** The mandate that is a grantee's personnel file in an office: the first by id, when one slug has several. */
export function colleagueMandate(s: MandatesFields, slug: string, office: string): Mandate | undefined {
  let found: Mandate | undefined;
  for (const m of Object.values(s.mandates)) if (m.grantee.slug === slug && inOffice(m, office) && (!found || m.id < found.id)) found = m;
  return found;
}

/** The colleague's mandate, or not_found. */
export function colleagueOf(s: MandatesFields, slug: string, office: string): Mandate {
  const m = colleagueMandate(s, slug, office);
  if (!m) throw new HolonError('not_found', `no colleague "${slug}" in this office`, { slug });
  return m;
}

/** Every colleague of an office (one per slug), by slug. */
export function colleagues(s: MandatesFields, office: string): { slug: string; mandate: Mandate; status: PersonnelStatus }[] {
  const slugs = [
    ...new Set(
      Object.values(s.mandates)
        .filter((m) => inOffice(m, office))
        .map((m) => m.grantee.slug),
    ),
  ].sort();
  return slugs.map((slug) => {
    const mandate = colleagueMandate(s, slug, office) as Mandate;
    return { slug, mandate, status: personnelStatus(mandate) };
  });
}

/** True while a window is open at `now`. */
export function windowOpen(w: { opens_at: string; closes_at: string }, now: number): boolean {
  return Date.parse(w.opens_at) <= now && now < Date.parse(w.closes_at);
}

/** Every grant of `name` the mandate has now: its own, and those of windows open right now. */
export function grantsNow(s: MandatesFields & OfficeFields, mandate: Mandate, name: string, now: number): CapabilityGrant[] {
  const own = mandate.capabilities.filter((c) => c.name === name);
  const lent = s.office.windows
    .filter((w) => w.mandate === mandate.id && w.capability.name === name && windowOpen(w, now))
    .map((w) => w.capability);
  return [...own, ...lent];
}

/** Names of every capability the mandate has now, its own and lent by open windows. */
export function capabilityNamesNow(s: MandatesFields & OfficeFields, mandate: Mandate, now: number): string[] {
  const lent = s.office.windows.filter((w) => w.mandate === mandate.id && windowOpen(w, now)).map((w) => w.capability.name);
  return [...new Set([...mandate.capabilities.map((c) => c.name), ...lent])];
}

/**
 * True if one of the grants lets `target` through a list parameter: a grant without the list (or with
 * "*" in it) allows every target.
 */
export function grantsAllow(grants: CapabilityGrant[], key: string, target: string): boolean {
  return grants.some((g) => {
    if (!g.params || !(key in g.params)) return true;
    // A list that is not a list (a journal written otherwise) restricts to nothing rather than to everything.
    const v = g.params[key];
    return Array.isArray(v) && v.some((x) => x === '*' || x === target);
  });
}

/** What the grants' lists allow, for a refusal to name. */
export function allowedTargets(grants: CapabilityGrant[], key: string): string[] {
  return [
    ...new Set(
      grants.flatMap((g) =>
        Array.isArray(g.params?.[key]) ? (g.params[key] as unknown[]).filter((x): x is string => typeof x === 'string') : ['*'],
      ),
    ),
  ];
}

/** The windows open now, of one mandate or of all. */
export function openWindows(s: OfficeFields, now: number, mandate?: string): CapabilityWindow[] {
  return s.office.windows.filter((w) => windowOpen(w, now) && (mandate === undefined || w.mandate === mandate));
}

/** Closes a window before its end (a human's narrowing: it needs no approval). */
export function closeWindow(store: EventStore<OfficeFields>, clock: Clock, approval: string): Promise<CapabilityWindow> {
  return store.transact((s) => {
    const now = clock.now();
    const w = s.office.windows.find((x) => x.approval === approval);
    if (!w) throw new HolonError('not_found', `no capability window opened by approval "${approval}"`, { approval });
    if (!windowOpen(w, now)) return { events: [], result: structuredClone(w) };
    const at = new Date(now).toISOString();
    return { events: [officeEvent('capability.window.closed', { approval, at })], result: { ...structuredClone(w), closes_at: at } };
  });
}
