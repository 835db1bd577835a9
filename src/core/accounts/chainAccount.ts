/**
 * The human's account on a chain, owned by their passkey, and what it lets the hot key move: a delegation
 * per mandate, whose caveats are the mandate's limits, and the floats the hot key drew under one. The
 * journal keeps these as records only: the account checks every signature, and the chain's enforcers every
 * redeem, so a row an agent forged here moves nothing the human did not sign for.
 */
import type { Approval } from '../approvals/model.ts';
import type { MoneyJson } from '../kernel/amount.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';
import type { Slice } from '../store/slice.ts';
import type { Refusal } from '../store/store.ts';
import { eventsOf } from '../store/slice.ts';

/** The passkey's account on one chain: where it is and how it was made (so anyone can check the address). */
export interface ChainAccount {
  address: string;
  chain_id: number;
  /** The credential id of the passkey that owns it. */
  credential: string;
  /** The CREATE2 salt it was deployed with, 32 bytes of hex. */
  salt: string;
  /** The factory that deployed it. */
  factory: string;
  created_at: string;
}

/** A caveat as the journal keeps it: hex strings. */
export interface CaveatJson {
  enforcer: string;
  terms: string;
  args: string;
}

/** A delegation as the journal keeps it: its salt a decimal string. */
export interface DelegationJson {
  delegate: string;
  delegator: string;
  authority: string;
  caveats: CaveatJson[];
  salt: string;
}

/** A mandate's delegation, signed by the passkey: what the hot key may redeem for it. */
export interface MandateDelegation {
  mandate: string;
  delegation: DelegationJson;
  /** The account's signature of it (the passkey's assertion as HybridDeleGator reads one). */
  signature: string;
  /** Its EIP-712 digest: the challenge the passkey answered. */
  digest: string;
  at: string;
  /** When the account disabled it on chain (`mandate.undelegated`), and by which transaction (null: found disabled). */
  disabled?: { at: string; transaction: string | null };
}

