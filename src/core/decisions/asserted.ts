/**
 * A human's decision in a state their passkey guards. Whatever a command writes that only a human
 * decides (a decision on an approval, a mandate, money in, a rate, the catalog, a setting) is first
 * built without being written, shown to the human, and signed by their passkey; then built again on the
 * latest state and written with the assertion in front, only if it came out the same. So the passkey signs
 * exactly what the journal gets, and the fold (fold/authority.ts) can check it, event for event.
 *
 * Every command keeps its own code: the store it is handed asks the human on its `transact`.
 */
import { randomBytes } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';
import type { PasskeysFields } from '../accounts/passkeys.ts';
import { activePasskeys, decisionSubject, passkeyEvent } from '../accounts/passkeys.ts';
import type { HeldClock } from '../kernel/deps.ts';
import { HolonError } from '../kernel/errors.ts';
import { challengeOf } from '../passkey/challenge.ts';
import type { AssertionJson, PasskeyCredential } from '../passkey/types.ts';
import type { EventStore, NewEvent, TxOptions, TxResult } from '../store/store.ts';

/** What the human is asked: the events to be written, the challenge their passkey signs, who may sign it. */
export interface HumanQuestion<S> {
  state: S;
  events: readonly NewEvent[];
  challenge: Uint8Array;
  credentials: PasskeyCredential[];
}

/** Asks the human (a page their passkey answers on); undefined when they did not (closed it, declined). */
export type AskHuman<S> = (q: HumanQuestion<S>) => Promise<AssertionJson | undefined>;

/** How many times a decision is asked again when the state moved under it while the human decided. */
const ASKS = 3;

/** Thrown inside a transaction whose events came out other than those the human signed. */
class Moved extends Error {}

/**
 * `store`, whose transactions that need the human's passkey ask for it first. A transaction that does not
 * (an agent's spend, a request) is written as it is. `clock` is held at one instant while a transaction
 * is built, both times, so that its timestamps do not differ between what is signed and what is written.
 */
export function humanStore<S extends PasskeysFields>(store: EventStore<S>, clock: HeldClock, ask: AskHuman<S>): EventStore<S> {
  const transact = async <T>(fn: (state: S) => TxResult<T>, options?: TxOptions): Promise<T> => {
    for (let i = 0; i < ASKS; i++) {
      const at = clock.now();
      const dry = clock.at(at, () => fn(store.state));
      const refusal = store.mayWrite(dry.events);
      if (refusal?.code !== 'not_asserted') return store.transact(fn, options);
      const nonce = randomBytes(16).toString('base64url');
      const signed = canonicalize(dry.events.map((e) => ({ type: e.type, data: e.data })));
      const challenge = challengeOf(decisionSubject(nonce, dry.events));
      const credentials = activePasskeys(store.state).map((r) => r.credential);
      const assertion = await ask({ state: store.state, events: dry.events, challenge, credentials });
      if (!assertion)
        throw new HolonError('denied', 'not decided: the passkey did not sign it (the page was closed or the human declined)', {
          reason: 'not_asserted',
        });
      try {
        return await store.transact((s) => {
          const r = clock.at(at, () => fn(s));
          if (canonicalize(r.events.map((e) => ({ type: e.type, data: e.data }))) !== signed) throw new Moved();
          return { ...r, events: [passkeyEvent('human.asserted', { nonce, assertion }), ...r.events] };
        }, options);
      } catch (err) {
        if (!(err instanceof Moved)) throw err;
        // Something else was written while the human looked: what they signed is not what would be written now.
      }
    }
    throw new HolonError('conflict', 'the state kept changing while the human decided; nothing was written: decide again');
  };
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'transact') return transact;
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
