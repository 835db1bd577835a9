/**
 * Amounts and refusals in words, the one wording every edge uses (market's reasons, the CLI, the editor,
 * the agent's text). Kept apart from present.ts, which shows whole receipts and approvals, so that the
 * money and market modules that word a refusal need nothing above them.
 */
import type { Denial } from './denials.ts';
import type { HolonErrorReason } from './errors.ts';
import type { MoneyJson } from './amount.ts';
import * as M from './amount.ts';

/** "3.10 EUR", or "unknown" for an amount that could not be known. */
export function fmt(m: MoneyJson | null | undefined): string {
  return m ? M.format(M.fromJson(m)) : 'unknown';
}

/** "97.5%" from a rate in [0, 1] as a decimal string, or "?". */
export function pct(rate: string | null): string {
  if (!rate) return '?';
  const tenths = (M.parseUnits(rate) + 500n) / 1000n; // millionths → tenths of a percent, rounded
  const whole = tenths / 10n;
  const frac = tenths % 10n;
  return `${whole}${frac === 0n ? '' : `.${frac}`}%`;
}

/** What an expected failure of each reason means, for a `call_failed` on the record. */
const CALL_FAILED_WORDS: Record<HolonErrorReason, string> = {
  invalid_input: 'what it asked for was refused as invalid',
  not_found: 'something it named was not found',
  denied: 'it was refused',
  conflict: 'it conflicts with the current state',
  unknown_amount: 'an amount it depends on could not be known',
  agent_failed: 'another party it depends on failed or answered what cannot be read',
  corrupt_journal: 'the journal could not be read',
  lock_timeout: 'the journal or another party was busy',
  not_interactive: 'it needs a human at a terminal',
};

