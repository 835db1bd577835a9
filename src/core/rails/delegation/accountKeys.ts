/**
 * The keys of the human's account on chain, and the passkeys of the journal held against them. The
 * account says every P-256 key it is given (at initialize and by addKey) and every one it drops (removeKey)
 * in its own logs, which no file of the state folder can change. So the chain, not the journal, says
 * which passkeys are the human's: `holon verify` checks every registration and assertion against it, and
 * adding or removing a passkey changes the account's keys as well as the journal.
 */
import type { Address, Hash } from 'viem';
import { createPublicClient, encodeFunctionData, getAddress, http } from 'viem';
import type { ChainAccountFields } from '../../accounts/chainAccount.ts';
import { accountOn } from '../../accounts/chainAccount.ts';
import type { PasskeyRecord, PasskeysFields } from '../../accounts/passkeys.ts';
import { activePasskeys } from '../../accounts/passkeys.ts';
import { HolonError } from '../../kernel/errors.ts';
import type { Wallet } from '../../local/wallet.ts';
import type { PasskeyCredential } from '../../passkey/types.ts';
import type { EventStore } from '../../store/store.ts';
import type { ChainConfig, ChainReader } from '../chain.ts';
import { ACCOUNT_ABI, credentialPoint } from './account.ts';
import type { AskPasskey } from './humanAccount.ts';
import { accountDoes } from './humanAccount.ts';

/** A P-256 key the account was given: under which id, the point, and whether it holds it still. */
export interface AccountKey {
  id: string;
  x: bigint;
  y: bigint;
  held: boolean;
}

/**
 * Every key `account` was given on the chain `config` names, oldest first, read from its AddedP256Key and
 * RemovedP256Key logs. A key given again after it was dropped is listed twice. The node must serve the
 * account's logs from its first block (a local node and most providers do).
 */
export async function accountKeyHistory(config: ChainConfig, account: Address): Promise<AccountKey[]> {
  const client = createPublicClient({ transport: http(config.rpcUrl, { retryCount: 0, timeout: 20_000 }) });
  const logs = await client.getContractEvents({ address: getAddress(account), abi: ACCOUNT_ABI, fromBlock: 0n, toBlock: 'latest' });
  logs.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
  const keys: (AccountKey & { hash: string })[] = [];
  for (const l of logs) {
    if (l.eventName === 'AddedP256Key') {
      const { keyIdHash, keyId, x, y } = l.args;
      if (keyIdHash && keyId !== undefined && x !== undefined && y !== undefined)
        keys.push({ id: keyId, x, y, held: true, hash: keyIdHash });
    } else if (l.eventName === 'RemovedP256Key') {
      const dropped = keys.findLast((k) => k.held && k.hash === l.args.keyIdHash);
      if (dropped) dropped.held = false;
    }
  }
  return keys.map(({ hash: _hash, ...k }) => k);
}

/** A passkey event of the journal, as the chain check reads it. */
export type KeyUse =
  | { seq: number; type: 'passkey.registered'; credential: PasskeyCredential }
  | { seq: number; type: 'passkey.removed'; credential: string }
  | { seq: number; type: 'human.asserted'; credential: string };

/** What the account's keys say against the journal. */
export interface KeyProblem {
  /**
   * credential_not_on_chain: the event's passkey is not a key the account ever held (by id and point);
   * not_held_on_chain: a passkey the journal counts is no longer the account's; removed_key_on_chain: one
   * the journal removed still signs for the account; unknown_key_on_chain: the account holds a key the
   * journal never registered.
   */
  code: 'credential_not_on_chain' | 'not_held_on_chain' | 'removed_key_on_chain' | 'unknown_key_on_chain';
  /** The journal event it is about, when there is one. */
  seq?: number;
  credential: string;
  message: string;
}

/**
 * Holds the journal's passkey events (`uses`, in journal order) against the keys `account` has had
 * (`keys`, from accountKeyHistory): every registration and every assertion must be by a key the account
 * held under the same id, and the passkeys the journal counts now must be exactly those it holds now.
 */
