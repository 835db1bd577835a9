/**
 * The human's account and the mandates it delegates, as Holon runs them: the hot key deploys the passkey's
 * account and records it; a mandate's limits become a delegation the passkey signs on its page; and before
 * the hot key pays under a mandate, it draws from the account exactly what it lacks (the float), under that
 * delegation, so the chain's enforcers count every dollar that leaves the account against the human's caps.
 */
import { randomBytes } from 'node:crypto';
import type { Address, Hash, Hex } from 'viem';
import { decodeFunctionResult, encodeFunctionData, getAddress, hexToBigInt, hexToBytes, keccak256, parseAbi, toHex } from 'viem';
import type { ChainAccount, ChainAccountFields, ChainAccountEvents, MandateDelegation } from '../../accounts/chainAccount.ts';
import { accountOn, chainAccountEvent, delegationOfMandate, delegationsOfMandate } from '../../accounts/chainAccount.ts';
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
import type { Framework } from './addresses.ts';
import { frameworkOn } from './addresses.ts';
import type { MandateLimits } from './caveats.ts';
import type { Call } from './caveats.ts';
import { caveatsOf, DAY, oneCallCaveats, utcMidnight } from './caveats.ts';
import type { Delegation } from './delegation.ts';
import {
  DELEGATION_MANAGER_ABI,
  delegationDigest,
  delegationFromJson,
  delegationJson,
  redeemTransaction,
  revokeCall,
  ROOT_AUTHORITY,
} from './delegation.ts';
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
  const live = delegationOfMandate(s, id);
  // Two live delegations of one mandate would let the hot key draw the sum of their caps.
  if (live)
    throw new HolonError('conflict', `mandate ${id}'s delegation ${live.digest} is not disabled: disable it before signing another`, {
      digest: live.digest,
    });
  const framework = frameworkOn(reader.config.chainId);
  const { decimals, currency } = reader.config.asset;
  const limits = await limitsLeft(reader, account.address as Address, delegationsOfMandate(s, id), tokenLimits(s, m, reader));
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

// ---------------------------------------------------------------------------------------------------------
// A mandate's delegation follows the mandate: before its limits are signed again, and when it is revoked or
// suspended, the account disables the delegation it had; a new one holds only what its earlier ones left.
// ---------------------------------------------------------------------------------------------------------

const SPENT_ABI = parseAbi(['function spentMap(address delegationManager, bytes32 delegationHash) view returns (uint256)']);

/** The hash the manager and its enforcers know `delegation` by, as the manager itself computes it. */
export async function delegationHashOnChain(reader: ChainReader, delegation: Delegation): Promise<Hex> {
  const framework = frameworkOn(reader.config.chainId);
  const call = { abi: DELEGATION_MANAGER_ABI, functionName: 'getDelegationHash' } as const;
  const data = encodeFunctionData({ ...call, args: [{ ...delegation, signature: '0x' }] });
  return decodeFunctionResult({ ...call, data: await reader.read(framework.DelegationManager, data) });
}

/**
 * What the account moved under `delegations` (those from `account` whose total is in the reader's token),
 * as the chain's ERC20TransferAmountEnforcer counted it: the journal says which delegations, the chain how
 * much. A redeem past a cap reverts, so this is never more than their totals.
 */
export async function spentUnder(reader: ChainReader, account: Address, delegations: MandateDelegation[]): Promise<bigint> {
  const framework = frameworkOn(reader.config.chainId);
  const call = { abi: SPENT_ABI, functionName: 'spentMap' } as const;
  let spent = 0n;
  for (const r of delegations) {
    const d = delegationFromJson(r.delegation);
    if (d.delegator !== getAddress(account)) continue;
    const total = d.caveats.find((c) => c.enforcer === getAddress(framework.ERC20TransferAmountEnforcer));
    // Its terms start with the token it counts.
    if (!total || total.terms.slice(0, 42).toLowerCase() !== reader.config.token.toLowerCase()) continue;
    const data = encodeFunctionData({ ...call, args: [framework.DelegationManager, await delegationHashOnChain(reader, d)] });
    spent += decodeFunctionResult({ ...call, data: await reader.read(framework.ERC20TransferAmountEnforcer, data) });
  }
  return spent;
}

