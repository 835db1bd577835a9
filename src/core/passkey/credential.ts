/**
 * A passkey's public key: read from what the browser hands over at registration (SPKI), kept as its
 * coordinates, and turned back into a key to verify with. Only ES256 (P-256) keys: the chain can check
 * those, and nothing else is ever registered.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { HolonError } from '../kernel/errors.ts';
import type { PasskeyCredential } from './types.ts';

/** The bytes of a base64url string, or undefined when it is not one (no padding, no stray characters, no loose bits). */
export function fromBase64url(s: unknown): Buffer | undefined {
  if (typeof s !== 'string' || !/^[A-Za-z0-9_-]*$/.test(s)) return undefined;
  const bytes = Buffer.from(s, 'base64url');
  // Buffer skips what it cannot read; only a string that round-trips is exactly these bytes.
  return bytes.toString('base64url') === s ? bytes : undefined;
}

/**
 * The credential `id` whose public key is `spkiBase64url` (what `response.getPublicKey()` gives: SPKI
 * DER). Throws `invalid_input` for anything but a P-256 key.
 */
export function credentialOfSpki(id: string, spkiBase64url: string): PasskeyCredential {
  const idBytes = fromBase64url(id);
  if (!idBytes?.length) throw new HolonError('invalid_input', 'A passkey credential id must be base64url.', { field: 'id' });
  const der = fromBase64url(spkiBase64url);
  let key: KeyObject;
  try {
    if (!der?.length) throw new Error('not base64url');
    key = createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch {
    throw new HolonError('invalid_input', 'A passkey public key must be a SubjectPublicKeyInfo in base64url.', { field: 'public_key' });
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new HolonError('invalid_input', 'A passkey must use an ES256 (P-256) key.', { field: 'public_key', type: key.asymmetricKeyType });
  }
  const jwk = key.export({ format: 'jwk' });
  return { id, x: String(jwk.x), y: String(jwk.y) };
}

/** The public key of `cred`. Throws `invalid_input` when its coordinates are not a point of P-256. */
export function keyOf(cred: PasskeyCredential): KeyObject {
  const x = fromBase64url(cred.x);
  const y = fromBase64url(cred.y);
  try {
    if (x?.length !== 32 || y?.length !== 32) throw new Error('not 32 bytes');
    return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: cred.x, y: cred.y }, format: 'jwk' });
  } catch {
    throw new HolonError('invalid_input', 'A passkey’s coordinates must be a point of P-256, 32 bytes each in base64url.', {
      credential: cred.id,
    });
  }
}

/** True when `v` is a credential: a base64url id and a point of P-256. */
export function isCredential(v: unknown): v is PasskeyCredential {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Record<string, unknown>;
  if (!fromBase64url(c.id)?.length || typeof c.x !== 'string' || typeof c.y !== 'string') return false;
  try {
    keyOf({ id: c.id as string, x: c.x, y: c.y });
    return true;
  } catch {
    return false;
  }
}
