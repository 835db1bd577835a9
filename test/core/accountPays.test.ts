/**
 * A payment the passkey signs as the human's account when they approve it (`payment.authorized`): the fold
 * counts it only beside the approval of exactly that payment, under the human's assertion; the payer sends
 * it only where it fits the chain it pays on. The state is guarded by a software passkey
 * (test/helpers/softPasskey.ts); the chain is only named (nothing here is sent to it).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chainAccountEvent } from '../../src/core/accounts/chainAccount.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { addPasskey, registrationSubject } from '../../src/core/accounts/passkeys.ts';
import type { Approval } from '../../src/core/approvals/model.ts';
import { humanStore } from '../../src/core/decisions/asserted.ts';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holdableClock } from '../../src/core/kernel/deps.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import * as M from '../../src/core/kernel/amount.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { payWithin } from '../../src/core/money/walletPay.ts';
import { challengeOf } from '../../src/core/passkey/challenge.ts';
import { chainConfig, chainReader } from '../../src/core/rails/chain.ts';
import { frameworkOn } from '../../src/core/rails/delegation/addresses.ts';
import { accountPaymentFor, authorizeFromAccount } from '../../src/core/rails/delegation/accountPays.ts';
import type { EventStore, NewEvent } from '../../src/core/store/store.ts';
import { softPasskey } from '../helpers/softPasskey.ts';
import type { World } from './fixtures.ts';
import { withWorld } from './fixtures.ts';

const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const ACCOUNT = '0x1111111111111111111111111111111111111111';
const PAYEE = '0x2222222222222222222222222222222222222222';
const PAYS = 'demo/account';
const reader = chainReader(chainConfig({ rpcUrl: 'http://127.0.0.1:9', chainId: 31337, token: TOKEN, facilitator: null }));

/** A guarded state with an account on the chain and a payment of 3 USDC to PAYEE waiting for the human. */
async function waiting(
  w: World,
): Promise<{ human: EventStore<HolonState>; approval: Approval; sign: () => ReturnType<typeof softPasskey> }> {
  const pk = softPasskey();
  await addPasskey(w.store, pk.credential, 'laptop', pk.assert(challengeOf(registrationSubject(pk.credential))));
  const human = humanStore(w.store, holdableClock(w.clock), async (q) => pk.assert(q.challenge));
  const factory = frameworkOn(31337).SimpleFactory;
  const created = { address: ACCOUNT, chain_id: 31337, credential: pk.credential.id, salt: `0x${'00'.repeat(32)}`, factory };
  await human.transact(() => ({ events: [chainAccountEvent('account.created', created)], result: undefined }));
  await setFx(human, 'USDC', 'EUR', '1.00');
  await createMandate(human, w.clock, PAYS, {
    approval_threshold: '1.00',
    capabilities: [{ name: 'pay', params: { payees: [`eip155:31337:${PAYEE}`] } }],
  });
  const ask = { mandate: PAYS, payee: `eip155:31337:${PAYEE}`, amount: M.money('3', 'USDC'), termsHash: null, purpose: 'a report' };
  const paid = await payWithin(w.store, w.clock, ask, async () => 'signed by the hot key');
  assert.equal(paid.kind, 'pending');
  return { human, approval: (paid as { approval: Approval }).approval, sign: () => pk };
}

/** `fn` is refused by the fold as inconsistent, and nothing is written. */
async function inconsistent(w: World, fn: () => Promise<unknown>): Promise<void> {
  const seq = w.store.seq;
  await assert.rejects(
    fn,
    (e: unknown) => HolonError.is(e) && /inconsistent|another|no approval/.test(`${String(e.details['code'])} ${e.message}`),
  );
  assert.equal(w.store.seq, seq);
}

describe('a payment the passkey signs as the account, when the human approves it', () => {
  test('it counts only beside the approval of exactly that payment: another amount, payee or account is refused', () =>
    withWorld(async (w) => {
      const { human, approval, sign } = await waiting(w);
      const pk = sign();
      const event = (await authorizeFromAccount(w.store.state, reader, approval.id, async (q) => pk.assert(q.challenge), w.clock.now()))!;
      const data = event.data as { amount: { amount: string }; authorization: Record<string, string> };
      assert.equal(data.authorization['value'], '3000000');
      assert.equal(data.authorization['from']!.toLowerCase(), ACCOUNT);
      const changed = (patch: (d: typeof data) => void): NewEvent => {
        const d = structuredClone(data);
        patch(d);
        return { ...event, data: d };
      };
      const decide = (also: NewEvent[]) => decideApproval(human, w.clock, approval.id, 'approved', 'cli', undefined, also);
      await inconsistent(w, () => decide([changed((d) => (d.amount.amount = '30.00'))]));
      await inconsistent(w, () => decide([changed((d) => (d.authorization['to'] = ACCOUNT))]));
      await inconsistent(w, () => decide([changed((d) => (d.authorization['from'] = PAYEE))]));
      assert.equal(w.store.state.approvals[approval.id]?.status, 'pending');

      await decide([event]);
      assert.equal(w.store.state.approvals[approval.id]?.status, 'approved');
      assert.deepEqual(accountPaymentFor(w.store.state, reader, approval.id)?.authorization, data.authorization);
    }));

  test("the payer refuses one that does not fit the chain it pays on, and the hot key's payment is never made for it", () =>
    withWorld(async (w) => {
      const { human, approval, sign } = await waiting(w);
      const pk = sign();
      const event = (await authorizeFromAccount(w.store.state, reader, approval.id, async (q) => pk.assert(q.challenge), w.clock.now()))!;
      const d = structuredClone(event.data) as { authorization: Record<string, string> };
      // The fold does not know the token's decimals: the value read in the chain's units is the payer's to check.
      d.authorization['value'] = '30000000';
      await decideApproval(human, w.clock, approval.id, 'approved', 'cli', undefined, [{ ...event, data: d }]);
      assert.throws(
        () => accountPaymentFor(w.store.state, reader, approval.id),
        (e: unknown) => HolonError.is(e, 'denied') && e.details['reason'] === 'account_authorization',
      );
      let signedByHotKey = 0;
      const ask = { mandate: PAYS, payee: `eip155:31337:${PAYEE}`, amount: M.money('3', 'USDC'), termsHash: null, purpose: 'a report' };
      await assert.rejects(
        payWithin(w.store, w.clock, ask, async () => ++signedByHotKey, { chain: { reader, payment: () => undefined } }),
        (e: unknown) => HolonError.is(e, 'denied') && e.details['reason'] === 'account_authorization',
      );
      assert.equal(signedByHotKey, 0);
    }));

  test('a page closed on the payment writes nothing: the approval stays pending', () =>
    withWorld(async (w) => {
      const { approval } = await waiting(w);
      const seq = w.store.seq;
      await assert.rejects(
        authorizeFromAccount(w.store.state, reader, approval.id, async () => undefined, w.clock.now()),
        (e: unknown) => HolonError.is(e, 'denied') && e.details['reason'] === 'not_asserted',
      );
      assert.equal(w.store.seq, seq);
      assert.equal(w.store.state.approvals[approval.id]?.status, 'pending');
    }));
});