/**
 * `limits` less what the mandate's `earlier` delegations moved, read from the chain, with the words that
 * say so. The per-day count cannot be carried: each delegation is its own counter at the enforcer. Refused
 * (`conflict`) when nothing is left of the total.
 */
async function limitsLeft(reader: ChainReader, account: Address, earlier: MandateDelegation[], limits: TokenLimits): Promise<TokenLimits> {
  if (earlier.length === 0) return limits;
  const { decimals, currency } = reader.config.asset;
  const amount = (units: bigint): string => `${decimalOf(units, decimals)} ${currency}`;
  const spent = await spentUnder(reader, account, earlier);
  if (spent >= limits.total)
    throw new HolonError(
      'conflict',
      `nothing is left to hold on chain: ${amount(spent)} already spent under the mandate's earlier delegations, ` +
        `and its total is ${amount(limits.total)}; no new delegation was signed, so nothing more can be drawn from your account for it`,
      { spent: spent.toString(), total: limits.total.toString() },
    );
  const total = limits.total - spent;
  return {
    // The day's cap stays as the mandate says: the total, reduced, is what holds the rest.
    perDay: limits.perDay,
    total,
    lines: [
      ...limits.lines,
      `${amount(spent)} already spent: ${amount(total)} left in all ` +
        `(the mandate's total is ${amount(limits.total)}; what was spent as the chain counted it).`,
      "The day's count starts again with this delegation: what earlier ones moved today is not counted in it " +
        '(the chain cannot carry it over).',
    ],
  };
}

/** The per-day and total caps a mandate's delegation holds, read back from its caveats' terms (token units). */
function capsOf(d: Delegation, framework: Framework): { perDay: bigint | undefined; total: bigint | undefined } {
  // Both enforcers' terms are the token (20 bytes), then the amount (32 bytes).
  const amountIn = (enforcer: Address): bigint | undefined => {
    const c = d.caveats.find((x) => x.enforcer === getAddress(enforcer));
    return c && c.terms.length >= 2 + 104 ? hexToBigInt(`0x${c.terms.slice(42, 106)}`) : undefined;
  };
  return { perDay: amountIn(framework.ERC20PeriodTransferEnforcer), total: amountIn(framework.ERC20TransferAmountEnforcer) };
}

/**
 * Disables mandate `id`'s delegation on the reader's chain, if it has one: the passkey signs the one call
 * (`revokeCall`) on its page, whose words say which delegation and what it held and `why`; the hot key
 * sends it; then `mandate.undelegated` is recorded, and the hot key draws under it no more. One the chain
 * says is disabled already (a crash after the call, before the record) is recorded without asking.
 * Returns what was disabled, or undefined when the mandate had no delegation. Refused (`denied`,
 * not_asserted) when the passkey did not sign: then nothing changed, on chain or in the journal; and
 * (`conflict`) when its delegation is from an account on another chain.
 */
