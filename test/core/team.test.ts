/**
 * Who may decide: an account's members and approvers, set by signed events that the fold itself checks,
 * and decisions on a team's account that count only when an approver signed them.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { decideApproval, mayDecide } from '../../src/core/approvals/flow.ts';
import type { Approval } from '../../src/core/approvals/model.ts';
import { decisionMessage } from '../../src/core/approvals/model.ts';
import { approvalEvent } from '../../src/core/approvals/slice.ts';
import { loadOrCreateSigner } from '../../src/core/keys.ts';
import type { MemoryStore } from '../../src/core/memoryStore.ts';
import { requestApproval } from '../../src/core/office/requests.ts';
import { thisProcess } from '../../src/core/owner.ts';
import type { HolonState } from '../../src/core/state.ts';
import { holonReducer } from '../../src/core/state.ts';
import type { NewEvent, Signer } from '../../src/core/store.ts';
import type { TeamEvents } from '../../src/core/team.ts';
import { approversOf, installationMessage, memberMessage, registerInstallation, setTeamMember, teamEvent } from '../../src/core/team.ts';
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

/** Appends events as they are, the way anyone with INSERT on a shared table could. */
async function raw(store: MemoryStore<HolonState>, ...events: NewEvent[]): Promise<void> {
  await store.transact(() => ({ events, result: undefined }));
}

/** `fn` is refused with `reason` (and `details.reason`, if given); nothing was appended or changed. */
async function refused(store: MemoryStore<HolonState>, fn: () => Promise<unknown>, reason: Parameters<typeof rejectsWith>[1], detail?: string): Promise<void> {
  const seq = store.seq;
  const before = stateText(store.state);
  const err = await rejectsWith(fn, reason);
  if (detail !== undefined) assert.equal(err.details['reason'], detail, err.message);
  assert.equal(store.seq, seq, 'nothing appended');
  assert.equal(stateText(store.state), before, 'the state is as it was');
}

/** An office action on demo/sandbox waiting for a human (the simplest approval, no money at stake). */
function ask(w: World, asker?: Signer): Promise<Approval> {
  return requestApproval(w.store, w.clock, MANDATE, { title: 'Delete the staging branch', reason: 'it is merged', kind: 'action' }, asker);
}

/** A team for `demo`: lead is its approver, dev a member. */
async function team(w: World): Promise<{ lead: Signer; dev: Signer }> {
  const lead = installation();
  const dev = installation();
  await setTeamMember(w.store, lead, { account: 'demo', key: lead.publicKey, name: 'Lea', role: 'approver' });
  await setTeamMember(w.store, lead, { account: 'demo', key: dev.publicKey, name: 'Dev', role: 'member' });
  return { lead, dev };
}

/** A member change signed by `signer` against the team's current version (a valid signature). */
function signedChange(s: HolonState, signer: Signer, change: Pick<TeamEvents['team.member.set'], 'account' | 'key' | 'name' | 'role'>): NewEvent {
  const d = { ...change, version: s.team.accounts[change.account]?.version ?? 0, by: signer.publicKey };
  return teamEvent('team.member.set', { ...d, sig: signer.sign(memberMessage(d)) });
}

describe('team: installations', () => {
  test('an installation registers its key and machine once; a registration it did not sign is not folded', () =>
    withWorld(async ({ store }) => {
      const me = installation();
      await registerInstallation(store, me, 'lea-laptop');
      const seq = store.seq;
      await registerInstallation(store, me, 'lea-laptop');
      assert.equal(store.seq, seq, 'registering again appends nothing');
      assert.equal(store.state.team.installations[me.publicKey]?.machine, 'lea-laptop');

      const other = installation();
      await raw(store, teamEvent('installation.registered', { key: other.publicKey, machine: 'spoofed', sig: me.sign(installationMessage(other.publicKey, 'spoofed')) }));
      assert.equal(store.state.team.installations[other.publicKey], undefined, 'signed by another key: ignored');
      await rejectsWith(() => registerInstallation(store, me, '  '), 'invalid_input');
    }));
});

