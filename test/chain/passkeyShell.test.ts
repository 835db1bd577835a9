/**
 * The human sets Holon up as the README says, at the command line, with their passkey (Chromium's
 * virtual authenticator on the pages Holon opens) and a chain: `holon passkey add` deploys their account,
 * owned by the passkey alone; `holon mandate create` is signed twice, the mandate and its limits as a
 * delegation to the hot key. Then an agent with a shell and every file of the state folder tries to
 * spend: the chain gives it no more than the day's cap, whatever the journal says. A file of its own, so
 * a chain of its own.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address, Hex } from 'viem';
import { encodeFunctionData, getAddress, parseAbi, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import type { DelegationJson } from '../../src/core/accounts/chainAccount.ts';
import { saveWallet } from '../../src/core/local/wallet.ts';
import { frameworkOn } from '../../src/core/rails/delegation/addresses.ts';
import { delegationFromJson, redeemTransaction } from '../../src/core/rails/delegation/delegation.ts';
import { atPage, decidedAt, ensureBuilt, holonIn, readEvents, seededState } from '../cli/cliHarness.ts';
import type { PasskeyBrowser, VirtualCredential } from '../helpers/passkeyBrowser.ts';
import { noChromium, openPasskeyBrowser } from '../helpers/passkeyBrowser.ts';
import { chainFlags, sendAsAgent } from './support.ts';

const USDC = 1_000_000n;
const MANDATE = 'demo/onchain';
const ERC20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

describe("the human's passkey and account on chain, set up at the command line", { skip: noChromium }, () => {
  let chain: LocalChain;
  let browser: PasskeyBrowser;
  let state: string;
  let cleanup: () => void;
  const hotKey = generatePrivateKey();
  const hot = privateKeyToAccount(hotKey).address;
  const payee = privateKeyToAccount(generatePrivateKey()).address;

  before(async () => {
    await ensureBuilt();
    chain = await localChain();
    browser = await openPasskeyBrowser();
    ({ dir: state, cleanup } = await seededState());
    saveWallet(state, hotKey);
    await chain.fund(hot, { eth: parseEther('1') });
  });
  after(async () => {
    await browser?.close();
    cleanup?.();
  });

  /** Runs `args`, answering each of its `pages` pages with the passkey; requires exit 0. */
  const decided = async (credential: VirtualCredential, args: string[], pages = 1): Promise<string> =>
    (await decidedAt(browser, state, credential, args, pages)).stdout;

  test('the passkey owns the account, the mandate is its delegation, and an agent with the hot key gets no more than the day allows', async () => {
    const add = atPage(state, ['passkey', 'add', '--label', 'laptop', ...chainFlags(chain)]);
    const credential = await browser.registerAt(await add.url);
    const added = await add.done;
    assert.equal(added.code, 0, added.stderr);
    const listed = JSON.parse((await holonIn(state, ['passkey', 'list', '--json'])).stdout) as {
      accounts: { address: string; chain_id: number }[];
    };
    assert.equal(listed.accounts.length, 1);
    const account = getAddress(listed.accounts[0]!.address) as Address;
    assert.notEqual(await chain.client.getCode({ address: account }), undefined, 'the account is deployed');
    await chain.fund(account, { usdc: 20n * USDC });

    await decided(credential, ['fx', 'USDC', 'EUR', '1.00']);
    const made = await decided(
      credential,
      [
        'mandate',
        'create',
        MANDATE,
        '--total',
        '12',
        '--per-day',
        '5',
        '--threshold',
        '3',
        '--payees',
        `eip155:31337:${payee}`,
        ...chainFlags(chain),
      ],
      2,
    );
    assert.match(made, /holds these limits for Holon's hot key/);

    // The agent: the hot key's file, the delegation in the journal, and a transaction of its own.
    const key = fs.readFileSync(path.join(state, 'keys', 'wallet.key'), 'utf8').trim() as Hex;
    const recorded = (await readEvents(state)).filter((e) => e.type === 'mandate.delegated').at(-1)!.data as {
      delegation: DelegationJson;
      signature: Hex;
    };
    const delegation = delegationFromJson(recorded.delegation);
    const take = (value: bigint): Promise<string | null> =>
      sendAsAgent(
        chain,
        key,
        redeemTransaction(frameworkOn(chain.chainId), delegation, recorded.signature, {
          target: chain.token,
          value: 0n,
          data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [hot, value] }),
        }),
      );
    assert.equal(await take(6n * USDC), 'ERC20PeriodTransferEnforcer:transfer-amount-exceeded');
    assert.equal(await take(5n * USDC), null, 'the day allows 5');
    assert.equal(await take(1n), 'ERC20PeriodTransferEnforcer:transfer-amount-exceeded');
    assert.deepEqual([await chain.usdcOf(account), await chain.usdcOf(hot)], [15n * USDC, 5n * USDC], 'read back from the chain');

    // Its own wider mandate, at the terminal: the page asks the human's passkey, which the agent does not have.
    const wider = atPage(state, ['mandate', 'edit', MANDATE, '--per-day', '500', ...chainFlags(chain)]);
    await wider.url;
    wider.child.kill('SIGTERM');
    await wider.done;
    const shown = JSON.parse((await holonIn(state, ['mandate', 'show', MANDATE, '--json'])).stdout) as { budget: { per_day: string } };
    assert.equal(shown.budget.per_day, '5', 'the mandate the passkey signed');
    assert.equal((await holonIn(state, ['verify'])).code, 0);
  });
});
