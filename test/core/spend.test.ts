/**
 * The shared spend and approval core, with a payee that is not an agent: a payment decided, held,
 * settled or released through the same gate as an agent call; approvals bound to exactly what the human
 * saw; and concurrent spends of any kind never together over a limit.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { approvalGate } from '../../src/core/approvals/flow.ts';
import type { ApprovalSubject } from '../../src/core/approvals/model.ts';
import { APPROVAL_TTL_MS, OFFICE_APPROVAL_TTL_MS } from '../../src/core/approvals/kinds/kind.ts';
import { approvalExpiry, approvalStatus, bindingOf } from '../../src/core/approvals/model.ts';
import { newId } from '../../src/core/kernel/ids.ts';
import type { Mandate } from '../../src/core/kernel/model.ts';
import * as M from '../../src/core/kernel/amount.ts';
import { budgetOf, endHold, gateSpend, releaseOrphanedHolds } from '../../src/core/money/spend.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import type { SpendFields } from '../../src/core/money/spend.ts';
import type { EventStore } from '../../src/core/store/store.ts';
import { canonicalHash } from '../../src/core/kernel/util.ts';
import type { World } from './fixtures.ts';
import { ACME, deferred, FILE_A, MANDATE, ok, u, withWorld } from './fixtures.ts';

const eur = (amount: string): { amount: string; currency: string } => ({ amount, currency: 'EUR' });
const paymentSubject = (payee: string, amount: string, terms = 'ab'.repeat(32)): ApprovalSubject => ({ kind: 'payment', payee, amount: eur(amount), terms_hash: terms, purpose: 'a report' });
const mandateOf = (s: HolonState): Mandate => {
  const m = s.mandates[MANDATE];
  assert.ok(m);
  return m;
};

/** Decides and holds a payment in one transaction, as a payments toolset would; returns the gate's verdict and the hold id. */
async function pay(w: World, payee: string, amount: string, approvalId?: string): Promise<{ kind: string; id: string; approval?: string; denials: string[] }> {
  const id = newId('pay');
  return w.store.transact((s) => {
    const g = gateSpend(s, { id, mandate: mandateOf(s), payee: { kind: 'payee', id: payee }, amount: M.money(amount, 'EUR'), subject: paymentSubject(payee, amount), approvalId, now: w.clock.now() });
    const events = g.kind === 'held' || g.kind === 'ask' ? g.events : [];
    return { events, result: { kind: g.kind, id, ...(g.kind === 'ask' || g.kind === 'pending' ? { approval: g.approval.id } : {}), denials: g.kind === 'denied' ? g.denials.map((d) => d.code) : [] } };
  });
}