/** An EIP-3009 authorization as the journal keeps it: addresses and 32-byte nonce as hex, numbers as decimal strings. */
export interface AuthorizationJson {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

/**
 * A payment the passkey signed as the account, when the human approved it: the approval is the payment.
 * The payee, the amount and the account are the approval's; the chain checks the signature.
 */
export interface PaymentAuthorized {
  approval: string;
  chain_id: number;
  /** The token the authorization moves (its EIP-712 domain's verifying contract). */
  token: string;
  /** The approval's amount, in the token's currency: what `authorization.value` is in its smallest units. */
  amount: MoneyJson;
  authorization: AuthorizationJson;
  /** The account's signature of it (ERC-1271: the passkey's assertion as the account reads one). */
  signature: string;
  /** Its EIP-712 digest: the challenge the passkey answered. */
  digest: string;
}

/** The chain account's part of the state. */
export interface ChainAccountFields {
  chain_account: {
    /** By chain id. */
    accounts: Dict<ChainAccount>;
    /** The delegation the hot key draws under for each mandate, by mandate id: the newest, unless it was disabled. */
    delegations: Dict<MandateDelegation>;
    /**
     * Every delegation the passkey signed for each mandate, oldest first, disabled ones too: what was spent
     * under each is read from the chain when the mandate's limits are signed again.
     */
    signed: Dict<MandateDelegation[]>;
    /** The payments the passkey signed as the account, by the approval that decided each. */
    authorized: Dict<PaymentAuthorized & { at: string }>;
  };
}

export interface ChainAccountEvents {
  'account.created': { address: string; chain_id: number; credential: string; salt: string; factory: string };
  'mandate.delegated': { mandate: string; delegation: DelegationJson; signature: string; digest: string };
  /**
   * The account disabled the mandate's delegation `digest` on chain (`transaction`; null when Holon found it
   * disabled already, after a crash between the two): the hot key draws under it no more.
   */
  'mandate.undelegated': { mandate: string; digest: string; transaction: string | null };
  /** The hot key drew `value` (token units, decimal) from the account under the mandate's delegation. */
  'float.funded': { mandate: string; transaction: string; value: string };
  /** Beside the human's approval of a payment, in its transaction: the payment itself, signed as the account. */
  'payment.authorized': PaymentAuthorized;
}

export const chainAccountEvent = eventsOf<ChainAccountEvents>();

export const chainAccountSlice: Slice<ChainAccountFields, ChainAccountEvents> = {
  initial: () => ({ chain_account: { accounts: dict(), delegations: dict(), signed: dict(), authorized: dict() } }),
  on: {
    'account.created': (s, d, e) => {
      s.chain_account.accounts[String(d.chain_id)] = {
        address: d.address,
        chain_id: d.chain_id,
        credential: d.credential,
        salt: d.salt,
        factory: d.factory,
        created_at: e.time,
      };
    },
    'mandate.delegated': (s, d, e) => {
      // The newest wins: an edit signs a new delegation, and the hot key redeems only that one.
      const signed: MandateDelegation = {
        mandate: d.mandate,
        delegation: structuredClone(d.delegation),
        signature: d.signature,
        digest: d.digest,
        at: e.time,
      };
      s.chain_account.delegations[d.mandate] = signed;
      (s.chain_account.signed[d.mandate] ??= []).push(structuredClone(signed));
    },
    'mandate.undelegated': (s, d, e) => {
      const disabled = { at: e.time, transaction: d.transaction };
      for (const r of s.chain_account.signed[d.mandate] ?? []) if (r.digest === d.digest) r.disabled ??= disabled;
      // A record of one that is not the mandate's current delegation changes only the history.
      if (s.chain_account.delegations[d.mandate]?.digest === d.digest) delete s.chain_account.delegations[d.mandate];
    },
    'payment.authorized': (s, d, e) => {
      s.chain_account.authorized[d.approval] = { ...structuredClone(d), at: e.time };
    },
  },
  revive: (s) => {
    const signed = toDict(s.chain_account?.signed);
    const delegations = toDict(s.chain_account?.delegations);
    // A snapshot made before the history was kept knows the current delegations only.
    for (const [id, d] of Object.entries(delegations))
      if (!signed[id]?.some((r) => r.digest === d.digest)) (signed[id] ??= []).push(structuredClone(d));
    s.chain_account = { accounts: toDict(s.chain_account?.accounts), delegations, signed, authorized: toDict(s.chain_account?.authorized) };
  },
};

/** The human's account on chain `chainId`, if one was created. */
export function accountOn(s: ChainAccountFields, chainId: number): ChainAccount | undefined {
  return s.chain_account.accounts[String(chainId)];
}

/** The delegation mandate `id` draws under: its newest, unless that was disabled. */
export function delegationOfMandate(s: ChainAccountFields, id: string): MandateDelegation | undefined {
  return s.chain_account.delegations[id];
}

/** Every delegation the passkey signed for mandate `id`, oldest first, disabled ones too. */
export function delegationsOfMandate(s: ChainAccountFields, id: string): MandateDelegation[] {
  return s.chain_account.signed[id] ?? [];
}

/** The payment the passkey signed as the account for approval `id`, if the human's approval carried one. */
export function authorizedPayment(s: ChainAccountFields, id: string): (PaymentAuthorized & { at: string }) | undefined {
  return s.chain_account.authorized[id];
}

const HEX = /^0x[0-9a-fA-F]+$/;
const DECIMAL = /^[0-9]{1,78}$/;

/**
 * Refused (`inconsistent`) when `d` is not the payment approval `a` approves: the approval's payee (a
 * CAIP-10 account on `d`'s chain) and amount, from the human's account on that chain, in the form an
 * EIP-3009 authorization has. The fold counts it only beside that approval; the payer checks the token's
 * units against the chain it pays on (delegation/accountPays.ts), which the fold does not know.
 */
export function paymentAuthorizedRefusal(s: ChainAccountFields, d: PaymentAuthorized, a: Approval | undefined): Refusal | undefined {
  const why = mismatch(s, d, a);
  return why ? { code: 'inconsistent', message: why } : undefined;
}

function mismatch(s: ChainAccountFields, d: PaymentAuthorized, a: Approval | undefined): string | undefined {
  if (!a || a.subject.kind !== 'payment') return 'it authorizes a payment no approval in its transaction approves';
  const q = d.authorization;
  const form =
    typeof d.chain_id === 'number' &&
    [q?.from, q?.to, d.token, q?.nonce, d.signature, d.digest].every((x) => typeof x === 'string' && HEX.test(x)) &&
    [q.value, q.validAfter, q.validBefore].every((x) => typeof x === 'string' && DECIMAL.test(x));
  if (!form) return 'it is not an EIP-3009 authorization';
  const account = accountOn(s, d.chain_id);
  if (!account || account.address.toLowerCase() !== q.from.toLowerCase()) return "it pays from another account than the human's";
  if (a.subject.payee.toLowerCase() !== `eip155:${d.chain_id}:${q.to}`.toLowerCase())
    return `it pays another payee than approval ${a.id} approves`;
  if (d.amount?.amount !== a.subject.amount.amount || d.amount?.currency !== a.subject.amount.currency)
    return `it pays another amount than approval ${a.id} approves`;
  if (a.subject.terms_hash && a.subject.terms_hash.toLowerCase() !== q.nonce.toLowerCase())
    return `its nonce is not the terms hash approval ${a.id} binds`;
  return undefined;
}

/** Why a `mandate.delegated` row counts for nothing: a delegation from no account of the human's, or not one at all. */
export function delegationRefusal(s: ChainAccountFields, d: { delegation: unknown; digest: unknown }): Refusal | undefined {
  const j = d.delegation as DelegationJson | undefined;
  const from = typeof j?.delegator === 'string' ? j.delegator.toLowerCase() : '';
  if (!Object.values(s.chain_account.accounts).some((a) => a.address.toLowerCase() === from))
    return { code: 'unknown', message: "it delegates from no account of the human's" };
  if (typeof d.digest !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(d.digest) || !Array.isArray(j?.caveats))
    return { code: 'malformed', message: 'it is not a delegation' };
  return undefined;
}
