/**
 * A software passkey: an ES256 authenticator in plain Node, standing in for a browser and its
 * authenticator in core tests. What it hands over is byte for byte what a browser gives a page:
 * clientDataJSON in the browser's key order, authenticator data as rpIdHash ‖ flags ‖ signCount, a DER
 * signature, and at registration an attestation object of format "none".
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { encodeCBOR, type CBORType } from '@levischuck/tiny-cbor';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { base64url } from '../../src/core/passkey/challenge.ts';
import { RP_ID, type AssertionJson, type PasskeyCredential } from '../../src/core/passkey/types.ts';

/** The page the software passkey is used on, unless a test says otherwise. */
export const SOFT_ORIGIN = 'http://localhost:43117';

/** User present, user verified: what a passkey with a PIN or a fingerprint sets. */
export const UP_UV = 0x05;

/** The order of P-256: a signature (r, s) verifies as (r, n − s) too. */
export const P256_N = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');

export interface AssertOptions {
  origin?: string;
  /** The authenticator data's flags byte; UP_UV unless set. */
  flags?: number;
  /** The RP whose hash the authenticator data carries; RP_ID unless set. */
  rpId?: string;
  /** true: the signature's s above n/2; false: at or below it; unset: as it was signed. */
  highS?: boolean;
  /** Fields laid over the browser's clientDataJSON (e.g. another `type`, `crossOrigin`, `topOrigin`). */
  clientData?: Record<string, unknown>;
}

export interface SoftPasskey {
  credential: PasskeyCredential;
  /** The public key as SPKI DER, base64url: what `response.getPublicKey()` gives. */
  spki: string;
  /** An assertion over `challenge`, as the browser would send it. */
  assert(challenge: Uint8Array, options?: AssertOptions): AssertionJson;
  /** A registration response over `challenge` (a base64url string, as in the options) that SimpleWebAuthn accepts. */
  register(challenge: string, origin?: string): RegistrationResponseJSON;
}

const sha256 = (b: Uint8Array | string): Buffer => createHash('sha256').update(b).digest();

/** A new passkey with a fresh P-256 key and a random 16-byte credential id. */
export function softPasskey(): SoftPasskey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const id = randomBytes(16);
  const jwk = publicKey.export({ format: 'jwk' });
  const credential: PasskeyCredential = { id: base64url(id), x: String(jwk.x), y: String(jwk.y) };
  const spki = publicKey.export({ format: 'der', type: 'spki' }).toString('base64url');
  return {
    credential,
    spki,
    assert: (challenge, options = {}) => assertWith(privateKey, credential.id, challenge, options),
    register: (challenge, origin = SOFT_ORIGIN) => registration(credential, id, spki, challenge, origin),
  };
}

/** `a` as the JSON SimpleWebAuthn's `verifyAuthenticationResponse` reads (the browser's `toJSON()`). */
export function responseOf(a: AssertionJson): AuthenticationResponseJSON {
  return {
    id: a.credential,
    rawId: a.credential,
    type: 'public-key',
    response: { clientDataJSON: a.client_data_json, authenticatorData: a.authenticator_data, signature: a.signature },
    clientExtensionResults: {},
    authenticatorAttachment: 'platform',
  };
}

/** The same signature with s replaced by n − s: the other of its two valid forms. */
export function otherForm(a: AssertionJson): AssertionJson {
  const { r, s } = rsOf(Buffer.from(a.signature, 'base64url'));
  return { ...a, signature: derOf(r, P256_N - s).toString('base64url') };
}

/** True when the signature's s is above n/2 (the form on-chain verifiers refuse). */
export function isHighS(a: AssertionJson): boolean {
  return rsOf(Buffer.from(a.signature, 'base64url')).s > P256_N / 2n;
}

function assertWith(key: KeyObject, credential: string, challenge: Uint8Array, o: AssertOptions): AssertionJson {
  const authData = Buffer.concat([sha256(o.rpId ?? RP_ID), flagsAndCount(o.flags ?? UP_UV, 1)]);
  const clientData = {
    type: 'webauthn.get',
    challenge: base64url(challenge),
    origin: o.origin ?? SOFT_ORIGIN,
    crossOrigin: false,
    ...o.clientData,
  };
  const clientDataJson = Buffer.from(JSON.stringify(clientData));
  const der = sign('sha256', Buffer.concat([authData, sha256(clientDataJson)]), { key, dsaEncoding: 'der' });
  const { r, s } = rsOf(der);
  const flip = o.highS !== undefined && o.highS !== s > P256_N / 2n;
  return {
    credential,
    authenticator_data: authData.toString('base64url'),
    client_data_json: clientDataJson.toString('base64url'),
    signature: derOf(r, flip ? P256_N - s : s).toString('base64url'),
  };
}

function registration(
  credential: PasskeyCredential,
  id: Buffer,
  spki: string,
  challenge: string,
  origin: string,
): RegistrationResponseJSON {
  const cose = encodeCBOR(
    new Map<number, CBORType>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, new Uint8Array(Buffer.from(credential.x, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(credential.y, 'base64url'))],
    ]),
  );
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(id.length);
  // Flags UP | UV | AT (attested credential data follows); an all-zero AAGUID, as attestation "none" gives.
  const authData = Buffer.concat([sha256(RP_ID), flagsAndCount(0x45, 0), Buffer.alloc(16), idLength, id, Buffer.from(cose)]);
  const clientDataJson = JSON.stringify({ type: 'webauthn.create', challenge, origin, crossOrigin: false });
  const attestation = encodeCBOR(
    new Map<string, CBORType>([
      ['fmt', 'none'],
      ['attStmt', new Map<string, CBORType>()],
      ['authData', new Uint8Array(authData)],
    ]),
  );
  return {
    id: credential.id,
    rawId: credential.id,
    type: 'public-key',
    response: {
      clientDataJSON: Buffer.from(clientDataJson).toString('base64url'),
      attestationObject: Buffer.from(attestation).toString('base64url'),
      authenticatorData: authData.toString('base64url'),
      transports: ['internal'],
      publicKeyAlgorithm: -7,
      publicKey: spki,
    },
    clientExtensionResults: {},
    authenticatorAttachment: 'platform',
  };
}

function flagsAndCount(flags: number, count: number): Buffer {
  const b = Buffer.alloc(5);
  b[0] = flags;
  b.writeUInt32BE(count, 1);
  return b;
}

/** r and s of a DER ECDSA signature: SEQUENCE { INTEGER r, INTEGER s }, short lengths (P-256 needs no more). */
function rsOf(der: Buffer): { r: bigint; s: bigint } {
  const rLength = der[3]!;
  const r = der.subarray(4, 4 + rLength);
  const s = der.subarray(6 + rLength, 6 + rLength + der[5 + rLength]!);
  return { r: BigInt(`0x${r.toString('hex')}`), s: BigInt(`0x${s.toString('hex')}`) };
}

function derOf(r: bigint, s: bigint): Buffer {
  const body = Buffer.concat([derInteger(r), derInteger(s)]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}

/** A positive INTEGER: minimal bytes, with a leading zero when the top bit is set. */
function derInteger(v: bigint): Buffer {
  const hex = v.toString(16);
  let b = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  if (b[0]! & 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return Buffer.concat([Buffer.from([0x02, b.length]), b]);
}
