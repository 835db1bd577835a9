import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { addAgent, readCatalog } from '../../src/core/market/catalog.ts';
import { createMandate, patchMandate } from '../../src/core/accounts/mandates.ts';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { waitForDecision } from '../../src/core/approvals/flow.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import type { CallOutcome, CallRequest, Grant } from '../../src/core/market/gateway.ts';
import type { DenialCode } from '../../src/core/kernel/denials.ts';
import { APPROVAL_TTL_MS } from '../../src/core/approvals/kinds/kind.ts';
import { Gateway } from '../../src/core/market/gateway.ts';
import { readReceipt, receiptTree, recentRootReceipts } from '../../src/core/market/receiptTree.ts';
import type { JournalEvent } from '../../src/core/store/store.ts';
import { eventHash } from '../../src/core/store/store.ts';
import type { Approval } from '../../src/core/approvals/model.ts';
import type { Receipt } from '../../src/core/kernel/model.ts';
import { canonicalHash } from '../../src/core/kernel/util.ts';
import { EXAMPLES, HANG_MS, seedDemo, tempDir, TestClock } from '../helpers.ts';
import { filesRoot, openState } from '../../src/core/holon.ts';
import { verifyJournal } from '../../src/core/verify.ts';
import type { World } from './fixtures.ts';
import {
  ACME,
  addSynthetic,
  deferred,
  failed,
  FakeRunner,
  FASTCHEAP,
  FILE_A,
  FILE_B,
  LENA,
  MANDATE,
  manifest,
  moneyOf,
  ok,
  PIPELINE,
  QUICKSCAN,
  rejectsWith,
  stateText,
  u,
  withWorld,
  world,
} from './fixtures.ts';

function done(out: CallOutcome): Receipt {
  assert.equal(out.kind, 'done', `expected a run, got ${out.kind}: ${JSON.stringify(out.receipt.denials)}`);
  return out.receipt;
}

function pending(out: CallOutcome): { receipt: Receipt; approval: Approval } {
  assert.equal(out.kind, 'pending', `expected a pending approval, got ${out.kind}: ${JSON.stringify(out.receipt.denials)}`);
  assert.ok(out.kind === 'pending');
  return { receipt: out.receipt, approval: out.approval };
}

const acmeCall = (input: unknown = { file: FILE_A }, extra: Partial<CallRequest> = {}): CallRequest => ({ agent: ACME, input, ...extra });

/** The call is denied with a denial of `code`: one denied receipt, no money moved, no agent reached. */
async function expectDenied(w: World, mandate: string, request: CallRequest, code: DenialCode): Promise<Receipt> {
  const money = moneyOf(w.store.state);
  const seq = w.store.seq;
  const runs = w.runner.calls.length;
  const out = await w.gateway.call(mandate, request);
  assert.equal(out.kind, 'denied', `expected a denial ${code}, got ${out.kind}`);
  assert.equal(out.receipt.status, 'denied');
  assert.ok(out.receipt.denials.some((d) => d.code === code), `denials ${JSON.stringify(out.receipt.denials)} do not include ${code}`);
  assert.equal(out.receipt.cost, null);
  assert.equal(w.store.seq, seq + 1, 'exactly one event: the denied receipt');
  assert.equal(w.store.events.at(-1)?.type, 'call.denied');
  const stored = await readReceipt(w.store, out.receipt.id);
  assert.equal(stored?.status, 'denied');
  assert.equal(stored?.mandate, mandate);
  assert.equal(w.store.state.open_receipts[out.receipt.id], undefined, 'a denied receipt is not kept in memory');
  assert.equal(moneyOf(w.store.state), money, 'no money moved');
  assert.equal(w.runner.calls.length, runs, 'no agent was reached');
  return out.receipt;
}

/** `fn` throws a HolonError of `reason` and the store is exactly as it was. */
async function expectRefused(w: World, fn: () => unknown, reason: Parameters<typeof rejectsWith>[1], re?: RegExp): Promise<void> {
  const state = stateText(w.store.state);
  const seq = w.store.seq;
  const runs = w.runner.calls.length;
  await rejectsWith(fn, reason, re);
  assert.equal(w.store.seq, seq, 'nothing was appended');
  assert.equal(stateText(w.store.state), state, 'the state did not change');
  assert.equal(w.runner.calls.length, runs);
}

