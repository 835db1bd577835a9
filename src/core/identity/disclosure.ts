/**
 * Signed disclosures (seed 003's `disclose` and `verify`): what an agent is and what its mandate lets it
 * do — who, the mandate, its capabilities and limits, until when — signed with the installation's
 * Ed25519 key over the RFC 8785 form. Verifying one checks the signature, the time and the verifier's
 * policy, and answers with a Decision; any changed byte fails it.
 */
import { canonicalize } from 'json-canonicalize';
import { z } from 'zod';
import { HolonError } from '../kernel/errors.ts';
import { verifySignature } from '../store/keys.ts';
import { mandateOf } from '../accounts/mandates.ts';
import type { CapabilityGrant } from '../kernel/model.ts';
import type { HolonState } from '../fold/state.ts';
import type { Signer } from '../store/store.ts';
import type { Ed25519Signature } from '../money/slice.ts';

/** The longest a disclosure may be valid for, and the default. */
export const DISCLOSURE_TTL = { default_seconds: 3600, max_seconds: 7 * 86400 } as const;

/** What a disclosure says. */
export interface DisclosureBody {
  type: 'holon.disclosure.v1';
  who: { slug: string; name: string; role: string; account: string };
  mandate: string;
  capabilities: CapabilityGrant[];
  limits: { currency: string; total: string; per_day: string | null; per_call: string | null; approval_threshold: string };
  issued_at: string;
  expires_at: string;
  /** The key that signs it (raw Ed25519, base64). */
  public_key: string;
}

/** A disclosure and its signature. */
export interface SignedDisclosure {
  disclosure: DisclosureBody;
  signature: Ed25519Signature;
}

/** This mandate's disclosure, signed now, valid for `ttlSeconds` (never past the mandate's own expiry). */
export function discloseMandate(
  s: HolonState,
  mandateId: string,
  signer: Signer,
  now: number,
  ttlSeconds: number = DISCLOSURE_TTL.default_seconds,
): SignedDisclosure {
  if (!(ttlSeconds >= 1 && ttlSeconds <= DISCLOSURE_TTL.max_seconds))
    throw new HolonError('invalid_input', `a disclosure is valid for 1 to ${DISCLOSURE_TTL.max_seconds} seconds`);
  const m = mandateOf(s, mandateId);
  const until = now + ttlSeconds * 1000;
  const mandateEnd = m.expires_at ? Date.parse(m.expires_at) : Infinity;
  const disclosure: DisclosureBody = {
    type: 'holon.disclosure.v1',
    who: { slug: m.grantee.slug, name: m.grantee.name, role: m.grantee.role, account: m.account },
    mandate: m.id,
    capabilities: structuredClone(m.capabilities),
    limits: {
      currency: m.currency,
      total: m.budget.total,
      per_day: m.budget.per_day,
      per_call: m.budget.per_call,
      approval_threshold: m.approval_threshold,
    },
    issued_at: new Date(now).toISOString(),
    expires_at: new Date(Math.min(until, mandateEnd)).toISOString(),
    public_key: signer.publicKey,
  };
  return { disclosure, signature: { alg: 'Ed25519', public_key: signer.publicKey, value: signer.sign(canonicalize(disclosure)) } };
}

const Grant = z.object({ name: z.string(), params: z.record(z.string(), z.unknown()).optional() });
const DisclosureShape = z.object({
  disclosure: z.looseObject({
    type: z.literal('holon.disclosure.v1'),
    who: z.looseObject({ slug: z.string(), name: z.string(), role: z.string(), account: z.string() }),
    mandate: z.string(),
    capabilities: z.array(Grant),
    limits: z.looseObject({ currency: z.string() }),
    issued_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
    public_key: z.string(),
  }),
  signature: z.object({ alg: z.literal('Ed25519'), public_key: z.string(), value: z.string() }),
});

/** What the verifier requires beyond a valid signature in time. */
export interface DisclosurePolicy {
  /** Only these signing keys are trusted (raw Ed25519, base64); absent: any key that signs validly. */
  trusted_keys?: string[] | undefined;
  /** Capabilities the counterparty's mandate must grant. */
  require_capabilities?: string[] | undefined;
}

/** seed 003's Decision. */
export interface Decision {
  decision: 'allow' | 'deny';
  reasons: string[];
  /** What the disclosure claims, once its signature holds. */
  subject: { who: DisclosureBody['who']; mandate: string; expires_at: string; public_key: string } | null;
  signals: { signature_valid: boolean; in_time: boolean; key_trusted: boolean | null; own_installation: boolean };
}

/** True when `value` has the shape of a signed disclosure (its signature unchecked). */
export function looksLikeDisclosure(value: unknown): boolean {
  return DisclosureShape.safeParse(value).success;
}

/** Checks a disclosure: its shape, its signature over exactly its body, its time, and the policy. */
export function verifyDisclosure(value: unknown, policy: DisclosurePolicy, now: number, ownKey: string | undefined): Decision {
  const parsed = DisclosureShape.safeParse(value);
  const none = { signature_valid: false, in_time: false, key_trusted: null, own_installation: false };
  if (!parsed.success)
    return {
      decision: 'deny',
      reasons: ['not a signed Holon disclosure (holon.disclosure.v1 with an Ed25519 signature)'],
      subject: null,
      signals: none,
    };
  const { disclosure: d, signature: sig } = parsed.data;
  const reasons: string[] = [];
  // The signature is checked over the disclosure exactly as received, every member included.
  const raw = (value as { disclosure: unknown }).disclosure;
  const valid = sig.public_key === d.public_key && verifySignature(d.public_key, canonicalize(raw), sig.value);
  if (!valid) reasons.push('the signature does not verify: the disclosure was changed, or not signed by its key');
  const issued = Date.parse(d.issued_at);
  const expires = Date.parse(d.expires_at);
  const inTime = issued <= now + 60_000 && now < expires;
  if (now >= expires) reasons.push(`the disclosure expired at ${d.expires_at}`);
  if (issued > now + 60_000) reasons.push(`the disclosure is dated in the future (${d.issued_at})`);
  const trusted = policy.trusted_keys ? policy.trusted_keys.includes(d.public_key) : null;
  if (trusted === false) reasons.push('the signing key is not one the policy trusts');
  const granted = new Set(d.capabilities.map((c) => c.name));
  const missing = (policy.require_capabilities ?? []).filter((c) => !granted.has(c));
  if (missing.length > 0) reasons.push(`the mandate does not grant ${missing.join(', ')}`);
  return {
    decision: reasons.length === 0 ? 'allow' : 'deny',
    reasons,
    subject: valid
      ? {
          who: { slug: d.who.slug, name: d.who.name, role: d.who.role, account: d.who.account },
          mandate: d.mandate,
          expires_at: d.expires_at,
          public_key: d.public_key,
        }
      : null,
    signals: {
      signature_valid: valid,
      in_time: inTime,
      key_trusted: trusted,
      own_installation: valid && ownKey !== undefined && d.public_key === ownKey,
    },
  };
}