describe('a payment through the shared spend core', () => {
  test('held, then settled for less: the rest is released; released in full when it did not happen', () =>
    withWorld(async (w) => {
      const held = await pay(w, 'eip155:8453:0xabc', '0.40');
      assert.equal(held.kind, 'held');
      assert.equal(w.store.state.holds[held.id]?.units, u('0.40'));
      assert.deepEqual(w.store.state.holds[held.id]?.payee, { kind: 'payee', id: 'eip155:8453:0xabc' });
      assert.equal(w.store.state.spend[MANDATE]?.held, u('0.40'));
      // Settling more than was held charges the hold, never more.
      await w.store.transact((s) => ({ events: endHold(s, held.id, M.money('0.90', 'EUR'), 'paid').events, result: undefined }));
      assert.equal(w.store.state.spend[MANDATE]?.spent, u('0.40'));
      assert.equal(w.store.state.spend[MANDATE]?.held, 0n);
      assert.equal(w.store.state.accounts['demo']?.spent['EUR'], u('0.40'));

      const failed = await pay(w, 'eip155:8453:0xabc', '0.30');
      await w.store.transact((s) => ({ events: endHold(s, failed.id, null, 'rail failed').events, result: undefined }));
      assert.equal(w.store.events.at(-1)?.type, 'hold.released');
      assert.equal(w.store.state.spend[MANDATE]?.spent, u('0.40'), 'nothing charged');
      assert.equal(w.store.state.spend[MANDATE]?.held, 0n);
      assert.equal(w.store.state.holds[failed.id], undefined);
    }));

  test('over the threshold it waits for a human; the approval binds payee, amount, currency and terms hash', () =>
    withWorld(async (w) => {
      const asked = await pay(w, 'eip155:8453:0xabc', '2.00');
      assert.equal(asked.kind, 'ask');
      const a = w.store.state.approvals[asked.approval ?? ''];
      assert.ok(a);
      assert.equal(a.kind, 'payment');
      assert.deepEqual(a.bound, { payee: 'eip155:8453:0xabc', amount: '2.00', currency: 'EUR', terms_hash: 'ab'.repeat(32) });
      assert.equal(a.binding, canonicalHash({ kind: 'payment', mandate: MANDATE, ...a.bound }));
      assert.equal(a.expires_at, approvalExpiry(w.clock.now()));
      assert.equal(w.store.state.spend[MANDATE]?.held ?? 0n, 0n, 'nothing is held while a human decides');
      await decideApproval(w.store, w.clock, a.id, 'approved', 'panel');

      // Another payee, or another amount, with this approval: refused, naming what differs.
      const other = await w.store.transact((s) => ({
        events: [],
        result: gateSpend(s, { id: 'x', mandate: mandateOf(s), payee: { kind: 'payee', id: 'mallory' }, amount: M.money('2.00', 'EUR'), subject: paymentSubject('mallory', '2.00'), approvalId: a.id, now: w.clock.now() }),
      }));
      assert.ok(other.kind === 'denied');
      assert.deepEqual(other.denials, [{ code: 'approval_mismatch', params: { approval: a.id, mismatches: [{ field: 'payee', approved: 'eip155:8453:0xabc', requested: 'mallory' }] } }]);
      const otherTerms = approvalGate(w.store.state, { mandate: MANDATE, subject: paymentSubject('eip155:8453:0xabc', '2.00', 'cd'.repeat(32)), amount: M.money('2.00', 'EUR'), threshold: null, needed: true, approvalId: a.id, ref: null, now: w.clock.now() });
      assert.ok(otherTerms.kind === 'denied' && otherTerms.denials[0]?.code === 'approval_mismatch');

      // Exactly what was approved: held once, then the approval is spent.
      const paid = await pay(w, 'eip155:8453:0xabc', '2.00', a.id);
      assert.equal(paid.kind, 'held');
      assert.equal(w.store.state.approvals[a.id]?.status, 'used');
      assert.equal(w.store.state.approvals[a.id]?.used_by, paid.id);
      assert.deepEqual((await pay(w, 'eip155:8453:0xabc', '2.00', a.id)).denials, ['approval_used']);
    }));

  test('approvals of every kind share one expiry, computed in one place', () =>
    withWorld(async (w) => {
      const window: ApprovalSubject = { kind: 'capability_window', title: 'Reach the API', reason: 'to fetch', capability: { name: 'net.egress', params: { hosts: ['api.example.com'] } }, hours: 4 };
      const g = approvalGate(w.store.state, { mandate: MANDATE, subject: window, amount: null, threshold: null, needed: true, approvalId: undefined, ref: null, now: w.clock.now() });
      assert.ok(g.kind === 'ask');
      // An office request waits for a person who may answer tomorrow; a spend's approval, half an hour.
      assert.equal(g.approval.expires_at, approvalExpiry(w.clock.now(), 'capability_window'));
      assert.equal(Date.parse(g.approval.expires_at), w.clock.now() + OFFICE_APPROVAL_TTL_MS);
      assert.equal(approvalStatus(g.approval, w.clock.now() + OFFICE_APPROVAL_TTL_MS - 1), 'pending');
      assert.equal(approvalStatus(g.approval, w.clock.now() + OFFICE_APPROVAL_TTL_MS), 'expired');
      assert.equal(Date.parse(approvalExpiry(w.clock.now(), 'payment')), w.clock.now() + APPROVAL_TTL_MS);
      // The binding covers the capability's parameters: a wider window is another approval.
      const wider = bindingOf(MANDATE, { ...window, capability: { name: 'net.egress', params: { hosts: ['*'] } } });
      assert.notEqual(wider.binding, g.approval.binding);
    }));
});

describe('concurrent spends of any kind never together exceed a limit', () => {
  test('agent calls and payments racing one budget: what is held and spent stays within it', () =>
    withWorld(async (w) => {
      const gate = deferred();
      w.runner.handler = async () => {
        await gate.promise;
        return ok(40);
      };
      const limit = u('1.50');
      let worst = 0n;
      w.store.subscribe(() => {
        const b = budgetOf(w.store.state, mandateOf(w.store.state), w.clock.now());
        const used = b.spent.units + b.held.units;
        if (used > worst) worst = used;
      });
      // Interleaved: an agent call (0.172 held), a payment (0.30), and so on, all at once.
      const calls: ReturnType<World['gateway']['call']>[] = [];
      const payments: ReturnType<typeof pay>[] = [];
      for (let i = 0; i < 8; i++) {
        calls.push(w.gateway.call(MANDATE, { agent: ACME, input: { file: FILE_A, i } }));
        payments.push(pay(w, `payee-${i}`, '0.30'));
      }
      const paid = await Promise.all(payments);
      gate.resolve();
      const outs = await Promise.all(calls);
      const held = paid.filter((p) => p.kind === 'held');
      assert.ok(held.length > 0 && held.length < 8, `some payments fit, not all: ${held.length}`);
      assert.ok(paid.filter((p) => p.kind === 'denied').every((p) => p.denials.includes('over_budget')));
      assert.ok(outs.some((o) => o.kind === 'done') && outs.some((o) => o.kind === 'denied'));
      for (const p of held) await w.store.transact((s) => ({ events: endHold(s, p.id, M.money('0.30', 'EUR'), 'paid').events, result: undefined }));
      assert.ok(worst <= limit, `spent + held reached ${M.formatUnits(worst)}, above 1.50`);
      const b = budgetOf(w.store.state, mandateOf(w.store.state), w.clock.now());
      assert.equal(b.held.units, 0n);
      assert.ok(b.spent.units <= limit);
    }, { funds: '1.50', threshold: '5.00', perDay: null, perCall: null }));
});

