/**
 * A mandate's limits as caveats of a delegation from the human's account to the hot key: the enforcers the
 * Delegation Framework runs on every redeem, so that whoever holds the hot key (`<state>/keys/wallet.key`)
 * can move no more than the human signed for, whatever else it can write. Pure: terms are bytes built here.
 */
import type { Address, Hex } from 'viem';
import { encodeAbiParameters, encodePacked, isAddress } from 'viem';
import { HolonError } from '../../kernel/errors.ts';
import type { Framework } from './addresses.ts';

/** One condition of a delegation: the enforcer that checks it and its terms (`args` are the redeemer's, always empty here). */
export interface Caveat {
  enforcer: Address;
  terms: Hex;
  args: Hex;
}

/** One call the account makes when a delegation is redeemed. */
export interface Call {
  target: Address;
  /** Wei sent with the call. */
  value: bigint;
  data: Hex;
}

/** A UTC day in seconds: the period of the per-day cap. */
export const DAY = 86_400n;
/** ERC-20's `transfer(address,uint256)`: the only method a mandate's delegation lets the hot key call. */
export const TRANSFER = '0xa9059cbb';

/** A mandate's limits as the chain holds them. Amounts are the token's smallest units; times are Unix seconds. */
export interface MandateLimits {
  /** The only token that may move. */
  token: Address;
  /** At most this much in one UTC day. */
  perDay: bigint;
  /** At most this much for the delegation's life. */
  total: bigint;
  /** No redeem at or after this second. */
  expiresAt: bigint;
  /** The UTC midnight the per-day periods count from (`utcMidnight` of the creation). */
  startOfDay: bigint;
  /** The only recipient: the hot key, which then pays as it does today. */
  hotKey: Address;
}

const UINT128 = 2n ** 128n;
const UINT256 = 2n ** 256n;

/** The UTC midnight at or before `unixSeconds`. */
export function utcMidnight(unixSeconds: bigint): bigint {
  return unixSeconds - (((unixSeconds % DAY) + DAY) % DAY);
}

/**
 * The caveats that hold `limits` on chain: the token's contract only, its `transfer` only, to the hot key
 * only, at most `perDay` in each UTC day from `startOfDay`, at most `total` in all, and before `expiresAt`.
 * Refused (`invalid_input`, naming the field) when a limit cannot be one.
 */
export function caveatsOf(limits: MandateLimits, framework: Framework): Caveat[] {
  checkLimits(limits);
  const { token, perDay, total, expiresAt, startOfDay, hotKey } = limits;
  return [
    caveat(framework.AllowedTargetsEnforcer, encodePacked(['address'], [token])),
    caveat(framework.AllowedMethodsEnforcer, encodePacked(['bytes4'], [TRANSFER])),
    // The recipient is the first argument, right after the 4-byte selector.
    caveat(
      framework.AllowedCalldataEnforcer,
      encodePacked(['uint256', 'bytes'], [4n, encodeAbiParameters([{ type: 'address' }], [hotKey])]),
    ),
    caveat(
      framework.ERC20PeriodTransferEnforcer,
      encodePacked(['address', 'uint256', 'uint256', 'uint256'], [token, perDay, DAY, startOfDay]),
    ),
    caveat(framework.ERC20TransferAmountEnforcer, encodePacked(['address', 'uint256'], [token, total])),
    // After 0: no lower bound. Before: the enforcer allows a redeem while the block's time is below it.
    caveat(framework.TimestampEnforcer, encodePacked(['uint128', 'uint128'], [0n, expiresAt])),
  ];
}

/**
 * The caveats of a delegation good for exactly one `call` and nothing else: how the passkey has its account
 * do one thing (disable a delegation, add a key) that the hot key then sends, with no EntryPoint.
 */
export function oneCallCaveats(call: Call, framework: Framework): Caveat[] {
  if (call.value !== 0n) throw new HolonError('invalid_input', 'a one-call delegation sends no value', { field: 'value' });
  return [
    caveat(framework.AllowedTargetsEnforcer, encodePacked(['address'], [call.target])),
    caveat(framework.ExactCalldataEnforcer, call.data),
    caveat(framework.LimitedCallsEnforcer, encodeAbiParameters([{ type: 'uint256' }], [1n])),
  ];
}

function caveat(enforcer: Address, terms: Hex): Caveat {
  return { enforcer, terms, args: '0x' };
}

function checkLimits(l: MandateLimits): void {
  const bad = (field: keyof MandateLimits, why: string): never => {
    throw new HolonError('invalid_input', `a mandate's ${field} on chain ${why}`, { field });
  };
  if (!isAddress(l.token, { strict: false })) bad('token', 'must be an address');
  if (!isAddress(l.hotKey, { strict: false })) bad('hotKey', 'must be an address');
  for (const field of ['perDay', 'total'] as const) {
    if (l[field] <= 0n) bad(field, 'must be more than nothing');
    if (l[field] >= UINT256) bad(field, 'is too large for the chain');
  }
  if (l.startOfDay <= 0n || l.startOfDay % DAY !== 0n) bad('startOfDay', 'must be a UTC midnight after 1970');
  if (l.expiresAt <= l.startOfDay) bad('expiresAt', 'must be after the day it starts');
  if (l.expiresAt >= UINT128) bad('expiresAt', 'is too far away for the chain');
}
