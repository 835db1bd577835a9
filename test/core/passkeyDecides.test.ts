/**
 * Once the human has a passkey, only it decides: a decision counts only beside its assertion over
 * exactly what is written, once. The installation's key, which any process (and any agent with a shell)
 * on this machine can read, seals transactions and decides nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  addPasskey,
  decisionSubject,
  isGuarded,
  passkeyEvent,
  registrationSubject,
  removePasskey,
} from '../../src/core/accounts/passkeys.ts';
import { createMandate, patchMandate } from '../../src/core/accounts/mandates.ts';
import type { Approval } from '../../src/core/approvals/model.ts';
import type { AskHuman, HumanQuestion } from '../../src/core/decisions/asserted.ts';
import { humanStore } from '../../src/core/decisions/asserted.ts';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holdableClock } from '../../src/core/kernel/deps.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { fund } from '../../src/core/money/spend.ts';
import { requestApproval } from '../../src/core/office/requests.ts';
import { base64url, challengeOf } from '../../src/core/passkey/challenge.ts';
import type { AssertionJson } from '../../src/core/passkey/types.ts';
import type { JournalEvent } from '../../src/core/store/store.ts';
import { decisionWords } from '../../src/core/views/decisionWords.ts';
import type { SoftPasskey } from '../helpers/softPasskey.ts';
import { softPasskey } from '../helpers/softPasskey.ts';
import type { World } from './fixtures.ts';
import { ACME, FILE_A, MANDATE, rejectsWith, stateText, withWorld } from './fixtures.ts';

/** Registers `pk` as the state's first passkey, as `holon passkey add` does after the page. */
async function register(w: World, pk: SoftPasskey): Promise<void> {
  await addPasskey(w.store, pk.credential, 'laptop', pk.assert(challengeOf(registrationSubject(pk.credential))));
}

/** A human whose passkey signs whatever they are asked, keeping each question. */
function human(pk: SoftPasskey): { ask: AskHuman<HolonState>; asked: HumanQuestion<HolonState>[] } {
  const asked: HumanQuestion<HolonState>[] = [];
  return {
    asked,
    ask: async (q) => {
      asked.push(q);
      return pk.assert(q.challenge);
    },
  };
}

/** `fn` is refused with `reason` and details.reason `code`; nothing was appended, nothing changed. */
async function decidesNothing(w: World, fn: () => Promise<unknown>, code: string): Promise<void> {
  const seq = w.store.seq;
  const before = stateText(w.store.state);
  const err = await rejectsWith(fn, 'denied');
  assert.equal(err.details['reason'], code, err.message);
  assert.equal(w.store.seq, seq, 'nothing appended');
  assert.equal(stateText(w.store.state), before, 'the state is as it was');
}

/** The transaction the journal last took: its events, as a reader gets them. */
function lastTx(w: World, from: number): JournalEvent[] {
  return w.store.events.slice(from);
}

const action = (w: World): Promise<Approval> =>
  requestApproval(w.store, w.clock, MANDATE, { title: 'Delete the staging branch', reason: 'it is merged', kind: 'action' });

