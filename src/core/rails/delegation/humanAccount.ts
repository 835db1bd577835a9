/**
 * The human's account and the mandates it delegates, as Holon runs them: the hot key deploys the passkey's
 * account and records it; a mandate's limits become a delegation the passkey signs on its page; and before
 * the hot key pays under a mandate, it draws from the account exactly what it lacks (the float), under that
 * delegation, so the chain's enforcers count every dollar that leaves the account against the human's caps.
 */
import { randomBytes } from 'node:crypto';
import type { Address, Hash, Hex } from 'viem';
import { encodeFunctionData, getAddress, hexToBytes, keccak256, parseAbi, toHex } from 'viem';
import type { ChainAccount, ChainAccountFields, ChainAccountEvents, MandateDelegation } from '../../accounts/chainAccount.ts';
import { accountOn, chainAccountEvent, delegationOfMandate } from '../../accounts/chainAccount.ts';
import { mandateOf } from '../../accounts/mandates.ts';
import type { PasskeysFields } from '../../accounts/passkeys.ts';
import { activePasskeys } from '../../accounts/passkeys.ts';
import type { Money } from '../../kernel/amount.ts';
import * as M from '../../kernel/amount.ts';
import { HolonError } from '../../kernel/errors.ts';
import type { Mandate } from '../../kernel/model.ts';
import type { Wallet } from '../../local/wallet.ts';
import type { FxFields } from '../../money/fx.ts';
import { convertTo } from '../../money/fx.ts';
import type { AssertionJson, PasskeyCredential } from '../../passkey/types.ts';
import type { MandatesFields } from '../../accounts/mandates.ts';
import type { EventStore } from '../../store/store.ts';
import type { ChainReader, MinedTransfers } from '../chain.ts';
import { decimalOf } from '../chain.ts';
import { deployAccount } from './account.ts';
import { frameworkOn } from './addresses.ts';
import type { MandateLimits } from './caveats.ts';
import type { Call } from './caveats.ts';
import { caveatsOf, DAY, oneCallCaveats, utcMidnight } from './caveats.ts';
import type { Delegation } from './delegation.ts';
import { delegationDigest, delegationFromJson, delegationJson, redeemTransaction, ROOT_AUTHORITY } from './delegation.ts';
import { deleGatorSignature } from './webauthnSignature.ts';

/** How long a mandate without an expiry is delegated for: a year, then the human signs it again. */
const NO_EXPIRY_DAYS = 365n;
/** How long Holon waits for a transaction it sent to be mined. */
const MINED_WITHIN_MS = 120_000;
const ERC20 = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

/** The salt of `credential`'s account: one account per passkey and chain, found again from the passkey alone. */
export function accountSalt(credential: PasskeyCredential): Hex {
  return keccak256(toHex(`holon:account:${credential.id}`));
}

