/** What the chain suites share: Holon's chain settings for the local chain, and reading a settlement back. */
import type { Address, Hex } from 'viem';
import { BaseError, createWalletClient, decodeErrorResult, getAddress, parseAbi, parseAbiItem, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { localChainDefinition, localTransport } from '../../examples/chain/network.ts';
import type { Client } from '@modelcontextprotocol/client';
import { budgetInfo } from '../../src/editor/views.ts';
import assert from 'node:assert/strict';
import { atPage, decidedAt, ensureBuilt, holonIn, json, seededState } from '../cli/cliHarness.ts';
import type { PasskeyBrowser, VirtualCredential } from '../helpers/passkeyBrowser.ts';
import { openPasskeyBrowser } from '../helpers/passkeyBrowser.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { saveWallet } from '../../src/core/local/wallet.ts';
import type { ChainConfig } from '../../src/core/rails/chain.ts';
import { chainConfig } from '../../src/core/rails/chain.ts';
import type { Settlement } from '../../src/core/rails/settlement.ts';
import type { EventStore } from '../../src/core/store/store.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { demoRuntime, TestClock, until } from '../helpers.ts';
import { publicFetch } from '../../src/server/net/publicFetch.ts';
import type { Clock } from '../../src/core/kernel/deps.ts';
import type { Wallet } from '../../src/core/local/wallet.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import { patchMandate } from '../../src/core/accounts/mandates.ts';
import { SELLER, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';

/** The example seller's payee, as a catalog entry and a mandate name it (CAIP-10). */
export const SELLER_PAYEE = `${TEST_NETWORK}:${SELLER}`;

/** A catalog endpoint for an x402 agent at `url`, paid to `payee` only (the example seller's, by default). */
export function x402Endpoint(url: string, payee: string = SELLER_PAYEE): { type: 'x402'; url: string; payee: string } {
  return { type: 'x402', url, payee };
}

/** Lets `mandate` pay `payees` (the human's `pay` grant): every signature of the wallet goes through it. */
export async function allowPaying(
  store: EventStore<HolonState>,
  clock: Clock,
  mandate: string,
  payees: string[] = [SELLER_PAYEE],
): Promise<void> {
  await patchMandate(store, clock, mandate, { grants: [{ name: 'pay', params: { payees } }] });
}

/** Holon's settings for a local chain: its node, its token, its facilitator. */
export function chainOf(chain: LocalChain, facilitator: string | null = chain.facilitator.url): ChainConfig {
  return chainConfig({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, token: chain.token, facilitator });
}

/** The same settings as `holon mcp` and `holon serve` take them: the flags a human types. */
export function chainFlags(chain: LocalChain, facilitator: string = chain.facilitator.url): string[] {
  return ['--rpc-url', chain.rpcUrl, '--chain-id', String(chain.chainId), '--token', chain.token, '--facilitator', facilitator];
}

/** Waits until a settlement leaves `signed` (Holon read the chain for it), and returns it. */
export function settled(store: EventStore<HolonState>, id: string): Promise<Settlement> {
  return until(() => {
    const r = store.state.settlements[id];
    return r && r.status !== 'signed' ? structuredClone(r) : undefined;
  }, `settlement ${id} to be decided by the chain`);
}

/**
 * What the chain itself says of a transaction, read by the test: its block, and the token's Transfers in
 * it (never Holon's word for either).
 */
export async function onChain(
  chain: LocalChain,
  tx: string,
): Promise<{ block: bigint; transfers: { from: string; to: string; value: bigint }[] }> {
  const receipt = await chain.client.getTransactionReceipt({ hash: tx as Hex });
  const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
  const transfers = receipt.logs
    .filter((l) => getAddress(l.address) === chain.token && l.topics[0] === transferTopic)
    .map((l) => ({
      from: getAddress(`0x${(l.topics[1] ?? '').slice(26)}`),
      to: getAddress(`0x${(l.topics[2] ?? '').slice(26)}`),
      value: BigInt(l.data),
    }));
  if (receipt.status !== 'success') throw new Error(`${tx} reverted`);
  return { block: receipt.blockNumber, transfers };
}

/** Every `Transfer` of the token out of `from`, read from the chain: the transfer (transaction and log index) and its value. */
export async function transfersOut(chain: LocalChain, from: Address): Promise<{ to: Address; value: bigint; key: string }[]> {
  const logs = await chain.client.getLogs({
    address: chain.token,
    event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
    args: { from },
    fromBlock: 0n,
    toBlock: 'latest',
  });
  return logs.map((l) => ({
    to: getAddress(l.args.to ?? '0x'),
    value: l.args.value ?? 0n,
    key: `${l.transactionHash.toLowerCase()}:${l.logIndex}`,
  }));
}

type Amount = { amount: string; currency: string };
type Spends = { spent: Amount; held: Amount; remaining: Amount };

/**
 * What each view says a mandate spent, holds and has left: get_budget and get_mandate through `client` (a
 * server for the mandate, offering market and records), `holon budget` (the built CLI, on `state`), and the
 * editor's Holon view (`budgetInfo`, on `s`). Each amount as "0.138 EUR".
 */
export async function budgetViews(
  client: Client,
  state: string,
  mandate: string,
  s: HolonState,
  now: number,
): Promise<Record<string, { spent: string; held: string; remaining: string }>> {
  const w = (m: Amount): string => `${m.amount} ${m.currency}`;
  const of = (v: Spends): { spent: string; held: string; remaining: string } => ({
    spent: w(v.spent),
    held: w(v.held),
    remaining: w(v.remaining),
  });
  const budget = (await client.callTool({ name: 'get_budget', arguments: {} })).structuredContent as Spends;
  const authority = (await client.callTool({ name: 'get_mandate', arguments: {} })).structuredContent as Spends;
  const cli = (await json<Spends[]>(state, ['budget', mandate]))[0];
  const view = budgetInfo(s, mandate, now);
  if (!cli || !view) throw new Error(`no budget of ${mandate} to compare`);
  return {
    get_budget: of(budget),
    get_mandate: of(authority),
    'holon budget': of(cli),
    'the Holon view': { spent: view.spent.exact, held: view.held.exact, remaining: view.remaining.exact },
  };
}

/** A fresh wallet whose signatures are counted by primary type: "nothing was signed" is measured, not assumed. */
export function countingWallet(): { wallet: Wallet; signatures: string[] } {
  const real = walletFromKey(generatePrivateKey());
  const signatures: string[] = [];
  const wallet: Wallet = {
    address: real.address,
    signTypedData: (r) => {
      signatures.push(r.primaryType);
      return real.signTypedData(r);
    },
  };
  return { wallet, signatures };
}

/**
 * The demo world on the local chain, paying with `wallet` (funded with `usdc` of the token first) and reading
 * payments back there. Real time: the facilitator checks each authorization's window against its own clock
 * and the chain's. Sellers on loopback are reachable.
 */
export async function chainWorld(chain: LocalChain, wallet: Wallet, usdc: bigint): ReturnType<typeof demoRuntime> {
  await chain.fund(wallet.address, { usdc });
  return demoRuntime({
    clock: new TestClock(Date.now()),
    fetch: publicFetch({ allowPrivate: true, maxBytes: 64 * 1024 }),
    wallet,
    chain: chainOf(chain),
  });
}

const AGENT_ERRORS = parseAbi(['error Error(string)', 'error InvalidERC1271Signature()', 'error CannotUseADisabledDelegation()']);

/**
 * Sends `tx` from `key` as an agent holding that key would: with a gas limit of its own, so the chain mines
 * it whether or not it reverts. Returns null when it went through, else why the chain refused it (the same
 * call asked of the node just before, decoded), after checking the mined transaction agrees.
 */
export async function sendAsAgent(chain: LocalChain, key: Hex, tx: { to: Address; data: Hex }): Promise<string | null> {
  const from = privateKeyToAccount(key);
  let reason: string | null = null;
  try {
    await chain.client.call({ account: from.address, ...tx });
  } catch (err) {
    reason = revertReason(err);
  }
  const sender = createWalletClient({ account: from, chain: localChainDefinition(chain.rpcUrl), transport: localTransport(chain.rpcUrl) });
  const nonce = await chain.client.getTransactionCount({ address: from.address });
  let hash: Hex | undefined;
  try {
    hash = await sender.sendTransaction({ ...tx, gas: 3_000_000n, nonce });
  } catch {
    // The node mines a transaction that reverts, and answers its sender with the revert: find it in the block.
    const block = await chain.client.getBlock({ blockTag: 'latest', includeTransactions: true });
    hash = block.transactions.find((t) => t.from.toLowerCase() === from.address.toLowerCase() && t.nonce === nonce)?.hash;
  }
  if (!hash) throw new Error('the transaction was not mined');
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  if (receipt.status !== (reason === null ? 'success' : 'reverted'))
    throw new Error(`the mined transaction disagrees with its simulation (${reason})`);
  return reason;
}

function revertReason(err: unknown): string {
  // The node answers a reverted call with JSON-RPC's error, whose `data` carries the revert data.
  const dataOf = (e: unknown): unknown => {
    const d = (e as { data?: unknown }).data;
    return typeof d === 'string' ? d : (d as { data?: unknown } | undefined)?.data;
  };
  const data = err instanceof BaseError ? dataOf(err.walk((e) => typeof dataOf(e) === 'string')) : undefined;
  if (typeof data !== 'string' || !data.startsWith('0x')) throw err;
  const decoded = decodeErrorResult({ abi: AGENT_ERRORS, data: data as Hex });
  return decoded.errorName === 'Error' ? String(decoded.args?.[0]) : decoded.errorName;
}

/** A guarded state at the command line, its human's account on a chain of its own (guardedCliWorld). */
export interface GuardedCliWorld {
  chain: LocalChain;
  browser: PasskeyBrowser;
  state: string;
  cleanup: () => void;
  /** The human's passkey, as the virtual authenticator exported it. */
  credential: VirtualCredential;
  account: Address;
  /** The hot key's address: it has gas, and no token. */
  hot: Address;
}

/**
 * Sets a guarded state up as the README says, at the command line: a seeded state with a hot key that has
 * gas; `holon passkey add` with the chain's flags on its page (Chromium's virtual authenticator), which
 * deploys the passkey's account; `usdc` units in that account; 1 USDC = 1 EUR, decided on its page.
 */
export async function guardedCliWorld(usdc: bigint): Promise<GuardedCliWorld> {
  await ensureBuilt();
  const chain = await localChain();
  const browser = await openPasskeyBrowser();
  const { dir: state, cleanup } = await seededState();
  const hotKey = generatePrivateKey();
  const hot = privateKeyToAccount(hotKey).address;
  saveWallet(state, hotKey);
  await chain.fund(hot, { eth: parseEther('1') });
  const add = atPage(state, ['passkey', 'add', '--label', 'laptop', ...chainFlags(chain)]);
  const credential = await browser.registerAt(await add.url);
  assert.equal((await add.done).code, 0);
  const listed = JSON.parse((await holonIn(state, ['passkey', 'list', '--json'])).stdout) as { accounts: { address: string }[] };
  const account = getAddress(listed.accounts[0]!.address);
  await chain.fund(account, { usdc });
  await decidedAt(browser, state, credential, ['fx', 'USDC', 'EUR', '1.00']);
  return { chain, browser, state, cleanup, credential, account, hot };
}
