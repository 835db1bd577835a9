/**
 * Above the threshold the approval is the payment. In a passkey-guarded state whose human has an account
 * on the local chain, an agent (a real MCP client against `holon mcp`, the hot key in the state folder,
 * holding gas and no USDC) asks to pay a seller on terms, above the mandate's threshold. The human
 * approves at the command line: their passkey (Chromium's virtual authenticator) first signs the EIP-3009
 * authorization as the account, on a page that says it in words, then the decision. The agent's payment is
 * then that authorization, from the account; the seller settles it through the official x402 facilitator.
 * Balances and the Transfer log are read back with viem. The agent, with the hot key, tries to move more
 * under the same signature, and to use it twice. A file of its own: its own chain.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import type { Address, Hex } from 'viem';
import { encodeFunctionData, getAddress, parseEventLogs } from 'viem';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { TEST_USDC_ABI } from '../../examples/chain/testUsdcArtifact.ts';
import type { Seller } from '../../examples/sellers/x402Seller.ts';
import { SELLER, startSeller, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { approvalEvent } from '../../src/core/approvals/slice.ts';
import { chainAccountEvent } from '../../src/core/accounts/chainAccount.ts';
import type { McpSession } from '../cli/cliHarness.ts';
import { atPage, decidedAt, holonIn, mcpSession, openLedger, pageWords, readEvents } from '../cli/cliHarness.ts';
import type { PasskeyBrowser, VirtualCredential } from '../helpers/passkeyBrowser.ts';
import { noChromium } from '../helpers/passkeyBrowser.ts';
import { chainFlags, guardedCliWorld, sendAsAgent } from './support.ts';

const USDC = 1_000_000n;
const M = 'demo/account-pays';
type Authorization = { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex };
const authorizationOf = (p: PaymentPayload): Authorization => (p.payload as { authorization: Authorization }).authorization;

describe('above the threshold, the passkey signs the payment as the account', { skip: noChromium }, () => {
  let chain: LocalChain;
  let browser: PasskeyBrowser;
  let state: string;
  let cleanup: () => void;
  let credential: VirtualCredential;
  let account: Address;
  let seller: Seller;
  let agent: McpSession;
  let hot: Address;

  before(async () => {
    ({ chain, browser, state, cleanup, credential, account, hot } = await guardedCliWorld(20n * USDC));
    const payees = `${TEST_NETWORK}:${SELLER}`;
    await decided([
      'mandate',
      'create',
      M,
      '--toolsets',
      'terms',
      '--threshold',
      '1',
      '--total',
      '10',
      '--per-day',
      '10',
      '--payees',
      payees,
    ]);
    seller = await startSeller('honest', { amount: String(2n * USDC) });
    agent = await mcpSession(state, M, ['--allow-private-sellers', '--approval-wait', '0', ...chainFlags(chain)]);
  });
  after(async () => {
    await agent?.close();
    await seller?.close();
    await browser?.close();
    cleanup?.();
  });

  const shown = pageWords;

  /** Runs `args`, answering its `pages` pages with the passkey; requires exit 0. Returns each page's words. */
  const decided = async (args: string[], pages = 1): Promise<string[]> => (await decidedAt(browser, state, credential, args, pages)).pages;

  /** The agent asks to pay the seller on its terms: what Holon signed, or its decline. */
  async function transact(): Promise<{ signed?: PaymentPayload; decline?: { code: string } }> {
    const r = (await agent.client.callTool({
      name: 'atr_transact',
      arguments: { pairing: 'x402/exact/eip155', document: seller.document },
    })) as CallToolResult;
    return r.structuredContent as { signed?: PaymentPayload; decline?: { code: string } };
  }

  const pending = async (): Promise<{ id: string; status: string }[]> =>
    JSON.parse((await holonIn(state, ['approvals', '--json'])).stdout) as { id: string; status: string }[];
  const balances = async (): Promise<{ account: bigint; hot: bigint; seller: bigint }> => ({
    account: await chain.usdcOf(account),
    hot: await chain.usdcOf(hot),
    seller: await chain.usdcOf(getAddress(SELLER)),
  });
  const journalTypes = async (): Promise<string[]> => (await readEvents(state)).map((e) => e.type);
  const send = (payment: PaymentPayload): Promise<Response> =>
    fetch(`${seller.url}/resource`, { headers: { 'payment-signature': encodePaymentSignatureHeader(payment) } });

  let approval: string;
  let start: { account: bigint; hot: bigint; seller: bigint };

  test('a payment page closed unanswered writes nothing: the approval stays pending, nothing moved', async () => {
    start = await balances();
    assert.equal((await transact()).decline?.code, 'approval-pending');
    const waiting = await pending();
    assert.equal(waiting.length, 1);
    approval = waiting[0]!.id;

    const closed = atPage(state, ['approve', approval, ...chainFlags(chain)]);
    const words = await shown(closed, 0);
    assert.match(words, new RegExp(`Pay 2 USDC to ${getAddress(SELLER)} from your account ${account}, on ${TEST_NETWORK}\\.`));
    assert.match(words, /Your signature is the payment itself/);
    closed.child.kill('SIGTERM');
    assert.notEqual((await closed.done).code, 0);
    assert.deepEqual(
      (await pending()).map((a) => a.id),
      [approval],
    );
    assert.equal((await journalTypes()).filter((t) => t === 'payment.authorized' || t === 'approval.decided').length, 0);
    assert.deepEqual(await balances(), start);
  });

  test('approved with the passkey, the payment is the account’s: settled by the facilitator from the account, the hot key untouched', async () => {
    const pages = await decided(['approve', approval, ...chainFlags(chain)], 2);
    assert.match(pages[0]!, new RegExp(`Pay 2 USDC to ${getAddress(SELLER)} from your account ${account}`));
    // One transaction, under one assertion: the decision and the payment it approves.
    const types = await journalTypes();
    const at = types.indexOf('payment.authorized');
    assert.deepEqual(types.slice(at - 2, at + 1), ['human.asserted', 'approval.decided', 'payment.authorized']);

    const out = await transact();
    assert.equal(out.decline, undefined, JSON.stringify(out));
    const signed = out.signed!;
    const auth = authorizationOf(signed);
    assert.equal(getAddress(auth.from), account, 'from the account, not the hot key');
    assert.equal(auth.value, String(2n * USDC));
    assert.equal(auth.nonce.toLowerCase(), seller.hash, 'its nonce is the terms hash the approval bound');

    const paid = await send(signed);
    assert.equal(paid.status, 200, await paid.text());
    assert.equal(seller.settled.length, 1);
    const receipt = await chain.client.getTransactionReceipt({ hash: seller.settled[0]!.transaction as Hex });
    const transfers = parseEventLogs({ abi: TEST_USDC_ABI, eventName: 'Transfer', logs: receipt.logs }).map((l) => l.args);
    assert.deepEqual(transfers, [{ from: account, to: getAddress(SELLER), value: 2n * USDC }]);
    assert.deepEqual(await balances(), { account: start.account - 2n * USDC, hot: start.hot, seller: start.seller + 2n * USDC });
    assert.equal((await journalTypes()).includes('float.funded'), false, 'no float drawn');
    const settlement = (await openLedger(state)).state.settlements;
    assert.ok(Object.values(settlement).some((r) => r.authorization.from.toLowerCase() === account.toLowerCase()));
  });

  test('the agent with the hot key cannot alter the authorization, use it twice, or forge one', async () => {
    const before = await balances();
    const r = (await readEvents(state)).find((e) => e.type === 'payment.authorized')!.data as {
      authorization: Authorization;
      signature: Hex;
    };
    const a = r.authorization;
    const key = fs.readFileSync(path.join(state, 'keys', 'wallet.key'), 'utf8').trim() as Hex;
    const transfer = (value: bigint) => ({
      to: chain.token,
      data: encodeFunctionData({
        abi: TEST_USDC_ABI,
        functionName: 'transferWithAuthorization',
        args: [a.from, a.to, value, BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, r.signature],
      }),
    });
    // More than the human signed: the account's signature no longer verifies.
    assert.match(String(await sendAsAgent(chain, key, transfer(10n * USDC))), /invalid signature|FiatTokenV2/i);
    // Exactly what was signed, again: the nonce is spent.
    assert.match(String(await sendAsAgent(chain, key, transfer(2n * USDC))), /authorization is used or canceled|used/i);
    assert.deepEqual(await balances(), before);

    // A payment authorization the agent writes into the journal with the installation's key decides nothing.
    const store = await openLedger(state);
    const forged = chainAccountEvent('payment.authorized', {
      approval,
      chain_id: chain.chainId,
      token: chain.token,
      amount: { amount: '9.00', currency: 'USDC' },
      authorization: { ...a, value: String(9n * USDC) },
      signature: r.signature,
      digest: `0x${'11'.repeat(32)}`,
    });
    assert.equal(
      store.mayWrite([approvalEvent('approval.decided', { id: approval, decision: 'approved', channel: 'cli' }), forged])?.code,
      'not_asserted',
    );
    assert.notEqual(store.mayWrite([forged]), undefined);
    store.close();
  });
});
