/**
 * The agentic terms record (ATR): the exact bytes of a seller's terms, and H, their SHA-256. Before Holon
 * signs a payment to a seller, the payment must carry H of bytes it received itself (seed 002).
 */
import { createHash } from 'node:crypto';

/** H: the SHA-256 of the ATR's bytes, as `0x` and 64 lowercase hex digits. */
export function atrHash(bytes: Uint8Array): string {
  return `0x${createHash('sha256').update(bytes).digest('hex')}`;
}

/** A 32-byte hash as the seed writes it. */
export const HASH_PATTERN = /^0x[0-9a-f]{64}$/;

/** The ATR as it crosses to the agent: canonical padded base64, and its text when it is valid UTF-8. */
export interface AtrView {
  base64: string;
  utf8: string | null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The ATR's bytes in the form every tool returns them. */
export function atrView(bytes: Uint8Array): AtrView {
  let text: string | null;
  try {
    text = utf8.decode(bytes);
  } catch {
    text = null;
  }
  return { base64: Buffer.from(bytes).toString('base64'), utf8: text };
}

/**
 * True when `s` is padded standard base64 in its canonical form (RFC 4648 §3.5): the alphabet, the
 * padding, and no bits set past the data, so that exactly one string stands for each ATR.
 */
export function isCanonicalBase64(s: string): boolean {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return false;
  return Buffer.from(s, 'base64').toString('base64') === s;
}

/** The bytes of a canonical base64 ATR (the caller checked it with isCanonicalBase64). */
export function atrBytes(base64: string): Uint8Array {
  return new Uint8Array(Buffer.from(base64, 'base64'));
}
