/**
 * Who may do what on a store several installations write to: the root owns everything, owners say who
 * is who, approvers decide, members ask and spend. The rules are the fold's own (authority.ts): a writer
 * is refused at once what every reader would refuse, and a transaction another installation wrote that
 * breaks them — a row inserted by hand — is kept out of the fold, whoever's signature it carries.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { decideApproval, mayDecide } from '../../src/core/decisions/decide.ts';
import type { Approval } from '../../src/core/approvals/model.ts';
import { approvalEvent } from '../../src/core/approvals/slice.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { loadOrCreateSigner } from '../../src/core/store/keys.ts';
import { createMandate, mandateEvent } from '../../src/core/accounts/mandates.ts';
import { requestApproval } from '../../src/core/office/requests.ts';
import { officeEvent } from '../../src/core/office/slice.ts';
import { thisProcess } from '../../src/core/store/owner.ts';
import { fund, spendEvent } from '../../src/core/money/spend.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holonReducer } from '../../src/core/fold/state.ts';
import type { EventStore, NewEvent, Signer } from '../../src/core/store/store.ts';
import type { TeamEvents } from '../../src/core/accounts/team.ts';
import { approversOf, installationMessage, memberMessage, registerInstallation, roleOf, setTeamMember, teamEvent, WHOLE_STORE } from '../../src/core/accounts/team.ts';
import { tempDir } from '../helpers.ts';
import type { World } from './fixtures.ts';
import { ACME, FILE_A, MANDATE, rejectsWith, stateText, withWorld } from './fixtures.ts';

const cleanups: (() => void)[] = [];
after(() => {
  for (const c of cleanups) c();
});

/** A new installation: its own state folder, its own key. */
function installation(): Signer {
  const t = tempDir('holon-team-key-');
  cleanups.push(t.cleanup);
  return loadOrCreateSigner(t.dir);
}

/** The lead: the world's root, whose installation wrote the demo. */
const lead = installation();
/** Runs `fn` on a demo world whose root is the lead. */
const withTeamWorld = (fn: (w: World) => Promise<unknown>, options: Parameters<typeof withWorld>[1] = {}): Promise<void> => withWorld(fn, { ...options, root: lead.publicKey });

/** `fn` is refused with `reason` (and `details.reason`, if given); nothing was appended or changed. */
async function refused(w: World, fn: () => Promise<unknown>, reason: Parameters<typeof rejectsWith>[1], detail?: string): Promise<void> {
  const seq = w.store.seq;
  const before = stateText(w.store.state);
  const err = await rejectsWith(fn, reason);
  if (detail !== undefined) assert.equal(err.details['reason'], detail, err.message);
  assert.equal(w.store.seq, seq, 'nothing appended');
  assert.equal(stateText(w.store.state), before, 'the state is as it was');
}

/** A transaction `by` wrote straight into a shared store: it must be kept out of the fold with `code`, changing nothing. */
function keptOut(w: World, by: Signer, code: string, ...events: NewEvent[]): void {
  const before = stateText(w.store.state);
  const r = w.store.receive(by.publicKey, events);
  assert.equal(r?.code, code, JSON.stringify(r));
  assert.equal(stateText(w.store.state), before, 'none of it was folded');
}

/** An office action on demo/sandbox waiting for a human (the simplest approval, no money at stake). */
function ask(store: EventStore<HolonState>, w: World, asker?: Signer): Promise<Approval> {
  return requestApproval(store, w.clock, MANDATE, { title: 'Delete the staging branch', reason: 'it is merged', kind: 'action' }, asker);
}

/** A team for `demo`: dev a member, ann an approver. */
async function team(w: World): Promise<{ dev: Signer; ann: Signer }> {
  const dev = installation();
  const ann = installation();
  await setTeamMember(w.store, lead, { account: 'demo', key: dev.publicKey, name: 'Dev', role: 'member' });
  await setTeamMember(w.store, lead, { account: 'demo', key: ann.publicKey, name: 'Ann', role: 'approver' });
  return { dev, ann };
}

/** A member change signed by `signer` against the team's current version (a valid signature). */
function signedChange(s: HolonState, signer: Signer, change: Pick<TeamEvents['team.member.set'], 'account' | 'key' | 'name' | 'role'>): NewEvent {
  const d = { ...change, version: s.team.accounts[change.account]?.version ?? 0, by: signer.publicKey };
  return teamEvent('team.member.set', { ...d, sig: signer.sign(memberMessage(d)) });
}