/** Waits until the node has mined `transaction`; refused (`agent_failed`) when it reverted, or never came. */
export async function untilMined(reader: ChainReader, transaction: Hash, what: string): Promise<MinedTransfers> {
  const until = Date.now() + MINED_WITHIN_MS;
  for (;;) {
    const mined = await reader.mined(transaction);
    if (mined?.status === 'success') return mined;
    if (mined) throw new HolonError('agent_failed', `the chain reverted ${what} (${transaction})`, { transaction });
    if (Date.now() > until) throw new HolonError('lock_timeout', `${what} (${transaction}) is not mined yet`, { transaction });
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Deploys `credential`'s account on the reader's chain (the hot key `wallet` pays the gas) and waits until
 * it is mined. Returns the `account.created` event's data, for the caller to write: beside the passkey's
 * first registration, or as a decision of its own.
 */
export async function deployHumanAccount(
  reader: ChainReader,
  wallet: Wallet,
  credential: PasskeyCredential,
): Promise<ChainAccountEvents['account.created']> {
  const salt = accountSalt(credential);
  const framework = frameworkOn(reader.config.chainId);
  const { address, transaction } = await deployAccount(reader, wallet, credential, salt);
  await untilMined(reader, transaction, "the deployment of the passkey's account");
  return { address, chain_id: reader.config.chainId, credential: credential.id, salt, factory: framework.SimpleFactory };
}

/**
 * Deploys the account of the state's passkey `credentialId` (default: its only one) and records it. In a
 * guarded state recording it is the human's decision: `store` asks their passkey (decisions/asserted.ts).
 */
export async function createHumanAccount(
  store: EventStore<PasskeysFields & ChainAccountFields>,
  reader: ChainReader,
  wallet: Wallet,
  credentialId?: string,
): Promise<ChainAccount> {
  const existing = accountOn(store.state, reader.config.chainId);
  if (existing) throw new HolonError('conflict', `the human has an account on chain ${reader.config.chainId} already: ${existing.address}`);
  const keys = activePasskeys(store.state).filter((r) => credentialId === undefined || r.credential.id === credentialId);
  if (keys.length !== 1)
    throw new HolonError(
      'invalid_input',
      keys.length === 0 ? 'no such passkey: add one first (holon passkey add)' : 'name the passkey that owns the account (its id)',
    );
  const created = await deployHumanAccount(reader, wallet, keys[0]!.credential);
  await store.transact(() => ({ events: [chainAccountEvent('account.created', created)], result: undefined }));
  return accountOn(store.state, reader.config.chainId)!;
}

/** What the passkey is shown and signs for a delegation: its words, and the digest as the challenge. */
export interface PasskeyQuestion {
  title: string;
  lines: string[];
  challenge: Uint8Array;
  credentials: PasskeyCredential[];
}

/** Asks the human's passkey; undefined when they did not answer (closed the page, declined). */
export type AskPasskey = (q: PasskeyQuestion) => Promise<AssertionJson | undefined>;

/** A mandate's limits in the chain token, and the words that say how they were reached. */
export interface TokenLimits {
  perDay: bigint;
  total: bigint;
  lines: string[];
}

/**
 * `m`'s per-day and total limits in the token of `reader`'s chain: as they are when the mandate is in the
 * token's currency, else converted at the state's rate (rounded down: the chain never allows more than the
 * mandate) and said so. A mandate without a per-day limit is held to its total in a day too. Refused
 * (`invalid_input`) when no rate converts the mandate's currency.
 */
export function tokenLimits(s: FxFields, m: Mandate, reader: ChainReader): TokenLimits {
  const { currency, decimals } = reader.config.asset;
  const lines: string[] = [];
  const inToken = (amount: string, what: string): bigint => {
    const mine = M.money(amount, m.currency);
    const converted = convertTo(s, mine, currency);
    if (!converted)
      throw new HolonError(
        'invalid_input',
        `mandate ${m.id} is in ${m.currency}, and no rate converts ${m.currency} to ${currency}: ` +
          'set one (holon fx) before its limits can be held on chain',
      );
    const units = floorUnits(converted, decimals);
    if (m.currency !== currency)
      lines.push(`${what}: ${M.format(mine)} is ${decimalOf(units, decimals)} ${currency} at the rate this state has now`);
    return units;
  };
  const total = inToken(m.budget.total, 'In all');
  const perDay = m.budget.per_day === null ? total : inToken(m.budget.per_day, 'A day');
  return { perDay, total, lines };
}

/** An amount in the token's smallest units, rounded down. */
function floorUnits(amount: Money, decimals: number): bigint {
  const shift = decimals - M.SCALE;
  return shift >= 0 ? amount.units * 10n ** BigInt(shift) : amount.units / 10n ** BigInt(-shift);
}

/**
 * Signs mandate `id`'s limits as a delegation from the human's account to the hot key (`hotKey`): the
 * token's `transfer` only, to the hot key only, at most the per-day limit each UTC day and the total in
 * all, until the mandate expires. The passkey signs its EIP-712 digest on its page; the delegation, the
 * account's signature and the digest are recorded (`mandate.delegated`). Refused when the state has no
 * account on the reader's chain (`invalid_input`), or the passkey did not sign (`denied`, not_asserted).
 */
export async function delegateMandate(
  store: EventStore<PasskeysFields & ChainAccountFields & MandatesFields & FxFields>,
  reader: ChainReader,
  id: string,
  ask: AskPasskey,
  hotKey: Address,
): Promise<MandateDelegation> {
  const s = store.state;
  const account = accountOn(s, reader.config.chainId);
  if (!account)
    throw new HolonError('invalid_input', `the human has no account on chain ${reader.config.chainId}: create one (holon passkey account)`);
  const m = mandateOf(s, id);
  if (m.status !== 'active') throw new HolonError('conflict', `mandate ${id} is ${m.status}: nothing to delegate`);
  const framework = frameworkOn(reader.config.chainId);
  const { decimals, currency } = reader.config.asset;
  const limits = tokenLimits(s, m, reader);
  const now = (await reader.head()).timestamp;
  const startOfDay = utcMidnight(now);
  const expiresAt = m.expires_at ? BigInt(Math.floor(Date.parse(m.expires_at) / 1000)) : startOfDay + NO_EXPIRY_DAYS * DAY;
  const held: MandateLimits = {
    token: reader.config.token,
    perDay: limits.perDay,
    total: limits.total,
    expiresAt,
    startOfDay,
    hotKey: getAddress(hotKey),
  };
  const delegation: Delegation = {
    delegate: held.hotKey,
    delegator: getAddress(account.address),
    authority: ROOT_AUTHORITY,
    caveats: caveatsOf(held, framework),
    salt: BigInt(toHex(randomBytes(8))),
  };
  const digest = delegationDigest(delegation, reader.config.chainId, framework);
  const assertion = await ask({
    title: `Holon: hold mandate ${id}'s limits on chain`,
    lines: [
      `Mandate ${id}: Holon's hot key ${held.hotKey} may move ${currency} from your account ${delegation.delegator}, to itself only:`,
      `at most ${decimalOf(limits.perDay, decimals)} ${currency} a day (UTC), ${decimalOf(limits.total, decimals)} ${currency} in all,`,
      `until ${new Date(Number(expiresAt) * 1000).toISOString()}.`,
      ...limits.lines,
    ],
    challenge: hexToBytes(digest),
    credentials: activePasskeys(s).map((r) => r.credential),
  });
  if (!assertion)
    throw new HolonError('denied', 'not delegated: the passkey did not sign it (the page was closed or the human declined)', {
      reason: 'not_asserted',
    });
  const signature = deleGatorSignature(assertion, digest);
  await store.transact(() => ({
    events: [chainAccountEvent('mandate.delegated', { mandate: id, delegation: delegationJson(delegation), signature, digest })],
    result: undefined,
  }));
  return delegationOfMandate(store.state, id)!;
}

/**
 * Makes sure the hot key holds `amount` of the token before it pays: when it holds less, redeems exactly the
 * shortfall (`transfer(hotKey, shortfall)`) under `delegation` and waits until it is mined. Returns the
 * redeem's transaction and value, or undefined when the hot key held enough. Refused (`denied`) when the
 * chain refuses the redeem: past a cap, expired, revoked; then nothing moved.
 */
export async function ensureFloat(
  reader: ChainReader,
  hotKey: Wallet,
  delegation: Pick<MandateDelegation, 'delegation' | 'signature'>,
  amount: bigint,
): Promise<{ transaction: Hash; value: bigint } | undefined> {
  const sign = hotKey.signTransaction;
  if (!sign) throw new HolonError('invalid_input', 'the hot key cannot send a transaction of its own');
  const held = (await reader.balances(hotKey.address)).token;
  if (held >= amount) return undefined;
  const value = amount - held;
  const framework = frameworkOn(reader.config.chainId);
  const d = delegationFromJson(delegation.delegation);
  const call = {
    target: reader.config.token,
    value: 0n,
    data: encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [hotKey.address, value] }),
  };
  let transaction: Hash;
  try {
    transaction = await reader.send(hotKey.address, redeemTransaction(framework, d, delegation.signature as Hex, call), (tx) => sign(tx));
  } catch (err) {
    // The node estimates the redeem before it is sent: a cap, the expiry or a revoke refuses it there.
    throw new HolonError(
      'denied',
      `the chain refuses to move ${decimalOf(value, reader.config.asset.decimals)} ${reader.config.asset.currency} from the human's ` +
        `account under the mandate's delegation: ${(err as { shortMessage?: string }).shortMessage ?? (err as Error).message}`,
      { reason: 'chain_refused' },
    );
  }
  await untilMined(reader, transaction, 'the redeem of the float');
  return { transaction, value };
}