export function checkKeysOnChain(uses: readonly KeyUse[], keys: readonly AccountKey[], account: string): KeyProblem[] {
  const problems: KeyProblem[] = [];
  const registered = new Map<string, { x: bigint; y: bigint } | undefined>();
  const removed = new Set<string>();
  const onChain = (id: string, p: { x: bigint; y: bigint } | undefined): boolean =>
    p !== undefined && keys.some((k) => k.id === id && k.x === p.x && k.y === p.y);
  const notOnChain = (seq: number, type: string, id: string): void => {
    problems.push({
      code: 'credential_not_on_chain',
      seq,
      credential: id,
      message: `event ${seq} (${type}): passkey ${id} is not a key account ${account} has held on chain`,
    });
  };
  for (const u of uses) {
    if (u.type === 'passkey.registered') {
      registered.set(u.credential.id, pointOf(u.credential));
      if (!onChain(u.credential.id, registered.get(u.credential.id))) notOnChain(u.seq, u.type, u.credential.id);
    } else if (u.type === 'passkey.removed') removed.add(u.credential);
    else if (!onChain(u.credential, registered.get(u.credential))) notOnChain(u.seq, u.type, u.credential);
  }
  const heldNow = keys.filter((k) => k.held);
  for (const [id, p] of registered) {
    const held = heldNow.some((k) => k.id === id && k.x === p?.x && k.y === p?.y);
    if (!removed.has(id) && !held && onChain(id, p))
      problems.push({
        code: 'not_held_on_chain',
        credential: id,
        message: `passkey ${id} counts in the journal, and account ${account} no longer holds its key`,
      });
    if (removed.has(id) && held)
      problems.push({
        code: 'removed_key_on_chain',
        credential: id,
        message: `passkey ${id} was removed, and still signs for account ${account}`,
      });
  }
  for (const k of heldNow)
    if (!registered.has(k.id))
      problems.push({
        code: 'unknown_key_on_chain',
        credential: k.id,
        message: `account ${account} holds key ${k.id}, which the journal never registered`,
      });
  return problems;
}

/** The credential's point; undefined when it is not one (the fold refuses such a registration anyway). */
function pointOf(credential: PasskeyCredential): { x: bigint; y: bigint } | undefined {
  try {
    return credentialPoint(credential);
  } catch {
    return undefined;
  }
}

/** What bringing the account's keys in line with the journal did: the passkeys added and removed, and their transactions. */
export interface KeysSynced {
  account: string;
  added: string[];
  removed: string[];
  transactions: Hash[];
}

/**
 * Brings the keys of the human's account on `reader`'s chain in line with the journal's passkeys: a passkey
 * the journal counts and the account lacks is added (`addKey`), one the journal removed and the account
 * still holds is removed (`removeKey`). Each is one call of the account's own, which a passkey the account
 * holds signs on its page (accountDoes); the hot key sends it. The journal decides first, the chain
 * follows: after a crash between the two, running this again finishes the work. Returns undefined when the
 * state has no account there. Refused (`conflict`) when the account holds another key under a passkey's
 * id, or no passkey the journal counts is still one of its keys (nobody left to sign).
 */
