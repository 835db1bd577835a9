/**
 * The chain Holon pays on and reads back: the human's settings (an RPC URL, the chain's id, the token it
 * counts, the facilitator it settles its own payments through), and a reader over viem's public client
 * that answers the only questions Holon asks a chain — did this EIP-3009 authorization land, in which
 * transaction and block, moving what from whom to whom; what does an address hold. Nothing a seller,
 * a merchant or a facilitator says about a payment is taken for what this reader can answer.
 */
import type { Address, Hash, Hex, PublicClient, TransactionSerializable } from 'viem';
import { createPublicClient, defineChain, getAddress, http, isAddress, parseAbi, parseEventLogs } from 'viem';
import { HolonError } from '../kernel/errors.ts';
import type { KnownAsset } from './assets.ts';
import { knownAsset } from './assets.ts';

/** The chain settings as the human gives them (user settings, CLI flags or environment). */
export interface ChainSettings {
  rpcUrl: string;
  chainId: number;
  /** The token's address: one Holon knows how to count on that chain (assets.ts). */
  token: string;
  /** The x402 facilitator Holon settles its own payments (`pay` to an `eip155:` account) through; null: none. */
  facilitator: string | null;
}

/** The chain settings, checked: what every reader and rail is built from. */
export interface ChainConfig {
  rpcUrl: string;
  chainId: number;
  /** CAIP-2, `eip155:<chain id>`. */
  network: string;
  token: Address;
  asset: KnownAsset;
  facilitator: string | null;
}

const HTTP_URL = (text: string): boolean => {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password;
  } catch {
    return false;
  }
};

/**
 * Checks chain settings: an http(s) RPC URL (a key in its path is the human's business; one in its user
 * part is refused, as everywhere), a chain id, a token Holon knows on that chain, an http(s) facilitator.
 */
export function chainConfig(settings: ChainSettings): ChainConfig {
  if (!HTTP_URL(settings.rpcUrl)) throw new HolonError('invalid_input', `the chain's RPC URL must be an http(s) URL: "${settings.rpcUrl}"`);
  if (!Number.isSafeInteger(settings.chainId) || settings.chainId < 1)
    throw new HolonError('invalid_input', `the chain id must be a positive whole number, not ${String(settings.chainId)}`);
  const network = `eip155:${settings.chainId}`;
  if (!isAddress(settings.token))
    throw new HolonError('invalid_input', `the token must be an address (0x and 40 hex digits): "${settings.token}"`);
  const asset = knownAsset(network, settings.token);
  if (!asset)
    throw new HolonError(
      'invalid_input',
      `Holon does not know the token ${settings.token} on ${network}: it counts only tokens whose decimals and currency it knows ` +
        '(USDC on Ethereum, Base, Base Sepolia and the local chain)',
    );
  if (settings.facilitator !== null && !HTTP_URL(settings.facilitator))
    throw new HolonError('invalid_input', `the facilitator must be an http(s) URL: "${settings.facilitator}"`);
  return {
    rpcUrl: settings.rpcUrl,
    chainId: settings.chainId,
    network,
    token: getAddress(settings.token),
    asset,
    facilitator: settings.facilitator === null ? null : settings.facilitator.replace(/\/+$/, ''),
  };
}

/**
 * The token events and calls Holon reads: USDC's (ERC-20 and EIP-3009). Pure, so that a bundle taking only
 * `chainConfig` from this file (the extension's settings) leaves viem's ABI parser out.
 */
export const TOKEN_ABI = /* @__PURE__ */ parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function balanceOf(address account) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function nonces(address owner) view returns (uint256)',
]);

/** Permit2's unordered nonces, which an `upto` payment spends (schemes/upto.ts). */
const PERMIT2_NONCES_ABI = /* @__PURE__ */ parseAbi(['function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)']);

/** What one mined transaction did with the token: its status, block, and the token's events in it. */
export interface MinedTransfers {
  transaction: Hash;
  status: 'success' | 'reverted';
  block: bigint;
  /** The token's `Transfer`s in it, each with its log's index in the block (what one transfer is known by). */
  transfers: { from: Address; to: Address; value: bigint; logIndex: number }[];
  /** Authorizations the token marked used in it (EIP-3009 `AuthorizationUsed`), each with its log's index. */
  used: { authorizer: Address; nonce: Hex; logIndex: number }[];
  /** Authorizations cancelled in it (`AuthorizationCanceled`). */
  canceled: { authorizer: Address; nonce: Hex }[];
}

/**
 * What Holon asks a chain. One interface, so that the core reads the chain the same way in every
 * process and a unit test can put a chain of its own in front (the real one is `chainReader`).
 */