describe('holds of a process that died', () => {
  test('are released, children before parents, and exactly what they held comes back; live and ownerless holds stay', () =>
    withWorld(async (w) => {
      const dead = { host: 'h', pid: 999, start: '1' };
      const live = { host: 'h', pid: 1000, start: '1' };
      const place = (id: string, amount: string, owner: typeof dead | undefined, parent: string | null = null): Promise<string> =>
        w.store.transact((s) => {
          const g = gateSpend(s, { id, mandate: mandateOf(s), payee: { kind: 'payee', id: 'p' }, amount: M.money(amount, 'EUR'), subject: paymentSubject('p', amount), parent, now: w.clock.now(), owner });
          assert.equal(g.kind, 'held');
          return { events: g.kind === 'held' ? g.events : [], result: g.kind };
        });
      await place('parent', '0.40', dead);
      await place('child', '0.10', dead, 'parent');
      await place('other', '0.20', live);
      await place('old', '0.05', undefined);
      assert.equal(w.store.state.spend[MANDATE]?.held, u('0.65'));

      const seq = w.store.seq;
      const released = await releaseOrphanedHolds(w.store, (o) => o.pid === dead.pid);
      assert.deepEqual(released, ['child', 'parent']);
      assert.deepEqual(w.store.events.slice(seq).map((e) => [e.type, (e.data as { hold: string }).hold, (e.data as { reason: string }).reason]), [
        ['hold.released', 'child', 'interrupted'],
        ['hold.released', 'parent', 'interrupted'],
      ]);
      assert.deepEqual(Object.keys(w.store.state.holds).sort(), ['old', 'other']);
      assert.equal(w.store.state.spend[MANDATE]?.held, u('0.25'));
      assert.equal(w.store.state.accounts['demo']?.held['EUR'], u('0.25'));
      assert.equal(w.store.state.spend[MANDATE]?.spent, 0n);
      // Nothing left to release: no transaction at all.
      assert.deepEqual(await releaseOrphanedHolds(w.store, (o) => o.pid === dead.pid), []);
      assert.equal(w.store.seq, seq + 2);
    }));

  test('on a store whose database may lose its last settlements in a crash, those placed before it last started stay held', () =>
    withWorld(async (w) => {
      const dead = { host: 'h', pid: 999, start: '1' };
      const place = (id: string): Promise<string> =>
        w.store.transact((s) => {
          const g = gateSpend(s, { id, mandate: mandateOf(s), payee: { kind: 'payee', id: 'p' }, amount: M.money('0.10', 'EUR'), subject: paymentSubject('p', '0.10'), now: w.clock.now(), owner: dead });
          return { events: g.kind === 'held' ? g.events : [], result: g.kind };
        });
      await place('before');
      const started = w.clock.now() + 1_000;
      w.clock.advance(4_000);
      await place('within-the-clocks-margin');
      w.clock.advance(10_000);
      await place('after');
      // The database's own word, as a team store gives it: when it last started, or null when it cannot tell.
      let startedAt: number | null = null;
      const view: Pick<EventStore<SpendFields>, 'state' | 'mayWrite' | 'transact' | 'startedAt'> = {
        get state() {
          return w.store.state;
        },
        mayWrite: (events) => w.store.mayWrite(events),
        transact: (fn) => w.store.transact(fn),
        startedAt: async () => startedAt,
      };
      const store = view as EventStore<SpendFields>;
      const gone = (o: { pid: number }): boolean => o.pid === dead.pid;
      assert.deepEqual(await releaseOrphanedHolds(store, gone), [], 'nothing, while the store cannot tell when its database started');
      startedAt = started;
      assert.deepEqual(await releaseOrphanedHolds(store, gone), ['after']);
      assert.deepEqual(Object.keys(w.store.state.holds).sort(), ['before', 'within-the-clocks-margin']);
      assert.equal(w.store.state.spend[MANDATE]?.held, u('0.20'));
    }));
});