/**
 * The float for a payment of `amount` from the hot key under `mandate`, when the state has an account on
 * the reader's chain and the mandate a delegation to that hot key: funded if short, and recorded
 * (`float.funded`). Otherwise nothing: a state without an account pays as it always has.
 */
export async function floatForPayment(
  store: EventStore<ChainAccountFields>,
  reader: ChainReader,
  hotKey: Wallet,
  mandate: string,
  amount: bigint,
): Promise<void> {
  const account = accountOn(store.state, reader.config.chainId);
  const d = delegationOfMandate(store.state, mandate);
  if (!account || !d) return;
  if (d.delegation.delegator.toLowerCase() !== account.address.toLowerCase()) return;
  if (d.delegation.delegate.toLowerCase() !== hotKey.address.toLowerCase()) return;
  const funded = await ensureFloat(reader, hotKey, d, amount);
  if (!funded) return;
  await store.transact(() => ({
    events: [chainAccountEvent('float.funded', { mandate, transaction: funded.transaction, value: funded.value.toString() })],
    result: undefined,
  }));
}

/** What the human is shown for a call their account makes: a title and the lines that say it in words. */
export interface AccountCallWords {
  title: string;
  lines: string[];
}

/**
 * Has the human's `account` make exactly `call` (disable a delegation, add or remove a key): the passkey
 * signs a delegation to the hot key good for that one call and nothing else (`oneCallCaveats`), which the
 * hot key redeems at once and waits until it is mined. The account has no EntryPoint to take a user
 * operation from; under this delegation the call comes from the account itself, so `onlyEntryPointOrSelf`
 * functions take it. Returns the transaction. Refused (`denied`, not_asserted) when the passkey did not
 * sign, and (`agent_failed`) when the chain reverted the call; either way the account did nothing.
 */