/** One denial as a sentence (seed 000's reasons). */
export function denialText(d: Denial): string {
  const text = ((): string => {
    switch (d.code) {
      case 'mandate_inactive':
        return `the mandate is ${d.params.status}`;
      case 'mandate_expired':
        return `the mandate expired at ${d.params.expires_at}`;
      case 'capability_missing':
        return `the mandate does not grant ${d.params.capability}`;
      case 'capability_scope':
        return `${d.params.capability} does not cover ${d.params.target} (it allows ${d.params.allowed.join(', ') || 'nothing'})`;
      case 'agent_out_of_scope':
        return `capabilities ${d.params.capabilities.join(', ')} are outside the mandate's scope (${d.params.allowed.join(', ')})`;
      case 'data_regions':
        return `data rules: processes data in ${d.params.regions.join(', ')}; the mandate allows only ${d.params.allowed.join(', ')}`;
      case 'data_training':
        return 'data rules: uses inputs for training; the mandate forbids training';
      case 'data_retention':
        return `data rules: retains data ${d.params.days} days; the mandate allows at most ${d.params.max}`;
      case 'no_rate':
        return `its price is in ${d.params.from} and no ${d.params.from}→${d.params.to} rate is set (holon fx)`;
      case 'over_per_call':
        return `worst case ${fmt(d.params.amount)} is above the per-call limit ${fmt(d.params.limit)}`;
      case 'over_max_cost':
        return `worst case ${fmt(d.params.amount)} is above max_cost ${fmt(d.params.limit)}`;
      case 'over_budget':
        return `worst case ${fmt(d.params.amount)} is above the remaining budget ${fmt(d.params.remaining)}`;
      case 'over_daily':
        return `worst case ${fmt(d.params.amount)} is above what is left today ${fmt(d.params.remaining)}`;
      case 'over_threshold':
        return `worst case ${fmt(d.params.amount)} is above the approval threshold ${fmt(d.params.threshold)}`;
      case 'delegation_cycle':
        return `delegation cycle: ${d.params.chain.join(' → ')}`;
      case 'delegation_depth':
        return `delegation deeper than ${d.params.max} levels`;
      case 'delegation_capability':
        return `a delegated call may only ask for a declared capability (${d.params.allowed.join(', ')}) by capability`;
      case 'delegation_count':
        return `the parent declared at most ${d.params.max} delegated calls`;
      case 'input_schema':
        return `the input does not match ${d.params.agent}'s input schema: ${d.params.problems.join('; ')}`;
      case 'no_agent':
        return `no agent the mandate allows offers capability "${d.params.capability}"`;
      case 'unknown_agent':
        return `no agent "${d.params.agent}" in the catalog`;
      case 'approval_not_found':
        return `approval ${d.params.approval} was not found under this mandate`;
      case 'approval_used':
        return `approval ${d.params.approval} was already used${d.params.used_by ? ` by ${d.params.used_by}` : ''}`;
      case 'approval_expired':
        return `approval ${d.params.approval} expired at ${d.params.expires_at}`;
      case 'approval_mismatch':
        return `approval ${d.params.approval} was given for something else: ${d.params.mismatches
          .map((m) =>
            m.field.endsWith('sha256') ? `a different ${m.field.replace(/_sha256$/, '')}` : `${m.field} ${m.approved}, not ${m.requested}`,
          )
          .join('; ')}`;
      case 'approval_amount_raised':
        return `the worst case is now ${fmt(d.params.amount)}, above the ${fmt(d.params.approved)} that was approved`;
      case 'rejected':
        return 'the human rejected this call';
      case 'recorded':
        return d.params.text;
      case 'atr_unfetchable':
        return 'The ATR could not be fetched from a public address within the limits.';
      case 'atr_not_advertised':
        return 'The payment request advertises no ATR hash and link to the ATR.';
      case 'hash_mismatch':
        return 'The bytes the link served do not hash to the advertised ATR hash.';
      case 'offer_unreadable':
        return `The payment request could not be read (${d.params.read}).`;
      case 'signature_invalid':
        return "The wallet's answer is not the payer's signature of the payment that was built.";
      case 'signed_not_bound':
        return 'The pairing reads no ATR hash from this payment.';
      case 'chosen_unverified':
        return 'The chosen payment is not one this server process returned, unchanged. Pass back chosen exactly as returned.';
      case 'opening_unverified':
        return (
          'The opening is not one this server process returned, unchanged. Pass back the ' +
          'opening, its landed receipt and its mac exactly as returned.'
        );
      case 'hold_unverified':
        return 'The hold is not one this server process returned, unchanged. Pass back the latest hold exactly as returned.';
      case 'agreement_failed':
        return `The agreement's receipt does not confirm this ATR (${d.params.reason}).`;
      case 'approval_pending':
        return (
          `approval ${d.params.approval} waits for the human: ask them to approve it (the ` +
          `Holon panel, or \`holon approve ${d.params.approval}\` at their terminal), then ` +
          `make the same call again. You cannot approve it yourself`
        );
      case 'no_rail':
        return d.params.why === 'own_account'
          ? `${d.params.payee} is the paying account itself`
          : d.params.why === 'unknown_account'
            ? `no Holon account ${d.params.payee.replace(/^acct:/, '')} to transfer to`
            : d.params.why === 'chain_currency'
              ? `${d.params.payee} is paid in the configured chain's token: the intent must be in its currency`
              : `${d.params.payee} is not an account on the chain Holon pays on with x402 (the human's RPC, token and facilitator ` +
                'settings), so pay cannot reach it';
      case 'spend_unconvertible':
        return (
          `a prior spend is in ${d.params.currencies.join(', ')} and no rate converts it to ${d.params.to} ` +
          `(holon fx), so what is left is unknown`
        );
      case 'rate_limited':
        return `more than ${d.params.limit} calls per ${d.params.per}: retry in ${d.params.retry_after_seconds} s`;
      case 'quota_exceeded':
        return (
          `the quota of ${d.params.limit} calls per ${d.params.per} is used up until ${d.params.resets_at}; a human ` +
          `can raise it (holon limits)`
        );
      case 'purchase_over_threshold':
        return (
          `the purchase total ${fmt(d.params.amount)} is above the approval threshold ${fmt(d.params.threshold)}, and a ` +
          `merchant's checkout cannot wait for a human's approval: a human must raise the ` +
          `threshold, or buy less`
        );
      case 'agreement_pending':
        return (
          'The agreement payment was sent and may settle yet: call again without approved ' +
          'to collect its receipt; never send approved again for this agreement.'
        );
      case 'toolset_not_offered':
        return `this mandate does not offer the ${d.params.toolset} toolset; a human adds it to the mandate`;
      case 'merchant_unusable':
        return d.params.why === 'endpoint_elsewhere'
          ? `the merchant ${d.params.merchant}'s profile names its checkout endpoint on another origin than ` +
              `${d.params.configured}, where it was configured; Holon sends nothing there, and asking again cannot change it`
          : `the merchant ${d.params.merchant}'s profile names no checkout endpoint (dev.ucp.shopping over REST); asking again ` +
              'cannot change it';
      case 'invalid_arguments':
        return `the arguments do not fit the tool's input schema (${d.params.fields.join(', ') || 'the arguments as a whole'})`;
      case 'call_failed':
        return `the call failed: ${CALL_FAILED_WORDS[d.params.reason]}`;
      case 'terms_paid':
        return (
          `these terms were already paid${d.params.transaction ? ` in transaction ${d.params.transaction}` : ''}: their nonce (H) ` +
          'is spent on the chain, so a new signature could never land; the seller must offer new terms. Nothing was signed or charged'
        );
      case 'payment_open':
        return (
          `a payment of these terms is signed already and may still land (settlement ${d.params.settlement}, until ` +
          `${d.params.until}): it is sent again, never a second one. Nothing new was signed or charged`
        );
      case 'other_chain':
        return d.params.configured
          ? `the payment asked for is in token ${d.params.asset} on ${d.params.network}, and Holon pays only in token ` +
              `${d.params.configured.asset} on ${d.params.configured.network}, the chain the human configured. Nothing was signed`
          : `the payment asked for is in token ${d.params.asset} on ${d.params.network}, and no chain is configured: Holon signs ` +
              'a payment only on a chain it reads it back from (the human sets the chain). Nothing was signed';
      case 'payee_undeclared':
        return d.params.declared
          ? `${d.params.agent} asks to be paid to ${d.params.payee ?? 'another payee'}, not to ${d.params.declared}, the payee its ` +
              'catalog entry declares. Nothing was signed'
          : `${d.params.agent}'s catalog entry declares no payee: Holon pays an x402 agent only to the payee the human added it ` +
              "with (its endpoint's payee). Nothing was signed";
      case 'terms_required':
        return (
          `${d.params.agent} offers no terms (seed 002's extensions.atr), and this mandate pays only on confirmed terms ` +
          "(its pay grant's require_terms). Nothing was signed"
        );
      case 'offer_unpayable':
        return (
          `${d.params.agent} asks to be paid in a way the wallet cannot pay: ` +
          (d.params.offered.length > 0
            ? d.params.offered.map((o) => `${o.scheme} on ${o.network} in ${o.asset}`).join('; ')
            : 'no offer that reads') +
          ". Holon signs x402's exact or upto, on the configured chain, in a token it knows. Nothing was signed"
        );
      case 'offer_above_hold':
        return (
          `${d.params.agent} asks ${fmt(d.params.amount)}, more than the ${fmt(d.params.limit)} this call holds for it ` +
          '(its catalog price). Nothing was signed'
        );
    }
  })();
  return d.agent ? `${d.agent}: ${text}` : text;
}

/** Every denial as a sentence. */
export function denialTexts(denials: readonly Denial[]): string[] {
  return denials.map(denialText);
}

/** Denials as JSON: a stable code, its parameters, and the agent it concerns. */
export function denialsJson(denials: readonly Denial[]): { code: string; params: Record<string, JsonValue>; agent?: string }[] {
  return denials.map((d) => ({
    code: d.code,
    params: d.params as unknown as Record<string, JsonValue>,
    ...(d.agent ? { agent: d.agent } : {}),
  }));
}

/** A JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