export async function syncAccountKeys(
  store: EventStore<PasskeysFields & ChainAccountFields>,
  reader: ChainReader,
  hotKey: Wallet,
  ask: AskPasskey,
): Promise<KeysSynced | undefined> {
  const account = accountOn(store.state, reader.config.chainId);
  if (!account) return undefined;
  const address = getAddress(account.address);
  const held = (await accountKeyHistory(reader.config, address)).filter((k) => k.held);
  const active = activePasskeys(store.state);
  const holds = (r: PasskeyRecord): boolean => {
    const k = held.find((h) => h.id === r.credential.id);
    const p = credentialPoint(r.credential);
    if (k && (k.x !== p.x || k.y !== p.y))
      throw new HolonError('conflict', `account ${address} holds another key under passkey ${r.credential.id}'s id`);
    return k !== undefined;
  };
  const signers = active.filter(holds).map((r) => r.credential);
  const toAdd = active.filter((r) => !holds(r));
  const toRemove = Object.values(store.state.passkeys.credentials).filter(
    (r) => r.removed_at !== undefined && held.some((h) => h.id === r.credential.id),
  );
  if ((toAdd.length > 0 || toRemove.length > 0) && signers.length === 0)
    throw new HolonError('conflict', `no passkey this state counts is a key of account ${address} any more: nobody can sign for it`);
  const out: KeysSynced = { account: address, added: [], removed: [], transactions: [] };
  const does = (data: `0x${string}`, title: string, line: string): Promise<Hash> =>
    accountDoes(reader, hotKey, address, { target: address, value: 0n, data }, { title, lines: [line] }, signers, ask);
  for (const r of toAdd) {
    const { x, y } = credentialPoint(r.credential);
    const data = encodeFunctionData({ abi: ACCOUNT_ABI, functionName: 'addKey', args: [r.credential.id, x, y] });
    out.transactions.push(
      await does(
        data,
        `Holon: passkey ${r.label} signs for your account too`,
        `Your account ${address} on ${reader.config.network} gets the key of passkey ${r.credential.id} (${r.label}): ` +
          'it signs for the account from now on.',
      ),
    );
    out.added.push(r.credential.id);
  }
  for (const r of toRemove) {
    const data = encodeFunctionData({ abi: ACCOUNT_ABI, functionName: 'removeKey', args: [r.credential.id] });
    out.transactions.push(
      await does(
        data,
        `Holon: passkey ${r.label} no longer signs for your account`,
        `Your account ${address} on ${reader.config.network} drops the key of passkey ${r.credential.id} (${r.label}), ` +
          'which this state removed.',
      ),
    );
    out.removed.push(r.credential.id);
  }
  return out;
}

/** What `holon verify` says of the journal's passkeys: against what they were checked, and what failed. */
export interface PasskeyCheck {
  /** `chain`: against the keys of the account on the configured chain; `journal`: against the journal's own registrations only. */
  against: 'chain' | 'journal';
  account?: string;
  network?: string;
  registrations: number;
  assertions: number;
  problems: KeyProblem[];
}

/**
 * Checks the journal's passkey events (`uses`) against the keys of the human's account on `config`'s
 * chain, when the state has one there; otherwise says they were checked against the journal's own keys
 * only (the fold's check: trust on first use). Undefined when the journal has no passkey at all.
 */
export async function checkPasskeys(
  uses: readonly KeyUse[],
  s: ChainAccountFields,
  config: ChainConfig | undefined,
): Promise<PasskeyCheck | undefined> {
  if (uses.length === 0) return undefined;
  const count = {
    registrations: uses.filter((u) => u.type === 'passkey.registered').length,
    assertions: uses.filter((u) => u.type === 'human.asserted').length,
  };
  const account = config ? accountOn(s, config.chainId) : undefined;
  if (!config || !account) return { against: 'journal', ...count, problems: [] };
  const address = getAddress(account.address);
  const keys = await accountKeyHistory(config, address);
  return { against: 'chain', account: address, network: config.network, ...count, problems: checkKeysOnChain(uses, keys, address) };
}

/** One line for `holon verify` (more when something failed, one per problem). */
export function passkeyCheckText(c: PasskeyCheck): string {
  const what = `${c.registrations} passkey registration(s) and ${c.assertions} assertion(s)`;
  if (c.against === 'journal')
    return (
      `Passkeys: ${what} checked against the journal's own keys only (trust on first use): ` +
      "give the chain of the human's account (--rpc-url, --chain-id, --token) to check them against its keys there."
    );
  if (c.problems.length === 0) return `Passkeys: ${what} checked against the keys account ${c.account} has held on ${c.network}.`;
  return [
    `FAILED: the journal's passkeys are not the keys account ${c.account} holds on ${c.network}:`,
    ...c.problems.map((p) => `  ${p.code}: ${p.message}`),
    '  A passkey change a crash cut short before it reached the chain is finished by holon passkey account with the ' +
      "chain's flags; otherwise the journal names passkeys that are not the human's.",
  ].join('\n');
}
