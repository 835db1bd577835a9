/**
 * Capabilities: what a mandate grants its grantee (seed 004's personnel file), and how a pattern such as
 * "extraction.*" matches an agent's capability. Names are constants, never literals scattered around.
 */
import type { Denial } from './denials.ts';
import { denial } from './denials.ts';
import type { CapabilityGrant, Mandate } from './model.ts';

/** Every capability Holon's tools check. A mandate may also carry others a human wrote; they grant nothing here. */
export const CAP = {
  /** Hire agents: `{capabilities: ["extraction.*", …]}`; without params, any. */
  marketCall: 'market.call',
  /**
   * Pay a counterparty: `{payees: [...]}`; `{require_terms: true}` pays an x402 seller only on terms it
   * advertises (seed 002), never a plain x402 payment.
   */
  pay: 'pay',
  mailRead: 'mail.read',
  /** Start a thread: `{to: [slug, …]}`. */
  mailSend: 'mail.send',
  officeRead: 'office.read',
  approvalRequest: 'approval.request',
  artifactPublish: 'artifact.publish',
  /** `{repos: [...]}`. */
  forgeRead: 'forge.read',
  /** `{repos: [...]}`. */
  forgeWrite: 'forge.write',
  hrPropose: 'hr.propose',
  /** Buy from a configured merchant at its price: `{merchants: [...]}`; without params, any. */
  commerceBuy: 'commerce.buy',
} as const;

/** A capability name Holon knows. */
export type CapabilityName = (typeof CAP)[keyof typeof CAP];

/**
 * True when every plain object already carries `name` ("constructor", "toString", "__proto__"…). No
 * capability is named so: in personnel.yaml's `{name: params}` form the name is an object key, and a
 * table of capabilities by name would find it there without anyone having granted it.
 */
export function isObjectMemberName(name: string): boolean {
  return Object.hasOwn(Object.prototype, name);
}

/** True if `capability` matches `pattern` ("*", "extraction.*", or an exact name). */
export function capabilityMatches(pattern: string, capability: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return capability.startsWith(pattern.slice(0, -1));
  return pattern === capability;
}

/** The mandate's grant of a capability, if any. */
export function grantOf(mandate: Mandate, name: string): CapabilityGrant | undefined {
  return mandate.capabilities.find((c) => c.name === name);
}

/** A string-list parameter of a grant; undefined when the grant does not restrict it. */
export function listParam(grant: CapabilityGrant, key: string): string[] | undefined {
  const v = grant.params?.[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

/** The agent capabilities `market.call` allows: its list, "*" when it names none, nothing without the grant. */
export function callablePatterns(mandate: Mandate): string[] {
  const g = grantOf(mandate, CAP.marketCall);
  if (!g) return [];
  return listParam(g, 'capabilities') ?? ['*'];
}

/** Why the mandate does not grant `name`, or nothing when it does. */
export function capabilityDenial(mandate: Mandate, name: string): Denial | undefined {
  return grantOf(mandate, name) ? undefined : denial('capability_missing', { capability: name });
}

/**
 * Why the mandate may not pay `payee` (CAIP-10), or nothing when it may: every signature of the human's
 * wallet, whichever tool makes it, goes through the `pay` capability and its payees.
 */
export function payeeScopeDenial(mandate: Mandate, payee: string): Denial | undefined {
  const grant = grantOf(mandate, CAP.pay);
  if (!grant) return denial('capability_missing', { capability: CAP.pay });
  const payees = listParam(grant, 'payees');
  if (payees && !payees.includes('*') && !payees.includes(payee))
    return denial('capability_scope', { capability: CAP.pay, target: payee, allowed: payees });
  return undefined;
}

/** True when the mandate pays x402 sellers only on confirmed terms (its `pay` grant's `require_terms`). */
export function requiresTerms(mandate: Mandate): boolean {
  return grantOf(mandate, CAP.pay)?.params?.['require_terms'] === true;
}