describe('gateway: hold, run, settle', () => {
  test('a call holds its worst case while it runs, then settles the real cost and releases the rest', () =>
    withWorld(async (w) => {
      const { store, runner, gateway, filesRoot } = w;
      let receiptId = '';
      runner.handler = (req) => {
        receiptId = String(req.meta['holon/receipt']);
        const s = store.state;
        assert.equal(s.open_receipts[receiptId]?.status, 'running');
        assert.equal(s.holds[receiptId]?.units, u('0.172'));
        assert.equal(s.spend[MANDATE]?.held, u('0.172'));
        assert.equal(s.accounts['demo']?.held['EUR'], u('0.172'));
        assert.equal(s.spend[MANDATE]?.spent, 0n);
        assert.deepEqual(req.meta['holon/files'], { [FILE_A]: fs.realpathSync(path.join(filesRoot, 'a.pdf')) });
        assert.equal(req.meta['holon/grant'], undefined, 'acme delegates nothing: no grant');
        assert.deepEqual(req.input, { file: FILE_A });
        return ok(1, { total: '12.50' });
      };
      const seq = store.seq;
      const r = done(await gateway.call(MANDATE, acmeCall()));
      assert.equal(r.id, receiptId);
      assert.equal(runner.calls.length, 1);
      assert.deepEqual(
        store.events.slice(seq).map((e) => e.type),
        ['hold.placed', 'call.started', 'call.finished', 'hold.settled'],
      );
      assert.equal(r.status, 'succeeded');
      assert.deepEqual(r.cost, { amount: '0.0238', currency: 'EUR' });
      assert.deepEqual(r.worst_case, { amount: '0.172', currency: 'EUR' });
      assert.equal(r.agent, ACME);
      assert.equal(r.version, '1.4.0');
      assert.equal(r.capability, 'extraction.table');
      assert.equal(r.parent, null);
      assert.equal(r.error, null);
      // The ledger keeps the output's shape and size, never the agent's words.
      assert.equal(typeof r.output_summary, 'string');
      assert.ok(!String(r.output_summary).includes('12.50'), String(r.output_summary));
      assert.equal(r.input_summary, JSON.stringify({ file: FILE_A }));
      const s = store.state;
      assert.equal(s.spend[MANDATE]?.spent, u('0.0238'));
      assert.equal(s.spend[MANDATE]?.held, 0n);
      assert.equal(s.accounts['demo']?.held['EUR'], 0n);
      assert.equal(s.accounts['demo']?.spent['EUR'], u('0.0238'));
      assert.deepEqual(Object.keys(s.holds), []);
      assert.deepEqual(s.records[ACME], { runs: 1, succeeded: 1, cost_units: u('0.0238'), duration_ms: 0 });
    }));

  test('the duration comes from the clock', () =>
    withWorld(async ({ gateway, runner, clock }) => {
      runner.handler = () => {
        clock.advance(1234);
        return ok(1);
      };
      const r = done(await gateway.call(MANDATE, acmeCall()));
      assert.equal(r.duration_ms, 1234);
      assert.equal(Date.parse(r.ended_at ?? '') - Date.parse(r.started_at), 1234);
    }));

  test('the cost is never above the hold: units are capped, and a rate raised during the run does not raise it', () =>
    withWorld(async ({ gateway, runner, store }) => {
      runner.handler = () => ok(1000);
      const capped = done(await gateway.call(MANDATE, acmeCall()));
      assert.deepEqual(capped.cost, { amount: '0.172', currency: 'EUR' });
      // quickscan costs 0.01 USD = 0.0092 EUR held; the human raises the rate while it runs.
      runner.handler = async () => {
        await setFx(store, 'USD', 'EUR', '2');
        return ok(1);
      };
      const r = done(await gateway.call(MANDATE, { agent: QUICKSCAN, input: { file: FILE_A } }));
      assert.deepEqual(r.worst_case, { amount: '0.0092', currency: 'EUR' });
      assert.deepEqual(r.cost, { amount: '0.0092', currency: 'EUR' });
      assert.equal(store.state.spend[MANDATE]?.spent, u('0.172') + u('0.0092'));
      assert.equal(store.state.spend[MANDATE]?.held, 0n);
    }));

  test('failures: a charged declared error is charged; an uncharged, undeclared or unreachable one costs nothing', () =>
    withWorld(async ({ gateway, runner, store }) => {
      const cases: { result: () => ReturnType<typeof ok>; cost: string; code: string; charged: boolean }[] = [
        { result: () => failed('no_table_found', 2), cost: '0.0276', code: 'no_table_found', charged: true },
        { result: () => failed('unreadable_file', 5), cost: '0.00', code: 'unreadable_file', charged: false },
        { result: () => failed('made_up_error', 5), cost: '0.00', code: 'undeclared_error', charged: false },
        {
          result: () => {
            throw new Error('connection refused');
          },
          cost: '0.00',
          code: 'unreachable',
          charged: false,
        },
        { result: () => ({ isError: true, structured: null, text: 'no code given', units: 3 }), cost: '0.00', code: 'undeclared_error', charged: false },
      ];
      let spent = 0n;
      for (const c of cases) {
        runner.handler = c.result;
        const r = done(await gateway.call(MANDATE, acmeCall()));
        assert.equal(r.status, 'failed', c.code);
        assert.deepEqual(r.cost, { amount: c.cost, currency: 'EUR' }, c.code);
        assert.equal(r.error?.code, c.code);
        assert.equal(r.error?.charged, c.charged);
        assert.equal(r.output_summary, null);
        // The agent's own error text is data: it never lands in the receipt.
        assert.ok(!JSON.stringify(r).includes('failed: '), JSON.stringify(r.error));
        assert.ok(!JSON.stringify(r).includes('connection refused'));
        spent += u(c.cost);
        assert.equal(store.state.spend[MANDATE]?.spent, spent, c.code);
        assert.equal(store.state.spend[MANDATE]?.held, 0n, `${c.code}: the hold is released`);
      }
      assert.equal(runner.calls.length, cases.length);
      assert.deepEqual(store.state.records[ACME], { runs: 5, succeeded: 0, cost_units: u('0.0276'), duration_ms: 0 });
    }));

  test('an input that does not match the agent’s schema is denied before anything is held or sent', async () => {
    const w = await world();
    try {
      const gateway = new Gateway({
        store: w.store,
        clock: w.clock,
        logger: silentLogger,
        runner: w.runner,
        filesRoot: w.filesRoot,
        // Checks inputs only: an agent's input schema names `file`, its output schema does not.
        validate: (schema, value) => (JSON.stringify(schema).includes('"file"') && !(value as { file?: unknown }).file ? ['file is required'] : []),
      });
      const r = await expectDenied({ ...w, gateway }, MANDATE, acmeCall({ nofile: 1 }), 'input_schema');
      assert.deepEqual(r.denials[0]?.params, { agent: ACME, problems: ['file is required'] });
      assert.equal(w.store.state.records[ACME], undefined, 'a malformed input does not count against the agent');
      done(await gateway.call(MANDATE, acmeCall()));
    } finally {
      w.cleanup();
    }
  });

  test('by capability: the best-ranked allowed agent that fits is chosen', () =>
    withWorld(async ({ gateway, runner }) => {
      const r = done(await gateway.call(MANDATE, { capability: 'extraction.table', input: { file: FILE_A } }));
      assert.equal(r.agent, ACME);
      assert.equal(r.capability, 'extraction.table');
      // acme's worst case (0.172) is above max_cost: the next one, lena (0.035), fits.
      const r2 = done(await gateway.call(MANDATE, { capability: 'extraction.table', input: { file: FILE_A }, max_cost: { amount: '0.05', currency: 'EUR' } }));
      assert.equal(r2.agent, LENA);
      assert.deepEqual(runner.calls.map((c) => c.agent), [ACME, LENA]);
    }));

  test('a runner reporting a non-finite number of units still settles, and the hold is released', () =>
    withWorld(async ({ gateway, runner, store }) => {
      runner.handler = () => ok(Number.NaN);
      const r = done(await gateway.call(MANDATE, acmeCall()));
      assert.equal(r.status, 'succeeded');
      assert.equal(store.state.spend[MANDATE]?.held, 0n);
    }));
});