export async function disableMandateDelegation(
  store: EventStore<PasskeysFields & ChainAccountFields>,
  reader: ChainReader,
  hotKey: Wallet,
  id: string,
  ask: AskPasskey,
  why: string,
): Promise<{ digest: string; transaction: Hash | null } | undefined> {
  const s = store.state;
  const live = delegationOfMandate(s, id);
  if (!live) return undefined;
  const account = accountOn(s, reader.config.chainId);
  const d = delegationFromJson(live.delegation);
  if (!account || getAddress(account.address) !== d.delegator)
    throw new HolonError(
      'conflict',
      `mandate ${id}'s delegation ${live.digest} is from account ${d.delegator}, which is not the human's on chain ` +
        `${reader.config.chainId}: give that chain's settings to disable it`,
      { digest: live.digest },
    );
  const framework = frameworkOn(reader.config.chainId);
  const disabled = await reader.read(
    framework.DelegationManager,
    encodeFunctionData({
      abi: DELEGATION_MANAGER_ABI,
      functionName: 'disabledDelegations',
      args: [await delegationHashOnChain(reader, d)],
    }),
  );
  let transaction: Hash | null = null;
  if (hexToBigInt(disabled) === 0n) {
    const { decimals, currency } = reader.config.asset;
    const caps = capsOf(d, framework);
    const cap = (units: bigint | undefined): string => (units === undefined ? 'no' : `${decimalOf(units, decimals)} ${currency}`);
    const words = {
      title: `Holon: disable mandate ${id}'s delegation on chain`,
      lines: [
        `Mandate ${id} ${why}: your account ${d.delegator} disables, for good, its delegation ${live.digest} ` +
          `to Holon's hot key ${d.delegate}.`,
        `What it held (at most ${cap(caps.perDay)} a day, ${cap(caps.total)} in all) can no longer be drawn under it.`,
        'This is the one call your account makes: the hot key sends it and pays its gas.',
      ],
    };
    try {
      transaction = await accountDoes(
        reader,
        hotKey,
        d.delegator,
        revokeCall(d, framework),
        words,
        activePasskeys(s).map((r) => r.credential),
        ask,
      );
    } catch (err) {
      if (!HolonError.is(err, 'denied')) throw err;
      throw new HolonError(
        'denied',
        `mandate ${id}'s delegation ${live.digest} is not disabled: the passkey did not sign it (the page was closed or the human ` +
          'declined). It still holds what it held on chain, and no new delegation was signed: run the edit again to disable it',
        { ...err.details, digest: live.digest },
      );
    }
  }
  await store.transact(() => ({
    events: [chainAccountEvent('mandate.undelegated', { mandate: id, digest: live.digest, transaction })],
    result: undefined,
  }));
  return { digest: live.digest, transaction };
}

/** What keeping a mandate's delegation in step did on chain. */
export interface MandateOnChain {
  /** The earlier delegation disabled (its transaction null when the chain had it disabled already). */
  disabled?: { digest: string; transaction: Hash | null };
  /** The new delegation signed: an active mandate's limits, less what was spent. */
  delegated?: MandateDelegation;
}

/**
 * Keeps mandate `id`'s delegation on chain in step with the mandate just written, when the state has an
 * account on the reader's chain: its delegation, if it has one, is disabled first (a touch), and an
 * active mandate's limits are then signed again, less what the account already moved for it (another
 * touch). Disabling comes first so that two delegations of one mandate are never live at once, and what
 * was spent is read once the old one can spend no more. Undefined where the state has no account there.
 * The CLI's mandate commands and the editor's mandate form both end here.
 */
export async function followMandateOnChain(
  store: EventStore<PasskeysFields & ChainAccountFields & MandatesFields & FxFields>,
  reader: ChainReader,
  hotKey: Wallet,
  id: string,
  ask: AskPasskey,
): Promise<MandateOnChain | undefined> {
  if (!accountOn(store.state, reader.config.chainId)) return undefined;
  const m = mandateOf(store.state, id);
  const why = m.status === 'active' ? 'is edited, and before its new limits are signed' : `is ${m.status}`;
  const disabled = await disableMandateDelegation(store, reader, hotKey, id, ask, why);
  const done: MandateOnChain = disabled ? { disabled } : {};
  if (m.status !== 'active') return done;
  return { ...done, delegated: await delegateMandate(store, reader, id, ask, hotKey.address) };
}

/** What the human is told of a mandate's delegation kept in step on chain `network`. */
export function mandateOnChainText(network: string, done: MandateOnChain | undefined): string {
  const disabled = done?.disabled
    ? `\nOn ${network}, your account disabled the mandate's earlier delegation ${done.disabled.digest}` +
      `${done.disabled.transaction ? ` (transaction ${done.disabled.transaction})` : ' (the chain had it disabled already)'}.`
    : '';
  const d = done?.delegated;
  return d
    ? `${disabled}\nOn ${network}, your account ${d.delegation.delegator} holds these limits for Holon's hot key (delegation ${d.digest}).`
    : disabled;
}
