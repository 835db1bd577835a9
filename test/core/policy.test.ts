import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMandate, patchMandate } from '../../src/core/accounts/mandates.ts';
import { fund } from '../../src/core/money/spend.ts';
import { setFx } from '../../src/core/money/fx.ts';
import type { AgentEntry, Mandate } from '../../src/core/kernel/model.ts';
import * as M from '../../src/core/kernel/amount.ts';
import type { WorstCase } from '../../src/core/market/policy.ts';
import { compareRankings, costOf, MAX_DELEGATION_DEPTH, MEASURED_RUNS_TO_TRUST, ownWorstCase, rankingOf, staticDenials } from '../../src/core/market/policy.ts';
import { marketIndex } from '../../src/core/market/marketIndex.ts';
import { mandateDenials } from '../../src/core/accounts/mandates.ts';
import { addAgent } from '../../src/core/market/catalog.ts';
import { budgetOf, limitDenials } from '../../src/core/money/spend.ts';
import { callablePatterns, capabilityMatches } from '../../src/core/kernel/capabilities.ts';
import { convertTo } from '../../src/core/money/fx.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { ACME, addSynthetic, failed, FASTCHEAP, FILE_A, LENA, MANDATE, manifest, ok, PIPELINE, QUICKSCAN, u, wideMandate, withWorld } from './fixtures.ts';

const entry = (s: HolonState, id: string): AgentEntry => {
  const e = s.agents[id];
  assert.ok(e, `agent ${id} in the catalog`);
  return e;
};
const mandateOf = (s: HolonState, id = MANDATE): Mandate => {
  const m = s.mandates[id];
  assert.ok(m, `mandate ${id}`);
  return m;
};
const worstCase = (s: HolonState, m: Mandate, e: AgentEntry): WorstCase => marketIndex(s, m).worstCase(e);
const allowedFor = (s: HolonState, m: Mandate, capability: string): AgentEntry[] => marketIndex(s, m).allowedFor(capability);
const codes = (ds: { code: string }[]): string[] => ds.map((d) => d.code);
const amount = (w: WorstCase): string => {
  assert.ok(w.ok, w.ok ? '' : JSON.stringify(w.denial));
  return M.format(w.amount);
};
const eur = (amount: string): { amount: string; currency: string } => ({ amount, currency: 'EUR' });

describe('capabilityMatches', () => {
  test('"*", "prefix.*" and exact names', () => {
    assert.equal(capabilityMatches('*', 'extraction.table'), true);
    assert.equal(capabilityMatches('*', 'anything'), true);
    assert.equal(capabilityMatches('extraction.*', 'extraction.table'), true);
    assert.equal(capabilityMatches('extraction.*', 'extraction.table.fr'), true);
    assert.equal(capabilityMatches('extraction.*', 'extraction'), false, 'the family itself is not one of its members');
    assert.equal(capabilityMatches('extraction.*', 'extractionx.table'), false);
    assert.equal(capabilityMatches('extraction.*', 'pipeline.invoices'), false);
    assert.equal(capabilityMatches('extraction.table', 'extraction.table'), true);
    assert.equal(capabilityMatches('extraction.table', 'extraction.tables'), false);
    assert.equal(capabilityMatches('extraction.table', 'extraction.*'), false, 'a pattern is not matched by a wider pattern');
    assert.equal(capabilityMatches('extraction', 'extraction.table'), false);
    assert.equal(capabilityMatches('extraction.t*', 'extraction.table'), false, 'only a whole-segment wildcard is a wildcard');
  });

  test('callablePatterns: none without market.call, "*" when it has no list', () => {
    const base = { capabilities: [] } as unknown as Mandate;
    assert.deepEqual(callablePatterns(base), []);
    assert.deepEqual(callablePatterns({ ...base, capabilities: [{ name: 'market.call' }] }), ['*']);
    assert.deepEqual(callablePatterns({ ...base, capabilities: [{ name: 'market.call', params: { capabilities: ['a.*', 3, 'b'] } }] }), ['a.*', 'b']);
    assert.deepEqual(callablePatterns({ ...base, capabilities: [{ name: 'pay', params: { payees: ['x'] } }] }), []);
  });
});

