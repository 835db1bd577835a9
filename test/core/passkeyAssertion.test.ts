/**
 * The fold's check of a passkey assertion, judged against SimpleWebAuthn's server: for a good assertion
 * and for each way one can be wrong, Holon's synchronous verdict and SimpleWebAuthn's agree. The
 * assertions come from a software passkey that writes them as a browser does.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import {
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type WebAuthnCredential,
} from '@simplewebauthn/server';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { verifyAssertion } from '../../src/core/passkey/assertion.ts';
import { base64url, challengeOf } from '../../src/core/passkey/challenge.ts';
import { credentialOfSpki, isCredential, keyOf } from '../../src/core/passkey/credential.ts';
import { RP_ID, type AssertionJson } from '../../src/core/passkey/types.ts';
import { isHighS, otherForm, responseOf, SOFT_ORIGIN, softPasskey } from '../helpers/softPasskey.ts';

/** The origins a ceremony page may have: what the oracle is told to expect. */
const ORIGINS = [SOFT_ORIGIN, 'http://127.0.0.1:43117', 'http://localhost'];

const payment = (amount: string): unknown => ({
  kind: 'payment',
  mandate: 'demo/buyer',
  payee: 'eip155:31337:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  amount: { amount, currency: 'USDC' },
});
const CHALLENGE = challengeOf(payment('5.00'));
const ONE_CENT_MORE = challengeOf(payment('5.01'));

const human = softPasskey();
const stranger = softPasskey();

