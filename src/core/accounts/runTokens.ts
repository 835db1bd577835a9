/**
 * Run tokens: the bearer credentials a human mints for one MCP client of `holon serve`, each bound to one
 * mandate and live until it expires or is ended. The journal holds only a token's SHA-256: the token
 * itself is shown once, to the human who made it, so a copy of the state (or of a snapshot) opens
 * nothing.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../kernel/deps.ts';
import { HolonError } from '../kernel/errors.ts';
import { newId } from '../kernel/ids.ts';
import type { MandatesFields } from './mandates.ts';
import { mandateOf } from './mandates.ts';
import type { Slice } from '../store/slice.ts';
import { eventsOf } from '../store/slice.ts';
import type { EventStore } from '../store/store.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';

/** The longest a run token may live: a forgotten token ends on its own within a week. */
export const MAX_RUN_TOKEN_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The longest label, in characters. */
export const MAX_RUN_TOKEN_LABEL = 100;

/** A token as the state keeps it: never the token, only its hash. */
export interface RunToken {
  id: string;
  mandate: string;
  /** SHA-256 (hex) of the token's text. */
  sha256: string;
  created_at: string;
  expires_at: string;
  /** What the human called it ("claude code on my laptop"), to tell tokens apart in a list. */
  label?: string;
  /** When it was ended by hand; an ended token never comes back. */
  ended_at?: string;
}

/** Whether a token can still be used, as a list shows it. */
export type RunTokenStatus = 'live' | 'expired' | 'ended';

/** The run tokens' part of the state. */
export interface RunTokensFields {
  run_tokens: Dict<RunToken>;
}

/** The run tokens' events. */
export interface RunTokenEvents {
  'token.created': { id: string; mandate: string; sha256: string; expires_at: string; created_at: string; label?: string };
  'token.ended': { id: string; at: string };
}

const tokenEvent = eventsOf<RunTokenEvents>();

export const runTokensSlice: Slice<RunTokensFields, RunTokenEvents> = {
  initial: () => ({ run_tokens: dict() }),
  on: {
    'token.created': (s, d) => {
      s.run_tokens[d.id] = { ...d };
    },
    'token.ended': (s, d) => {
      const t = s.run_tokens[d.id];
      if (t && !t.ended_at) t.ended_at = d.at;
    },
  },
  revive: (s) => {
    s.run_tokens = toDict(s.run_tokens);
  },
};

/** What a token looks like: 32 random bytes, base64url without padding. */
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

function sha256Hex(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Mints a token for `mandate`, live for `ttlMs` (at most seven days). Returns the token itself: the only
 * time it exists outside the client it is given to. Bad input changes nothing.
 */
export async function createRunToken(
  store: EventStore<RunTokensFields & MandatesFields>,
  clock: Clock,
  input: { mandate: string; ttlMs: number; label?: string },
): Promise<{ id: string; token: string; expires_at: string }> {
  const { mandate, ttlMs, label } = input;
  if (typeof mandate !== 'string' || mandate.length === 0) throw new HolonError('invalid_input', 'a run token needs a mandate');
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0 || ttlMs > MAX_RUN_TOKEN_TTL_MS) {
    throw new HolonError('invalid_input', 'a run token lives between 1 millisecond and 7 days', {
      ttl_ms: ttlMs,
      max_ms: MAX_RUN_TOKEN_TTL_MS,
    });
  }
  if (label !== undefined) {
    // A label is shown in a terminal: no control characters, so no escape sequences.
    if (
      typeof label !== 'string' ||
      label.trim().length === 0 ||
      label.length > MAX_RUN_TOKEN_LABEL ||
      /[\u0000-\u001f\u007f]/.test(label)
    ) {
      throw new HolonError('invalid_input', `a token's label is 1 to ${MAX_RUN_TOKEN_LABEL} printable characters`);
    }
  }
  const token = randomBytes(32).toString('base64url');
  const id = newId('tok');
  const now = clock.now();
  return store.transact((s) => {
    mandateOf(s, mandate);
    const data: RunTokenEvents['token.created'] = {
      id,
      mandate,
      sha256: sha256Hex(token),
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + ttlMs).toISOString(),
      ...(label !== undefined ? { label } : {}),
    };
    return { events: [tokenEvent('token.created', data)], result: { id, token, expires_at: data.expires_at } };
  });
}

/**
 * Ends a token for good; every server refuses it from its next request. Ending one already ended
 * changes nothing; an unknown id is not_found.
 */
export async function endRunToken(store: EventStore<RunTokensFields>, clock: Clock, id: string): Promise<RunToken> {
  return store.transact((s) => {
    const t = s.run_tokens[id];
    if (!t) throw new HolonError('not_found', `no run token "${id}"`, { token: id });
    if (t.ended_at) return { events: [], result: { ...t } };
    const at = new Date(clock.now()).toISOString();
    return { events: [tokenEvent('token.ended', { id, at })], result: { ...t, ended_at: at } };
  });
}

/** Whether a token is live, expired or ended at `now`. */
export function runTokenStatus(t: RunToken, now: number): RunTokenStatus {
  if (t.ended_at) return 'ended';
  return Date.parse(t.expires_at) <= now ? 'expired' : 'live';
}

/** The token with this id when it is live at `now`, else undefined. */
export function liveRunToken(s: RunTokensFields, id: string, now: number): RunToken | undefined {
  const t = s.run_tokens[id];
  return t && runTokenStatus(t, now) === 'live' ? t : undefined;
}

/**
 * The live token a client presented, or undefined (unknown, expired or ended). Every stored hash is
 * compared in constant time, and all of them are compared, so how long the answer takes says nothing
 * about which hash came close.
 */
export function tokenFor(s: RunTokensFields, presented: string, now: number): RunToken | undefined {
  if (typeof presented !== 'string' || !TOKEN_FORMAT.test(presented)) return undefined;
  const hash = Buffer.from(sha256Hex(presented), 'hex');
  let found: RunToken | undefined;
  for (const t of Object.values(s.run_tokens)) {
    const stored = Buffer.from(t.sha256, 'hex');
    if (stored.length === hash.length && timingSafeEqual(stored, hash)) found = t;
  }
  return found && runTokenStatus(found, now) === 'live' ? found : undefined;
}
