/**
 * Above the threshold the approval is the payment. When the human approves a payment on the chain Holon is
 * configured for, their passkey signs the EIP-3009 authorization as their account (ERC-1271): from the
 * account, to the approval's payee, for exactly its amount. The authorization is written beside the
 * decision, under the same assertion. The server that then makes the payment sends exactly it; the hot
 * key signs nothing for it and draws no float, so the agent holding the hot key has nothing to change.
 */
import { randomBytes } from 'node:crypto';
import type { Hex } from 'viem';
import { getAddress, hashTypedData, hexToBytes } from 'viem';
import type { ChainAccountFields, PaymentAuthorized } from '../../accounts/chainAccount.ts';
import { accountOn, authorizedPayment, chainAccountEvent } from '../../accounts/chainAccount.ts';
import type { PasskeysFields } from '../../accounts/passkeys.ts';
import { activePasskeys } from '../../accounts/passkeys.ts';
import type { ApprovalsFields } from '../../approvals/slice.ts';
import * as M from '../../kernel/amount.ts';
import { HolonError } from '../../kernel/errors.ts';
import type { NewEvent } from '../../store/store.ts';
import type { ChainReader } from '../chain.ts';
import { decimalOf } from '../chain.ts';
import { tokenUnits } from '../chainPay.ts';
import type { Authorization } from '../scheme.ts';
import { TRANSFER_TYPES } from '../schemes/exact.ts';
import type { AskPasskey } from './humanAccount.ts';
import { deleGatorSignature } from './webauthnSignature.ts';

/**
 * How long the account's authorization can be settled after the human signs it: an hour, time enough for
 * the waiting server (or the agent, re-submitting) to send it; after that it can never move anything.
 */
export const ACCOUNT_AUTHORIZATION_SECONDS = 3600;

type State = ApprovalsFields & ChainAccountFields & PasskeysFields;

/**
 * The passkey's signature, as the human's account, of the payment approval `id` approves: the
 * `payment.authorized` event to write beside the decision. Undefined where the approval is not a payment
 * in the token of the reader's chain to an account on it, or the state has no account there: such a
 * payment is paid as before. The authorization's nonce is the approval's terms hash where it binds one
 * (x402's exact pairing reads H there), else random. Refused (`denied`, not_asserted) when the passkey did
 * not sign it: then nothing is written and the approval stays pending.
 */
export async function authorizeFromAccount(
  s: State,
  reader: ChainReader,
  id: string,
  ask: AskPasskey,
  now: number,
): Promise<NewEvent | undefined> {
  const a = s.approvals[id];
  const c = reader.config;
  if (!a || a.subject.kind !== 'payment') return undefined;
  const payee = /^eip155:([0-9]+):(0x[0-9a-fA-F]{40})$/.exec(a.subject.payee);
  const account = accountOn(s, c.chainId);
  if (!payee || payee[1] !== String(c.chainId) || a.subject.amount.currency !== c.asset.currency || !account) return undefined;
  const value = tokenUnits(M.fromJson(a.subject.amount), c.asset.decimals);
  const authorization: Authorization = {
    from: getAddress(account.address),
    to: getAddress(payee[2]!),
    value: value.toString(),
    validAfter: '0',
    validBefore: String(Math.floor(now / 1000) + ACCOUNT_AUTHORIZATION_SECONDS),
    nonce: (a.subject.terms_hash ?? `0x${randomBytes(32).toString('hex')}`).toLowerCase(),
  };
  const digest = authorizationDigest(reader, authorization);
  const amount = `${decimalOf(value, c.asset.decimals)} ${c.asset.currency}`;
  const until = new Date(Number(authorization.validBefore) * 1000).toISOString();
  // The purpose is the agent's words: quoted, so that it reads as what was asked, never as Holon's.
  const purpose = a.subject.purpose ? `, for ${JSON.stringify(a.subject.purpose)} (the agent's words)` : '';
  const terms = a.subject.terms_hash ? `, under the terms ${a.subject.terms_hash}` : '';
  const assertion = await ask({
    title: `Holon: pay ${amount} from your account`,
    lines: [
      `Pay ${amount} to ${authorization.to} from your account ${authorization.from}, on ${c.network}.`,
      `Approval ${a.id}${purpose}${terms}.`,
      `Your signature is the payment itself: it moves exactly this, once, until ${until}.`,
    ],
    challenge: hexToBytes(digest),
    credentials: activePasskeys(s).map((r) => r.credential),
  });
  if (!assertion)
    throw new HolonError('denied', 'not approved: the passkey did not sign the payment (the page was closed or the human declined)', {
      reason: 'not_asserted',
    });
  const data: PaymentAuthorized = {
    approval: a.id,
    chain_id: c.chainId,
    token: getAddress(c.token),
    amount: { ...a.subject.amount },
    authorization,
    signature: deleGatorSignature(assertion, digest),
    digest,
  };
  return chainAccountEvent('payment.authorized', data);
}

/** The EIP-712 digest of `authorization` in the token of the reader's chain: what the account's signature is over. */
function authorizationDigest(reader: ChainReader, authorization: Authorization): Hex {
  const c = reader.config;
  return hashTypedData({
    domain: { name: c.asset.name, version: c.asset.version, chainId: c.chainId, verifyingContract: getAddress(c.token) },
    types: TRANSFER_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: {
      ...authorization,
      from: getAddress(authorization.from),
      to: getAddress(authorization.to),
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce as Hex,
    },
  });
}

/**
 * What the payer sends for approval `id`, where the human's approval carried the account's signature:
 * the authorization and that signature, as recorded. Undefined where it carried none (the hot key pays, as
 * before). Refused (`denied`, account_authorization) where the record does not fit the chain it would be
 * paid on: another chain or token, a value that is not the approval's amount in the token's units, or a
 * digest that is not the authorization's. Such a payment is then not made at all, never by the hot key.
 */
export function accountPaymentFor(s: State, reader: ChainReader, id: string): { authorization: Authorization; signature: Hex } | undefined {
  const r = authorizedPayment(s, id);
  if (!r) return undefined;
  const c = reader.config;
  const refused = (why: string): HolonError =>
    new HolonError('denied', `approval ${id}'s payment signed by your account is not paid: ${why}`, { reason: 'account_authorization' });
  if (r.chain_id !== c.chainId || r.token.toLowerCase() !== c.token.toLowerCase()) throw refused('it is for another chain or token');
  if (r.authorization.value !== tokenUnits(M.fromJson(r.amount), c.asset.decimals).toString())
    throw refused(`its value is not ${M.toJson(M.fromJson(r.amount)).amount} ${r.amount.currency}`);
  const authorization = { ...r.authorization } as Authorization;
  if (authorizationDigest(reader, authorization) !== r.digest) throw refused('its digest is not its authorization');
  return { authorization, signature: r.signature as Hex };
}
