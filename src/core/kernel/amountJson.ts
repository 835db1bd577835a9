/**
 * The wire shape of an amount, apart from its arithmetic (amount.ts): the refusal vocabulary (denials.ts)
 * names amounts, and sits below the errors that amount.ts throws. Amounts are the core's vocabulary, as
 * ids and errors are, so they stand beside them rather than in money/, which every module would otherwise
 * import back up.
 */

/** An ISO-4217-like currency code: three to five upper-case letters (USDC is a currency here). */
export type Currency = string;

/** The wire shape of an amount: a decimal string and its currency. */
export interface MoneyJson {
  amount: string;
  currency: Currency;
}