describe('gateway: denials leave a receipt and move no money', () => {
  const money = (amount: string): { amount: string; currency: string } => ({ amount, currency: 'EUR' });

  test('per-call limit', () =>
    withWorld(async (w) => {
      const r = await expectDenied(w, MANDATE, acmeCall(), 'over_per_call');
      assert.deepEqual(r.denials, [{ code: 'over_per_call', params: { amount: money('0.172'), limit: money('0.10') } }]);
    }, { perCall: '0.10' }));

  test('max_cost', () =>
    withWorld(async (w) => {
      const r = await expectDenied(w, MANDATE, acmeCall({ file: FILE_A }, { max_cost: money('0.10') }), 'over_max_cost');
      assert.deepEqual(r.denials[0]?.params, { amount: money('0.172'), limit: money('0.10') });
    }));

  test('remaining budget (the account’s funds)', () =>
    withWorld(async (w) => {
      const r = await expectDenied(w, MANDATE, acmeCall(), 'over_budget');
      assert.deepEqual(r.denials[0]?.params, { amount: money('0.172'), remaining: money('0.10') });
    }, { funds: '0.10' }));

  test('remaining budget (the mandate’s total, after spending)', () =>
    withWorld(async (w) => {
      w.runner.handler = () => ok(40);
      done(await w.gateway.call(MANDATE, acmeCall()));
      const r = await expectDenied(w, MANDATE, acmeCall(), 'over_budget');
      assert.deepEqual(r.denials[0]?.params, { amount: money('0.172'), remaining: money('0.128') });
    }, { total: '0.30' }));

  test('per day', () =>
    withWorld(async (w) => {
      const r = await expectDenied(w, MANDATE, acmeCall(), 'over_daily');
      assert.deepEqual(r.denials[0]?.params, { amount: money('0.172'), remaining: money('0.10') });
    }, { perDay: '0.10' }));

  test('a suspended mandate', () =>
    withWorld(async (w) => {
      await patchMandate(w.store, w.clock, MANDATE, { status: 'suspended' });
      const r = await expectDenied(w, MANDATE, acmeCall(), 'mandate_inactive');
      assert.deepEqual(r.denials[0]?.params, { mandate: MANDATE, status: 'suspended' });
    }));

  test('an expired mandate', () =>
    withWorld(async (w) => {
      await patchMandate(w.store, w.clock, MANDATE, { expires_at: new Date(w.clock.now() + 60_000).toISOString() });
      done(await w.gateway.call(MANDATE, acmeCall()));
      w.clock.advance(60_000);
      await expectDenied(w, MANDATE, acmeCall(), 'mandate_expired');
    }));

  test('an agent or a capability outside the mandate’s scope', () =>
    withWorld(async (w) => {
      await addSynthetic(w.store, w.clock, manifest('x/translate', ['translation.text']));
      const r = await expectDenied(w, MANDATE, { agent: 'x/translate', input: {} }, 'agent_out_of_scope');
      assert.deepEqual(r.denials[0]?.params, { capabilities: ['translation.text'], allowed: ['extraction.*', 'pipeline.*'] });
      const r2 = await expectDenied(w, MANDATE, { capability: 'translation.text', input: {} }, 'no_agent');
      assert.deepEqual(r2.denials[0]?.params, { capability: 'translation.text' });
    }));

  test('an agent that breaks the data rules', () =>
    withWorld(async (w) => {
      const r = await expectDenied(w, MANDATE, { agent: FASTCHEAP, input: { file: FILE_A } }, 'data_regions');
      assert.deepEqual(r.denials.map((d) => d.code), ['data_regions', 'data_training']);
    }));

  test('by capability, when no allowed agent fits, the reasons name the candidates', () =>
    withWorld(async (w) => {
      const r = await expectDenied(w, MANDATE, { capability: 'extraction.table', input: { file: FILE_A }, max_cost: { amount: '0.01', currency: 'EUR' } }, 'over_max_cost');
      assert.deepEqual(r.denials[0], { code: 'over_max_cost', params: { amount: money('0.172'), limit: money('0.01') }, agent: ACME });
      assert.ok(!r.denials.some((d) => d.agent === FASTCHEAP), 'an agent the mandate does not allow is not a candidate');
    }));

  test('every limit that is broken is listed', () =>
    withWorld(async (w) => {
      const r = await expectDenied(w, MANDATE, acmeCall({ file: FILE_A }, { max_cost: { amount: '0.10', currency: 'EUR' } }), 'over_per_call');
      assert.deepEqual(r.denials.map((d) => d.code), ['over_per_call', 'over_max_cost', 'over_budget', 'over_daily']);
    }, { perCall: '0.10', perDay: '0.10', funds: '0.10' }));
});

