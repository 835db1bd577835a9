import type { KeyObject } from 'node:crypto';
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Signer } from './store.ts';

/** Where the installation key lives inside a state folder. */
export const KEY_FILE = path.join('keys', 'ed25519.pem');

/**
 * The installation's Ed25519 signer. The key is read, or created (mode 0600), the first time something
 * is signed, so opening a state to read it writes nothing. It signs journal checkpoints so that a
 * rewritten history is caught offline by `holon verify`.
 */
export function lazySigner(stateDir: string): Signer {
  let signer: Signer | undefined;
  const get = (): Signer => (signer ??= loadOrCreateSigner(stateDir));
  return {
    get publicKey() {
      return get().publicKey;
    },
    sign: (message) => get().sign(message),
  };
}

/** The installation's Ed25519 signer, created now if there is none. */
export function loadOrCreateSigner(stateDir: string): Signer {
  const file = path.join(stateDir, KEY_FILE);
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('ed25519');
    pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    try {
      fs.writeFileSync(file, pem, { mode: 0o600, flag: 'wx' });
    } catch {
      // Another process created it first: use theirs, so there is one key per installation.
      pem = fs.readFileSync(file, 'utf8');
    }
  }
  const key = createPrivateKey(pem);
  const publicKey = rawPublicKey(createPublicKey(key).export({ type: 'spki', format: 'der' }));
  return {
    publicKey,
    sign: (message) => sign(null, Buffer.from(message), key).toString('base64'),
  };
}

// An Ed25519 SPKI DER is a fixed 12-byte prefix followed by the 32-byte raw key.
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

function rawPublicKey(spki: Buffer): string {
  return spki.subarray(SPKI_PREFIX.length).toString('base64');
}

/**
 * Public keys already parsed: a reader checks a seal per transaction, nearly always by the same few
 * installations, and parsing a key costs as much as the check itself.
 */
const parsed = new Map<string, KeyObject>();
const PARSED_MAX = 256;

function publicKeyOf(raw: string): KeyObject {
  let key = parsed.get(raw);
  if (!key) {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, Buffer.from(raw, 'base64')]), format: 'der', type: 'spki' });
    if (parsed.size >= PARSED_MAX) parsed.clear();
    parsed.set(raw, key);
  }
  return key;
}

/** Checks an Ed25519 signature made by `sign` above against a raw base64 public key. */
export function verifySignature(publicKey: string, message: string, signature: string): boolean {
  try {
    return verify(null, Buffer.from(message), publicKeyOf(publicKey), Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** The public key of the installation key in `stateDir`, if there is one. */
export function installationPublicKey(stateDir: string): string | undefined {
  try {
    const pem = fs.readFileSync(path.join(stateDir, KEY_FILE), 'utf8');
    return rawPublicKey(createPublicKey(createPrivateKey(pem)).export({ type: 'spki', format: 'der' }));
  } catch {
    return undefined;
  }
}