describe('staticDenials', () => {
  test('the demo agents: allowed ones have no denials; fastcheap breaks the region and training rules', () =>
    withWorld(async ({ store }) => {
      const s = store.state;
      const m = mandateOf(s);
      for (const id of [ACME, LENA, PIPELINE, QUICKSCAN]) assert.deepEqual(staticDenials(s, m, entry(s, id)), [], id);
      assert.deepEqual(staticDenials(s, m, entry(s, FASTCHEAP)), [
        { code: 'data_regions', params: { regions: ['US'], allowed: ['EU'] } },
        { code: 'data_training', params: {} },
      ]);
    }));

  test('retention above the mandate’s limit, and capabilities outside its scope', () =>
    withWorld(async ({ store, clock }) => {
      await addSynthetic(store, clock, manifest('x/keeper', ['extraction.table'], { data_policy: { regions: ['EU'], retention_days: 31, training: false } }));
      await addSynthetic(store, clock, manifest('x/translate', ['translation.text']));
      const s = store.state;
      const m = mandateOf(s);
      assert.deepEqual(staticDenials(s, m, entry(s, 'x/keeper')), [{ code: 'data_retention', params: { days: 31, max: 30 } }]);
      assert.deepEqual(staticDenials(s, m, entry(s, 'x/translate')), [{ code: 'agent_out_of_scope', params: { capabilities: ['translation.text'], allowed: ['extraction.*', 'pipeline.*'] } }]);
      // Without market.call nothing can be called.
      await patchMandate(store, clock, MANDATE, { capabilities: [{ name: 'hr.propose' }] });
      assert.deepEqual(staticDenials(store.state, mandateOf(store.state), entry(store.state, ACME)), [{ code: 'capability_missing', params: { capability: 'market.call' } }]);
    }));

  test('a price in a currency without a rate excludes the agent: its cost is unknown, never zero', () =>
    withWorld(async ({ store, clock, gateway }) => {
      await addSynthetic(store, clock, manifest('x/pounds', ['extraction.table'], { price: { currency: 'GBP', per_call: '0.01' } }));
      const s = store.state;
      const m = mandateOf(s);
      const e = entry(s, 'x/pounds');
      assert.deepEqual(staticDenials(s, m, e), [{ code: 'no_rate', params: { from: 'GBP', to: 'EUR' } }]);
      assert.equal(convertTo(s, M.money('0.01', 'GBP'), 'EUR'), undefined);
      const w = worstCase(s, m, e);
      assert.equal(w.ok, false);
      const r = rankingOf(s, m, e);
      assert.equal(r.expected_cost_per_success, null);
      assert.equal(r.mean_cost, null);
      assert.ok(!allowedFor(s, m, 'extraction.table').some((a) => a.manifest.id === 'x/pounds'));
      const view = gateway.describe(MANDATE, 'x/pounds');
      assert.equal(view.decision, 'deny');
      assert.equal(view.worst_case, null);
      const search = gateway.search(MANDATE, { capability: 'extraction.table' });
      assert.ok(search.excluded.some((v) => v.entry.manifest.id === 'x/pounds'));
      assert.ok(!search.agents.some((v) => v.entry.manifest.id === 'x/pounds'));
      // Once the human sets a rate, it converts (rounding up) and the agent is allowed.
      await setFx(store, 'GBP', 'EUR', '1.17');
      assert.deepEqual(staticDenials(store.state, m, e), []);
      assert.equal(amount(worstCase(store.state, m, e)), '0.0117 EUR');
    }));

  test('an agent that may ask to be paid needs a payee the mandate may pay: an x402 resource always, an MCP agent when it declares one', () =>
    withWorld(async ({ store, clock }) => {
      const payee = 'eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
      const other = 'eip155:31337:0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
      const mcp = { type: 'http' as const, url: 'http://127.0.0.1:1/mcp', tool: 'run' };
      const add = async (id: string, endpoint: AgentEntry['endpoint']): Promise<void> => {
        await addAgent(store, clock, manifest(id, ['extraction.table']), endpoint, 'test');
      };
      await add('x/free-tool', mcp);
      await add('x/paid-tool', { ...mcp, payee });
      await add('x/other-tool', { ...mcp, payee: other });
      await add('x/resource', { type: 'x402', url: 'http://127.0.0.1:1/r', method: 'GET', payee });
      await patchMandate(store, clock, MANDATE, { grants: [{ name: 'pay', params: { payees: [payee] } }] });
      const s = store.state;
      const m = mandateOf(s);
      assert.deepEqual(staticDenials(s, m, entry(s, 'x/free-tool')), [], 'never paid: called as any MCP agent');
      assert.deepEqual(staticDenials(s, m, entry(s, 'x/paid-tool')), []);
      assert.deepEqual(staticDenials(s, m, entry(s, 'x/resource')), []);
      assert.deepEqual(staticDenials(s, m, entry(s, 'x/other-tool')), [
        { code: 'capability_scope', params: { capability: 'pay', target: other, allowed: [payee] } },
      ]);
      await patchMandate(store, clock, MANDATE, { revoke: ['pay'] });
      assert.deepEqual(codes(staticDenials(store.state, mandateOf(store.state), entry(store.state, 'x/paid-tool'))), ['capability_missing']);
    }));
});