describe('gateway: bad input throws and changes nothing', () => {
  test('the request’s shape, unknown agent or mandate, bad max_cost', () =>
    withWorld(async (w) => {
      const call = (m: string, r: CallRequest) => () => w.gateway.call(m, r);
      await expectRefused(w, call(MANDATE, { agent: ACME, capability: 'extraction.table', input: {} }), 'invalid_input', /exactly one/);
      await expectRefused(w, call(MANDATE, { input: {} }), 'invalid_input', /exactly one/);
      await expectRefused(w, call(MANDATE, { agent: 'nobody/here', input: {} }), 'not_found');
      await expectRefused(w, call('demo/nope', acmeCall()), 'not_found');
      for (const amount of ['0', '-1', '1e3', '0.1234567', '', '-']) {
        await expectRefused(w, call(MANDATE, acmeCall({ file: FILE_A }, { max_cost: { amount, currency: 'EUR' } })), 'invalid_input');
      }
      await expectRefused(w, call(MANDATE, acmeCall({ file: FILE_A }, { max_cost: { amount: '1', currency: 'eur' } })), 'invalid_input');
      // A cap in another currency cannot be compared with the worst case.
      await expectRefused(w, call(MANDATE, acmeCall({ file: FILE_A }, { max_cost: { amount: '1', currency: 'USD' } })), 'invalid_input');
    }));

  test('file handles outside the files folder, missing, or through a symlink are refused', () =>
    withWorld(async (w) => {
      const { filesRoot, tmp } = w;
      fs.symlinkSync(path.join(tmp, 'outside.pdf'), path.join(filesRoot, 'link.pdf'));
      fs.symlinkSync(tmp, path.join(filesRoot, 'up'));
      fs.mkdirSync(path.join(tmp, 'files-evil'));
      fs.writeFileSync(path.join(tmp, 'files-evil', 'x.pdf'), 'x');
      const bad = [
        'holon://files/../outside.pdf',
        'holon://files/sub/../../outside.pdf',
        'holon://files/missing.pdf',
        'holon://files/link.pdf',
        'holon://files/up/outside.pdf',
        'holon://files/../files-evil/x.pdf',
        `holon://files/${path.join(tmp, 'outside.pdf')}`,
        'holon://files/sub',
        'holon://files/',
      ];
      for (const handle of bad) {
        await expectRefused(w, () => w.gateway.call(MANDATE, acmeCall({ file: handle })), 'invalid_input');
        // Wherever it hides in the input.
        await expectRefused(w, () => w.gateway.call(MANDATE, acmeCall({ file: FILE_A, more: [{ deep: [handle] }] })), 'invalid_input');
      }
      const err = await rejectsWith(() => w.gateway.call(MANDATE, acmeCall({ file: 'holon://files/../outside.pdf' })), 'invalid_input');
      assert.equal(err.details['handle'], 'holon://files/../outside.pdf');
    }));

  test('good handles resolve to real paths inside the files folder, wherever they are in the input', () =>
    withWorld(async ({ gateway, runner, filesRoot }) => {
      done(await gateway.call(MANDATE, acmeCall({ file: FILE_A, more: [{ deep: ['holon://files/sub/d.pdf', FILE_B] }], note: 'not a holon://files/ handle' })));
      const real = (f: string): string => fs.realpathSync(path.join(filesRoot, f));
      assert.deepEqual(runner.calls[0]?.req.meta['holon/files'], { [FILE_A]: real('a.pdf'), 'holon://files/sub/d.pdf': real('sub/d.pdf'), [FILE_B]: real('b.pdf') });
    }));
});

