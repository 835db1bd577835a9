/**
 * A mandate's delegation on chain follows the mandate, at the command line with the human's passkey
 * (Chromium's virtual authenticator on the pages Holon opens): an edit disables the delegation it had before
 * signing the new limits, and the new total is what is left after what the account already moved for the
 * mandate, as the chain counted it; revoking disables it. An agent with a shell and the hot key's file
 * redeems what the journal recorded, as its own transactions; balances are read back with viem. A file of
 * its own, so a chain of its own.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address, Hex } from 'viem';
import { encodeFunctionData, parseAbi } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import type { DelegationJson } from '../../src/core/accounts/chainAccount.ts';
import { frameworkOn } from '../../src/core/rails/delegation/addresses.ts';
import { delegationFromJson, redeemTransaction } from '../../src/core/rails/delegation/delegation.ts';
import type { PageCommand } from '../cli/cliHarness.ts';
import { atPage, decidedAt, holonIn, pageWords, readEvents } from '../cli/cliHarness.ts';
import type { PasskeyBrowser, VirtualCredential } from '../helpers/passkeyBrowser.ts';
import { noChromium } from '../helpers/passkeyBrowser.ts';
import { chainFlags, guardedCliWorld, sendAsAgent } from './support.ts';

const USDC = 1_000_000n;
const ERC20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

describe("a mandate's delegation on chain follows the mandate", { skip: noChromium }, () => {
  let chain: LocalChain;
  let browser: PasskeyBrowser;
  let state: string;
  let cleanup: () => void;
  let credential: VirtualCredential;
  let account: Address;
  let key: Hex;
  let hot: Address;
  const payee = privateKeyToAccount(generatePrivateKey()).address;

  before(async () => {
    ({ chain, browser, state, cleanup, credential, account, hot } = await guardedCliWorld(40n * USDC));
    // The agent: the hot key's file, read as any file of the state folder.
    key = fs.readFileSync(path.join(state, 'keys', 'wallet.key'), 'utf8').trim() as Hex;
  });
  after(async () => {
    await browser?.close();
    cleanup?.();
  });

  const shown = pageWords;

  /** Answers page `n` of `cmd` with the passkey; returns what it showed. */
  async function confirm(cmd: PageCommand, n: number): Promise<string> {
    const words = await shown(cmd, n);
    const outcome = await browser.decideAt(await cmd.page(n), credential, 'confirm');
    assert.equal(outcome.state, 'done', `page ${n + 1}: ${outcome.status}`);
    return words;
  }

  /** Runs `args`, answering its `pages` pages; requires exit 0. Returns each page's words and the output. */
  const decided = (args: string[], pages = 1): ReturnType<typeof decidedAt> => decidedAt(browser, state, credential, args, pages);

  const edit = (mandate: string, ...flags: string[]): string[] => ['mandate', 'edit', mandate, ...flags, ...chainFlags(chain)];

  /** The delegations the journal recorded for `mandate`, oldest first, as an agent reads them. */
  async function recorded(mandate: string): Promise<{ delegation: DelegationJson; signature: Hex; digest: string }[]> {
    return (await readEvents(state))
      .filter((e) => e.type === 'mandate.delegated' && (e.data as { mandate: string }).mandate === mandate)
      .map((e) => e.data as { delegation: DelegationJson; signature: Hex; digest: string });
  }

  /** The agent redeems `value` to the hot key under a recorded delegation, with its own transaction. */
  function take(d: { delegation: DelegationJson; signature: Hex }, value: bigint): Promise<string | null> {
    return sendAsAgent(
      chain,
      key,
      redeemTransaction(frameworkOn(chain.chainId), delegationFromJson(d.delegation), d.signature, {
        target: chain.token,
        value: 0n,
        data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [hot, value] }),
      }),
    );
  }

  const balances = async (): Promise<[bigint, bigint]> => [await chain.usdcOf(account), await chain.usdcOf(hot)];

  async function created(mandate: string, total: string, perDay: string): Promise<void> {
    const flags = ['--total', total, '--per-day', perDay, '--threshold', '3', '--payees', `eip155:31337:${payee}`];
    await decided(['mandate', 'create', mandate, ...flags, ...chainFlags(chain)], 2);
  }

  test('an edit disables the old delegation and holds the new total less what was spent; with nothing left it signs none', async () => {
    const M = 'demo/follows';
    await created(M, '12', '5');
    const [first] = await recorded(M);
    assert.equal(await take(first!, 2n * USDC), null);

    // Wider: the old delegation is disabled first, then the new one holds 20 less the 2 already moved.
    const wider = await decided(edit(M, '--total', '20', '--per-day', '10'), 3);
    assert.match(wider.pages[1]!, /disable mandate demo\/follows's delegation on chain/);
    assert.match(wider.pages[1]!, new RegExp(`disables, for good, its delegation ${first!.digest}`));
    assert.match(wider.pages[1]!, /at most 5 USDC a day, 12 USDC in all/);
    assert.match(wider.pages[2]!, /2 USDC already spent: 18 USDC left in all/);
    assert.match(wider.pages[2]!, /The day's count starts again/);
    assert.match(wider.pages[2]!, /at most 10 USDC a day \(UTC\), 18 USDC in all/);
    assert.match(wider.stdout, /disabled the mandate's earlier delegation/);
    const [, second] = await recorded(M);
    assert.equal(await take(first!, 1n), 'CannotUseADisabledDelegation');
    assert.equal(await take(second!, 3n * USDC), null);

    // Narrower: 8 in all, 5 moved under the two before: 3 left, and the chain gives no more.
    const narrower = await decided(edit(M, '--total', '8', '--per-day', '5'), 3);
    assert.match(narrower.pages[2]!, /5 USDC already spent: 3 USDC left in all/);
    const [, , third] = await recorded(M);
    assert.equal(await take(second!, 1n), 'CannotUseADisabledDelegation');
    assert.equal(await take(third!, 4n * USDC), 'ERC20TransferAmountEnforcer:allowance-exceeded');
    assert.equal(await take(third!, 3n * USDC), null);
    assert.equal(await take(third!, 1n), 'ERC20TransferAmountEnforcer:allowance-exceeded');
    assert.deepEqual(await balances(), [32n * USDC, 8n * USDC], 'read back from the chain: 2 + 3 + 3 moved, no more');

    // All 8 spent: the edit disables the last delegation and signs none, and says why.
    const spent = atPage(state, edit(M, '--threshold', '2'));
    await confirm(spent, 0);
    assert.match(await confirm(spent, 1), new RegExp(`its delegation ${third!.digest}`));
    const r = await spent.done;
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /nothing is left to hold on chain: 8 USDC already spent/);
    assert.equal((await recorded(M)).length, 3, 'no fourth delegation');
    assert.equal(await take(third!, 1n), 'CannotUseADisabledDelegation');
    const undelegated = (await readEvents(state)).filter((e) => e.type === 'mandate.undelegated');
    assert.deepEqual(
      undelegated.map((e) => (e.data as { digest: string }).digest),
      [first!.digest, second!.digest, third!.digest],
    );
    assert.deepEqual(await balances(), [32n * USDC, 8n * USDC]);
    assert.equal((await holonIn(state, ['verify'])).code, 0);
  });

  test('revoking a mandate disables its delegation: the agent moves nothing after', async () => {
    const M = 'demo/revoked';
    await created(M, '5', '5');
    const [d] = await recorded(M);
    const before = await balances();
    const revoked = await decided(edit(M, '--status', 'revoked'), 2);
    assert.match(revoked.pages[1]!, /Mandate demo\/revoked is revoked: your account/);
    assert.equal(await take(d!, 1n), 'CannotUseADisabledDelegation');
    assert.deepEqual(await balances(), before, 'nothing moved');
    assert.equal((await recorded(M)).length, 1, 'a revoked mandate is signed no new delegation');
  });

  test('a disable page closed unanswered leaves the old delegation as it was and signs no new one; the edit run again finishes', async () => {
    const M = 'demo/closed';
    await created(M, '6', '6');
    const [old] = await recorded(M);
    assert.equal(await take(old!, USDC), null);

    // The human closes the command while the disable page waits (as a crash between the two would).
    const closed = atPage(state, edit(M, '--total', '10', '--per-day', '10'));
    await confirm(closed, 0);
    assert.match(await shown(closed, 1), /disable mandate demo\/closed's delegation on chain/);
    closed.child.kill('SIGTERM');
    await closed.done;
    // The mandate's decision was made; the chain still holds only the old caps, and no second delegation exists.
    const m = JSON.parse((await holonIn(state, ['mandate', 'show', M, '--json'])).stdout) as { budget: { total: string } };
    assert.equal(m.budget.total, '10');
    assert.equal((await recorded(M)).length, 1);
    assert.equal(
      (await readEvents(state)).filter((e) => e.type === 'mandate.undelegated' && (e.data as { mandate: string }).mandate === M).length,
      0,
    );
    assert.equal(await take(old!, 5n * USDC + 1n), 'ERC20PeriodTransferEnforcer:transfer-amount-exceeded', 'the old caps, no wider');

    // Run again: the old one is disabled, and the new one holds 10 less the 1 moved.
    const again = await decided(edit(M, '--total', '10', '--per-day', '10'), 3);
    assert.match(again.pages[2]!, /1 USDC already spent: 9 USDC left in all/);
    assert.equal(await take(old!, 1n), 'CannotUseADisabledDelegation');
    assert.equal((await holonIn(state, ['verify'])).code, 0);
  });
});