export interface ChainReader {
  readonly config: ChainConfig;
  /** The latest block's number and time (seconds). */
  head(): Promise<{ number: bigint; timestamp: bigint }>;
  /**
   * A block at or before the head: the head's number as read at most a few seconds ago (viem's cache of
   * it, the client's polling interval), with no round trip to the node most of the time.
   */
  recentBlock(): Promise<bigint>;
  /** True once the token has spent `nonce` of `authorizer` (used or cancelled), as of `block` (default the latest). */
  authorizationSpent(authorizer: Address, nonce: Hex, block?: bigint): Promise<boolean>;
  /** The transaction that spent `nonce` of `authorizer`, looked for from `fromBlock` on; undefined when none did. */
  spentIn(authorizer: Address, nonce: Hex, fromBlock: bigint): Promise<Hash | undefined>;
  /** What a mined transaction did with the token; undefined when the chain has no such transaction (or not yet). */
  mined(transaction: Hash): Promise<MinedTransfers | undefined>;
  /** The token's transfers from `from` to `to` in blocks from `fromBlock` on, oldest first. */
  transfers(
    from: Address,
    to: Address,
    fromBlock: bigint,
  ): Promise<{ transaction: Hash; block: bigint; value: bigint; logIndex: number }[]>;
  /** What `address` holds: the token (smallest units) and the chain's native coin (wei). */
  balances(address: Address): Promise<{ token: bigint; native: bigint }>;
  /** True once `permit2` has spent `owner`'s unordered `nonce` (its nonce bitmap's bit), as of `block` (default the latest). */
  permit2NonceUsed(permit2: Address, owner: Address, nonce: bigint, block?: bigint): Promise<boolean>;
  /** What a mined transaction called: its target and its input; undefined when the chain has no such transaction. */
  called(transaction: Hash): Promise<{ to: Address | null; input: Hex } | undefined>;
  /** The token `owner` lets `spender` move (ERC-20 allowance). */
  allowance(owner: Address, spender: Address): Promise<bigint>;
  /** `owner`'s next EIP-2612 permit nonce at the token. */
  permitNonce(owner: Address): Promise<bigint>;
  /** What a view call of `data` at `to` returns, as of the latest block (eth_call): for contracts Holon reads rarely. */
  read(to: Address, data: Hex): Promise<Hex>;
  /**
   * Sends a transaction from `from` that `sign` signs (its nonce, gas and fees read from the node here), and
   * returns its hash once the node took it.
   */
  send(from: Address, tx: { to: Address; data: Hex }, sign: (tx: TransactionSerializable) => Promise<Hex>): Promise<Hash>;
}