describe('team: members and approvers', () => {
  test('bootstrap: the first change must make its own signer an approver', () =>
    withWorld(async (w) => {
      const lead = installation();
      const dev = installation();
      await refused(w.store, () => setTeamMember(w.store, lead, { account: 'demo', key: dev.publicKey, name: 'Dev', role: 'approver' }), 'denied', 'no_approver_yet');
      await refused(w.store, () => setTeamMember(w.store, lead, { account: 'demo', key: lead.publicKey, name: 'Lea', role: 'member' }), 'denied', 'no_approver_yet');
      const m = await setTeamMember(w.store, lead, { account: 'demo', key: lead.publicKey, name: 'Lea', role: 'approver' });
      assert.deepEqual({ ...m, updated_at: typeof m?.updated_at }, { key: lead.publicKey, name: 'Lea', role: 'approver', set_by: lead.publicKey, updated_at: 'string' });
      assert.deepEqual(approversOf(w.store.state, 'demo'), [lead.publicKey]);
    }));

  test('an approver adds a member; a member cannot change the team', () =>
    withWorld(async (w) => {
      const { lead, dev } = await team(w);
      assert.equal(w.store.state.team.accounts['demo']?.members[dev.publicKey]?.role, 'member');
      const third = installation();
      await refused(w.store, () => setTeamMember(w.store, dev, { account: 'demo', key: dev.publicKey, name: 'Dev', role: 'approver' }), 'denied', 'not_an_approver');
      await refused(w.store, () => setTeamMember(w.store, dev, { account: 'demo', key: third.publicKey, name: 'Third', role: 'approver' }), 'denied', 'not_an_approver');
      // An approver promotes, renames and removes.
      await setTeamMember(w.store, lead, { account: 'demo', key: dev.publicKey, role: 'approver' });
      assert.equal(w.store.state.team.accounts['demo']?.members[dev.publicKey]?.name, 'Dev', 'a role change keeps the name');
      await setTeamMember(w.store, dev, { account: 'demo', key: lead.publicKey, role: 'removed' });
      assert.deepEqual(approversOf(w.store.state, 'demo'), [dev.publicKey]);
    }));

  test('forged team changes written straight into the store are ignored by the fold', () =>
    withWorld(async (w) => {
      const { lead, dev } = await team(w);
      const before = stateText(w.store.state);
      // The member signs its own promotion: a valid signature, but not an approver's.
      await raw(w.store, signedChange(w.store.state, dev, { account: 'demo', key: dev.publicKey, name: 'Dev', role: 'approver' }));
      // Someone claims the lead signed it.
      const claimed = { account: 'demo', key: dev.publicKey, name: 'Dev', role: 'approver' as const, version: 2, by: lead.publicKey };
      await raw(w.store, teamEvent('team.member.set', { ...claimed, sig: dev.sign(memberMessage(claimed)) }));
      // A lead's genuine change, played again later (it names an older version of the team).
      const old = { account: 'demo', key: dev.publicKey, name: 'Dev', role: 'member' as const, version: 1, by: lead.publicKey };
      await raw(w.store, teamEvent('team.member.set', { ...old, sig: lead.sign(memberMessage(old)) }));
      // The lead's own signature removing the last approver: that would open the account to anyone again.
      await raw(w.store, signedChange(w.store.state, lead, { account: 'demo', key: lead.publicKey, name: 'Lea', role: 'removed' }));
      // A bootstrap on another account that does not make its signer an approver.
      await raw(w.store, signedChange(w.store.state, dev, { account: 'other', key: lead.publicKey, name: 'Lea', role: 'approver' }));
      assert.equal(stateText(w.store.state), before, 'none of them changed the state');
      assert.deepEqual(approversOf(w.store.state, 'demo'), [lead.publicKey]);
    }));

  test('bad input is refused with a structured error and changes nothing', () =>
    withWorld(async (w) => {
      const { lead, dev } = await team(w);
      const third = installation();
      await refused(w.store, () => setTeamMember(w.store, lead, { account: 'nobody', key: third.publicKey, name: 'X', role: 'member' }), 'not_found');
      await refused(w.store, () => setTeamMember(w.store, lead, { account: 'Demo!', key: third.publicKey, name: 'X', role: 'member' }), 'invalid_input');
      await refused(w.store, () => setTeamMember(w.store, lead, { account: 'demo', key: 'not-a-key', name: 'X', role: 'member' }), 'invalid_input');
      await refused(w.store, () => setTeamMember(w.store, lead, { account: 'demo', key: Buffer.alloc(16).toString('base64'), name: 'X', role: 'member' }), 'invalid_input');
      await refused(w.store, () => setTeamMember(w.store, lead, { account: 'demo', key: third.publicKey, name: ' ', role: 'member' }), 'invalid_input');
      await refused(w.store, () => setTeamMember(w.store, lead, { account: 'demo', key: third.publicKey, role: 'member' }), 'invalid_input');
      await refused(w.store, () => setTeamMember(w.store, lead, { account: 'demo', key: third.publicKey, name: 'X', role: 'owner' as never }), 'invalid_input');
      await refused(w.store, () => setTeamMember(w.store, lead, { account: 'demo', key: third.publicKey, role: 'removed' }), 'not_found');
      await refused(w.store, () => setTeamMember(w.store, lead, { account: 'demo', key: lead.publicKey, role: 'removed' }), 'conflict', 'last_approver');
      await refused(w.store, () => setTeamMember(w.store, lead, { account: 'demo', key: lead.publicKey, role: 'member' }), 'conflict', 'last_approver');
      assert.equal(w.store.state.team.accounts['demo']?.members[dev.publicKey]?.role, 'member');
    }));

  test('a snapshot of the state keeps the team', () =>
    withWorld(async (w) => {
      const { lead } = await team(w);
      await registerInstallation(w.store, lead, 'lea-laptop');
      const back = holonReducer.deserialize(holonReducer.serialize(w.store.state));
      assert.equal(stateText(back), stateText(w.store.state));
      assert.deepEqual(approversOf(back, 'demo'), [lead.publicKey]);
      assert.equal(Object.getPrototypeOf(back.team.accounts['demo']?.members), null, 'maps keyed by someone else\'s key have no prototype');
    }));
});

