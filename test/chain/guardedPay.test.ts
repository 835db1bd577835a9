/**
 * A passkey-guarded state pays from the human's account on chain, within the mandate's caps as the chain
 * holds them. The human's passkey (a software authenticator, test/helpers/softPasskey.ts) registers, its
 * account is deployed by the hot key and holds the USDC; the hot key has gas and no USDC. The mandate's
 * limits become a delegation the passkey signs. `pay` through Holon draws exactly the payment from the
 * account (the float) and pays as before; then an agent with a shell and every file of the state folder
 * tries to move more with the hot key, and to widen the mandate in the journal. Balances are read back
 * from the chain. A file of its own: its own chain.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { Address, Hex } from 'viem';
import { encodeFunctionData, getAddress, parseAbi, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import type { DelegationJson } from '../../src/core/accounts/chainAccount.ts';
import { createMandate, mandateEvent } from '../../src/core/accounts/mandates.ts';
import { addPasskey, registrationSubject } from '../../src/core/accounts/passkeys.ts';
import { humanStore } from '../../src/core/decisions/asserted.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holdableClock } from '../../src/core/kernel/deps.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { saveWallet, walletFromKey } from '../../src/core/local/wallet.ts';
import type { ChainReader } from '../../src/core/rails/chain.ts';
import { chainReader } from '../../src/core/rails/chain.ts';
import { frameworkOn } from '../../src/core/rails/delegation/addresses.ts';
import { caveatsOf, DAY, utcMidnight } from '../../src/core/rails/delegation/caveats.ts';
import { delegationFromJson, redeemTransaction } from '../../src/core/rails/delegation/delegation.ts';
import type { PasskeyQuestion } from '../../src/core/rails/delegation/humanAccount.ts';
import { createHumanAccount, delegateMandate } from '../../src/core/rails/delegation/humanAccount.ts';
import { challengeOf } from '../../src/core/passkey/challenge.ts';
import type { EventStore } from '../../src/core/store/store.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import { connect, demoRuntime, TestClock } from '../helpers.ts';
import type { SoftPasskey } from '../helpers/softPasskey.ts';
import { softPasskey } from '../helpers/softPasskey.ts';
import { callTool } from '../server/support.ts';
import { chainOf, onChain, sendAsAgent } from './support.ts';

const USDC = 1_000_000n;
const PAYS = 'demo/guarded';
const hotKey = generatePrivateKey();
const wallet = walletFromKey(hotKey);
const payee = privateKeyToAccount(generatePrivateKey()).address;
const PAYEE = `eip155:31337:${payee}`;
const ERC20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

let chain: LocalChain;
let reader: ChainReader;
let runtime: Runtime;
let dir: string;
let client: Client;
let cleanup: () => Promise<void>;
let passkey: SoftPasskey;
let human: EventStore<HolonState>;
let account: Address;
const asked: PasskeyQuestion[] = [];

before(async () => {
  chain = await localChain();
  reader = chainReader(chainOf(chain));
  await chain.fund(wallet.address, { eth: parseEther('1') });
  const world = await demoRuntime({ clock: new TestClock(Date.now()), wallet, chain: chainOf(chain), funds: '50' });
  ({ runtime, cleanup, dir } = world);
  // The hot key where the state keeps it, for the agent below to read.
  saveWallet(dir, hotKey);
  passkey = softPasskey();
  await addPasskey(runtime.store, passkey.credential, 'laptop', passkey.assert(challengeOf(registrationSubject(passkey.credential))));
  // From here the human decides with the passkey: each decision is asked, and the passkey signs what it is shown.
  human = humanStore(runtime.store, holdableClock(world.clock), async (q) => passkey.assert(q.challenge));
  account = getAddress((await createHumanAccount(human, reader, wallet)).address);
  await chain.fund(account, { usdc: 20n * USDC });
  // The demo's account is in EUR: the mandate too, its limits converted to USDC on chain at the human's rate.
  await setFx(human, 'USDC', 'EUR', '1.00');
  await createMandate(human, world.clock, PAYS, {
    currency: 'EUR',
    toolsets: ['money'],
    approval_threshold: '3.00',
    budget: { total: '12.00', per_day: '5.00', per_call: null },
    capabilities: [{ name: 'pay', params: { payees: [PAYEE] } }],
  });
  await delegateMandate(
    runtime.store,
    reader,
    PAYS,
    async (q) => {
      asked.push(q);
      return passkey.assert(q.challenge);
    },
    wallet.address,
  );
  client = await connect(runtime, { mandate: PAYS });
});
after(async () => {
  await client?.close();
  await cleanup?.();
});

async function balances(): Promise<{ account: bigint; hot: bigint; payee: bigint }> {
  return { account: await chain.usdcOf(account), hot: await chain.usdcOf(wallet.address), payee: await chain.usdcOf(payee) };
}

/** The journal as an agent with a shell reads it: lines of JSON in the state folder. */
function journal(): { type: string; data: Record<string, unknown> }[] {
  return fs
    .readFileSync(path.join(dir, 'journal.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> });
}

test('the account is recorded as the passkey decided it, and the mandate delegated with its limits in words', () => {
  const created = journal().filter((e) => e.type === 'account.created');
  assert.equal(created.length, 1);
  assert.equal(created[0]!.data['address'], account);
  const types = journal().map((e) => e.type);
  assert.equal(types[types.indexOf('account.created') - 1], 'human.asserted', "the account is the passkey's decision");
  assert.equal(asked.length, 1);
  assert.match(asked[0]!.lines.join('\n'), /at most 5 USDC a day \(UTC\), 12 USDC in all/);
  assert.match(asked[0]!.lines.join('\n'), /A day: 5\.00 EUR is 5 USDC at the rate this state has now/);
  assert.equal(runtime.store.state.chain_account.delegations[PAYS]?.delegation.delegator, account);
});

test('a payment through Holon draws exactly its amount from the account under the delegation, then lands as before', async () => {
  assert.deepEqual(await balances(), { account: 20n * USDC, hot: 0n, payee: 0n });
  const r = await callTool(client, 'pay', {
    intent: { payee: PAYEE, amount: '1.00', currency: 'USDC', purpose: 'a guarded payment', idempotency_key: 'one' },
  });
  assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent));
  const out = r.structuredContent as { receipt: { reference: string }; intent: { status: string } };
  assert.equal(out.intent.status, 'settled');
  const floats = journal().filter((e) => e.type === 'float.funded');
  assert.equal(floats.length, 1);
  assert.deepEqual([floats[0]!.data['mandate'], floats[0]!.data['value']], [PAYS, String(USDC)]);
  const redeem = await onChain(chain, floats[0]!.data['transaction'] as string);
  assert.deepEqual(redeem.transfers, [{ from: account, to: wallet.address, value: USDC }]);
  const paid = await onChain(chain, out.receipt.reference);
  assert.deepEqual(paid.transfers, [{ from: wallet.address, to: payee, value: USDC }]);
  assert.deepEqual(await balances(), { account: 19n * USDC, hot: 0n, payee: USDC });
});

