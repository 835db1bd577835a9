/**
 * The human's passkeys: who decides, in a state they guard. Once one is registered, a decision (an
 * approval, a mandate, money in, a rate, the catalog, a setting, a member) counts only beside an
 * assertion of a registered passkey over exactly what it decides (fold/authority.ts); the installation's
 * key alone decides nothing. The private key never leaves the human's authenticator, so no file in the
 * state folder, and no agent that reads them all, can make one.
 */
import { HolonError } from '../kernel/errors.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';
import type { AssertionJson, PasskeyCredential } from '../passkey/types.ts';
import type { Slice } from '../store/slice.ts';
import { eventsOf } from '../store/slice.ts';
import type { EventStore, NewEvent } from '../store/store.ts';

/** A passkey the state knows: registered when, by what name, and removed when (then it decides nothing). */
export interface PasskeyRecord {
  credential: PasskeyCredential;
  label: string;
  added_at: string;
  removed_at?: string;
}

/** The passkeys' part of the state. */
export interface PasskeysFields {
  passkeys: {
    credentials: Dict<PasskeyRecord>;
    /** The challenges already answered, base64url: an assertion decides once. */
    used: Dict<true>;
  };
}

export interface PasskeyEvents {
  /** A passkey added; `proof` is its own assertion over registrationSubject(credential): it is held, not copied. */
  'passkey.registered': { credential: PasskeyCredential; label: string; proof: AssertionJson };
  'passkey.removed': { id: string };
  /**
   * The human's assertion over the rest of its transaction: its challenge is decisionChallenge(nonce, the
   * events after it). It comes first in the transaction.
   */
  'human.asserted': { nonce: string; assertion: AssertionJson };
}

export const passkeyEvent = eventsOf<PasskeyEvents>();

/** The challenge's text in an assertion's client data (what the fold already checked), or undefined. */
export function challengeText(a: AssertionJson): string | undefined {
  try {
    const c = (JSON.parse(Buffer.from(a.client_data_json, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
    return typeof c === 'string' ? c : undefined;
  } catch {
    return undefined;
  }
}

export const passkeysSlice: Slice<PasskeysFields, PasskeyEvents> = {
  initial: () => ({ passkeys: { credentials: dict(), used: dict() } }),
  on: {
    'passkey.registered': (s, d, e) => {
      s.passkeys.credentials[d.credential.id] = { credential: structuredClone(d.credential), label: d.label, added_at: e.time };
      const c = challengeText(d.proof);
      if (c) s.passkeys.used[c] = true;
    },
    'passkey.removed': (s, d, e) => {
      const r = s.passkeys.credentials[d.id];
      if (r) r.removed_at = e.time;
    },
    'human.asserted': (s, d) => {
      const c = challengeText(d.assertion);
      if (c) s.passkeys.used[c] = true;
    },
  },
  revive: (s) => {
    s.passkeys = { credentials: toDict(s.passkeys?.credentials), used: toDict(s.passkeys?.used) };
  },
};

/** True once a passkey was registered: from then on only the passkey decides. */
export function isGuarded(s: PasskeysFields): boolean {
  for (const _ in s.passkeys.credentials) return true;
  return false;
}

/** The passkeys that decide now (registered, not removed). */
export function activePasskeys(s: PasskeysFields): PasskeyRecord[] {
  return Object.values(s.passkeys.credentials).filter((r) => r.removed_at === undefined);
}

/** What a new passkey signs to show it is held by whoever registers it. */
export function registrationSubject(credential: PasskeyCredential): unknown {
  return { kind: 'passkey.register', credential };
}

/** What the human's assertion beside a transaction covers: its events, as they are written, and a nonce. */
export function decisionSubject(nonce: string, events: readonly { type: string; data: unknown }[]): unknown {
  // As JSON would carry them: what a reader hashes is what the journal holds, with nothing undefined in it.
  return {
    kind: 'decision',
    nonce,
    events: events.map((e) => ({ type: e.type, data: JSON.parse(JSON.stringify(e.data ?? null)) as unknown })),
  };
}

/** The active passkey `id`, or a not_found error. */
export function passkeyOf(s: PasskeysFields, id: string): PasskeyRecord {
  const r = s.passkeys.credentials[id];
  if (!r || r.removed_at !== undefined) throw new HolonError('not_found', `no passkey "${id}"`, { passkey: id });
  return r;
}

/**
 * Adds a passkey the human just made (its `proof` signed with it). The first makes the state guarded;
 * any later one is itself a decision, which the store hands to an existing passkey (decisions/asserted.ts).
 * `also`: events written in the same transaction (the account the new passkey owns on a chain), so that
 * one touch decides both.
 */
export async function addPasskey(
  store: EventStore<PasskeysFields>,
  credential: PasskeyCredential,
  label: string,
  proof: AssertionJson,
  also: readonly NewEvent[] = [],
): Promise<PasskeyRecord> {
  const name = label.trim();
  if (name.length === 0 || name.length > 80) throw new HolonError('invalid_input', 'a passkey is named in 1 to 80 characters');
  return store.transact((s) => {
    if (s.passkeys.credentials[credential.id]) throw new HolonError('conflict', `passkey ${credential.id} is registered already`);
    return {
      events: [passkeyEvent('passkey.registered', { credential, label: name, proof }), ...also],
      result: { credential, label: name, added_at: new Date().toISOString() },
    };
  });
}

/** Removes a passkey; never the last one, which would leave no one to decide. */
export async function removePasskey(store: EventStore<PasskeysFields>, id: string): Promise<void> {
  await store.transact((s) => {
    passkeyOf(s, id);
    if (activePasskeys(s).length <= 1)
      throw new HolonError('conflict', 'the last passkey cannot be removed: the state would have no one left to decide');
    return { events: [passkeyEvent('passkey.removed', { id })], result: undefined };
  });
}
