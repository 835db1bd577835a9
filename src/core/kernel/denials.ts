/**
 * Why something was refused, as data: a code with its parameters. The core decides with these and the
 * journal keeps them; each edge renders them in its own seed's words (market's reasons, terms' declines,
 * money's RFC 9457 problems, office's "Not permitted"). Nothing matches on wording.
 */
import type { MoneyJson } from './amountJson.ts';

/** Why a call failed, as the whole core names it (see HolonError). */
export type HolonErrorReason =
  | 'invalid_input'
  | 'not_found'
  | 'denied'
  | 'conflict'
  | 'unknown_amount'
  | 'agent_failed'
  | 'corrupt_journal'
  | 'lock_timeout'
  | 'not_interactive';

/** One field an approval was bound to that the new request does not match. */
export interface BindingMismatch {
  field: string;
  approved: string;
  requested: string;
}

/** The parameters of each denial code. */
export interface DenialParams {
  /** The mandate is suspended or revoked. */
  mandate_inactive: { mandate: string; status: string };
  /** The mandate's expiry has passed. */
  mandate_expired: { mandate: string; expires_at: string };
  /** The mandate grants no such capability (and no open window lends it). */
  capability_missing: { capability: string };
  /** The capability is granted, but its parameters do not cover this target (a recipient, a repo, a payee). */
  capability_scope: { capability: string; target: string; allowed: string[] };
  /** The agent offers nothing the mandate's market.call scope allows. */
  agent_out_of_scope: { capabilities: string[]; allowed: string[] };
  /** The agent processes data outside the mandate's regions. */
  data_regions: { regions: string[]; allowed: string[] };
  /** The agent trains on inputs; the mandate forbids it. */
  data_training: Record<string, never>;
  /** The agent keeps data longer than the mandate allows. */
  data_retention: { days: number; max: number };
  /** No human-set rate converts this currency into the mandate's. */
  no_rate: { from: string; to: string };
  /** The amount is above the mandate's limit for one spend. */
  over_per_call: { amount: MoneyJson; limit: MoneyJson };
  /** The amount is above the caller's own cap (`max_cost`). */
  over_max_cost: { amount: MoneyJson; limit: MoneyJson };
  /** The amount is above what the mandate and its account have left. */
  over_budget: { amount: MoneyJson; remaining: MoneyJson };
  /** The amount is above what is left of today's limit. */
  over_daily: { amount: MoneyJson; remaining: MoneyJson };
  /** Not a refusal on its own: the amount is above the approval threshold, so a human must decide. */
  over_threshold: { amount: MoneyJson; threshold: MoneyJson };
  /** Delegated calls would come back to an agent already in the chain. */
  delegation_cycle: { chain: string[] };
  /** Delegated calls would go deeper than the gateway follows. */
  delegation_depth: { max: number };
  /** A delegated call asked for a capability its parent did not declare, or named an agent. */
  delegation_capability: { allowed: string[] };
  /** A delegated call beyond the count its parent declared. */
  delegation_count: { max: number };
  /** The input does not match the agent's declared input schema. */
  input_schema: { agent: string; problems: string[] };
  /** No agent the mandate allows offers the capability. */
  no_agent: { capability: string };
  /** The named agent is not in the catalog. */
  unknown_agent: { agent: string };
  /** No approval with that id under this mandate. */
  approval_not_found: { approval: string };
  /** The approval was already used, by another receipt or spend. */
  approval_used: { approval: string; used_by: string | null };
  /** The approval expired before it was used. */
  approval_expired: { approval: string; expires_at: string };
  /** The approval was given for something else: these bound fields differ. */
  approval_mismatch: { approval: string; mismatches: BindingMismatch[] };
  /** The approval was given for a smaller amount than this request now needs. */
  approval_amount_raised: { approval: string; amount: MoneyJson; approved: MoneyJson };
  /** The human rejected it. */
  rejected: { approval: string };
  /** A reason a journal from before typed denials recorded in words. */
  recorded: { text: string };
  /** The seller's ATR could not be fetched from a public address within the limits (seed 002). */
  atr_unfetchable: Record<string, never>;
  /** The seller's payment request names no ATR hash, or no link to the ATR. */
  atr_not_advertised: Record<string, never>;
  /** The bytes the ATR link served do not hash to the advertised H. */
  hash_mismatch: { advertised: string; served: string };
  /** The seller's payment request (or an approved offer) could not be read; `read` names what failed. */
  offer_unreadable: { read: string };
  /** The wallet's answer is not the payer's signature of exactly the payment that was built. */
  signature_invalid: Record<string, never>;
  /** The pairing reads no H from the payment. */
  signed_not_bound: Record<string, never>;
  /** A `chosen` that is not one this server process returned, unchanged. */
  chosen_unverified: Record<string, never>;
  /** A channel opening that is not one this server process returned, unchanged. */
  opening_unverified: Record<string, never>;
  /** A channel hold that is not one this server process returned, unchanged. */
  hold_unverified: Record<string, never>;
  /** The agreement's receipt names another H, or is not an agreement's receipt. */
  agreement_failed: { reason: string };
  /** The agreement payment was sent and may settle yet: ask again without `approved`. */
  agreement_pending: Record<string, never>;
  /** A human must decide first: the approval waits for them; the same call made again after they approve goes ahead. */
  approval_pending: { approval: string };
  /** A purchase above the approval threshold: a merchant's checkout cannot wait for a human, so it is refused. */
  purchase_over_threshold: { amount: MoneyJson; threshold: MoneyJson };
  /** No rail Holon runs pays this payee (an unknown account, the payer's own, or a chain account `pay` cannot reach). */
  no_rail: { payee: string; why: 'unknown_account' | 'own_account' | 'chain_account' | 'chain_currency' };
  /** The mandate holds a prior spend in a currency no human-set rate converts: what it has left is unknown. */
  spend_unconvertible: { currencies: string[]; to: string };
  /** More calls this minute than the human's rate limit allows; it clears by itself. */
  rate_limited: { limit: number; per: 'minute' | 'day'; retry_after_seconds: number };
  /** The human's call quota for the period is spent; only they can raise it. */
  quota_exceeded: { limit: number; per: 'minute' | 'day'; resets_at: string };
  /** The tool is listed with its group, but this mandate does not offer its toolset (seed 003: commerce with money). */
  toolset_not_offered: { toolset: string };
  /**
   * A configured merchant cannot be used as it describes itself: its UCP profile names no checkout endpoint, or one
   * on another origin than the one the human configured (`configured`), where Holon sends nothing.
   */
  merchant_unusable: { merchant: string; configured: string; why: 'no_endpoint' | 'endpoint_elsewhere' };
  /** A tool's arguments do not fit its input schema: which fields (their paths), never what was sent in them. */
  invalid_arguments: { fields: string[] };
  /**
   * The payment's nonce is fixed by the terms (H), and the chain shows it spent already: a new signature
   * could never land. `transaction` is where it was spent, where Holon knows it.
   */
  terms_paid: { transaction: string | null };
  /** A payment of the same terms (the same nonce) is signed and may still land: that one is sent again, never a second. */
  payment_open: { settlement: string; until: string };
  /**
   * A payment on another network or token than the chain the human configured (`configured`; null: none is),
   * where Holon signs nothing: it pays only where it reads the payment back.
   */
  other_chain: { network: string; asset: string; configured: { network: string; asset: string } | null };
  /**
   * An x402 agent asks to be paid to another address (`payee`; null: not asked yet) than the payee its catalog
   * entry declares (`declared`; null: it declares none).
   */
  payee_undeclared: { agent: string; payee: string | null; declared: string | null };
  /** A seller offers no terms (seed 002's `extensions.atr`), and the mandate pays only on terms (its `pay` grant's `require_terms`). */
  terms_required: { agent: string };
  /**
   * None of a seller's offers is one the wallet can pay: each offer's scheme, network and asset (`offered`),
   * against what Holon signs (x402's `exact` or `upto`, on the configured chain, in a token it knows).
   */
  offer_unpayable: { agent: string; offered: { scheme: string; network: string; asset: string }[] };
  /** A seller asks more (`amount`, in the mandate's currency) than the call holds for it (`limit`): its price in the catalog was lower. */
  offer_above_hold: { agent: string; amount: MoneyJson; limit: MoneyJson };
  /** A tool call that failed with an expected error other than a refusal with its own code, by the error's reason. */
  call_failed: { reason: HolonErrorReason };
}