describe('gateway: approvals', () => {
  const opts = { threshold: '0.10' };

  test('a call over the threshold asks for approval and holds nothing', () =>
    withWorld(async ({ gateway, store, runner, clock }) => {
      const money = moneyOf(store.state);
      const seq = store.seq;
      const { receipt, approval } = pending(await gateway.call(MANDATE, acmeCall()));
      assert.equal(runner.calls.length, 0);
      assert.equal(moneyOf(store.state), money);
      assert.deepEqual(
        store.events.slice(seq).map((e) => e.type),
        ['approval.requested', 'call.pending', 'approval.released'],
      );
      assert.equal(receipt.status, 'pending_approval');
      assert.equal(receipt.approval, approval.id);
      assert.deepEqual(receipt.denials, [{ code: 'over_threshold', params: { amount: { amount: '0.172', currency: 'EUR' }, threshold: { amount: '0.10', currency: 'EUR' } } }]);
      assert.equal(store.state.open_receipts[receipt.id]?.status, 'pending_approval');
      const a = store.state.approvals[approval.id];
      assert.ok(a);
      assert.equal(a.status, 'pending');
      assert.equal(a.released, true, 'nobody waits for it: the agent must re-submit');
      assert.equal(a.mandate, MANDATE);
      assert.equal(a.kind, 'agent_call');
      assert.ok(a.subject.kind === 'agent_call');
      assert.equal(a.subject.agent, ACME);
      assert.equal(a.subject.version, '1.4.0');
      assert.equal(a.subject.input_sha256, canonicalHash({ file: FILE_A }));
      assert.deepEqual(a.bound, { agent: ACME, version: '1.4.0', input_sha256: canonicalHash({ file: FILE_A }) });
      assert.equal(a.binding, canonicalHash({ kind: 'agent_call', mandate: MANDATE, ...a.bound }));
      assert.equal(a.ref, receipt.id);
      assert.deepEqual(a.amount, { amount: '0.172', currency: 'EUR' });
      assert.deepEqual(a.threshold, { amount: '0.10', currency: 'EUR' });
      assert.equal(Date.parse(a.expires_at), clock.now() + APPROVAL_TTL_MS);
      assert.equal(gateway.approvalStatus(MANDATE, approval.id).status, 'pending');
      // Re-submitted before the human decided: still pending, nothing new is created.
      const again = await gateway.call(MANDATE, acmeCall({ file: FILE_A }, { approval: approval.id }));
      assert.equal(again.kind, 'pending');
      assert.equal(again.receipt.id, receipt.id);
      assert.equal(Object.keys(store.state.approvals).length, 1);
      assert.equal(runner.calls.length, 0);
    }, opts));

  test('an approved approval runs once, under the receipt it was asked for', () =>
    withWorld(async ({ gateway, store, runner, clock }) => {
      const { receipt, approval } = pending(await gateway.call(MANDATE, acmeCall({ file: FILE_A, pages: 'all' })));
      const decided = await decideApproval(store, clock, approval.id, 'approved', 'panel');
      assert.equal(decided.status, 'approved');
      assert.equal(decided.channel, 'panel');
      // Same input with its keys in another order: the canonical hash is the same.
      const r = done(await gateway.call(MANDATE, acmeCall({ pages: 'all', file: FILE_A }, { approval: approval.id })));
      assert.equal(r.id, receipt.id);
      assert.equal(r.approval, approval.id);
      assert.equal(r.status, 'succeeded');
      assert.equal(runner.calls.length, 1);
      assert.equal(store.state.approvals[approval.id]?.status, 'used');
      assert.equal(store.state.approvals[approval.id]?.used_by, receipt.id);
      assert.deepEqual(
        (await recentRootReceipts(store, { mandate: MANDATE, limit: 100 })).map((x) => x.id),
        [receipt.id],
        'one receipt, not two',
      );
      assert.equal(store.state.spend[MANDATE]?.spent, u('0.0238'));
      // Used twice: refused.
      const used = await expectDeniedAfter(gateway, store, runner, acmeCall({ file: FILE_A, pages: 'all' }, { approval: approval.id }), 'approval_used');
      assert.deepEqual(used.denials[0]?.params, { approval: approval.id, used_by: receipt.id });
    }, opts));

  test('a waiter that gets the human’s yes runs the call at once', () =>
    withWorld(async ({ gateway, store, runner, clock }) => {
      let asked: Approval | undefined;
      const out = await gateway.call(MANDATE, acmeCall(), {
        waitForApproval: async (a) => {
          asked = a;
          assert.equal(runner.calls.length, 0);
          await decideApproval(store, clock, a.id, 'approved', 'elicitation');
          return 'approved';
        },
      });
      const r = done(out);
      assert.ok(asked);
      assert.equal(r.id, asked.ref);
      assert.equal(store.state.approvals[asked.id]?.status, 'used');
      assert.equal(store.state.approvals[asked.id]?.channel, 'elicitation');
      assert.equal(store.state.approvals[asked.id]?.released, undefined, 'someone was waiting: not released');
      assert.equal(runner.calls.length, 1);
    }, opts));

  test('a decision that lands just as the waiter gives up still runs the call', () =>
    withWorld(async ({ gateway, store, runner, clock }) => {
      const out = await gateway.call(MANDATE, acmeCall(), {
        waitForApproval: async (a) => {
          await decideApproval(store, clock, a.id, 'approved', 'panel');
          return 'pending';
        },
      });
      const r = done(out);
      assert.equal(runner.calls.length, 1);
      assert.equal(store.state.approvals[r.approval ?? '']?.status, 'used');
    }, opts));

  test('a rejected approval: the waiter’s no, or a re-submission after it, returns rejected and runs nothing', () =>
    withWorld(async ({ gateway, store, runner, clock }) => {
      const out = await gateway.call(MANDATE, acmeCall(), {
        waitForApproval: async (a) => {
          await decideApproval(store, clock, a.id, 'rejected', 'panel');
          return 'rejected';
        },
      });
      assert.equal(out.kind, 'rejected');
      assert.equal(out.receipt.status, 'rejected');
      assert.deepEqual(out.receipt.denials, [{ code: 'rejected', params: { approval: out.kind === 'rejected' ? out.approval.id : '' } }]);
      const id = out.kind === 'rejected' ? out.approval.id : '';
      const money = moneyOf(store.state);
      const again = await gateway.call(MANDATE, acmeCall({ file: FILE_A }, { approval: id }));
      assert.equal(again.kind, 'rejected');
      assert.equal(runner.calls.length, 0);
      assert.equal(moneyOf(store.state), money);
    }, opts));

  test('an approval cannot be used for another input, agent version or mandate, nor after it expired', () =>
    withWorld(async ({ gateway, store, runner, clock }) => {
      const { receipt, approval } = pending(await gateway.call(MANDATE, acmeCall()));
      await decideApproval(store, clock, approval.id, 'approved', 'cli');
      const deny = (request: CallRequest, code: DenialCode, mandate = MANDATE): Promise<Receipt> => expectDeniedAfter(gateway, store, runner, request, code, mandate);
      const mismatched = async (request: CallRequest, fields: string[]): Promise<Receipt> => {
        const r = await deny(request, 'approval_mismatch');
        const d = r.denials[0];
        assert.ok(d?.code === 'approval_mismatch');
        assert.deepEqual(d.params.mismatches.map((m) => m.field), fields);
        return r;
      };

      const other = await mismatched(acmeCall({ file: FILE_B }, { approval: approval.id }), ['input_sha256']);
      assert.notEqual(other.id, receipt.id, 'a refused re-use gets its own receipt');
      assert.equal((await readReceipt(store, receipt.id))?.status, 'pending_approval', 'the approved receipt is untouched');
      await mismatched({ agent: LENA, input: { file: FILE_A }, approval: approval.id }, ['agent', 'version']);

      await createMandate(store, clock, 'demo/other', { approval_threshold: '0.10', capabilities: [{ name: 'market.call', params: { capabilities: ['extraction.*'] } }] });
      await deny(acmeCall({ file: FILE_A }, { approval: approval.id }), 'approval_not_found', 'demo/other');
      await deny(acmeCall({ file: FILE_A }, { approval: 'apr_doesnotexist' }), 'approval_not_found');

      // The human re-adds acme with a new version: the approval was for 1.4.0.
      const acme = (await readCatalog(path.join(EXAMPLES, 'catalog.json'))).find((a) => a.manifest.id === ACME);
      assert.ok(acme);
      await addAgent(store, clock, { ...acme.manifest, version: '1.5.0' }, acme.endpoint, 'test');
      const v = await mismatched(acmeCall({ file: FILE_A }, { approval: approval.id }), ['version']);
      assert.deepEqual(v.denials[0]?.code === 'approval_mismatch' && v.denials[0].params.mismatches, [{ field: 'version', approved: '1.4.0', requested: '1.5.0' }]);
      await addAgent(store, clock, acme.manifest, acme.endpoint, 'test');

      // Still good for exactly what was approved… until it expires.
      clock.advance(APPROVAL_TTL_MS);
      await deny(acmeCall({ file: FILE_A }, { approval: approval.id }), 'approval_expired');
      assert.equal(gateway.approvalStatus(MANDATE, approval.id).status, 'expired');
      assert.equal(store.state.approvals[approval.id]?.status, 'approved');
      assert.equal(runner.calls.length, 0);
    }, opts));

  test('an approval does not cover a worst case that grew since the human saw it', () =>
    withWorld(async ({ gateway, store, runner, clock }) => {
      const { receipt, approval } = pending(await gateway.call(MANDATE, acmeCall()));
      await decideApproval(store, clock, approval.id, 'approved', 'panel');
      // Same agent, same version, but now it may bill 80 pages: 0.02 + 80 × 0.0038 = 0.324.
      const acme = store.state.agents[ACME];
      assert.ok(acme?.manifest.price.per_unit);
      await addAgent(store, clock, { ...acme.manifest, price: { ...acme.manifest.price, per_unit: { ...acme.manifest.price.per_unit, max_units: 80 } } }, acme.endpoint, 'test');
      const raised = await expectDeniedAfter(gateway, store, runner, acmeCall({ file: FILE_A }, { approval: approval.id }), 'approval_amount_raised');
      assert.deepEqual(raised.denials[0]?.params, { approval: approval.id, amount: { amount: '0.324', currency: 'EUR' }, approved: { amount: '0.172', currency: 'EUR' } });
      // Cheaper is fine.
      await addAgent(store, clock, { ...acme.manifest, price: { ...acme.manifest.price, per_unit: { ...acme.manifest.price.per_unit, max_units: 20 } } }, acme.endpoint, 'test');
      const r = done(await gateway.call(MANDATE, acmeCall({ file: FILE_A }, { approval: approval.id })));
      assert.equal(r.id, receipt.id);
    }, opts));

  test('after a refused re-use, the approval still works for its own input', () =>
    withWorld(async ({ gateway, store, runner, clock }) => {
      const { receipt, approval } = pending(await gateway.call(MANDATE, acmeCall()));
      await decideApproval(store, clock, approval.id, 'approved', 'cli');
      await expectDeniedAfter(gateway, store, runner, acmeCall({ file: FILE_B }, { approval: approval.id }), 'approval_mismatch');
      const r = done(await gateway.call(MANDATE, acmeCall({ file: FILE_A }, { approval: approval.id })));
      assert.equal(r.id, receipt.id);
    }, opts));

  test('two calls racing with one approval: exactly one runs', () =>
    withWorld(async ({ gateway, store, runner, clock }) => {
      const { approval } = pending(await gateway.call(MANDATE, acmeCall()));
      await decideApproval(store, clock, approval.id, 'approved', 'cli');
      const gate = deferred();
      runner.handler = async () => {
        await gate.promise;
        return ok(1);
      };
      const both = Promise.all([gateway.call(MANDATE, acmeCall({ file: FILE_A }, { approval: approval.id })), gateway.call(MANDATE, acmeCall({ file: FILE_A }, { approval: approval.id }))]);
      gate.resolve();
      const outs = await both;
      assert.deepEqual(outs.map((o) => o.kind).sort(), ['denied', 'done']);
      assert.equal(runner.calls.length, 1);
      assert.equal(store.state.spend[MANDATE]?.spent, u('0.0238'));
    }, opts));

  test('decideApproval: the first decision wins; unknown or expired approvals are refused', () =>
    withWorld(async (w) => {
      const { gateway, store, clock } = w;
      const { approval } = pending(await gateway.call(MANDATE, acmeCall()));
      await decideApproval(store, clock, approval.id, 'approved', 'panel');
      const err = await rejectsWith(() => decideApproval(store, clock, approval.id, 'rejected', 'cli'), 'conflict', /already approved \(panel\)/);
      assert.equal(err.details['status'], 'approved');
      await expectRefused(w, () => decideApproval(store, clock, approval.id, 'approved', 'elicitation'), 'conflict');
      assert.equal(store.state.approvals[approval.id]?.status, 'approved');
      assert.equal(store.state.approvals[approval.id]?.channel, 'panel');
      await expectRefused(w, () => decideApproval(store, clock, 'apr_nope', 'approved', 'cli'), 'not_found');

      const second = pending(await gateway.call(MANDATE, acmeCall({ file: FILE_B })));
      await decideApproval(store, clock, second.approval.id, 'rejected', 'cli');
      await expectRefused(w, () => decideApproval(store, clock, second.approval.id, 'approved', 'panel'), 'conflict');
      assert.equal((await readReceipt(store, second.receipt.id))?.status, 'rejected');
      assert.equal(store.state.open_receipts[second.receipt.id], undefined, 'a rejected receipt leaves memory');

      const third = pending(await gateway.call(MANDATE, acmeCall({ file: 'holon://files/c.pdf' })));
      clock.advance(APPROVAL_TTL_MS + 1);
      const expired = await rejectsWith(() => decideApproval(store, clock, third.approval.id, 'approved', 'panel'), 'conflict', /expired/);
      assert.equal(expired.details['status'], 'expired');
      assert.equal(store.state.approvals[third.approval.id]?.status, 'pending');
    }, opts));

  test('waitForDecision resolves with the decision made elsewhere, or pending when time is up', () =>
    withWorld(async ({ gateway, store, clock }) => {
      const { approval } = pending(await gateway.call(MANDATE, acmeCall()));
      assert.equal(await waitForDecision(store, approval.id, 0), 'pending');
      const waiting = waitForDecision(store, approval.id, HANG_MS);
      await decideApproval(store, clock, approval.id, 'approved', 'panel');
      assert.equal(await waiting, 'approved');
      const second = pending(await gateway.call(MANDATE, acmeCall({ file: FILE_B })));
      const controller = new AbortController();
      const aborted = waitForDecision(store, second.approval.id, HANG_MS, { signal: controller.signal });
      controller.abort();
      assert.equal(await aborted, 'pending');
    }, opts));
});

