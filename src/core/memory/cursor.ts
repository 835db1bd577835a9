/**
 * Recall cursors: a sealed snapshot and a place in it, opaque to the agent and tamper-evident. A cursor
 * is the RFC 8785 form of what it pins, signed with the installation's Ed25519 key; any change to it,
 * a cursor made up, or one issued to another mandate is refused before anything is read.
 */
import { canonicalize } from 'json-canonicalize';
import { HolonError } from '../kernel/errors.ts';
import { verifySignature } from '../store/keys.ts';
import type { Signer } from '../store/store.ts';
import type { SnapshotQuery } from './memory.ts';

/** What a cursor carries: the snapshot's query and where the next page starts. */
export interface CursorPayload extends SnapshotQuery {
  /** Domain separation: the same key signs journal checkpoints, disclosures and memory artifacts. */
  type: typeof CURSOR_TYPE;
  offset: number;
  /**
   * The key the records before `offset` end on, in a snapshot of every key or of a prefix: the next page
   * seeks to it instead of resolving every record before it. Absent in a snapshot's token, in a cursor
   * of named keys, and in cursors issued before it was added (those still work, by counting).
   */
  after?: string;
}

/** The type tag every cursor is signed with. */
export const CURSOR_TYPE = 'holon.memory.cursor/v1';

const b64url = (b: Buffer): string => b.toString('base64url');

/** Strict base64url: anything that does not re-encode to itself (padding bits, stray characters) is refused. */
function fromB64url(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const b = Buffer.from(text, 'base64url');
  return b64url(b) === text ? b : undefined;
}

/** A cursor for `payload`, signed by `signer`. */
export function encodeCursor(payload: Omit<CursorPayload, 'type'>, signer: Signer): string {
  const text = canonicalize({ ...payload, type: CURSOR_TYPE });
  const sig = Buffer.from(signer.sign(text), 'base64');
  return `${b64url(Buffer.from(text, 'utf8'))}.${b64url(sig)}`;
}

const refused = (why: string): HolonError =>
  new HolonError('invalid_input', `cursor refused: ${why}; use a cursor exactly as memory_recall returned it`, { field: 'cursor' });

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * The snapshot and offset a cursor pins, once its signature by `publicKey` checks and it belongs to
 * `mandate`; otherwise invalid_input.
 */
export function decodeCursor(cursor: string, publicKey: string, mandate: string): CursorPayload {
  const parts = cursor.split('.');
  const body = parts.length === 2 ? fromB64url(parts[0] ?? '') : undefined;
  const sig = parts.length === 2 ? fromB64url(parts[1] ?? '') : undefined;
  if (!body || !sig || sig.length !== 64) throw refused('it is not a cursor this server issued');
  const text = body.toString('utf8');
  if (!verifySignature(publicKey, text, sig.toString('base64'))) throw refused('its signature does not check (altered or forged)');
  let p: Record<string, unknown>;
  try {
    p = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw refused('it is not a cursor this server issued');
  }
  const ok =
    typeof p === 'object' &&
    p !== null &&
    p['type'] === CURSOR_TYPE &&
    typeof p['mandate'] === 'string' &&
    Number.isSafeInteger(p['system_seq']) &&
    typeof p['system_as_of'] === 'string' &&
    typeof p['valid_as_of'] === 'string' &&
    (p['keys'] === null || isStringList(p['keys'])) &&
    (p['prefix'] === null || typeof p['prefix'] === 'string') &&
    Number.isSafeInteger(p['offset']) &&
    (p['offset'] as number) >= 0 &&
    (p['after'] === undefined || typeof p['after'] === 'string');
  if (!ok) throw refused('it is not a cursor this server issued');
  // A cursor is never another mandate's way in.
  if (p['mandate'] !== mandate) throw refused('it was issued to another mandate');
  return p as unknown as CursorPayload;
}