describe('convertTo', () => {
  test('uses the direct rate, or divides by the reverse rate rounding up', () =>
    withWorld(async ({ store }) => {
      const s = store.state;
      assert.deepEqual(convertTo(s, M.money('0.01', 'USD'), 'EUR'), M.money('0.0092', 'EUR'));
      // Only USD/EUR is set: EUR→USD divides by 0.92, rounding up (1 / 0.92 = 1.0869565…).
      assert.deepEqual(convertTo(s, M.money('1', 'EUR'), 'USD'), M.money('1.086957', 'USD'));
      assert.deepEqual(convertTo(s, M.money('0.92', 'EUR'), 'USD'), M.money('1', 'USD'));
      assert.deepEqual(convertTo(s, M.money('3', 'EUR'), 'EUR'), M.money('3', 'EUR'));
      assert.equal(convertTo(s, M.money('1', 'CHF'), 'EUR'), undefined);
    }));
});

describe('worstCase', () => {
  test('own worst case: the fixed part plus every unit the agent may bill; cost of a run is capped by it', () =>
    withWorld(async ({ store }) => {
      const s = store.state;
      const acme = entry(s, ACME);
      assert.equal(M.format(ownWorstCase(acme)), '0.172 EUR');
      assert.equal(M.format(ownWorstCase(entry(s, LENA))), '0.035 EUR');
      assert.equal(M.format(costOf(acme, 0)), '0.02 EUR');
      assert.equal(M.format(costOf(acme, 2)), '0.0276 EUR');
      assert.equal(M.format(costOf(acme, 2.9)), '0.0276 EUR', 'partial units are not billed');
      assert.equal(M.format(costOf(acme, 41)), '0.172 EUR', 'never above the declared maximum');
      assert.equal(M.format(costOf(acme, -3)), '0.02 EUR');
      assert.equal(M.format(costOf(entry(s, LENA), 7)), '0.035 EUR');
    }));

  test('the pipeline’s worst case is 3.10 EUR with its 4 delegated calls to the dearest allowed extractor', () =>
    withWorld(async ({ store }) => {
      const s = store.state;
      const m = mandateOf(s);
      const w = worstCase(s, m, entry(s, PIPELINE));
      // 0.036 + 160 × 0.01485 = 2.412, plus 4 × acme's 0.172 (fastcheap is not allowed, lena is cheaper).
      assert.equal(amount(w), '3.10 EUR');
      assert.ok(w.ok && w.delegated === 4);
      assert.equal(amount(worstCase(s, m, entry(s, ACME))), '0.172 EUR');
      // The USD agent, converted at 0.92.
      assert.equal(amount(worstCase(s, m, entry(s, QUICKSCAN))), '0.0092 EUR');
    }));

  test('a dearer allowed extractor raises the pipeline’s worst case; a disallowed one does not', () =>
    withWorld(async ({ store, clock }) => {
      await addSynthetic(store, clock, manifest('x/dear-us', ['extraction.table'], { price: { currency: 'EUR', per_call: '0.50' }, data_policy: { regions: ['US'], retention_days: 0, training: false } }));
      assert.equal(amount(worstCase(store.state, mandateOf(store.state), entry(store.state, PIPELINE))), '3.10 EUR');
      await addSynthetic(store, clock, manifest('x/dear-eu', ['extraction.table'], { price: { currency: 'USD', per_call: '0.25' } }));
      // 2.412 + 4 × 0.23 (0.25 USD at 0.92).
      assert.equal(amount(worstCase(store.state, mandateOf(store.state), entry(store.state, PIPELINE))), '3.332 EUR');
    }));

  test('a delegation cycle has no worst case, and is denied', () =>
    withWorld(async ({ store, clock, gateway, runner }) => {
      await wideMandate(store, clock);
      await addSynthetic(store, clock, manifest('loop/one', ['loop.one'], { delegated_calls: [{ capability: 'loop.two', max_count: 1 }] }));
      await addSynthetic(store, clock, manifest('loop/two', ['loop.two'], { delegated_calls: [{ capability: 'loop.one', max_count: 2 }] }));
      await addSynthetic(store, clock, manifest('loop/self', ['loop.self'], { delegated_calls: [{ capability: 'loop.self', max_count: 1 }] }));
      const s = store.state;
      const m = mandateOf(s, 'wide/any');
      const w = worstCase(s, m, entry(s, 'loop/one'));
      assert.deepEqual(w, { ok: false, denial: { code: 'delegation_cycle', params: { chain: ['loop/one', 'loop/two', 'loop/one'] } } });
      assert.deepEqual(worstCase(s, m, entry(s, 'loop/self')), { ok: false, denial: { code: 'delegation_cycle', params: { chain: ['loop/self', 'loop/self'] } } });
      const before = store.seq;
      const out = await gateway.call('wide/any', { agent: 'loop/one', input: {} });
      assert.equal(out.kind, 'denied');
      assert.deepEqual(codes(out.receipt.denials), ['delegation_cycle']);
      assert.equal(store.seq, before + 1);
      assert.equal(runner.calls.length, 0);
      assert.equal(gateway.describe('wide/any', 'loop/two').decision, 'deny');
    }));

  test(`a delegation chain of ${MAX_DELEGATION_DEPTH} levels has a worst case; one level more is refused`, () =>
    withWorld(async ({ store, clock }) => {
      await wideMandate(store, clock);
      const depth = MAX_DELEGATION_DEPTH + 1;
      for (let i = 1; i <= depth; i++) {
        const next = i < depth ? [{ capability: `chain.l${i + 1}`, max_count: 2 }] : [];
        await addSynthetic(store, clock, manifest(`chain/l${i}`, [`chain.l${i}`], { price: { currency: 'EUR', per_call: '0.01' }, delegated_calls: next }));
      }
      const s = store.state;
      const m = mandateOf(s, 'wide/any');
      // l2 → l3 → l4 → l5 is 4 levels: 0.01 × (1 + 2 + 4 + 8).
      assert.equal(amount(worstCase(s, m, entry(s, 'chain/l2'))), '0.15 EUR');
      const w = worstCase(s, m, entry(s, 'chain/l1'));
      assert.deepEqual(w, { ok: false, denial: { code: 'delegation_depth', params: { max: MAX_DELEGATION_DEPTH } } });
    }));
});