/** Like expectDenied, for tests that hold the world's parts rather than the world. */
function expectDeniedAfter(gateway: Gateway, store: World['store'], runner: World['runner'], request: CallRequest, code: DenialCode, mandate = MANDATE): Promise<Receipt> {
  return expectDenied({ gateway, store, runner } as World, mandate, request, code);
}

describe('gateway: concurrency', () => {
  test('concurrent calls can never together hold or spend more than the budget', () =>
    withWorld(async ({ gateway, store, runner }) => {
      const gate = deferred();
      runner.handler = async () => {
        await gate.promise;
        return ok(40);
      };
      // 0.40 EUR of funds, worst case 0.172 each: two fit, the third does not.
      const calls = Promise.all([1, 2, 3].map((i) => gateway.call(MANDATE, acmeCall({ file: FILE_A, i }))));
      await new Promise((r) => setImmediate(r));
      assert.equal(store.state.spend[MANDATE]?.held, u('0.344'));
      gate.resolve();
      const outs = await calls;
      assert.deepEqual(outs.map((o) => o.kind).sort(), ['denied', 'done', 'done']);
      assert.deepEqual(outs.find((o) => o.kind === 'denied')?.receipt.denials[0]?.params, { amount: { amount: '0.172', currency: 'EUR' }, remaining: { amount: '0.056', currency: 'EUR' } });
      assert.equal(store.state.spend[MANDATE]?.spent, u('0.344'));
      assert.equal(store.state.spend[MANDATE]?.held, 0n);
      assert.equal(store.state.accounts['demo']?.spent['EUR'], u('0.344'));
    }, { funds: '0.40' }));
});

