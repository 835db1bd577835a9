/**
 * The human's wallet: the key that signs the payments Holon makes for a mandate. One state has one
 * wallet, kept in `<state>/keys/wallet.key` (mode 0600, in the state folder beside the installation's
 * key, never the workspace): created or imported by the human with the CLI (`holon wallet`) or the
 * editor's Create / Import Wallet, and read there by every process on the state — the editor's own
 * server, `holon` in its terminals, another client's `holon mcp` — so every one of them signs with the
 * same address the editor's view shows. Never written to the journal, a tool result or a log: only its
 * address leaves here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TransactionSerializable } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { HolonError } from '../kernel/errors.ts';

/** Where the wallet's key lives in a state folder. */
export const WALLET_FILE = path.join('keys', 'wallet.key');

/** A member of a typed message: a string (uint256 members as decimal strings), or a struct of them. */
export type TypedValue = string | { [member: string]: TypedValue };

/**
 * EIP-712 typed data as the terms pairings build it (uint256 members as decimal strings, structs nested).
 * A domain without `version` is one whose EIP712Domain has none (Permit2's).
 */
export interface TypedRequest {
  domain: { name: string; version?: string; chainId: string; verifyingContract: `0x${string}` };
  types: Record<string, readonly { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, TypedValue>;
}

/** A typed message with its integer members as bigints, struct by struct, as the types say. */
export function typedMessage(types: TypedRequest['types'], type: string, value: Record<string, TypedValue>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of types[type] ?? []) {
    const v = value[f.name];
    if (types[f.type]) out[f.name] = typedMessage(types, f.type, typeof v === 'object' ? v : {});
    else out[f.name] = f.type.startsWith('uint') || f.type.startsWith('int') ? BigInt(typeof v === 'string' ? v : '0') : v;
  }
  return out;
}

/** What signs for the human. */
export interface Wallet {
  readonly address: `0x${string}`;
  /** Signs EIP-712 typed data; uint256 and bytes32 members arrive as strings and are typed here. */
  signTypedData(request: TypedRequest): Promise<`0x${string}`>;
  /**
   * Signs a transaction of its own (it pays the gas), sent by the chain's reader: only for undoing what it
   * signed (cancelling a released payment's authorization). None: it cannot.
   */
  signTransaction?(tx: TransactionSerializable): Promise<`0x${string}`>;
}

const KEY = /^0x[0-9a-fA-F]{64}$/;

/** A wallet over a private key held in memory (the key is read from where the human keeps it). */
export function walletFromKey(key: `0x${string}`): Wallet {
  return walletOf(privateKeyToAccount(key));
}

function walletOf(account: PrivateKeyAccount): Wallet {
  return {
    address: account.address,
    signTransaction: (tx) => account.signTransaction(tx),
    signTypedData: (r) => {
      const message = typedMessage(r.types, r.primaryType, r.message);
      // The request's shape is checked where it is built (the pairing); viem's generics cannot see it here.
      const typed = { domain: { ...r.domain, chainId: Number(r.domain.chainId) }, types: r.types, primaryType: r.primaryType, message };
      return account.signTypedData(typed as unknown as Parameters<PrivateKeyAccount['signTypedData']>[0]);
    },
  };
}

/** The wallet of the state in `dir`, when the human created or imported one (in the editor, or with the CLI). */
export function loadWallet(dir: string): Wallet | undefined {
  let key: string;
  try {
    key = fs.readFileSync(path.join(dir, WALLET_FILE), 'utf8').trim();
  } catch {
    return undefined;
  }
  if (!KEY.test(key)) throw new HolonError('invalid_input', `${path.join(dir, WALLET_FILE)} does not hold a private key`);
  return walletOf(privateKeyToAccount(key as `0x${string}`));
}

/** The address of the state's wallet in `dir`, or undefined when it has none. */
export function stateWalletAddress(dir: string): `0x${string}` | undefined {
  return loadWallet(dir)?.address;
}

/** Keeps `key` as the state's wallet; refuses to replace one. Returns the address. */
export function saveWallet(dir: string, key: string): `0x${string}` {
  if (!KEY.test(key.trim())) throw new HolonError('invalid_input', 'a private key is 0x and 64 hex digits');
  const file = path.join(dir, WALLET_FILE);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, `${key.trim()}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new HolonError('conflict', `this state already has a wallet (${file}); Holon never replaces one`);
    throw err;
  }
  return privateKeyToAccount(key.trim() as `0x${string}`).address;
}

/** A new private key. */
export function newPrivateKey(): `0x${string}` {
  return generatePrivateKey();
}

/** Creates a new wallet for the state. Returns its address. */
export function createWallet(dir: string): `0x${string}` {
  return saveWallet(dir, newPrivateKey());
}