describe("a state the human's passkey guards", () => {
  test('before a passkey, the installation decides as it always has; the first passkey makes the state guarded', () =>
    withWorld(async (w) => {
      assert.equal(isGuarded(w.store.state), false);
      await fund(w.store, 'demo', '1');
      await register(w, softPasskey());
      assert.equal(isGuarded(w.store.state), true);
    }));

  test("the installation's key alone decides nothing: money in, a rate, a mandate, an approval", () =>
    withWorld(async (w) => {
      await register(w, softPasskey());
      const a = await action(w);
      await decidesNothing(w, () => fund(w.store, 'demo', '1000'), 'not_asserted');
      await decidesNothing(w, () => setFx(w.store, 'USD', 'EUR', '0.000001'), 'not_asserted');
      await decidesNothing(w, () => patchMandate(w.store, w.clock, MANDATE, { approval_threshold: '1000' }), 'not_asserted');
      await decidesNothing(w, () => decideApproval(w.store, w.clock, a.id, 'approved', 'cli'), 'not_asserted');
      // A second passkey, the agent's own, is a decision too.
      const agents = softPasskey();
      await decidesNothing(
        w,
        () => addPasskey(w.store, agents.credential, 'mine', agents.assert(challengeOf(registrationSubject(agents.credential)))),
        'not_asserted',
      );
      assert.equal(w.store.state.approvals[a.id]?.status, 'pending');
    }));

  test('with the passkey, the decision is written behind its assertion, over exactly the events shown in words', () =>
    withWorld(async (w) => {
      const pk = softPasskey();
      await register(w, pk);
      const h = human(pk);
      const store = humanStore(w.store, holdableClock(w.clock), h.ask);
      const before = w.store.events.length;
      await fund(store, 'demo', '2');
      assert.equal(h.asked.length, 1);
      assert.deepEqual(decisionWords(w.store.state, h.asked[0]!.events), ['Fund account demo with 2.00 EUR']);
      const tx = lastTx(w, before);
      assert.deepEqual(
        tx.map((e) => e.type),
        ['human.asserted', 'account.funded'],
      );
      const { nonce } = tx[0]!.data as { nonce: string };
      assert.deepEqual(
        challengeOf(decisionSubject(nonce, tx.slice(1))),
        h.asked[0]!.challenge,
        'the passkey signed what the journal holds',
      );

      // An approval: the human approves on the page, and it counts.
      const a = await action(w);
      const clock = holdableClock(w.clock);
      await decideApproval(humanStore(w.store, clock, h.ask), clock, a.id, 'approved', 'cli');
      assert.equal(w.store.state.approvals[a.id]?.status, 'approved');
      assert.match(decisionWords(w.store.state, h.asked[1]!.events).join('\n'), /^APPROVE:\nDelete the staging branch/);
    }));

  test('an agent that has the installation key and a real assertion cannot reuse it: not again, not for more, not for another', () =>
    withWorld(async (w) => {
      const pk = softPasskey();
      await register(w, pk);
      const h = human(pk);
      const before = w.store.events.length;
      await fund(humanStore(w.store, holdableClock(w.clock), h.ask), 'demo', '2');
      const [asserted, funded] = lastTx(w, before) as [JournalEvent, JournalEvent];
      const again = [
        { type: asserted.type, data: asserted.data },
        { type: funded.type, data: funded.data },
      ];
      assert.equal(w.store.mayWrite(again)?.code, 'assertion_replayed', 'the same touch, written again');
      const more = [again[0]!, { type: 'account.funded', data: { ...(funded.data as object), amount: '2000.00' } }];
      assert.equal(w.store.mayWrite(more)?.code, 'assertion_wrong_challenge', 'its assertion, over a larger amount');
      const other = [again[0]!, { type: 'account.funded', data: { ...(funded.data as object), account: 'acme' } }];
      assert.equal(w.store.mayWrite(other)?.code, 'assertion_wrong_challenge', 'its assertion, for another account');
      // The agent's own passkey signs perfectly well, and is not one the state knows.
      const nonce = 'n'.repeat(22);
      const mine = softPasskey().assert(challengeOf(decisionSubject(nonce, [{ type: 'account.funded', data: funded.data }])));
      assert.equal(
        w.store.mayWrite([passkeyEvent('human.asserted', { nonce, assertion: mine }), { type: 'account.funded', data: funded.data }])?.code,
        'unknown_credential',
      );
      // A forged transaction another installation wrote straight into the store is kept out of the fold.
      const state = stateText(w.store.state);
      assert.equal(w.store.receive('memory', more)?.code, 'assertion_wrong_challenge');
      assert.equal(stateText(w.store.state), state, 'none of it was folded');
      assert.equal(w.store.refused.at(-1)?.code, 'assertion_wrong_challenge', 'and it is on the record');
    }));

  test("an assertion counts first in its transaction, over all of it: the agent's events after a real one are not covered", () =>
    withWorld(async (w) => {
      const pk = softPasskey();
      await register(w, pk);
      const nonce = 'x'.repeat(22);
      const funded = { type: 'account.funded', data: { account: 'demo', amount: '1.00', currency: 'EUR' } };
      const assertion: AssertionJson = pk.assert(challengeOf(decisionSubject(nonce, [funded])));
      const asserted = passkeyEvent('human.asserted', { nonce, assertion });
      assert.equal(w.store.mayWrite([asserted, funded]), undefined, 'what the human signed');
      const extra = { type: 'fx.set', data: { from: 'USD', to: 'EUR', rate: '0.000001' } };
      assert.equal(w.store.mayWrite([asserted, funded, extra])?.code, 'assertion_wrong_challenge');
      assert.equal(w.store.mayWrite([funded, asserted])?.code, 'not_asserted');
      // Flags, the RP and the origin are the authenticator's: an assertion without user verification decides nothing.
      const unverified = pk.assert(challengeOf(decisionSubject(nonce, [funded])), { flags: 0x01 });
      assert.equal(
        w.store.mayWrite([passkeyEvent('human.asserted', { nonce, assertion: unverified }), funded])?.code,
        'assertion_not_verified',
      );
    }));

  test("what agents do needs no passkey: asking, spending and remembering are a member's, as before", () =>
    withWorld(async (w) => {
      await register(w, softPasskey());
      const a = await action(w);
      assert.equal(w.store.state.approvals[a.id]?.status, 'pending');
      const out = await w.gateway.call(MANDATE, { agent: ACME, input: { file: FILE_A } });
      assert.equal(out.kind, 'done', JSON.stringify(out.receipt.denials));
    }));

  test('the state moved while the human looked: they are asked again, and what they signed first is never written', () =>
    withWorld(async (w) => {
      const pk = softPasskey();
      await register(w, pk);
      const asked: HumanQuestion<HolonState>[] = [];
      let moved = false;
      const ask: AskHuman<HolonState> = async (q) => {
        asked.push(q);
        if (!moved) {
          moved = true;
          // Another process edits the mandate while the page is open (itself a human's decision).
          const clock = holdableClock(w.clock);
          await patchMandate(
            humanStore(w.store, clock, async (q2) => pk.assert(q2.challenge)),
            clock,
            MANDATE,
            { approval_threshold: '0.40' },
          );
        }
        return pk.assert(q.challenge);
      };
      const clock = holdableClock(w.clock);
      const m = await patchMandate(humanStore(w.store, clock, ask), clock, MANDATE, { budget: { per_call: '1.00' } });
      assert.equal(asked.length, 2, 'asked again on the state as it is now');
      assert.equal(m.approval_threshold, '0.40', 'the other edit stands');
      assert.equal(m.budget.per_call, '1.00');
      assert.equal(w.store.state.passkeys.used[base64url(asked[0]!.challenge)], undefined, 'the first answer was never written');
    }));

  test('a closed page decides nothing; the last passkey cannot be removed; a removed one decides nothing', () =>
    withWorld(async (w) => {
      const pk = softPasskey();
      await register(w, pk);
      const clock = holdableClock(w.clock);
      await decidesNothing(
        w,
        () =>
          fund(
            humanStore(w.store, clock, async () => undefined),
            'demo',
            '1',
          ),
        'not_asserted',
      );
      const h = human(pk);
      await rejectsWith(() => removePasskey(humanStore(w.store, clock, h.ask), pk.credential.id), 'conflict', /last passkey/);
      // A second passkey, confirmed by the first; then the first removed.
      const second = softPasskey();
      await addPasskey(
        humanStore(w.store, clock, h.ask),
        second.credential,
        'phone',
        second.assert(challengeOf(registrationSubject(second.credential))),
      );
      await removePasskey(humanStore(w.store, clock, human(second).ask), pk.credential.id);
      await decidesNothing(w, () => fund(humanStore(w.store, clock, h.ask), 'demo', '1'), 'unknown_credential');
      await fund(humanStore(w.store, clock, human(second).ask), 'demo', '1');
      // A mandate made through the page is the mandate the human saw.
      await createMandate(humanStore(w.store, clock, human(second).ask), clock, 'demo/other', { budget: { total: '1.00' } });
      assert.ok(w.store.state.mandates['demo/other']);
    }));
});
