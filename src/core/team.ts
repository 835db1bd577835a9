/**
 * Who may decide, on a store several installations share. Each installation (a state folder, its
 * Ed25519 key) registers its public half with the name of its machine; an account's members and
 * approvers are set by events signed by an installation key. The fold itself enforces the rules, so an
 * event written straight into the shared table (by an agent that can INSERT there) changes nothing
 * unless an approver's key signed it:
 *
 * - while an account has no approver, the only change accepted is its signer making itself approver
 *   (whoever sets the team up is its first approver);
 * - afterwards, only a change signed by a current approver of that account is folded;
 * - no change may leave an account with members but no approver (it would be open to anyone again);
 * - each change names the account's team version it was made against, so an old signed change cannot be
 *   played again later.
 *
 * An account with no approver behaves as a single user's state always did: whoever reaches a channel
 * decides.
 */
import { canonicalize } from 'json-canonicalize';
import { HolonError } from './errors.ts';
import { accountId } from './ids.ts';
import { verifySignature } from './keys.ts';
import type { MandatesFields } from './mandates.ts';
import type { Slice } from './slice.ts';
import { eventsOf } from './slice.ts';
import type { SpendFields } from './spend.ts';
import type { EventStore, NewEvent, Signer } from './store.ts';
import type { Dict } from './util.ts';
import { dict, toDict } from './util.ts';

/** An installation whose key was registered in the store, and the machine it runs on. */
export interface Installation {
  key: string;
  machine: string;
  registered_at: string;
}

/** What a member of an account's team may do. */
export type TeamRole = 'member' | 'approver';

/** A role as a change sets it; `removed` takes the member out of the team. */
export type TeamRoleChange = TeamRole | 'removed';

/** One person (one installation key) in an account's team. */
export interface TeamMember {
  key: string;
  name: string;
  role: TeamRole;
  /** The key that signed the last change to this member. */
  set_by: string;
  updated_at: string;
}

/** An account's team: its members by key, and how many changes were folded (what the next one signs). */
export interface AccountTeam {
  version: number;
  members: Dict<TeamMember>;
}

/** The team's part of the state. */
export interface TeamFields {
  team: { installations: Dict<Installation>; accounts: Dict<AccountTeam> };
}

/** The team's events. Each carries the signature that makes it count. */
export interface TeamEvents {
  /** An installation's public key (raw Ed25519, base64) and machine, signed by that key. */
  'installation.registered': { key: string; machine: string; sig: string };
  /** A member's role in an account's team, signed by `by` against the team's `version`. */
  'team.member.set': { account: string; key: string; name: string; role: TeamRoleChange; version: number; by: string; sig: string };
}

/** Builds a team event. */
export const teamEvent = eventsOf<TeamEvents>();

/** The message an installation signs to register its key (proof that it holds the private half). */
export function installationMessage(key: string, machine: string): string {
  return `holon-installation:v1:${canonicalize({ key, machine })}`;
}

/** The message an approver signs to change a team. */
export function memberMessage(d: Omit<TeamEvents['team.member.set'], 'sig'>): string {
  return `holon-team-member:v1:${canonicalize({ account: d.account, key: d.key, name: d.name, role: d.role, version: d.version, by: d.by })}`;
}

/** The keys of an account's approvers (none: the account has no team rules). */
export function approversOf(s: TeamFields, account: string): string[] {
  const members = s.team.accounts[account]?.members;
  return members ? Object.values(members).filter((m) => m.role === 'approver').map((m) => m.key) : [];
}

/** True when `key` is a current approver of `account`. */
export function isApprover(s: TeamFields, account: string, key: string): boolean {
  return s.team.accounts[account]?.members[key]?.role === 'approver';
}

/** The machine an installation key registered, if it did. */
export function machineOf(s: TeamFields, key: string): string | undefined {
  return s.team.installations[key]?.machine;
}

/** Why a change to a team cannot be made by `by`, or nothing when it can (the rules above). */
function changeProblem(s: TeamFields, d: Omit<TeamEvents['team.member.set'], 'sig'>): { reason: string; message: string } | undefined {
  const team = s.team.accounts[d.account];
  const approvers = approversOf(s, d.account);
  if (approvers.length === 0) {
    if (d.role !== 'approver' || d.key !== d.by) return { reason: 'no_approver_yet', message: `account ${d.account} has no approver yet: its first change must make the installation that signs it an approver (holon team add YOUR_KEY --account ${d.account} --approver)` };
    return undefined;
  }
  if (!approvers.includes(d.by)) return { reason: 'not_an_approver', message: `only an approver of account ${d.account} may change its team` };
  const left = approvers.filter((k) => k !== d.key || d.role === 'approver');
  if (left.length === 0) return { reason: 'last_approver', message: `${team?.members[d.key]?.name ?? d.key} is the last approver of account ${d.account}: make someone else an approver first` };
  return undefined;
}