describe('gateway: delegated calls', () => {
  test('children draw on the parent’s hold, counts are enforced, and the tree adds up', () =>
    withWorld(async ({ gateway, store, runner }) => {
      let parentId = '';
      let token = '';
      let grant: Grant | undefined;
      const children: CallOutcome[] = [];
      const seen: { parentHold?: bigint | undefined; held?: bigint | undefined; childHold?: bigint | undefined } = {};
      runner.handler = async (req, agent) => {
        if (agent === ACME) {
          const child = String(req.meta['holon/receipt']);
          if (seen.parentHold === undefined) {
            seen.parentHold = store.state.holds[parentId]?.units;
            seen.held = store.state.spend[MANDATE]?.held;
            seen.childHold = store.state.holds[child]?.units;
          }
          return ok(1);
        }
        assert.equal(agent, PIPELINE);
        parentId = String(req.meta['holon/receipt']);
        const meta = req.meta['holon/grant'] as { url: string; token: string; capabilities: string[]; max_calls: number };
        assert.equal(meta.url, 'http://127.0.0.1:9/mcp');
        assert.deepEqual(meta.capabilities, ['extraction.table']);
        assert.equal(meta.max_calls, 4);
        token = meta.token;
        grant = gateway.grants.resolve(token);
        assert.ok(grant);
        assert.equal(grant.parent, parentId);
        assert.deepEqual(grant.chain, [PIPELINE]);
        const opts = { grant };
        for (const file of [FILE_A, FILE_B, 'holon://files/c.pdf', 'holon://files/sub/d.pdf']) {
          children.push(await gateway.call(MANDATE, { capability: 'extraction.table', input: { file } }, opts));
        }
        // A fifth call is over the declared count; another capability or a named agent is outside the grant.
        children.push(await gateway.call(MANDATE, { capability: 'extraction.table', input: { file: FILE_A } }, opts));
        children.push(await gateway.call(MANDATE, { capability: 'extraction.totals', input: { file: FILE_A } }, opts));
        children.push(await gateway.call(MANDATE, { agent: ACME, input: { file: FILE_A } }, opts));
        assert.equal(store.state.holds[parentId]?.units, u('3.10') - 4n * u('0.0238'));
        return ok(4);
      };
      const r = done(await gateway.call(MANDATE, { agent: PIPELINE, input: { files: [FILE_A, FILE_B] } }));
      assert.equal(r.id, parentId);
      assert.deepEqual(r.worst_case, { amount: '3.10', currency: 'EUR' });
      // While a child runs, the mandate's held total is unchanged: the child's hold came out of its parent's.
      assert.equal(seen.held, u('3.10'));
      assert.equal(seen.childHold, u('0.172'));
      assert.equal(seen.parentHold, u('3.10') - u('0.172'));

      assert.deepEqual(children.map((c) => c.kind), ['done', 'done', 'done', 'done', 'denied', 'denied', 'denied']);
      assert.deepEqual(children[4]?.receipt.denials, [{ code: 'delegation_count', params: { max: 4 } }]);
      assert.deepEqual(children[5]?.receipt.denials, [{ code: 'delegation_capability', params: { allowed: ['extraction.table'] } }]);
      assert.deepEqual(children[6]?.receipt.denials, [{ code: 'delegation_capability', params: { allowed: ['extraction.table'] } }]);
      for (const c of children) assert.equal(c.receipt.parent, parentId);
      assert.equal(grant?.used, 4);
      assert.equal(gateway.grants.resolve(token), undefined, 'the grant dies with its parent call');

      // 0.036 + 4 pages × 0.01485 = 0.0954 for the pipeline, 4 × 0.0238 for the extractions.
      assert.deepEqual(r.cost, { amount: '0.0954', currency: 'EUR' });
      const tree = await gateway.receiptTree(MANDATE, r.id);
      assert.deepEqual(tree.total_cost, { amount: '0.1906', currency: 'EUR' });
      assert.equal(tree.children.length, 7);
      assert.deepEqual(tree.children.map((c) => c.status), ['succeeded', 'succeeded', 'succeeded', 'succeeded', 'denied', 'denied', 'denied']);
      for (const c of tree.children.slice(0, 4)) {
        assert.equal(c.agent, ACME);
        assert.deepEqual(c.total_cost, { amount: '0.0238', currency: 'EUR' });
        assert.equal(c.children.length, 0);
      }
      assert.deepEqual(await receiptTree(store, r.id), tree);
      const s = store.state;
      assert.equal(s.spend[MANDATE]?.spent, u('0.1906'));
      assert.equal(s.spend[MANDATE]?.held, 0n);
      assert.equal(s.accounts['demo']?.spent['EUR'], u('0.1906'));
      assert.equal(s.accounts['demo']?.held['EUR'], 0n);
      assert.deepEqual(Object.keys(s.holds), []);
    }, { threshold: '5.00' }));

  test('a child whose worst case is above what the parent still holds is refused', () =>
    withWorld(async ({ gateway, store, runner, clock }) => {
      let child: CallOutcome | undefined;
      runner.handler = async (req, agent) => {
        if (agent !== PIPELINE) return ok(1);
        const grant = gateway.grants.resolve((req.meta['holon/grant'] as { token: string }).token);
        assert.ok(grant);
        // While the pipeline runs, the human adds a dear extractor and makes it the only one allowed.
        await addSynthetic(store, clock, manifest('x/dear', ['extraction.table'], { price: { currency: 'EUR', per_call: '3.20' } }));
        await patchMandate(store, clock, MANDATE, { budget: { per_call: '5.00' } });
        for (const id of [ACME, LENA]) {
          const e = store.state.agents[id];
          assert.ok(e);
          await addAgent(store, clock, { ...e.manifest, data_policy: { ...e.manifest.data_policy, regions: ['US'] } }, e.endpoint, 'test');
        }
        child = await gateway.call(MANDATE, { capability: 'extraction.table', input: { file: FILE_A } }, { grant });
        return ok(1);
      };
      done(await gateway.call(MANDATE, { agent: PIPELINE, input: { files: [FILE_A] } }));
      assert.equal(child?.kind, 'denied');
      // Its room is what the parent still holds (3.10), not the budget left (16.90).
      assert.deepEqual(child?.receipt.denials, [{ code: 'over_budget', params: { amount: { amount: '3.20', currency: 'EUR' }, remaining: { amount: '3.10', currency: 'EUR' } }, agent: 'x/dear' }]);
      assert.equal(store.state.spend[MANDATE]?.held, 0n);
    }, { threshold: '5.00', perCall: null, perDay: null, funds: '20', total: '20' }));

  test('without a delegation host, no grant is issued', async () => {
    const w = await world({ threshold: '5.00' });
    try {
      const gateway = new Gateway({ store: w.store, clock: w.clock, logger: silentLogger, runner: w.runner, filesRoot: w.filesRoot });
      done(await gateway.call(MANDATE, { agent: PIPELINE, input: { files: [FILE_A] } }));
      assert.equal(w.runner.calls[0]?.req.meta['holon/grant'], undefined);
    } finally {
      w.cleanup();
    }
  });
});