/** The human's passkey, registered through SimpleWebAuthn: the oracle keeps the COSE key it parsed from the attestation. */
const registered: Promise<WebAuthnCredential> = (async () => {
  const options = await generateRegistrationOptions({
    rpName: 'Holon',
    rpID: RP_ID,
    userName: 'human',
    attestationType: 'none',
    supportedAlgorithmIDs: [-7],
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  const result = await verifyRegistrationResponse({
    response: human.register(options.challenge),
    expectedChallenge: options.challenge,
    expectedOrigin: SOFT_ORIGIN,
    expectedRPID: RP_ID,
    requireUserVerification: true,
    supportedAlgorithmIDs: [-7],
  });
  assert.ok(result.verified && result.registrationInfo);
  return result.registrationInfo.credential;
})();

/**
 * SimpleWebAuthn's verdict. It checks a signature against the credential it is given, whatever id the
 * response names, so the relying party first looks the credential up by that id, as its docs say: an
 * id it never registered is refused before any check.
 */
async function oracle(a: AssertionJson, challenge: Uint8Array): Promise<boolean> {
  const credential = await registered;
  if (a.credential !== credential.id) return false;
  try {
    const result = await verifyAuthenticationResponse({
      response: responseOf(a),
      expectedChallenge: base64url(challenge),
      expectedOrigin: ORIGINS,
      expectedRPID: RP_ID,
      credential,
      requireUserVerification: true,
    });
    return result.verified;
  } catch {
    return false;
  }
}

const good = human.assert(CHALLENGE);
const highS = human.assert(CHALLENGE, { highS: true });

function withByte(b64: string, at: number, xor: number): string {
  const bytes = Buffer.from(b64, 'base64url');
  const i = at < 0 ? bytes.length + at : at;
  bytes[i] = bytes[i]! ^ xor;
  return bytes.toString('base64url');
}

const CASES: { name: string; assertion: AssertionJson; challenge?: Uint8Array; code: string | undefined }[] = [
  { name: 'a good assertion', assertion: good, code: undefined },
  { name: 'one made on the page at 127.0.0.1', assertion: human.assert(CHALLENGE, { origin: 'http://127.0.0.1:43117' }), code: undefined },
  {
    name: 'one made on the page at localhost without a port',
    assertion: human.assert(CHALLENGE, { origin: 'http://localhost' }),
    code: undefined,
  },
  { name: 'a high-s signature', assertion: highS, code: undefined },
  { name: 'the low-s form of that same signature', assertion: otherForm(highS), code: undefined },
  { name: 'one checked against a subject one cent larger', assertion: good, challenge: ONE_CENT_MORE, code: 'assertion_wrong_challenge' },
  { name: 'one signed over a subject one cent larger', assertion: human.assert(ONE_CENT_MORE), code: 'assertion_wrong_challenge' },
  { name: 'one for another rpId', assertion: human.assert(CHALLENGE, { rpId: 'evil.example' }), code: 'assertion_wrong_rp' },
  { name: 'one without user verification', assertion: human.assert(CHALLENGE, { flags: 0x01 }), code: 'assertion_not_verified' },
  { name: 'one without user presence', assertion: human.assert(CHALLENGE, { flags: 0x04 }), code: 'assertion_not_verified' },
  {
    name: 'one made on another host',
    assertion: human.assert(CHALLENGE, { origin: 'http://evil.example:43117' }),
    code: 'assertion_wrong_origin',
  },
  {
    name: 'one made on a host that starts with localhost',
    assertion: human.assert(CHALLENGE, { origin: 'http://localhost.evil.example:43117' }),
    code: 'assertion_wrong_origin',
  },
  {
    name: 'one made over https',
    assertion: human.assert(CHALLENGE, { origin: 'https://localhost:43117' }),
    code: 'assertion_wrong_origin',
  },
  {
    name: 'one made in a frame inside another site',
    assertion: human.assert(CHALLENGE, { clientData: { crossOrigin: true, topOrigin: 'http://evil.example' } }),
    code: 'assertion_wrong_origin',
  },
  {
    name: 'the client data of a registration',
    assertion: human.assert(CHALLENGE, { clientData: { type: 'webauthn.create' } }),
    code: 'assertion_wrong_type',
  },
  {
    name: 'one byte of the signature flipped',
    assertion: { ...good, signature: withByte(good.signature, -1, 0x01) },
    code: 'assertion_invalid',
  },
  { name: 'a signature that is not DER', assertion: { ...good, signature: withByte(good.signature, 0, 0xff) }, code: 'assertion_invalid' },
  {
    name: 'one byte of the authenticator data flipped',
    assertion: { ...good, authenticator_data: withByte(good.authenticator_data, -1, 0x01) },
    code: 'assertion_invalid',
  },
  { name: 'another credential’s id', assertion: { ...good, credential: stranger.credential.id }, code: 'unknown_credential' },
  { name: 'an assertion by another passkey', assertion: stranger.assert(CHALLENGE), code: 'unknown_credential' },
  {
    name: 'another passkey’s signature under this id',
    assertion: { ...stranger.assert(CHALLENGE), credential: human.credential.id },
    code: 'assertion_invalid',
  },
  {
    name: 'truncated authenticator data',
    assertion: { ...good, authenticator_data: Buffer.from(good.authenticator_data, 'base64url').subarray(0, 36).toString('base64url') },
    code: 'assertion_malformed',
  },
  { name: 'a signature that is not base64url', assertion: { ...good, signature: 'MEUC!!not*base64' }, code: 'assertion_malformed' },
  {
    name: 'authenticator data that is not base64url',
    assertion: { ...good, authenticator_data: 'SZYN5YgO.jp' },
    code: 'assertion_malformed',
  },
  {
    name: 'client data that is not JSON',
    assertion: { ...good, client_data_json: Buffer.from('{"type":"webauthn.get",').toString('base64url') },
    code: 'assertion_malformed',
  },
];

for (const c of CASES) {
  test(`${c.name}: ${c.code ?? 'verifies'}, as SimpleWebAuthn says`, async () => {
    const challenge = c.challenge ?? CHALLENGE;
    assert.equal(verifyAssertion(human.credential, c.assertion, challenge)?.code, c.code);
    assert.equal(await oracle(c.assertion, challenge), c.code === undefined);
  });
}

test('the high-s and low-s cases are the two forms of one signature', () => {
  assert.ok(isHighS(highS));
  assert.ok(!isHighS(otherForm(highS)));
  assert.equal(otherForm(otherForm(highS)).signature, highS.signature);
});

test('every refusal says why in a sentence', () => {
  for (const c of CASES.filter((x) => x.code)) {
    const refusal = verifyAssertion(human.credential, c.assertion, c.challenge ?? CHALLENGE);
    assert.match(refusal?.message ?? '', /^[A-Z].+\.$/, c.name);
  }
});

test('an assertion of any shape is refused, never thrown on', () => {
  const junk: unknown[] = [undefined, null, 42, 'with spaces', 'padded==', [], {}, { a: 1 }, Buffer.from('x')];
  for (const field of ['authenticator_data', 'client_data_json', 'signature'] as const) {
    for (const value of junk) {
      const refusal = verifyAssertion(human.credential, { ...good, [field]: value } as unknown as AssertionJson, CHALLENGE);
      assert.equal(refusal?.code, 'assertion_malformed', `${field} = ${String(value)}`);
    }
  }
  for (const clientData of [[], 'text', null, 7, { type: 'webauthn.get' }]) {
    const a = { ...good, client_data_json: Buffer.from(JSON.stringify(clientData)).toString('base64url') };
    assert.ok(verifyAssertion(human.credential, a, CHALLENGE), JSON.stringify(clientData));
  }
  for (const a of junk) assert.ok(verifyAssertion(human.credential, a as AssertionJson, CHALLENGE), String(a));
});

test('a registered credential that is not a point of P-256 verifies nothing', () => {
  const offCurve = { ...human.credential, y: withByte(human.credential.y, -1, 0x01) };
  assert.equal(verifyAssertion(offCurve, good, CHALLENGE)?.code, 'credential_invalid');
});

test('the credential read from the browser’s SPKI is the key SimpleWebAuthn registered', async () => {
  const response = human.register(base64url(CHALLENGE));
  assert.deepEqual(credentialOfSpki(response.id, response.response.publicKey ?? ''), human.credential);
  assert.equal((await registered).id, human.credential.id);
  assert.ok(isCredential(human.credential));
  assert.equal(keyOf(human.credential).asymmetricKeyDetails?.namedCurve, 'prime256v1');
});

test('a public key that is not P-256 is refused as invalid input', () => {
  const spki = (k: ReturnType<typeof generateKeyPairSync>['publicKey']): string =>
    k.export({ format: 'der', type: 'spki' }).toString('base64url');
  const others = {
    ed25519: spki(generateKeyPairSync('ed25519').publicKey),
    'P-384': spki(generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey),
    secp256k1: spki(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey),
    rsa: spki(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey),
    junk: Buffer.from('not a key').toString('base64url'),
    'not base64url': 'MFkw!!',
    empty: '',
  };
  for (const [name, key] of Object.entries(others)) {
    assert.throws(
      () => credentialOfSpki(human.credential.id, key),
      (e) => HolonError.is(e, 'invalid_input'),
      name,
    );
  }
  assert.throws(
    () => credentialOfSpki('', human.spki),
    (e) => HolonError.is(e, 'invalid_input'),
  );
  assert.throws(
    () => credentialOfSpki('id with spaces', human.spki),
    (e) => HolonError.is(e, 'invalid_input'),
  );
});

test('a credential is a base64url id and a point of P-256', () => {
  const c = human.credential;
  const short = Buffer.from(c.x, 'base64url').subarray(1).toString('base64url');
  const notCredentials: unknown[] = [
    null,
    'text',
    { x: c.x, y: c.y },
    { ...c, id: '' },
    { ...c, id: 7 },
    { ...c, x: short },
    { ...c, y: withByte(c.y, -1, 0x01) },
    { ...c, x: `${c.x}=` },
  ];
  for (const v of notCredentials) assert.equal(isCredential(v), false, JSON.stringify(v));
  assert.throws(
    () => keyOf({ ...c, y: withByte(c.y, -1, 0x01) }),
    (e) => HolonError.is(e, 'invalid_input'),
  );
});

test('a challenge is the same for the same subject in any key order, and another for one cent more', () => {
  const reordered = {
    amount: { currency: 'USDC', amount: '5.00' },
    payee: 'eip155:31337:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    mandate: 'demo/buyer',
    kind: 'payment',
  };
  assert.deepEqual(challengeOf(reordered), CHALLENGE);
  assert.notDeepEqual(ONE_CENT_MORE, CHALLENGE);
  assert.equal(CHALLENGE.length, 32);
});