export async function accountDoes(
  reader: ChainReader,
  hotKey: Wallet,
  account: Address,
  call: Call,
  words: AccountCallWords,
  credentials: PasskeyCredential[],
  ask: AskPasskey,
): Promise<Hash> {
  const sign = hotKey.signTransaction;
  if (!sign) throw new HolonError('invalid_input', 'the hot key cannot send a transaction of its own');
  const framework = frameworkOn(reader.config.chainId);
  const oneCall: Delegation = {
    delegate: getAddress(hotKey.address),
    delegator: getAddress(account),
    authority: ROOT_AUTHORITY,
    caveats: oneCallCaveats(call, framework),
    salt: BigInt(toHex(randomBytes(8))),
  };
  const digest = delegationDigest(oneCall, reader.config.chainId, framework);
  const assertion = await ask({ title: words.title, lines: words.lines, challenge: hexToBytes(digest), credentials });
  if (!assertion)
    throw new HolonError('denied', `not done: the passkey did not sign it (the page was closed or the human declined)`, {
      reason: 'not_asserted',
    });
  const signature = deleGatorSignature(assertion, digest);
  const transaction = await reader.send(hotKey.address, redeemTransaction(framework, oneCall, signature, call), (tx) => sign(tx));
  await untilMined(reader, transaction, words.title);
  return transaction;
}