describe('team: installations', () => {
  test('an installation registers its key and machine once; it cannot register another key', () =>
    withTeamWorld(async (w) => {
      const me = installation();
      await registerInstallation(w.store.as(me.publicKey), me, 'lea-laptop');
      const seq = w.store.seq;
      await registerInstallation(w.store.as(me.publicKey), me, 'lea-laptop');
      assert.equal(w.store.seq, seq, 'registering again appends nothing');
      assert.equal(w.store.state.team.installations[me.publicKey]?.machine, 'lea-laptop');
      const other = installation();
      keptOut(w, me, 'mismatch', teamEvent('installation.registered', { key: other.publicKey, machine: 'spoofed', sig: me.sign(installationMessage(other.publicKey, 'spoofed')) }));
      await rejectsWith(() => registerInstallation(w.store.as(me.publicKey), me, '  '), 'invalid_input');
    }));
});

describe('team: roles', () => {
  test("the store's first writer is its root and owns every account; nobody else does an owner's part", () =>
    withTeamWorld(async (w) => {
      assert.equal(w.store.state.team.root, lead.publicKey);
      assert.equal(roleOf(w.store.state, 'demo', lead.publicKey), 'owner');
      assert.equal(roleOf(w.store.state, 'someday', lead.publicKey), 'owner');
      const dev = installation();
      const as = w.store.as(dev.publicKey);
      assert.equal(roleOf(w.store.state, 'demo', dev.publicKey), null);
      await refused(w, () => fund(as, 'demo', '5'), 'denied', 'not_an_owner');
      await refused(w, () => createMandate(as, w.clock, 'demo/wide', {}), 'denied', 'not_an_owner');
      await refused(w, () => setFx(as, 'USD', 'EUR', '5'), 'denied', 'not_an_owner');
      await refused(w, () => setTeamMember(as, dev, { account: 'demo', key: dev.publicKey, name: 'Dev', role: 'owner' }), 'denied', 'not_an_owner');
      // Not even a member: it may not ask under the account's mandates.
      await refused(w, () => ask(as, w, dev), 'denied', 'not_a_member');
    }));

  test('an owner sets members, approvers and owners; a member or an approver cannot change the team', () =>
    withTeamWorld(async (w) => {
      const { dev, ann } = await team(w);
      const third = installation();
      await refused(w, () => setTeamMember(w.store.as(dev.publicKey), dev, { account: 'demo', key: dev.publicKey, name: 'Dev', role: 'approver' }), 'denied', 'not_an_owner');
      await refused(w, () => setTeamMember(w.store.as(ann.publicKey), ann, { account: 'demo', key: third.publicKey, name: 'Third', role: 'member' }), 'denied', 'not_an_owner');
      // An owner of demo may change demo's team, not the store's rates.
      await setTeamMember(w.store, lead, { account: 'demo', key: ann.publicKey, role: 'owner' });
      assert.equal(w.store.state.team.accounts['demo']?.members[ann.publicKey]?.name, 'Ann', 'a role change keeps the name');
      await setTeamMember(w.store.as(ann.publicKey), ann, { account: 'demo', key: third.publicKey, name: 'Third', role: 'member' });
      await fund(w.store.as(ann.publicKey), 'demo', '1');
      await refused(w, () => setFx(w.store.as(ann.publicKey), 'USD', 'EUR', '5'), 'denied', 'not_an_owner');
      await refused(w, () => setTeamMember(w.store.as(ann.publicKey), ann, { account: 'other', key: third.publicKey, name: 'Third', role: 'member' }), 'not_found');
      // An owner of the whole store may.
      await setTeamMember(w.store, lead, { account: WHOLE_STORE, key: ann.publicKey, name: 'Ann', role: 'owner' });
      await setFx(w.store.as(ann.publicKey), 'USD', 'EUR', '0.9');
      assert.deepEqual(new Set(approversOf(w.store.state, 'demo')), new Set([lead.publicKey, ann.publicKey]));
      await setTeamMember(w.store, lead, { account: 'demo', key: dev.publicKey, role: 'removed' });
      assert.equal(roleOf(w.store.state, 'demo', dev.publicKey), null);
    }));

  test('forged team changes, however they are signed, change nothing', () =>
    withTeamWorld(async (w) => {
      const { dev, ann } = await team(w);
      // The member signs and seals its own promotion.
      keptOut(w, dev, 'not_an_owner', signedChange(w.store.state, dev, { account: 'demo', key: dev.publicKey, name: 'Dev', role: 'owner' }));
      // A change that names the lead as its author, sealed by the member.
      const claimed = { account: 'demo', key: dev.publicKey, name: 'Dev', role: 'owner' as const, version: 2, by: lead.publicKey };
      keptOut(w, dev, 'mismatch', teamEvent('team.member.set', { ...claimed, sig: dev.sign(memberMessage(claimed)) }));
      // An approver's change of the team.
      keptOut(w, ann, 'not_an_owner', signedChange(w.store.state, ann, { account: 'demo', key: dev.publicKey, name: 'Dev', role: 'approver' }));
      // The lead's genuine change, played again later: it names an older version of the team, so the fold ignores it.
      const teamBefore = JSON.stringify(w.store.state.team.accounts);
      const old = { account: 'demo', key: dev.publicKey, name: 'Dev', role: 'owner' as const, version: 0, by: lead.publicKey };
      w.store.receive(lead.publicKey, [teamEvent('team.member.set', { ...old, sig: lead.sign(memberMessage(old)) })]);
      assert.equal(roleOf(w.store.state, 'demo', dev.publicKey), 'member');
      assert.equal(JSON.stringify(w.store.state.team.accounts), teamBefore);
    }));

  test('bad input is refused with a structured error and changes nothing', () =>
    withTeamWorld(async (w) => {
      const { dev } = await team(w);
      const third = installation();
      await refused(w, () => setTeamMember(w.store, lead, { account: 'nobody', key: third.publicKey, name: 'X', role: 'member' }), 'not_found');
      await refused(w, () => setTeamMember(w.store, lead, { account: 'Demo!', key: third.publicKey, name: 'X', role: 'member' }), 'invalid_input');
      await refused(w, () => setTeamMember(w.store, lead, { account: 'demo', key: 'not-a-key', name: 'X', role: 'member' }), 'invalid_input');
      await refused(w, () => setTeamMember(w.store, lead, { account: 'demo', key: Buffer.alloc(16).toString('base64'), name: 'X', role: 'member' }), 'invalid_input');
      await refused(w, () => setTeamMember(w.store, lead, { account: 'demo', key: third.publicKey, name: ' ', role: 'member' }), 'invalid_input');
      await refused(w, () => setTeamMember(w.store, lead, { account: 'demo', key: third.publicKey, role: 'member' }), 'invalid_input');
      await refused(w, () => setTeamMember(w.store, lead, { account: 'demo', key: third.publicKey, name: 'X', role: 'superuser' as never }), 'invalid_input');
      await refused(w, () => setTeamMember(w.store, lead, { account: 'demo', key: third.publicKey, role: 'removed' }), 'not_found');
      await refused(w, () => setTeamMember(w.store, lead, { account: 'demo', key: lead.publicKey, name: 'Lea', role: 'member' }), 'conflict', 'root');
      assert.equal(w.store.state.team.accounts['demo']?.members[dev.publicKey]?.role, 'member');
    }));

  test('a snapshot of the state keeps the team and its root', () =>
    withTeamWorld(async (w) => {
      await team(w);
      await registerInstallation(w.store, lead, 'lea-laptop');
      const back = holonReducer.deserialize(holonReducer.serialize(w.store.state));
      assert.equal(stateText(back), stateText(w.store.state));
      assert.equal(back.team.root, lead.publicKey);
      assert.equal(Object.getPrototypeOf(back.team.accounts['demo']?.members), null, "maps keyed by someone else's key have no prototype");
    }));
});

