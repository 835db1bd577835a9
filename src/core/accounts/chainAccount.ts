/**
 * The human's account on a chain, owned by their passkey, and what it lets the hot key move: a delegation
 * per mandate, whose caveats are the mandate's limits, and the floats the hot key drew under one. The
 * journal keeps these as records only: the account checks every signature, and the chain's enforcers every
 * redeem, so a row an agent forged here moves nothing the human did not sign for.
 */
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';
import type { Slice } from '../store/slice.ts';
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
}

export const chainAccountEvent = eventsOf<ChainAccountEvents>();

export const chainAccountSlice: Slice<ChainAccountFields, ChainAccountEvents> = {
  initial: () => ({ chain_account: { accounts: dict(), delegations: dict(), signed: dict() } }),
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
  },
  revive: (s) => {
    const signed = toDict(s.chain_account?.signed);
    const delegations = toDict(s.chain_account?.delegations);
    // A snapshot made before the history was kept knows the current delegations only.
    for (const [id, d] of Object.entries(delegations))
      if (!signed[id]?.some((r) => r.digest === d.digest)) (signed[id] ??= []).push(structuredClone(d));
    s.chain_account = { accounts: toDict(s.chain_account?.accounts), delegations, signed };
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
