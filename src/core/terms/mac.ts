/**
 * What the channel tools take back only as this process returned it (seed 002, "Channel holds"): a value
 * carries `mac`, an HMAC-SHA-256 of its other members in RFC 8785 form (sorted keys), under a key this
 * process makes on first use and never exports, logs or returns. A restarted process has a new key, so
 * every value from before the restart is refused.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';

let key: Buffer | undefined;
const macKey = (): Buffer => (key ??= randomBytes(32));

function macOf(members: Record<string, unknown>): string {
  return `0x${createHmac('sha256', macKey()).update(canonicalize(members)).digest('hex')}`;
}

/** `value` with its `mac`. */
export function withMac<T extends Record<string, unknown>>(value: T): T & { mac: string } {
  const { mac: _old, ...members } = value as T & { mac?: unknown };
  return { ...(members as T), mac: macOf(members) };
}

/** True when `value` carries the `mac` this process made over exactly its other members. */
export function macVerifies(value: unknown): value is Record<string, unknown> & { mac: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const { mac, ...members } = value as Record<string, unknown>;
  if (typeof mac !== 'string' || !/^0x[0-9a-f]{64}$/.test(mac)) return false;
  let expected: string;
  try {
    expected = macOf(members);
  } catch {
    return false;
  }
  return timingSafeEqual(Buffer.from(expected), Buffer.from(mac));
}