describe('team: who decides an approval', () => {
  test('a member is refused and nothing is appended; an approver decides, and the decision names them', () =>
    withTeamWorld(async (w) => {
      const { dev, ann } = await team(w);
      const a = await ask(w.store.as(dev.publicKey), w, dev);
      assert.deepEqual(a.origin, { machine: thisProcess().host, key: dev.publicKey }, 'the approval says which machine and installation asked');
      assert.equal(mayDecide(w.store.state, a, dev), false);
      assert.equal(mayDecide(w.store.state, a, ann), true);
      assert.equal(mayDecide(w.store.state, a, lead), true);
      await refused(w, () => decideApproval(w.store.as(dev.publicKey), w.clock, a.id, 'approved', 'panel', dev), 'denied', 'not_an_approver');
      await refused(w, () => decideApproval(w.store.as(dev.publicKey), w.clock, a.id, 'approved', 'panel'), 'denied', 'not_an_approver');
      const decided = await decideApproval(w.store.as(ann.publicKey), w.clock, a.id, 'approved', 'cli', ann);
      assert.equal(decided.decided_by, ann.publicKey);
      assert.equal(w.store.state.approvals[a.id]?.status, 'approved');
      assert.equal(w.store.state.approvals[a.id]?.decided_by, ann.publicKey);
    }));

  test("a decision, or a request that arrives decided, written by a member's installation leaves the approval pending", () =>
    withTeamWorld(async (w) => {
      const { dev } = await team(w);
      const a = await ask(w.store.as(dev.publicKey), w, dev);
      keptOut(w, dev, 'not_an_approver', approvalEvent('approval.decided', { id: a.id, decision: 'approved', channel: 'panel' }));
      keptOut(w, dev, 'mismatch', approvalEvent('approval.decided', { id: a.id, decision: 'approved', channel: 'panel', by: lead.publicKey }));
      // The next request, written as already approved, correctly linked and sealed by the member.
      const forged: Approval = { ...structuredClone(a), id: 'apr_forged', status: 'approved', decided_at: a.requested_at, channel: 'panel' };
      keptOut(w, dev, 'arrived_decided', approvalEvent('approval.requested', { approval: forged }));
      assert.equal(w.store.state.approvals['apr_forged'], undefined);
      assert.equal(w.store.state.approvals[a.id]?.status, 'pending');
      await decideApproval(w.store, w.clock, a.id, 'rejected', 'panel', lead);
      assert.equal(w.store.state.approvals[a.id]?.status, 'rejected');
    }));

  test('a forged approval of an agent call does not let the call run', () =>
    withTeamWorld(
      async (w) => {
        const { dev } = await team(w);
        const call = { agent: ACME, input: { file: FILE_A } };
        const first = await w.gateway.call(MANDATE, call);
        assert.equal(first.kind, 'pending');
        const approval = first.kind === 'pending' ? first.approval : undefined;
        assert.ok(approval);
        keptOut(w, dev, 'not_an_approver', approvalEvent('approval.decided', { id: approval.id, decision: 'approved', channel: 'panel' }));
        const again = await w.gateway.call(MANDATE, { ...call, approval: approval.id });
        assert.equal(again.kind, 'pending', 'still waiting for an approver');
        assert.equal(w.runner.calls.length, 0);
        await decideApproval(w.store, w.clock, approval.id, 'approved', 'panel', lead);
        assert.equal((await w.gateway.call(MANDATE, { ...call, approval: approval.id })).kind, 'done');
      },
      { threshold: '0.0001' },
    ));

  test("a member's or an approver's installation cannot widen a mandate, fund an account or raise a limit", () =>
    withTeamWorld(async (w) => {
      const { dev, ann } = await team(w);
      const m = w.store.state.mandates[MANDATE]!;
      const wide = { ...structuredClone(m), budget: { total: '500.00', per_day: null, per_call: null }, approval_threshold: '500.00' };
      keptOut(w, dev, 'not_an_owner', mandateEvent('mandate.updated', { mandate: wide }));
      keptOut(w, ann, 'not_an_owner', mandateEvent('mandate.updated', { mandate: wide }));
      keptOut(w, dev, 'not_an_owner', spendEvent('account.funded', { account: 'demo', amount: '100', currency: 'EUR' }));
      // What a decision does counts only beside a decision that implies it.
      const day = new Date(w.clock.now()).toISOString().slice(0, 10);
      keptOut(w, ann, 'not_decided', spendEvent('budget.override.granted', { mandate: MANDATE, approval: 'apr_none', day, amount: '50', currency: 'EUR' }));
      keptOut(w, ann, 'not_decided', officeEvent('capability.window.opened', { approval: 'apr_none', mandate: MANDATE, capability: { name: 'market.call', params: { capabilities: ['*'] } }, opens_at: new Date(w.clock.now()).toISOString(), closes_at: new Date(w.clock.now() + 3600_000).toISOString() }));
      const o = await requestApproval(w.store.as(dev.publicKey), w.clock, MANDATE, { title: 'More today', reason: 'a deadline', kind: 'budget.override', capability: { 'budget.override': { eur: 1 } } }, dev);
      keptOut(w, ann, 'inconsistent', approvalEvent('approval.decided', { id: o.id, decision: 'approved', channel: 'panel', by: ann.publicKey }), spendEvent('budget.override.granted', { mandate: MANDATE, approval: o.id, day, amount: '50', currency: 'EUR' }));
      assert.equal(w.store.state.approvals[o.id]?.status, 'pending');
      // The approver's real decision grants exactly what was asked.
      await decideApproval(w.store.as(ann.publicKey), w.clock, o.id, 'approved', 'panel', ann);
      assert.equal(w.store.state.spend[MANDATE]?.override_by_day?.[day], 1_000_000n);
    }));
});