describe('budgetOf', () => {
  test('remaining is the least of the mandate’s room and the account’s funds', async () => {
    await withWorld(
      async ({ store, clock }) => {
        const b = budgetOf(store.state, mandateOf(store.state), clock.now());
        assert.equal(M.format(b.total), '5.00 EUR');
        assert.equal(M.format(b.remaining), '2.00 EUR', 'the account has only 2');
        assert.equal(M.format(b.account.available), '2.00 EUR');
        await fund(store, 'demo', '10');
        assert.equal(M.format(budgetOf(store.state, mandateOf(store.state), clock.now()).remaining), '5.00 EUR', 'now the mandate is the limit');
      },
      { funds: '2' },
    );
  });

  test('spent and held reduce the remaining budget; another mandate on the account reduces it too', () =>
    withWorld(async ({ store, clock, gateway, runner }) => {
      const m = (): Mandate => mandateOf(store.state);
      let during: ReturnType<typeof budgetOf> | undefined;
      runner.handler = () => {
        during = budgetOf(store.state, m(), clock.now());
        return ok(2);
      };
      const out = await gateway.call(MANDATE, { agent: ACME, input: { file: FILE_A } });
      assert.equal(out.kind, 'done');
      assert.ok(during);
      assert.equal(M.format(during.held), '0.172 EUR');
      assert.equal(M.format(during.remaining), '4.828 EUR');
      assert.equal(M.format(during.remaining_today ?? M.zero('EUR')), '3.828 EUR');
      const b = budgetOf(store.state, m(), clock.now());
      assert.equal(M.format(b.spent), '0.0276 EUR');
      assert.equal(M.format(b.held), '0.00 EUR');
      assert.equal(M.format(b.remaining), '4.9724 EUR');
      assert.equal(M.format(b.account.spent), '0.0276 EUR');
      // A second mandate of the same account spends 4.90: only 0.0724 is left in the account.
      await createMandate(store, clock, 'demo/other', { budget: { total: '5', per_call: null, per_day: null }, approval_threshold: '5' });
      runner.handler = () => ok(0);
      await addSynthetic(store, clock, manifest('x/big', ['extraction.big'], { price: { currency: 'EUR', per_call: '4.90' } }));
      const big = await gateway.call('demo/other', { agent: 'x/big', input: {} });
      assert.equal(big.kind, 'done');
      const after = budgetOf(store.state, m(), clock.now());
      assert.equal(M.format(after.remaining), '0.0724 EUR');
      assert.equal(M.format(after.spent), '0.0276 EUR', 'the mandate itself spent no more');
      // And so acme (worst case 0.172) no longer fits.
      assert.deepEqual(limitDenials(after, M.money('0.172', 'EUR'), undefined), [{ code: 'over_budget', params: { amount: eur('0.172'), remaining: eur('0.0724') } }]);
    }));

  test('per day: what was spent today counts; tomorrow starts afresh', () =>
    withWorld(async ({ store, clock, gateway, runner }) => {
      runner.handler = () => ok(40);
      for (let i = 0; i < 3; i++) assert.equal((await gateway.call(MANDATE, { agent: ACME, input: { file: FILE_A } })).kind, 'done');
      const m = mandateOf(store.state);
      const today = budgetOf(store.state, m, clock.now());
      assert.equal(M.format(today.spent_today), '0.516 EUR');
      assert.equal(M.format(today.remaining_today ?? M.zero('EUR')), '0.484 EUR');
      assert.equal(M.format(today.per_day ?? M.zero('EUR')), '1.00 EUR');
      clock.advance(24 * 60 * 60 * 1000);
      const tomorrow = budgetOf(store.state, m, clock.now());
      assert.equal(M.format(tomorrow.spent_today), '0.00 EUR');
      assert.equal(M.format(tomorrow.remaining_today ?? M.zero('EUR')), '1.00 EUR');
      assert.equal(M.format(tomorrow.spent), '0.516 EUR', 'the total does not reset');
      assert.equal(M.format(tomorrow.remaining), '4.484 EUR');
    }, { perDay: '1.00' }));

  test('no per-day or per-call limit: null, and nothing is refused for them', () =>
    withWorld(async ({ store, clock }) => {
      const b = budgetOf(store.state, mandateOf(store.state), clock.now());
      assert.equal(b.per_day, null);
      assert.equal(b.remaining_today, null);
      assert.equal(b.per_call, null);
      assert.deepEqual(limitDenials(b, M.money('3.10', 'EUR'), undefined), []);
      assert.deepEqual(codes(limitDenials(b, M.money('3.10', 'EUR'), M.money('3.09', 'EUR'))), ['over_max_cost']);
      assert.deepEqual(limitDenials(b, M.money('3.10', 'EUR'), M.money('3.10', 'EUR')), [], 'a worst case equal to a limit fits');
    }, { perDay: null, perCall: null }));

  test('mandateDenials: status and expiry', () => {
    const m = { id: MANDATE, status: 'active', expires_at: '2026-11-29T10:00:00.000Z' } as Mandate;
    const t = Date.parse('2026-11-29T10:00:00.000Z');
    assert.deepEqual(mandateDenials(m, t - 1), []);
    assert.deepEqual(mandateDenials(m, t), [{ code: 'mandate_expired', params: { mandate: MANDATE, expires_at: '2026-11-29T10:00:00.000Z' } }]);
    assert.deepEqual(mandateDenials({ ...m, status: 'suspended', expires_at: null }, t), [{ code: 'mandate_inactive', params: { mandate: MANDATE, status: 'suspended' } }]);
    assert.deepEqual(mandateDenials({ ...m, status: 'revoked', expires_at: null }, t), [{ code: 'mandate_inactive', params: { mandate: MANDATE, status: 'revoked' } }]);
  });
});

