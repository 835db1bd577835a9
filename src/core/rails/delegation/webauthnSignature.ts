/**
 * A passkey's assertion as the signature HybridDeleGator checks (its P256VerifierLib, through the P-256
 * precompile): the key's id hash, r and s, the authenticator data, that user verification is required,
 * and clientDataJSON split around the challenge, which the contract puts back as base64url of the hash it
 * is asked about. So the assertion's challenge must be exactly that hash (an EIP-712 digest).
 */
import type { Hex } from 'viem';
import { encodeAbiParameters, keccak256, toHex } from 'viem';
import { HolonError } from '../../kernel/errors.ts';
import type { AssertionJson } from '../../passkey/types.ts';

/** The order of P-256's group. */
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
/** What the contract finds at `responseTypeLocation` in clientDataJSON. */
const TYPE_GET = '"type":"webauthn.get"';

/**
 * The signature bytes for `isValidSignature(digest, …)` of an account whose key id is the assertion's
 * credential id. The authenticator may give a high s (ECDSA allows both); the contract takes only the low
 * one, so it is turned low here, which verifies the same. Refused (`invalid_input`) when the assertion is
 * not over `digest` or is not a `webauthn.get` with a DER signature.
 */
export function deleGatorSignature(assertion: AssertionJson, digest: Hex): Hex {
  const clientData = Buffer.from(assertion.client_data_json, 'base64url').toString('utf8');
  const challenge = Buffer.from(digest.slice(2), 'hex').toString('base64url');
  const quoted = `"challenge":"${challenge}"`;
  const at = clientData.indexOf(quoted);
  if (digest.length !== 66 || at < 0 || clientData.indexOf(quoted, at + 1) >= 0) {
    throw new HolonError('invalid_input', 'the assertion is not over this digest: its clientDataJSON does not carry it as the challenge');
  }
  const typeAt = clientData.indexOf(TYPE_GET);
  if (typeAt < 0) throw new HolonError('invalid_input', 'the assertion is not a webauthn.get');
  const start = at + '"challenge":"'.length;
  const { r, s } = derSignature(Buffer.from(assertion.signature, 'base64url'));
  return encodeAbiParameters(
    [
      { type: 'bytes32' },
      { type: 'uint256' },
      { type: 'uint256' },
      { type: 'bytes' },
      { type: 'bool' },
      { type: 'string' },
      { type: 'string' },
      { type: 'uint256' },
    ],
    [
      keccak256(toHex(assertion.credential)),
      r,
      s > N / 2n ? N - s : s,
      toHex(Buffer.from(assertion.authenticator_data, 'base64url')),
      true,
      clientData.slice(0, start),
      clientData.slice(start + challenge.length),
      BigInt(typeAt),
    ],
  );
}

/** r and s of an ECDSA signature in DER (SEQUENCE of two INTEGERs), strictly. */
function derSignature(der: Buffer): { r: bigint; s: bigint } {
  const refuse = (): never => {
    throw new HolonError('invalid_input', "the assertion's signature is not an ECDSA signature in DER");
  };
  if (der.length < 8 || der[0] !== 0x30 || der[1] !== der.length - 2) refuse();
  let at = 2;
  const integer = (): bigint => {
    if (der[at] !== 0x02) refuse();
    const length = der[at + 1] ?? 0;
    if (length < 1 || length > 33 || at + 2 + length > der.length) refuse();
    const value = BigInt(`0x${der.subarray(at + 2, at + 2 + length).toString('hex')}`);
    at += 2 + length;
    if (value === 0n || value >= N) refuse();
    return value;
  };
  const r = integer();
  const s = integer();
  if (at !== der.length) refuse();
  return { r, s };
}