export const teamSlice: Slice<TeamFields, TeamEvents> = {
  initial: () => ({ team: { installations: dict(), accounts: dict() } }),
  on: {
    'installation.registered': (s, d, e) => {
      if (typeof d.key !== 'string' || typeof d.machine !== 'string' || typeof d.sig !== 'string') return;
      if (!verifySignature(d.key, installationMessage(d.key, d.machine), d.sig)) return;
      s.team.installations[d.key] = { key: d.key, machine: d.machine, registered_at: s.team.installations[d.key]?.registered_at ?? e.time };
    },
    'team.member.set': (s, d, e) => {
      if (typeof d.by !== 'string' || typeof d.sig !== 'string' || typeof d.account !== 'string' || typeof d.key !== 'string' || typeof d.name !== 'string') return;
      if (d.role !== 'member' && d.role !== 'approver' && d.role !== 'removed') return;
      const team = s.team.accounts[d.account];
      // A change made against another version of the team is a replay, or lost a race: never folded.
      if (d.version !== (team?.version ?? 0)) return;
      if (!verifySignature(d.by, memberMessage(d), d.sig)) return;
      if (changeProblem(s, d)) return;
      const t = (s.team.accounts[d.account] ??= { version: 0, members: dict() });
      t.version += 1;
      if (d.role === 'removed') delete t.members[d.key];
      else t.members[d.key] = { key: d.key, name: d.name, role: d.role, set_by: d.by, updated_at: e.time };
    },
  },
  revive: (s) => {
    s.team = { installations: toDict(s.team?.installations), accounts: toDict(s.team?.accounts, (t) => ({ version: t.version, members: toDict(t.members) })) };
  },
};

/**
 * The event that registers this installation's public key and machine, signed by the key; none when it
 * is registered already under that machine name. A later registration of the same key under another name
 * renames the machine.
 */
export function registration(s: TeamFields, signer: Signer, machine: string): NewEvent[] {
  const name = machine.trim();
  if (name.length === 0 || name.length > 255) throw new HolonError('invalid_input', 'a machine name is 1 to 255 characters');
  const key = signer.publicKey;
  if (s.team.installations[key]?.machine === name) return [];
  return [teamEvent('installation.registered', { key, machine: name, sig: signer.sign(installationMessage(key, name)) })];
}

/** Registers this installation now (see `registration`); a team store also does it before its first own event. */
export async function registerInstallation(store: EventStore<TeamFields>, signer: Signer, machine: string): Promise<Installation | undefined> {
  // Registered already (as it stays), it costs no transaction.
  if (registration(store.state, signer, machine).length > 0) await store.transact((s) => ({ events: registration(s, signer, machine), result: undefined }));
  return store.state.team.installations[signer.publicKey];
}

/** What `setTeamMember` changes. */
export interface MemberChange {
  account: string;
  key: string;
  /** The person's name as the team shows it; kept from before when a change only moves the role. */
  name?: string | undefined;
  role: TeamRoleChange;
}

const KEY_BYTES = 32;

/** The key, if it is a raw Ed25519 public key in base64; otherwise an invalid_input error. */
export function checkedKey(key: string): string {
  const raw = /^[A-Za-z0-9+/]{43}=$/.test(key) ? Buffer.from(key, 'base64') : undefined;
  if (!raw || raw.length !== KEY_BYTES) throw new HolonError('invalid_input', `"${key}" is not an installation key (44 characters of base64, as holon team whoami prints)`, { key });
  return key;
}

/**
 * Sets one member's role in an account's team (or removes them), signed by `signer`. Refused, with
 * nothing written: an unknown account (not_found), a bad key or name (invalid_input), a signer who is not
 * an approver, or a first change that does not make its signer an approver (denied), removing someone who
 * is not a member (not_found), removing or demoting the last approver (conflict).
 */
export async function setTeamMember(store: EventStore<TeamFields & MandatesFields & SpendFields>, signer: Signer, change: MemberChange): Promise<TeamMember | null> {
  const account = accountId(change.account);
  const key = checkedKey(change.key);
  if (change.role !== 'member' && change.role !== 'approver' && change.role !== 'removed') throw new HolonError('invalid_input', 'a role is member, approver or removed');
  const given = change.name?.trim();
  if (given !== undefined && (given.length === 0 || given.length > 80)) throw new HolonError('invalid_input', 'a name is 1 to 80 characters');
  const by = signer.publicKey;
  await store.transact((s) => {
    if (!s.accounts[account] && !Object.values(s.mandates).some((m) => m.account === account)) throw new HolonError('not_found', `no account "${account}"`, { account });
    const team = s.team.accounts[account];
    const old = team?.members[key];
    if (change.role === 'removed' && !old) throw new HolonError('not_found', `${key} is not in the team of account ${account}`, { account, key });
    const name = given ?? old?.name;
    if (name === undefined) throw new HolonError('invalid_input', 'a new member needs a name (--name)');
    const d = { account, key, name, role: change.role, version: team?.version ?? 0, by };
    const problem = changeProblem(s, d);
    if (problem) throw new HolonError(problem.reason === 'last_approver' ? 'conflict' : 'denied', problem.message, { reason: problem.reason, account });
    if (old && old.role === change.role && old.name === name) return { events: [], result: undefined };
    return { events: [teamEvent('team.member.set', { ...d, sig: signer.sign(memberMessage(d)) })], result: undefined };
  });
  return structuredClone(store.state.team.accounts[account]?.members[key]) ?? null;
}