describe('rankingOf', () => {
  test('the publisher’s declared record is used until Holon has measured enough runs', () =>
    withWorld(async ({ store, gateway, runner }) => {
      const rank = (): ReturnType<typeof rankingOf> => rankingOf(store.state, mandateOf(store.state), entry(store.state, ACME));
      assert.deepEqual(rank(), {
        expected_cost_per_success: { amount: '0.027629', currency: 'EUR' },
        basis: 'declared',
        success_rate: '0.97',
        mean_cost: { amount: '0.0268', currency: 'EUR' },
        key: u('0.027629'),
      });
      // Runs: success, success, charged failure, success, success (each one page: 0.0238).
      const results = [ok(1), ok(1), failed('no_table_found', 1), ok(1), ok(1)];
      for (let i = 0; i < MEASURED_RUNS_TO_TRUST; i++) {
        assert.equal(rank().basis, 'declared', `after ${i} measured runs`);
        const r = results[i];
        assert.ok(r);
        runner.handler = () => r;
        assert.equal((await gateway.call(MANDATE, { agent: ACME, input: { file: FILE_A } })).kind, 'done');
      }
      assert.deepEqual(store.state.records[ACME], { runs: 5, succeeded: 4, cost_units: u('0.119'), duration_ms: 0 });
      // 0.0238 / 0.8 = 0.02975.
      assert.deepEqual(rank(), {
        expected_cost_per_success: { amount: '0.02975', currency: 'EUR' },
        basis: 'measured',
        success_rate: '0.80',
        mean_cost: { amount: '0.0238', currency: 'EUR' },
        key: u('0.02975'),
      });
    }));

  test('an agent without a record ranks by its price; a USD agent is converted; search orders by expected cost', () =>
    withWorld(async ({ store, clock, gateway }) => {
      await addSynthetic(store, clock, manifest('x/plain', ['extraction.table'], { price: { currency: 'EUR', per_call: '0.03' } }));
      const s = store.state;
      const m = mandateOf(s);
      assert.deepEqual(rankingOf(s, m, entry(s, 'x/plain')), { expected_cost_per_success: { amount: '0.03', currency: 'EUR' }, basis: 'price', success_rate: '1.00', mean_cost: { amount: '0.03', currency: 'EUR' }, key: u('0.03') });
      // 0.0096 USD × 0.92 = 0.008832 EUR, / 0.88 = 0.0100363… → 0.010037.
      assert.deepEqual(rankingOf(s, m, entry(s, QUICKSCAN)).expected_cost_per_success, { amount: '0.010037', currency: 'EUR' });
      const found = gateway.search(MANDATE, { capability: 'extraction.*' });
      assert.deepEqual(found.agents.map((v) => v.entry.manifest.id), [QUICKSCAN, ACME, 'x/plain', LENA]);
      assert.deepEqual(found.excluded.map((v) => v.entry.manifest.id), [FASTCHEAP]);
      assert.equal(found.excluded[0]?.decision, 'deny');
      assert.deepEqual(codes(found.excluded[0]?.denials ?? []), ['data_regions', 'data_training']);
      const all = gateway.search(MANDATE, {});
      assert.equal(all.agents.find((v) => v.entry.manifest.id === PIPELINE)?.decision, 'approval_required');
      assert.equal(all.agents.find((v) => v.entry.manifest.id === PIPELINE)?.worst_case?.amount, '3.10');
    }));

  test('compareRankings puts unknown costs last, then orders by id', () => {
    const r = (amount: string | null): ReturnType<typeof rankingOf> => ({ expected_cost_per_success: amount ? { amount, currency: 'EUR' } : null, basis: 'price', success_rate: null, mean_cost: null, key: amount ? u(amount) : null });
    const items = [
      { id: 'c', ranking: r(null) },
      { id: 'b', ranking: r('0.02') },
      { id: 'a', ranking: r(null) },
      { id: 'd', ranking: r('0.01') },
      { id: 'a2', ranking: r('0.02') },
    ];
    assert.deepEqual([...items].sort(compareRankings).map((i) => i.id), ['d', 'a2', 'b', 'a', 'c']);
  });
});

