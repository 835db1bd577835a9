/**
 * The check every reader runs on an assertion before it counts what the human decided. It runs inside
 * the fold, which is synchronous, so it is Holon's own (node:crypto) and never async; SimpleWebAuthn's
 * server is the outside judge it is tested against. Whatever an assertion holds, a malformed field is a
 * refusal, never a throw.
 */
import { createHash, verify } from 'node:crypto';
import type { Refusal } from '../store/store.ts';
import { base64url } from './challenge.ts';
import { fromBase64url, isCredential, keyOf } from './credential.ts';
import type { AssertionJson, PasskeyCredential } from './types.ts';
import { RP_ID } from './types.ts';

/** Flags of authenticator data: the user was present (touched), and verified (PIN, biometrics). */
const UP = 0x01;
const UV = 0x04;

/** The rpIdHash (32) the flags (1) and the signature counter (4): the least an authenticator signs. */
const AUTH_DATA_MIN = 37;

const RP_ID_HASH = createHash('sha256').update(RP_ID).digest();

/** The only hosts a ceremony page is served on: this machine's loopback, by name or by address. */
const LOOPBACK = new Set(['localhost', '127.0.0.1']);

/**
 * Why `a` is not `cred`'s user-verified assertion over `challenge`, or undefined when it is. Checks, in
 * order: the credential, clientDataJSON (type, challenge, origin, not cross-origin), authenticator data
 * (RP, user present and verified), then the ECDSA P-256 signature over authenticatorData ‖
 * sha256(clientDataJSON).
 */
export function verifyAssertion(cred: PasskeyCredential, a: AssertionJson, challenge: Uint8Array): Refusal | undefined {
  if (typeof a !== 'object' || a === null) return refuse('assertion_malformed', 'The assertion is not an object.');
  if (a.credential !== cred.id) return refuse('unknown_credential', 'The assertion was made by another passkey than the one registered.');
  if (!isCredential(cred)) return refuse('credential_invalid', 'The registered passkey is not a P-256 key.');

  const clientDataBytes = fromBase64url(a.client_data_json);
  const authData = fromBase64url(a.authenticator_data);
  const signature = fromBase64url(a.signature);
  if (!clientDataBytes || !authData || !signature) return refuse('assertion_malformed', 'The assertion’s fields are not all base64url.');

  const clientData = parseObject(clientDataBytes);
  if (!clientData) return refuse('assertion_malformed', 'The assertion’s client data is not a JSON object.');
  if (clientData.type !== 'webauthn.get')
    return refuse('assertion_wrong_type', 'The client data is not that of an assertion (webauthn.get).');
  if (clientData.challenge !== base64url(challenge))
    return refuse('assertion_wrong_challenge', 'The passkey signed another decision than this one.');
  if (!isLoopbackOrigin(clientData.origin))
    return refuse('assertion_wrong_origin', 'The passkey was used on a page that Holon does not serve on this machine.');
  if (clientData.crossOrigin === true) return refuse('assertion_wrong_origin', 'The passkey was used inside a frame of another site.');

  if (authData.length < AUTH_DATA_MIN) return refuse('assertion_malformed', 'The authenticator data is too short.');
  if (!authData.subarray(0, 32).equals(RP_ID_HASH))
    return refuse('assertion_wrong_rp', `The passkey belongs to another site than ${RP_ID}.`);
  const flags = authData[32]!;
  if ((flags & UP) === 0 || (flags & UV) === 0)
    return refuse('assertion_not_verified', 'The authenticator did not verify the human (presence and PIN or biometrics).');

  const signed = Buffer.concat([authData, createHash('sha256').update(clientDataBytes).digest()]);
  let valid = false;
  try {
    valid = verify('sha256', signed, { key: keyOf(cred), dsaEncoding: 'der' }, signature);
  } catch {
    // A signature that is not DER is as wrong as one that does not verify.
  }
  return valid ? undefined : refuse('assertion_invalid', 'The passkey’s signature does not verify.');
}

/**
 * True for `http://localhost[:port]` and `http://127.0.0.1[:port]`, exactly as a browser writes an
 * origin. Any port: the page is served on a port chosen when it opens, and code-server may show it under
 * its own loopback port.
 */
function isLoopbackOrigin(origin: unknown): boolean {
  if (typeof origin !== 'string') return false;
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' && LOOPBACK.has(u.hostname) && u.origin === origin;
  } catch {
    return false;
  }
}

function parseObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function refuse(code: string, message: string): Refusal {
  return { code, message };
}