describe('gateway: events handed out by a store are never changed afterwards', () => {
  test('every event keeps the hash it was appended with (the state does not alias event data)', () =>
    withWorld(async ({ gateway, store, clock }) => {
      const { approval } = pending(await gateway.call(MANDATE, acmeCall()));
      await decideApproval(store, clock, approval.id, 'approved', 'cli');
      done(await gateway.call(MANDATE, acmeCall({ file: FILE_A }, { approval: approval.id })));
      const altered = store.events.filter((e) => eventHash(e) !== e.hash).map((e) => `${e.seq} ${e.type}`);
      assert.deepEqual(altered, []);
      assert.equal(approval.status, 'pending', 'the outcome returned earlier is not changed behind the caller');
    }, { threshold: '0.10' }));

  test('a FileJournal: the ledger on disk verifies, and the events its listeners got keep their hashes', async () => {
    const t = tempDir('holon-gateway-file-');
    const clock = new TestClock();
    const store = openState(t.dir, { clock, logger: silentLogger, durable: false, watch: false });
    try {
      await seedDemo(store, clock, { threshold: '0.10' });
      const got: JournalEvent[] = [];
      store.subscribe((events) => got.push(...events));
      const runner = new FakeRunner(() => store.state);
      const gateway = new Gateway({ store, clock, logger: silentLogger, runner, filesRoot: filesRoot(t.dir) });
      const input = { file: 'holon://files/examples/facture.pdf' };
      const { approval } = pending(await gateway.call(MANDATE, { agent: ACME, input }));
      await decideApproval(store, clock, approval.id, 'approved', 'cli');
      done(await gateway.call(MANDATE, { agent: ACME, input, approval: approval.id }));
      assert.equal(verifyJournal(t.dir).ok, true, 'the file was written before anything changed');
      assert.ok(got.length >= 5);
      assert.deepEqual(got.filter((e) => eventHash(e) !== e.hash).map((e) => `${e.seq} ${e.type}`), []);
    } finally {
      store.close();
      t.cleanup();
    }
  });
});