describe('the market index', () => {
  test('after calls move agents\' records, its order is the order a full sort gives, and so is every capability\'s', () =>
    withWorld(async ({ store, clock, gateway, runner }) => {
      for (let i = 0; i < 30; i++) {
        await addSynthetic(store, clock, manifest(`x/a${String(i).padStart(2, '0')}`, [i % 2 === 0 ? 'extraction.table' : 'extraction.totals'], { price: { currency: 'EUR', per_call: `0.0${(i % 9) + 1}` } }));
      }
      const m = mandateOf(store.state);
      const full = (): string[] =>
        Object.values(store.state.agents)
          .map((e) => ({ id: e.manifest.id, ranking: rankingOf(store.state, m, e) }))
          .sort(compareRankings)
          .map((x) => x.id);
      const idx = marketIndex(store.state, m);
      assert.deepEqual(idx.ranked().map((a) => a.id), full());
      // Calls that fail or cost more than declared move agents, one batch at a time.
      let round = 0;
      runner.handler = (_req, agent) => (agent.endsWith('3') || agent.endsWith('7') ? failed('boom') : ok(round));
      for (round = 0; round < 6; round++) {
        for (const id of ['x/a03', 'x/a07', 'x/a12', 'x/a20']) await gateway.call(MANDATE, { agent: id, input: {} });
        assert.equal(marketIndex(store.state, m), idx, 'the same index: only records changed');
        assert.deepEqual(idx.ranked().map((a) => a.id), full(), `round ${round}`);
        assert.deepEqual(
          idx.rankedFor('extraction.table').map((a) => a.id),
          full().filter((id) => store.state.agents[id]?.manifest.capabilities.includes('extraction.table') && idx.get(id)?.denials.length === 0),
        );
      }
    }, { threshold: '5.00', perDay: null, perCall: null, funds: '50', total: '50' }));
});