/** Every denial code. */
export type DenialCode = keyof DenialParams;

/** Every denial code, as a list (the compiler checks it is all of them, once each). */
export const DENIAL_CODES = [
  'mandate_inactive',
  'mandate_expired',
  'capability_missing',
  'capability_scope',
  'agent_out_of_scope',
  'data_regions',
  'data_training',
  'data_retention',
  'no_rate',
  'over_per_call',
  'over_max_cost',
  'over_budget',
  'over_daily',
  'over_threshold',
  'delegation_cycle',
  'delegation_depth',
  'delegation_capability',
  'delegation_count',
  'input_schema',
  'no_agent',
  'unknown_agent',
  'approval_not_found',
  'approval_used',
  'approval_expired',
  'approval_mismatch',
  'approval_amount_raised',
  'rejected',
  'recorded',
  'atr_unfetchable',
  'atr_not_advertised',
  'hash_mismatch',
  'offer_unreadable',
  'signature_invalid',
  'signed_not_bound',
  'chosen_unverified',
  'opening_unverified',
  'hold_unverified',
  'agreement_failed',
  'agreement_pending',
  'approval_pending',
  'purchase_over_threshold',
  'no_rail',
  'spend_unconvertible',
  'rate_limited',
  'quota_exceeded',
  'toolset_not_offered',
  'merchant_unusable',
  'invalid_arguments',
  'call_failed',
  'terms_paid',
  'payment_open',
  'other_chain',
  'payee_undeclared',
  'terms_required',
  'offer_unpayable',
  'offer_above_hold',
] as const satisfies readonly DenialCode[];
type Missing = Exclude<DenialCode, (typeof DENIAL_CODES)[number]>;
// A denial code added above but not to the list fails here.
const _allListed: Missing extends never ? true : never = true;
void _allListed;

/** A refusal: its code, its parameters, and the agent it concerns when several were tried. */
export type Denial = { [C in DenialCode]: { code: C; params: DenialParams[C]; agent?: string } }[DenialCode];

/** A denial of `code`. */
export function denial<C extends DenialCode>(code: C, params: DenialParams[C]): Extract<Denial, { code: C }> {
  return { code, params } as Extract<Denial, { code: C }>;
}

/** The same denials, each marked as concerning `agent` (a candidate tried for a capability). */
export function forAgent(agent: string, denials: Denial[]): Denial[] {
  return denials.map((d) => ({ ...d, agent }));
}
