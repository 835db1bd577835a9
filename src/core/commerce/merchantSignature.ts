/**
 * The merchant's side of UCP's AP2 Mandates extension that Holon checks before it signs anything: its detached
 * checkout signature (JWS, RFC 7515 appendix F, over the JCS form of the checkout without `ap2`) with a key its
 * profile publishes, and the challenge (nonce) it sends with the checkout for the mandates' key bindings.
 */
import { createPublicKey, verify } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';
import { HolonError } from '../kernel/errors.ts';
import type { SignedCheckout } from './checkout.ts';

/**
 * Checks the merchant's detached signature of a checkout against the keys its profile publishes; the
 * signed checkout, or a `denied` error naming why (UCP's merchant_authorization_missing / _invalid).
 */
export function verifyMerchantAuthorization(checkout: Record<string, unknown>, keys: unknown[], merchant: string): SignedCheckout {
  const refuse = (code: string, why: string): HolonError =>
    new HolonError('agent_failed', `the merchant ${merchant} ${why}; Holon signs no mandate for it`, { merchant, code });
  const ap2 = checkout['ap2'] as { merchant_authorization?: unknown; nonce?: unknown } | undefined;
  const authorization = ap2?.merchant_authorization;
  if (typeof authorization !== 'string') throw refuse('merchant_authorization_missing', 'sent a checkout it did not sign');
  const m = /^([A-Za-z0-9_-]+)\.\.([A-Za-z0-9_-]+)$/.exec(authorization);
  if (!m) throw refuse('merchant_authorization_invalid', 'sent a checkout signature that does not read');
  const [, encodedHeader = '', signature = ''] = m;
  let header: { alg?: unknown; kid?: unknown };
  try {
    header = JSON.parse(Buffer.from(encodedHeader, 'base64url').toString('utf8')) as typeof header;
  } catch {
    throw refuse('merchant_authorization_invalid', 'sent a checkout signature that does not read');
  }
  const key = keys.find(
    (k): k is Record<string, unknown> => typeof k === 'object' && k !== null && (k as { kid?: unknown }).kid === header.kid,
  );
  if (header.alg !== 'ES256' || !key)
    throw refuse('merchant_authorization_invalid', 'signed its checkout with a key its profile does not publish');
  const { ap2: _ap2, ...payload } = checkout;
  const jwt = `${encodedHeader}.${Buffer.from(canonicalize(payload)).toString('base64url')}.${signature}`;
  if (!jwsPayload(jwt, key))
    throw refuse('merchant_authorization_invalid', "sent a checkout whose signature does not verify with its profile's key");
  // The challenge is not under the signature (UCP signs the checkout without `ap2`); the merchant remembers what it issued.
  const nonce = ap2?.nonce;
  if (nonce !== undefined && (typeof nonce !== 'string' || !/^[A-Za-z0-9_-]{16,128}$/.test(nonce)))
    throw refuse('merchant_authorization_invalid', 'sent a challenge (ap2.nonce) that is not a base64url string of 16 to 128 characters');
  return { authorization, jwt, key: { ...key }, ...(nonce ? { challenge: nonce } : {}) };
}

/** The payload of a compact ES256 JWS when it verifies with the P-256 public key `jwk`; otherwise undefined. */
export function jwsPayload(jwt: string, jwk: Record<string, unknown>): Record<string, unknown> | undefined {
  const [h, p, sig] = jwt.split('.');
  if (!h || !p || !sig) return undefined;
  try {
    const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { alg?: unknown };
    if (header.alg !== 'ES256') return undefined;
    const key = createPublicKey({ key: { kty: jwk['kty'], crv: jwk['crv'], x: jwk['x'], y: jwk['y'] } as never, format: 'jwk' });
    const ok = verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig, 'base64url'));
    return ok ? (JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