/** A reader of the chain `config` names, over viem's public client (HTTP JSON-RPC, no retries: an error is the node's answer). */
export function chainReader(config: ChainConfig, options: { timeoutMs?: number } = {}): ChainReader {
  const chain = defineChain({
    id: config.chainId,
    name: config.network,
    nativeCurrency: { decimals: 18, name: 'Ether', symbol: 'ETH' },
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
  const client: PublicClient = createPublicClient({
    chain,
    transport: http(config.rpcUrl, { retryCount: 0, timeout: options.timeoutMs ?? 10_000 }),
  });
  const token = config.token;
  return {
    config,
    head: async () => {
      const block = await client.getBlock({ blockTag: 'latest' });
      return { number: block.number, timestamp: block.timestamp };
    },
    recentBlock: () => client.getBlockNumber(),
    authorizationSpent: (authorizer, nonce, block) =>
      client.readContract({
        address: token,
        abi: TOKEN_ABI,
        functionName: 'authorizationState',
        args: [authorizer, nonce],
        ...(block !== undefined ? { blockNumber: block } : {}),
      }),
    spentIn: (authorizer, nonce, fromBlock) => spentOn(client, token, authorizer, nonce, fromBlock),
    mined: (transaction) => minedOn(client, token, transaction),
    transfers: async (from, to, fromBlock) => {
      const logs = await client.getContractEvents({
        address: token,
        abi: TOKEN_ABI,
        eventName: 'Transfer',
        args: { from, to },
        fromBlock,
        toBlock: 'latest',
      });
      return logs.map((l) => ({ transaction: l.transactionHash, block: l.blockNumber, value: l.args.value ?? 0n, logIndex: l.logIndex }));
    },
    balances: async (address) => {
      const [tokens, native] = await Promise.all([
        client.readContract({ address: token, abi: TOKEN_ABI, functionName: 'balanceOf', args: [address] }),
        client.getBalance({ address }),
      ]);
      return { token: tokens, native };
    },
    permit2NonceUsed: async (permit2, owner, nonce, block) => {
      const word = await client.readContract({
        address: permit2,
        abi: PERMIT2_NONCES_ABI,
        functionName: 'nonceBitmap',
        args: [owner, nonce >> 8n],
        ...(block !== undefined ? { blockNumber: block } : {}),
      });
      return ((word >> (nonce & 0xffn)) & 1n) === 1n;
    },
    called: async (transaction) => {
      try {
        const tx = await client.getTransaction({ hash: transaction });
        return { to: tx.to ? getAddress(tx.to) : null, input: tx.input };
      } catch (err) {
        if ((err as { name?: string }).name === 'TransactionNotFoundError') return undefined;
        throw err;
      }
    },
    allowance: (owner, spender) =>
      client.readContract({ address: token, abi: TOKEN_ABI, functionName: 'allowance', args: [owner, spender] }),
    permitNonce: (owner) => client.readContract({ address: token, abi: TOKEN_ABI, functionName: 'nonces', args: [owner] }),
    read: async (to, data) => (await client.call({ to, data })).data ?? '0x',
    send: (from, tx, sign) => sendFrom(client, config.chainId, from, tx, sign),
  };
}

/** The transaction that used or cancelled `nonce` of `authorizer` at `token`, from `fromBlock` on; undefined when none did. */
async function spentOn(
  client: PublicClient,
  token: Address,
  authorizer: Address,
  nonce: Hex,
  fromBlock: bigint,
): Promise<Hash | undefined> {
  const [used, canceled] = await Promise.all(
    (['AuthorizationUsed', 'AuthorizationCanceled'] as const).map((eventName) =>
      client.getContractEvents({ address: token, abi: TOKEN_ABI, eventName, args: { authorizer, nonce }, fromBlock, toBlock: 'latest' }),
    ),
  );
  return (used?.[0] ?? canceled?.[0])?.transactionHash ?? undefined;
}

/** What mined transaction `transaction` did with `token`: its status, block, transfers and authorizations; undefined when not found. */
async function minedOn(client: PublicClient, token: Address, transaction: Hash): Promise<MinedTransfers | undefined> {
  let receipt;
  try {
    receipt = await client.getTransactionReceipt({ hash: transaction });
  } catch (err) {
    // viem says "not found" with an error of its own; anything else (the node down) is an error.
    if ((err as { name?: string }).name === 'TransactionReceiptNotFoundError') return undefined;
    throw err;
  }
  const logs = parseEventLogs({ abi: TOKEN_ABI, logs: receipt.logs.filter((l) => getAddress(l.address) === token) });
  const out: MinedTransfers = {
    transaction: receipt.transactionHash,
    status: receipt.status,
    block: receipt.blockNumber,
    transfers: [],
    used: [],
    canceled: [],
  };
  for (const l of logs) {
    if (l.eventName === 'Transfer') out.transfers.push({ from: l.args.from, to: l.args.to, value: l.args.value, logIndex: l.logIndex });
    else if (l.eventName === 'AuthorizationUsed')
      out.used.push({ authorizer: l.args.authorizer, nonce: l.args.nonce, logIndex: l.logIndex });
    else if (l.eventName === 'AuthorizationCanceled') out.canceled.push({ authorizer: l.args.authorizer, nonce: l.args.nonce });
  }
  return out;
}

/**
 * Sends a transaction from `from` that `sign` signs, its nonce, gas and fees read from the node, through the
 * public client's own actions: a wallet client would carry much more into every bundle.
 */
async function sendFrom(
  client: PublicClient,
  chainId: number,
  from: Address,
  tx: { to: Address; data: Hex },
  sign: (tx: TransactionSerializable) => Promise<Hex>,
): Promise<Hash> {
  const [nonce, gas, fees] = await Promise.all([
    client.getTransactionCount({ address: from, blockTag: 'pending' }),
    client.estimateGas({ account: from, to: tx.to, data: tx.data }),
    client.estimateFeesPerGas(),
  ]);
  const serializedTransaction = await sign({
    type: 'eip1559',
    chainId,
    to: tx.to,
    data: tx.data,
    nonce,
    gas,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  return client.sendRawTransaction({ serializedTransaction });
}

/** What a wallet holds on the configured chain, as the human reads it (exact decimal strings, never floats). */
export interface WalletBalances {
  network: string;
  address: Address;
  token: { address: Address; amount: string; currency: string };
  native: { amount: string; currency: 'ETH' };
}

/** An integer amount of `decimals` as an exact decimal string ("1500000", 6 → "1.5"). */
export function decimalOf(value: bigint, decimals: number): string {
  const neg = value < 0n;
  const digits = (neg ? -value : value).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const frac = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** The wallet's token and native balances, read from the chain. */
export async function walletBalances(reader: ChainReader, address: string): Promise<WalletBalances> {
  const a = getAddress(address);
  const b = await reader.balances(a);
  return {
    network: reader.config.network,
    address: a,
    token: {
      address: reader.config.token,
      amount: decimalOf(b.token, reader.config.asset.decimals),
      currency: reader.config.asset.currency,
    },
    native: { amount: decimalOf(b.native, 18), currency: 'ETH' },
  };
}
