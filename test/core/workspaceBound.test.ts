/**
 * Binding a workspace is the human's decision once a passkey guards the state: the journal holds it
 * (`workspace.bound`, behind the passkey's assertion), and a binding file counts only when it says what
 * the latest decision for its workspace says. Before a passkey, a binding file counts as it always has.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addPasskey, registrationSubject } from '../../src/core/accounts/passkeys.ts';
import { checkBindingDecided, decideBinding } from '../../src/core/accounts/workspaces.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { humanStore } from '../../src/core/decisions/asserted.ts';
import { holdableClock } from '../../src/core/kernel/deps.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { challengeOf } from '../../src/core/passkey/challenge.ts';
import { decisionWords } from '../../src/core/views/decisionWords.ts';
import { softPasskey } from '../helpers/softPasskey.ts';
import { MANDATE, rejectsWith, withWorld } from './fixtures.ts';

const WS = '/home/someone/project';
const WIDE = 'demo/wide';

/** The error `fn` throws, which must be a HolonError. */
function thrown(fn: () => unknown): HolonError {
  try {
    fn();
  } catch (err) {
    if (HolonError.is(err)) return err;
    throw err;
  }
  assert.fail('expected a HolonError');
}

describe('a workspace bound by the human', () => {
  test('unguarded: every binding file counts, as before, and nothing needs to be in the journal', () =>
    withWorld(async (w) => {
      checkBindingDecided(w.store.state, WS, MANDATE);
    }));

  test("guarded: a binding counts only as the latest decision for its workspace, written behind the passkey's assertion", () =>
    withWorld(async (w) => {
      await createMandate(w.store, w.clock, WIDE, { budget: { total: '5.00' } });
      const pk = softPasskey();
      await addPasskey(w.store, pk.credential, 'laptop', pk.assert(challengeOf(registrationSubject(pk.credential))));

      // A binding file nobody decided: refused, with its problem as data.
      const none = thrown(() => checkBindingDecided(w.store.state, WS, MANDATE));
      assert.equal(none.reason, 'denied');
      assert.deepEqual(none.details, { problem: 'not_decided', workspace: WS, mandate: MANDATE, decided: null });

      // The installation's key alone cannot write the decision.
      const seq = w.store.seq;
      const alone = await rejectsWith(() => decideBinding(w.store, WS, WIDE), 'denied');
      assert.match(alone.message, /only the human's passkey decides this/);
      assert.equal(w.store.seq, seq, 'nothing written');

      // The human, with the passkey, sees the binding in words and signs it.
      const clock = holdableClock(w.clock);
      const shown: string[][] = [];
      const human = humanStore(w.store, clock, async (q) => {
        shown.push(decisionWords(q.state, q.events));
        return pk.assert(q.challenge);
      });
      await decideBinding(human, WS, MANDATE);
      assert.match(shown[0]?.[0] ?? '', new RegExp(`Bind the workspace ${WS} to mandate ${MANDATE}`));
      assert.deepEqual(
        w.store.events.slice(-2).map((e) => e.type),
        ['human.asserted', 'workspace.bound'],
      );
      checkBindingDecided(w.store.state, WS, MANDATE);
      // The file rewritten to the wider mandate, or naming another workspace: not what was decided.
      assert.deepEqual(thrown(() => checkBindingDecided(w.store.state, WS, WIDE)).details, {
        problem: 'not_decided',
        workspace: WS,
        mandate: WIDE,
        decided: MANDATE,
      });
      assert.equal(thrown(() => checkBindingDecided(w.store.state, '/home/someone', MANDATE)).details['problem'], 'not_decided');

      // Bound again, to the other mandate: the latest decision is the one that counts.
      await decideBinding(human, WS, WIDE);
      checkBindingDecided(w.store.state, WS, WIDE);
      assert.equal(thrown(() => checkBindingDecided(w.store.state, WS, MANDATE)).details['decided'], WIDE);
    }));
});
