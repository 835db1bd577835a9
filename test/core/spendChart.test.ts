/**
 * Spend at a glance: a mandate's settled spend per UTC day and per payee, folded as the holds settle (never
 * by reading the journal back), with a delegated call's cost counted under the agent the mandate hired.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SPEND_DAYS_KEPT } from '../../src/core/fold/activity.ts';
import * as M from '../../src/core/kernel/amount.ts';
import { newId } from '../../src/core/kernel/ids.ts';
import { endHold, gateSpend } from '../../src/core/money/spend.ts';
import { payeeOf, spendChart } from '../../src/core/views/spendChart.ts';
import { holonReducer } from '../../src/core/fold/state.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import type { World } from './fixtures.ts';
import { ACME, failed, FILE_A, FILE_B, MANDATE, ok, PIPELINE, withWorld } from './fixtures.ts';

const DAY = 86_400_000;
const amounts = (xs: { spent: M.Money }[]): string[] => xs.map((x) => M.formatUnits(x.spent.units));

/** A payment to `payee` held and settled at once, as a payments toolset does. */
async function payment(w: World, payee: string, amount: string): Promise<void> {
  const id = newId('pay');
  await w.store.transact((s) => {
    const mandate = s.mandates[MANDATE];
    assert.ok(mandate);
    const subject = { kind: 'payment' as const, payee, amount: { amount, currency: 'EUR' }, terms_hash: 'ab'.repeat(32), purpose: 'a report' };
    const g = gateSpend(s, { id, mandate, payee: { kind: 'payee', id: payee }, amount: M.money(amount, 'EUR'), subject, now: w.clock.now() });
    assert.equal(g.kind, 'held');
    return { events: g.kind === 'held' ? g.events : [], result: undefined };
  });
  await w.store.transact((s) => ({ events: endHold(s, id, M.money(amount, 'EUR'), 'paid').events, result: undefined }));
}

describe('spend at a glance', () => {
  test('per day over the window, per payee and per group: a delegated call counts under the agent hired, a release counts nothing', () =>
    withWorld(
      async (w) => {
        const { gateway, runner, clock } = w;
        // Day 1: one call of acme.
        assert.equal((await gateway.call(MANDATE, { agent: ACME, input: { file: FILE_A } })).kind, 'done');
        // Day 2: the pipeline, whose two delegated calls of acme draw on its hold.
        clock.advance(DAY);
        runner.handler = async (req, agent) => {
          if (agent === ACME) return ok(1);
          const grant = gateway.grants.resolve((req.meta['holon/grant'] as { token: string }).token);
          assert.ok(grant);
          for (const file of [FILE_A, FILE_B]) await gateway.call(MANDATE, { capability: 'extraction.table', input: { file } }, { grant });
          return ok(4);
        };
        assert.equal((await gateway.call(MANDATE, { agent: PIPELINE, input: { files: [FILE_A, FILE_B] } })).kind, 'done');
        // Day 3: a payment to a seller, and a call that fails uncharged (released: nothing spent).
        clock.advance(DAY);
        await payment(w, 'eip155:8453:0xabc', '0.40');
        runner.handler = async () => failed('broken');
        await gateway.call(MANDATE, { agent: ACME, input: { file: FILE_A } });

        const chart = spendChart(w.store.state, MANDATE, clock.now());
        assert.ok(chart);
        assert.equal(chart.days.length, 30);
        assert.equal(chart.days.at(-1)?.day, new Date(clock.now()).toISOString().slice(0, 10), 'today last');
        const acmeCall = '0.0238';
        const pipeline = M.formatUnits(M.parseUnits('0.036') + 4n * M.parseUnits('0.01485') + 2n * M.parseUnits(acmeCall));
        assert.deepEqual(amounts(chart.days.slice(-3)), [acmeCall, pipeline, '0.40']);
        assert.deepEqual(amounts(chart.days.slice(0, -3)), Array(27).fill('0.00'));
        assert.deepEqual(
          chart.payees.map((p) => [p.key, M.formatUnits(p.spent.units)]),
          [
            ['payee:eip155:8453:0xabc', '0.40'],
            [`agent:${PIPELINE}`, pipeline],
            [`agent:${ACME}`, acmeCall],
          ],
          "the pipeline's delegated calls are the pipeline's spend, not acme's",
        );
        assert.deepEqual(
          chart.groups.map((g) => [g.group, M.formatUnits(g.spent.units)]),
          [
            ['payments', '0.40'],
            ['market', M.formatUnits(M.parseUnits(pipeline) + M.parseUnits(acmeCall))],
          ],
        );
        // The chart adds up to what the mandate spent, and draws the same per-day limit the gate checks.
        assert.equal(chart.total.units, chart.budget.spent.units);
        assert.deepEqual(chart.perDay, M.money('4.00', 'EUR'));
        assert.deepEqual(chart.otherCurrencies, []);
        // Read back from a snapshot's JSON, the day totals are bigints again.
        const again = holonReducer.deserialize(holonReducer.serialize(w.store.state)) as HolonState;
        assert.deepEqual(spendChart(again, MANDATE, clock.now()), chart);
      },
      { threshold: '5.00' },
    ));

  test('only the last days are kept: a day older than the window falls out of the fold', () =>
    withWorld(async (w) => {
      assert.equal((await w.gateway.call(MANDATE, { agent: ACME, input: { file: FILE_A } })).kind, 'done');
      const first = new Date(w.clock.now()).toISOString().slice(0, 10);
      w.clock.advance((SPEND_DAYS_KEPT + 1) * DAY);
      assert.equal((await w.gateway.call(MANDATE, { agent: ACME, input: { file: FILE_A } })).kind, 'done');
      const kept = Object.keys(w.store.state.spend_days.mandates[MANDATE] ?? {});
      assert.equal(kept.includes(first), false, `${first} is older than the window and still kept`);
      assert.equal(kept.length, 1);
      assert.equal(Object.keys(w.store.state.spend_days.open).length, 0, 'no settled hold is still followed');
    }));

  test('no such mandate: no chart; a payee key with colons reads back whole', () =>
    withWorld(async (w) => {
      assert.equal(spendChart(w.store.state, 'demo/nope', w.clock.now()), null);
      assert.deepEqual(payeeOf('payee:eip155:8453:0xabc'), { kind: 'payee', id: 'eip155:8453:0xabc' });
      assert.deepEqual(payeeOf(`agent:${ACME}`), { kind: 'agent', id: ACME });
    }));
});

test('the bars are exact thousandths of their axis: the busiest day or the per-day limit, whichever is more', () =>
  withWorld(
    async (w) => {
      assert.equal((await w.gateway.call(MANDATE, { agent: ACME, input: { file: FILE_A } })).kind, 'done');
      const chart = spendChart(w.store.state, MANDATE, w.clock.now());
      assert.ok(chart);
      // 0.0238 of a 0.20 limit: 119 thousandths; the limit's line at the top.
      assert.deepEqual(chart.dayScale, M.money('0.20', 'EUR'));
      assert.equal(chart.days.at(-1)?.permille, 119);
      assert.equal(chart.perDayPermille, 1000);
      assert.equal(chart.payees[0]?.permille, 1000);
    },
    { perDay: '0.20', perCall: null, threshold: '5.00' },
  ));