describe('team: who decides an approval', () => {
  test('a non-approver is refused and nothing is appended; an approver decides, and the decision names them', () =>
    withWorld(async (w) => {
      const { lead, dev } = await team(w);
      const a = await ask(w, dev);
      assert.deepEqual(a.origin, { machine: thisProcess().host, key: dev.publicKey }, 'the approval says which machine and installation asked');
      assert.equal(mayDecide(w.store.state, a, dev), false);
      assert.equal(mayDecide(w.store.state, a, lead), true);
      await refused(w.store, () => decideApproval(w.store, w.clock, a.id, 'approved', 'panel', dev), 'denied', 'not_an_approver');
      await refused(w.store, () => decideApproval(w.store, w.clock, a.id, 'approved', 'panel'), 'denied', 'not_an_approver');
      const decided = await decideApproval(w.store, w.clock, a.id, 'approved', 'cli', lead);
      assert.equal(decided.decided_by, lead.publicKey);
      assert.equal(w.store.state.approvals[a.id]?.status, 'approved');
      assert.equal(w.store.state.approvals[a.id]?.decided_by, lead.publicKey);
    }));

  test('forged decisions written straight into the store leave the approval pending', () =>
    withWorld(async (w) => {
      const { lead, dev } = await team(w);
      const a = await ask(w, dev);
      await raw(
        w.store,
        // No signature at all, as before teams.
        approvalEvent('approval.decided', { id: a.id, decision: 'approved', channel: 'panel' }),
        // Signed by a member.
        approvalEvent('approval.decided', { id: a.id, decision: 'approved', channel: 'panel', by: dev.publicKey, sig: dev.sign(decisionMessage(a, 'approved', 'panel')) }),
        // Claimed to be the lead's, signed by someone else.
        approvalEvent('approval.decided', { id: a.id, decision: 'approved', channel: 'panel', by: lead.publicKey, sig: dev.sign(decisionMessage(a, 'approved', 'panel')) }),
        // The lead's signature of a rejection, presented as an approval.
        approvalEvent('approval.decided', { id: a.id, decision: 'approved', channel: 'panel', by: lead.publicKey, sig: lead.sign(decisionMessage(a, 'rejected', 'panel')) }),
      );
      assert.equal(w.store.state.approvals[a.id]?.status, 'pending');
      await decideApproval(w.store, w.clock, a.id, 'rejected', 'panel', lead);
      assert.equal(w.store.state.approvals[a.id]?.status, 'rejected');
    }));

  test('a forged approval of an agent call does not let the call run', () =>
    withWorld(
      async (w) => {
        const { lead } = await team(w);
        const call = { agent: ACME, input: { file: FILE_A } };
        const first = await w.gateway.call(MANDATE, call);
        assert.equal(first.kind, 'pending');
        const approval = first.kind === 'pending' ? first.approval : undefined;
        assert.ok(approval);
        await raw(w.store, approvalEvent('approval.decided', { id: approval.id, decision: 'approved', channel: 'panel' }));
        const again = await w.gateway.call(MANDATE, { ...call, approval: approval.id });
        assert.equal(again.kind, 'pending', 'still waiting for an approver');
        assert.equal(w.runner.calls.length, 0);
        await decideApproval(w.store, w.clock, approval.id, 'approved', 'panel', lead);
        assert.equal((await w.gateway.call(MANDATE, { ...call, approval: approval.id })).kind, 'done');
      },
      { threshold: '0.0001' },
    ));

  test('an account without approvers decides as it always did, and records who decided when told', () =>
    withWorld(async (w) => {
      const a = await ask(w);
      assert.deepEqual(a.origin, { machine: thisProcess().host }, 'no installation given: the machine only');
      assert.equal(mayDecide(w.store.state, a, undefined), true);
      await decideApproval(w.store, w.clock, a.id, 'approved', 'panel');
      assert.equal(w.store.state.approvals[a.id]?.status, 'approved');
      const b = await ask(w);
      const someone = installation();
      await decideApproval(w.store, w.clock, b.id, 'rejected', 'cli', someone);
      assert.equal(w.store.state.approvals[b.id]?.decided_by, someone.publicKey);
      // An unsigned decision written raw still counts here: there is no team to check it against.
      const c = await ask(w);
      await raw(w.store, approvalEvent('approval.decided', { id: c.id, decision: 'approved', channel: 'panel' }));
      assert.equal(w.store.state.approvals[c.id]?.status, 'approved');
    }));
});
