/**
 * The human's mandate key: the ES256 (P-256) key that signs the AP2 mandates merchants verify. Like the
 * wallet's key, one state has one, kept in `<state>/keys/mandate.jwk` (a private JWK, mode 0600, beside
 * the wallet's key), made the first time a mandate is signed, and read there by every process on the
 * state: the CLI, the editor (the same file, never a second copy in VS Code's secret storage, so every
 * process signs with the key the view shows) and `holon mcp`, whose gate alone signs a purchase's
 * mandates. Only its public JWK leaves here (`holon keys`, the Holon view, `<state>/ap2/human.json`); the
 * private part is never written to the journal, a tool result or a log.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import type { JsonWebKey } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HolonError } from '../kernel/errors.ts';

/** Where the mandate key lives in a state folder. */
export const MANDATE_KEY_FILE = path.join('keys', 'mandate.jwk');
/**
 * Where the AP2 agent key lives: the key the open mandates bind (their `cnf`), which signs a purchase's
 * closed mandates. It is apart from the human's so that the agent's signatures never speak for the human.
 */
export const AGENT_KEY_FILE = path.join('keys', 'ap2-agent.jwk');

/** A P-256 public key as a JWK, with its RFC 7638 thumbprint as `kid`. */
export interface PublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

/** What signs for the human: the public key, and an ES256 signature (JWS form, r‖s in base64url) of a string. */
export interface MandateKey {
  readonly publicJwk: PublicJwk;
  sign(data: string): string;
}

/** RFC 7638: the SHA-256 of the required members, in lexicographic order, base64url. */
export function jwkThumbprint(jwk: { crv: string; kty: string; x: string; y: string }): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

function publicOf(jwk: JsonWebKey): PublicJwk {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.x !== 'string' || typeof jwk.y !== 'string')
    throw new HolonError('invalid_input', 'the mandate key is not a P-256 key');
  const core = { kty: 'EC' as const, crv: 'P-256' as const, x: jwk.x, y: jwk.y };
  return { ...core, kid: jwkThumbprint(core), alg: 'ES256', use: 'sig' };
}

/** A key over a private JWK held in memory. */
export function mandateKeyOf(privateJwk: JsonWebKey): MandateKey {
  const key = createPrivateKey({ key: privateJwk, format: 'jwk' });
  const publicJwk = publicOf(createPublicKey(key).export({ format: 'jwk' }));
  return {
    publicJwk,
    sign: (data) => sign('sha256', Buffer.from(data), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url'),
  };
}

/** A new P-256 private key, as a JWK. */
export function newMandateJwk(): JsonWebKey {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
}

function read(file: string): JsonWebKey | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const jwk = JSON.parse(text) as JsonWebKey;
    if (typeof jwk.d !== 'string') throw new Error('no private part');
    return jwk;
  } catch {
    throw new HolonError('invalid_input', `${file} does not hold a private P-256 JWK`);
  }
}

/** The state's mandate key, when one was made; nothing is created. */
export function loadMandateKey(dir: string): MandateKey | undefined {
  const jwk = read(path.join(dir, MANDATE_KEY_FILE));
  return jwk ? mandateKeyOf(jwk) : undefined;
}

/** The state's mandate key, made now (mode 0600) if it has none; two processes racing end with one key. */
export function mandateKey(dir: string): MandateKey {
  return keyAt(path.join(dir, MANDATE_KEY_FILE));
}

/** The state's AP2 agent key, when one was made; nothing is created. */
export function loadAgentKey(dir: string): MandateKey | undefined {
  const jwk = read(path.join(dir, AGENT_KEY_FILE));
  return jwk ? mandateKeyOf(jwk) : undefined;
}

/** The state's AP2 agent key, made now (mode 0600) if it has none, as the mandate key is. */
export function agentKey(dir: string): MandateKey {
  return keyAt(path.join(dir, AGENT_KEY_FILE));
}

function keyAt(file: string): MandateKey {
  const existing = read(file);
  if (existing) return mandateKeyOf(existing);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, `${JSON.stringify(newMandateJwk())}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const made = read(file);
  if (!made) throw new Error(`${file} vanished as it was made`);
  return mandateKeyOf(made);
}
