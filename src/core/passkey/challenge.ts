/**
 * What a passkey signs: the hash of exactly what the human decides, in RFC 8785 form, so the same
 * decision always gives the same challenge and any other decision another one.
 */
import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';

/** The version every subject is hashed under: a subject of another form can never collide with one of these. */
export const SUBJECT_VERSION = 'holon/decision/1';

/** The 32-byte challenge for `subject` (any JSON value). */
export function challengeOf(subject: unknown): Uint8Array {
  return new Uint8Array(
    createHash('sha256')
      .update(canonicalize({ v: SUBJECT_VERSION, subject }))
      .digest(),
  );
}

/** `bytes` as base64url, as WebAuthn writes a challenge into clientDataJSON. */
export function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}
