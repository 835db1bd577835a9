/**
 * What a name may look like, in one place: every edge (a tool's schema, a CLI flag, a form field, the
 * core's own checks) tests ids and currency codes against these, so they can never disagree.
 */
import { randomBytes } from 'node:crypto';
import { HolonError } from './errors.ts';

/** An account, or the name half of a mandate: lower-case letters, digits, - and _. */
export const ACCOUNT_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** A mandate: `account/name`. */
export const MANDATE_ID = /^[a-z0-9][a-z0-9_-]{0,62}\/[a-z0-9][a-z0-9_-]{0,62}$/;
/** An agent: `publisher/name`, dots allowed. */
export const AGENT_ID = /^[a-z0-9][a-z0-9_.-]{0,62}\/[a-z0-9][a-z0-9_.-]{0,62}$/;
/** A currency code: three to five capital letters (USDC is a currency here). */
export const CURRENCY_CODE = /^[A-Z]{3,5}$/;

/** What each kind of id must look like, said to a human. */
export const ID_RULES = {
  account: 'lower-case letters, digits, - and _',
  mandate: 'account/name, lower-case letters, digits, - and _',
  agent: 'publisher/name, lower-case letters, digits, ., - and _',
  currency: '3 to 5 capital letters, e.g. EUR',
} as const;

/** The account id, or an invalid_input error. */
export function accountId(text: string): string {
  if (!ACCOUNT_ID.test(text)) throw new HolonError('invalid_input', `"${text}" is not an account name (${ID_RULES.account})`);
  return text;
}

/** The mandate id, or an invalid_input error. */
export function mandateId(text: string): string {
  if (!MANDATE_ID.test(text)) throw new HolonError('invalid_input', `"${text}" is not a mandate id (${ID_RULES.mandate})`);
  return text;
}

/** The currency code, or an invalid_input error. */
export function currencyCode(text: string): string {
  if (!CURRENCY_CODE.test(text)) throw new HolonError('invalid_input', `"${text}" is not a currency code (${ID_RULES.currency})`);
  return text;
}

/** Random bytes drawn ahead for ids, each used once: a call makes several, and asking the system for nine bytes at a time costs more. */
const POOL_BYTES = 9 * 455;
let pool = Buffer.alloc(0);
let taken = 0;

/** A new opaque id with a readable prefix, e.g. "rcpt_3kq9…": 72 random bits. */
export function newId(prefix: string): string {
  if (taken + 9 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    taken = 0;
  }
  const id = pool.toString('base64url', taken, taken + 9);
  taken += 9;
  return `${prefix}_${id}`;
}
