/**
 * One refusal, four vocabularies: every denial code renders in each seed's form — market's reasons,
 * terms' declines, money's RFC 9457 problems with their action class, office's "Not permitted".
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Denial, DenialParams } from '../../src/core/kernel/denials.ts';
import { denial, DENIAL_CODES } from '../../src/core/kernel/denials.ts';
import type { HolonErrorReason } from '../../src/core/kernel/errors.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { denialText } from '../../src/core/kernel/words.ts';
import { marketFailure } from '../../src/server/render/market.ts';
import { officeFailure, officeFailureText } from '../../src/server/render/office.ts';
import { ALL_PROBLEM_CODES, ERROR_ACTIONS, isRetryable, problemFailure, problemOf, requiresHuman } from '../../src/server/render/problems.ts';
import { declineOf, termsFailure } from '../../src/server/render/terms.ts';

const eur = (amount: string): { amount: string; currency: string } => ({ amount, currency: 'EUR' });

/** A sample of every denial code (the compiler checks there is one for each). */
const SAMPLES: { [C in keyof DenialParams]: DenialParams[C] } = {
  mandate_inactive: { mandate: 'demo/sandbox', status: 'suspended' },
  mandate_expired: { mandate: 'demo/sandbox', expires_at: '2026-11-29T10:00:00.000Z' },
  capability_missing: { capability: 'mail.send' },
  capability_scope: { capability: 'mail.send', target: 'eve', allowed: ['ada'] },
  agent_out_of_scope: { capabilities: ['translation.text'], allowed: ['extraction.*'] },
  data_regions: { regions: ['US'], allowed: ['EU'] },
  data_training: {},
  data_retention: { days: 31, max: 30 },
  no_rate: { from: 'GBP', to: 'EUR' },
  over_per_call: { amount: eur('3.10'), limit: eur('1.00') },
  over_max_cost: { amount: eur('0.172'), limit: eur('0.10') },
  over_budget: { amount: eur('3.10'), remaining: eur('1.90') },
  over_daily: { amount: eur('3.10'), remaining: eur('0.90') },
  over_threshold: { amount: eur('3.10'), threshold: eur('0.50') },
  delegation_cycle: { chain: ['a/one', 'a/two', 'a/one'] },
  delegation_depth: { max: 4 },
  delegation_capability: { allowed: ['extraction.table'] },
  delegation_count: { max: 4 },
  input_schema: { agent: 'acme/table-extract', problems: ["must have required property 'file'"] },
  no_agent: { capability: 'translation.text' },
  unknown_agent: { agent: 'nobody/here' },
  approval_not_found: { approval: 'apr_1' },
  approval_used: { approval: 'apr_1', used_by: 'rcpt_1' },
  approval_expired: { approval: 'apr_1', expires_at: '2026-11-29T10:30:00.000Z' },
  approval_mismatch: { approval: 'apr_1', mismatches: [{ field: 'version', approved: '1.4.0', requested: '1.5.0' }] },
  approval_amount_raised: { approval: 'apr_1', amount: eur('0.324'), approved: eur('0.172') },
  rejected: { approval: 'apr_1' },
  recorded: { text: 'a reason in words' },
  atr_unfetchable: {},
  atr_not_advertised: {},
  hash_mismatch: { advertised: `0x${'ab'.repeat(32)}`, served: `0x${'cd'.repeat(32)}` },
  offer_unreadable: { read: 'x402/option-not-in-document' },
  signature_invalid: {},
  signed_not_bound: {},
  chosen_unverified: {},
  opening_unverified: {},
  hold_unverified: {},
  agreement_failed: { reason: 'the receipt names another ATR hash' },
  agreement_pending: {},
  approval_pending: { approval: 'apr_1' },
  purchase_over_threshold: { amount: eur('10.80'), threshold: eur('5.00') },
  no_rail: { payee: 'eip155:8453:0x1111111111111111111111111111111111111111', why: 'chain_account' },
  spend_unconvertible: { currencies: ['GBP'], to: 'EUR' },
  rate_limited: { limit: 60, per: 'minute', retry_after_seconds: 12 },
  quota_exceeded: { limit: 1000, per: 'day', resets_at: '2026-11-30T00:00:00.000Z' },
  toolset_not_offered: { toolset: 'commerce' },
  merchant_unusable: { merchant: 'hardware', configured: 'http://127.0.0.1:8802', why: 'endpoint_elsewhere' },
  invalid_arguments: { fields: ['subject', 'lines.0.price'] },
  call_failed: { reason: 'not_found' },
  terms_paid: { transaction: `0x${'12'.repeat(32)}` },
  payment_open: { settlement: 'stl_1', until: '2026-11-29T10:05:00.000Z' },
  other_chain: {
    network: 'eip155:8453',
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    configured: { network: 'eip155:31337', asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
  },
  payee_undeclared: { agent: 'sellers/tables', payee: 'eip155:31337:0x1111111111111111111111111111111111111111', declared: null },
  terms_required: { agent: 'weather/quickstart' },
  offer_unpayable: { agent: 'weather/quickstart', offered: [{ scheme: 'exact', network: 'solana:mainnet', asset: 'EPjFWdd5' }] },
  offer_above_hold: { agent: 'weather/quickstart', amount: { amount: '0.50', currency: 'EUR' }, limit: { amount: '0.01', currency: 'EUR' } },
};

const denialOf = (code: keyof DenialParams): Denial => ({ code, params: SAMPLES[code] }) as Denial;
const refusal = (...denials: Denial[]): HolonError => new HolonError('denied', denials.map(denialText).join('; '), {}, denials);

describe('every denial code renders in every seed\'s vocabulary', () => {
  for (const code of DENIAL_CODES) {
    test(code, () => {
      const d = denialOf(code);
      const words = denialText(d);
      assert.ok(words.length > 0 && !words.includes('undefined') && !words.includes('[object'), words);
      const err = refusal(d);

      const market = marketFailure(err);
      assert.equal(market.isError, true);
      const last = (market.content[0] as { text: string }).text.split('\n').at(-1) ?? '';
      const json = JSON.parse(last) as { error: { reason: string; denials: { code: string }[]; reasons: string[] } };
      assert.equal(json.error.reason, 'denied');
      assert.deepEqual(json.error.denials.map((x) => x.code), [code]);
      assert.deepEqual(json.error.reasons, [words]);

      assert.deepEqual(declineOf(err), { decline: { code: code.replace(/_/g, '-'), detail: words } });
      const terms = termsFailure(err);
      assert.equal(terms.isError, true);
      assert.deepEqual(JSON.parse((terms.content[0] as { text: string }).text), terms.structuredContent, 'the same JSON in both places');

      const p = problemOf(err);
      assert.ok(ALL_PROBLEM_CODES.includes(p.code));
      assert.ok(ERROR_ACTIONS.includes(p.action));
      assert.equal(p.data.action, p.action);
      assert.deepEqual(p.data.reasons, [words]);
      assert.equal((problemFailure(err).structuredContent as Record<string, unknown> | undefined)?.['code'], p.code);

      assert.equal(officeFailure(err).isError, true);
      assert.ok(officeFailureText(err).startsWith('Not permitted: '));
    });
  }
});

describe('the money problems: the strongest denial decides the code, the code its action', () => {
  test('over a cap with room left is renegotiated, with the most that passes; a refusal no smaller amount helps escalates', () => {
    const over = (...ds: Denial[]) => {
      const p = problemOf(refusal(...ds));
      return [p.code, p.action, p.data['remaining']];
    };
    const renegotiate = (most: string) => ['cost.above_cap', 'retry-after-renegotiation', eur(most)];
    assert.deepEqual(over(denialOf('over_budget')), renegotiate('1.90'));
    assert.deepEqual(over(denialOf('over_per_call')), renegotiate('1.00'));
    assert.deepEqual(over(denialOf('over_budget'), denialOf('over_daily')), renegotiate('0.90'), 'the smallest limit it was over');
    assert.deepEqual(over(denialOf('over_max_cost'), denialOf('over_budget')), renegotiate('0.10'), 'the caller\'s cap and the budget');
    assert.deepEqual(over(denialOf('over_max_cost')), renegotiate('0.10'));
    const escalate = ['intent.denied', 'escalate-to-human', undefined];
    assert.deepEqual(over(denial('over_budget', { amount: eur('0.20'), remaining: eur('0.00') })), escalate, 'nothing remaining');
    assert.deepEqual(over(denialOf('over_budget'), denialOf('capability_scope')), escalate, 'a payee not allowed');
    assert.deepEqual(over(denialOf('over_per_call'), denialOf('mandate_expired')), escalate, 'an expired mandate');
    assert.deepEqual(over(denialOf('over_budget'), denialOf('spend_unconvertible')), escalate, 'what is left is unknown');
    assert.deepEqual(over(denialOf('over_budget'), denial('over_daily', { amount: { amount: '3.10', currency: 'USD' }, remaining: { amount: '1.00', currency: 'USD' } })), escalate, 'limits in two currencies');
  });

  test('a wait is an approval; a bad approval is never retried', () => {
    assert.deepEqual([problemOf(refusal(denialOf('over_threshold'))).code, problemOf(refusal(denialOf('over_threshold'))).data.status], ['approval.pending', 202]);
    assert.equal(problemOf(refusal(denialOf('approval_used'))).action, 'never-retry');
    assert.equal(problemOf(refusal(denialOf('rejected'))).code, 'approval.rejected');
    assert.equal(problemOf(refusal(denialOf('no_rate'))).code, 'amount.unknown');
  });

  test('rate_limited and quota_exceeded share 429 and mean opposite things', () => {
    assert.equal(isRetryable('rate_limited'), true);
    assert.equal(requiresHuman('rate_limited'), false);
    assert.equal(isRetryable('quota_exceeded'), false);
    assert.equal(requiresHuman('quota_exceeded'), true);
  });

  test('every core failure reason has a problem, with the seed\'s members', () => {
    const reasons: HolonErrorReason[] = ['invalid_input', 'not_found', 'denied', 'conflict', 'unknown_amount', 'agent_failed', 'corrupt_journal', 'lock_timeout', 'not_interactive'];
    for (const reason of reasons) {
      const p = problemOf(new HolonError(reason, 'it failed', { intent: 'int_1' }));
      assert.ok(ALL_PROBLEM_CODES.includes(p.code), reason);
      assert.equal(p.message, 'it failed');
      assert.equal(p.data['intent'], 'int_1', 'details ride along');
      for (const k of ['type', 'status', 'action', 'nextStep', 'retryable', 'reasons']) assert.ok(k in p.data, `${reason}: data.${k}`);
    }
    assert.equal(problemOf(new HolonError('invalid_input', 'x')).code, 'validation');
    assert.equal(problemOf(new HolonError('not_found', 'x')).code, 'not_found');
    const absent = problemOf(new HolonError('not_found', 'no commerce', {}, [denialOf('toolset_not_offered')]));
    assert.deepEqual([absent.code, absent.data.reasons], ['not_found', [denialText(denialOf('toolset_not_offered'))]], "a failure's denials are its reasons");
    assert.deepEqual([problemOf(refusal(denialOf('merchant_unusable'))).code, problemOf(refusal(denialOf('merchant_unusable'))).action], ['merchant.misconfigured', 'never-retry']);
  });
});

describe('office: the seed\'s sentence', () => {
  test('a missing capability names it and points at approval_request; a recipient outside the grant too', () => {
    assert.equal(officeFailureText(refusal(denialOf('capability_missing'))), 'Not permitted: needs capability mail.send — use approval_request');
    assert.equal(officeFailureText(refusal(denialOf('capability_scope'))), 'Not permitted: needs capability mail.send (for eve) — use approval_request');
    assert.equal(officeFailureText(new HolonError('not_found', 'no thread 7')), 'not_found: no thread 7');
  });
});
