/**
 * The editor's mandate form keeps a mandate's delegation on chain in step, as `holon mandate edit` does:
 * what the form's save calls after the mandate is written (src/editor/mandateChain.ts), with the human's
 * passkey answering its pages (a software authenticator over each page's challenge) and a real local
 * chain. An agent holding the hot key then tries the delegation the edit replaced. A file of its own: its
 * own chain.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Address, Hex } from 'viem';
import { encodeFunctionData, getAddress, parseAbi, parseEther } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { delegationOfMandate } from '../../src/core/accounts/chainAccount.ts';
import { createMandate, patchMandate } from '../../src/core/accounts/mandates.ts';
import { addPasskey, registrationSubject } from '../../src/core/accounts/passkeys.ts';
import type { Answer, Ceremony } from '../../src/core/ceremony/page.ts';
import { humanStore } from '../../src/core/decisions/asserted.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holdableClock } from '../../src/core/kernel/deps.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { saveWallet, walletFromKey } from '../../src/core/local/wallet.ts';
import { challengeOf } from '../../src/core/passkey/challenge.ts';
import { chainReader } from '../../src/core/rails/chain.ts';
import { frameworkOn } from '../../src/core/rails/delegation/addresses.ts';
import { delegationFromJson, redeemTransaction } from '../../src/core/rails/delegation/delegation.ts';
import { createHumanAccount } from '../../src/core/rails/delegation/humanAccount.ts';
import type { EventStore } from '../../src/core/store/store.ts';
import { mandateOnChainFromEditor } from '../../src/editor/mandateChain.ts';
import { demoRuntime } from '../helpers.ts';
import type { SoftPasskey } from '../helpers/softPasskey.ts';
import { softPasskey } from '../helpers/softPasskey.ts';
import { chainOf, sendAsAgent } from './support.ts';

const USDC = 1_000_000n;
const MANDATE = 'demo/form';
const hotKey = generatePrivateKey();
const wallet = walletFromKey(hotKey);
const ERC20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

let chain: LocalChain;
let dir: string;
let cleanup: () => Promise<void>;
let passkey: SoftPasskey;
let human: EventStore<HolonState>;
let clock: Awaited<ReturnType<typeof demoRuntime>>['clock'];
let account: Address;
/** The pages the form opened, in order: their titles. */
const pages: string[] = [];
/** Whether the human answers the next page (false: they close it). */
let answers = true;

/** The human at the editor's page: the passkey signs the page's challenge, or the page is closed. */
async function atPage(c: Ceremony): Promise<Answer> {
  pages.push(c.title);
  if (c.kind !== 'decide' || !answers) return { kind: 'cancelled' };
  const challenge = typeof c.challenge === 'function' ? c.challenge('confirm') : c.challenge;
  return { kind: 'decided', choice: 'confirm', assertion: passkey.assert(challenge) };
}

before(async () => {
  chain = await localChain();
  await chain.fund(wallet.address, { eth: parseEther('1') });
  const world = await demoRuntime({ wallet, chain: chainOf(chain), funds: '50' });
  ({ cleanup, dir, clock } = world);
  saveWallet(dir, hotKey);
  passkey = softPasskey();
  const store = world.runtime.store;
  await addPasskey(store, passkey.credential, 'laptop', passkey.assert(challengeOf(registrationSubject(passkey.credential))));
  human = humanStore(store, holdableClock(world.clock), async (q) => passkey.assert(q.challenge));
  account = getAddress((await createHumanAccount(human, chainReader(chainOf(chain)), wallet)).address);
  await chain.fund(account, { usdc: 30n * USDC });
  await createMandate(human, world.clock, MANDATE, {
    currency: 'USDC',
    toolsets: ['money'],
    approval_threshold: '3.00',
    budget: { total: '10.00', per_day: '10.00', per_call: null },
    capabilities: [{ name: 'pay', params: { payees: ['*'] } }],
  });
});
after(async () => {
  await cleanup?.();
});

const deps = (chainSet = true): Parameters<typeof mandateOnChainFromEditor>[0] => ({
  store: human,
  dir,
  chain: chainSet ? chainOf(chain) : null,
  atPage,
});

/** The agent, with the hot key from the state folder, redeems `value` under `delegation`: null, or why it reverted. */
async function agentDraws(recorded: ReturnType<typeof delegationOfMandate>, value: bigint): Promise<string | null> {
  const d = delegationFromJson(recorded!.delegation);
  const call = {
    target: chain.token as Address,
    value: 0n,
    data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [wallet.address, value] }),
  };
  const key = fs.readFileSync(path.join(dir, 'keys', 'wallet.key'), 'utf8').trim() as Hex;
  return sendAsAgent(chain, key, redeemTransaction(frameworkOn(chain.chainId), d, recorded!.signature as Hex, call));
}

test("the form's first save signs the mandate's limits on chain, on the passkey's page", async () => {
  const said = await mandateOnChainFromEditor(deps(), MANDATE);
  assert.match(said, new RegExp(`your account ${account} holds these limits for Holon's hot key`));
  assert.deepEqual(pages.splice(0), [`Holon: hold mandate ${MANDATE}'s limits on chain`]);
  assert.equal(delegationOfMandate(human.state, MANDATE)?.delegation.delegator, account);
});

test('an edit in the form disables the old delegation before it signs the new limits, less what was spent', async () => {
  const first = delegationOfMandate(human.state, MANDATE);
  assert.equal(await agentDraws(first, 4n * USDC), null, 'the agent draws 4 under the first delegation');
  await patchMandate(human, clock, MANDATE, {
    budget: { total: '6.00', per_day: '6.00', per_call: null },
  });
  const said = await mandateOnChainFromEditor(deps(), MANDATE);
  assert.match(said, /your account disabled the mandate's earlier delegation 0x[0-9a-f]{64} \(transaction 0x[0-9a-f]{64}\)/);
  assert.deepEqual(pages.splice(0), [
    `Holon: disable mandate ${MANDATE}'s delegation on chain`,
    `Holon: hold mandate ${MANDATE}'s limits on chain`,
  ]);
  assert.equal(await agentDraws(first, 1n), 'CannotUseADisabledDelegation', 'the replaced delegation draws nothing');
  const second = delegationOfMandate(human.state, MANDATE);
  assert.notEqual(second?.digest, first?.digest);
  // 6 in all, 4 spent: 2 left on chain, whatever the day's cap says.
  assert.equal(await agentDraws(second, 2n * USDC + 1n), 'ERC20TransferAmountEnforcer:allowance-exceeded');
  assert.equal(await agentDraws(second, 2n * USDC), null);
});

test('a page closed in the editor leaves the chain as it was; no chain in the settings says the delegation still holds', async () => {
  const held = delegationOfMandate(human.state, MANDATE);
  answers = false;
  await assert.rejects(mandateOnChainFromEditor(deps(), MANDATE), (e: unknown) => HolonError.is(e, 'denied'));
  answers = true;
  assert.equal(pages.splice(0).length, 1, 'the first page was closed, and no other opened');
  assert.equal(delegationOfMandate(human.state, MANDATE)?.digest, held?.digest);
  assert.equal(await agentDraws(held, 1n), 'ERC20TransferAmountEnforcer:allowance-exceeded', 'still live, and spent to its total');
  assert.match(
    await mandateOnChainFromEditor(deps(false), MANDATE),
    new RegExp(`delegation ${held!.digest} still holds what it held on chain`),
  );
  assert.deepEqual(pages, []);
});