test('an agent with the hot key and the journal moves no more than the day has left; a mandate it widens in the journal moves nothing', async () => {
  // What it reads: the hot key's file and the newest delegation in the journal.
  const key = fs.readFileSync(path.join(dir, 'keys', 'wallet.key'), 'utf8').trim() as Hex;
  const recorded = journal()
    .filter((e) => e.type === 'mandate.delegated' && e.data['mandate'] === PAYS)
    .at(-1)!.data as { delegation: DelegationJson; signature: Hex };
  const framework = frameworkOn(chain.chainId);
  const delegation = delegationFromJson(recorded.delegation);
  const toSelf = (value: bigint) => ({
    target: chain.token,
    value: 0n,
    data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [wallet.address, value] }),
  });
  const redeem = (d = delegation, value: bigint) =>
    sendAsAgent(chain, key, redeemTransaction(framework, d, recorded.signature, toSelf(value)));

  assert.equal(await redeem(delegation, 10n * USDC), 'ERC20PeriodTransferEnforcer:transfer-amount-exceeded');
  assert.deepEqual(await balances(), { account: 19n * USDC, hot: 0n, payee: USDC });
  assert.equal(await redeem(delegation, 4n * USDC), null, 'what the day has left goes through');
  assert.equal(await redeem(delegation, 1n), 'ERC20PeriodTransferEnforcer:transfer-amount-exceeded');

  // The mandate widened in the journal, sealed with the installation's key: the fold refuses it.
  const m = runtime.store.state.mandates[PAYS]!;
  const wider = { ...m, budget: { ...m.budget, per_day: '500.00', total: '500.00' } };
  const forged = [mandateEvent('mandate.updated', { mandate: wider })];
  assert.equal(runtime.store.mayWrite(forged)?.code, 'not_asserted');
  await assert.rejects(
    runtime.store.transact(() => ({ events: forged, result: undefined })),
    (e: unknown) =>
      HolonError.is(e, 'denied') && /not_asserted|only the human's passkey/.test(`${String(e.details['code'] ?? '')} ${e.message}`),
  );
  assert.equal(runtime.store.state.mandates[PAYS]?.budget.per_day, '5.00');
  // And the delegation with its terms rewritten to match, under the passkey's signature: the chain refuses it.
  const now = (await chain.client.getBlock()).timestamp;
  const rewritten = {
    ...delegation,
    caveats: caveatsOf(
      {
        token: chain.token,
        perDay: 500n * USDC,
        total: 500n * USDC,
        startOfDay: utcMidnight(now),
        expiresAt: utcMidnight(now) + 30n * DAY,
        hotKey: wallet.address,
      },
      framework,
    ),
  };
  assert.equal(await redeem(rewritten, USDC), 'InvalidERC1271Signature');

  // Exactly what went through moved: 1 paid, 4 drawn by the agent, to the hot key only.
  assert.deepEqual(await balances(), { account: 15n * USDC, hot: 4n * USDC, payee: USDC });
});
