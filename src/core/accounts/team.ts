/**
 * Who may do what, on a store several installations share. Each installation (a state folder, its
 * Ed25519 key) seals every transaction it writes, and registers its public key with the name of its
 * machine; the fold admits a transaction only if its signer's role allows every event in it (see
 * authority.ts). The roles, each including the ones below it:
 *
 * - owner: funds the account, creates, edits and revokes its mandates, sets its rates, catalog,
 *   registries and limits, and says who is who in its team;
 * - approver: decides the account's approvals (and closes its capability windows);
 * - member: asks and spends, under the account's mandates.
 *
 * A role is held in one account, or in every account (the whole store, account `*`). The installation
 * that wrote the store's first transaction is its root, owner of everything: on a single person's
 * journal that is the only installation there is; on a team store, the one that set it up (`holon store
 * init`, or the first to write). Roles are `team.member.set` events signed by an owner, each naming the
 * team's version it was made against, so an old signed change cannot be played again later.
 */
import { canonicalize } from 'json-canonicalize';
import { HolonError } from '../kernel/errors.ts';
import { accountId } from '../kernel/ids.ts';
import { verifySignature } from '../store/keys.ts';
import type { MandatesFields } from './mandates.ts';
import type { Slice } from '../store/slice.ts';
import { eventsOf } from '../store/slice.ts';
import type { EventStore, NewEvent, Signer } from '../store/store.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';

/** An installation whose key was registered in the store, and the machine it runs on. */
export interface Installation {
  key: string;
  machine: string;
  registered_at: string;
}

/** What a member of an account's team may do; each role includes the ones before it. */
export type TeamRole = 'member' | 'approver' | 'owner';

const RANK: Record<TeamRole, number> = { member: 1, approver: 2, owner: 3 };

/** The "account" whose roles hold in every account: the whole store. */
export const WHOLE_STORE = '*';

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
  team: {
    installations: Dict<Installation>;
    accounts: Dict<AccountTeam>;
    /** The key that sealed the store's first transaction: owner of everything (null before any). */
    root: string | null;
  };
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
  return (
    `holon-team-member:v1:` +
    `${canonicalize({ account: d.account, key: d.key, name: d.name, role: d.role, version: d.version, by: d.by })}`
  );
}

/**
 * The role `key` holds in `account`: the higher of its role there and in the whole store; owner for the
 * root. `root` stands in for the state's when none is folded yet (the store's first transaction makes
 * its signer root).
 */
export function roleOf(s: TeamFields, account: string, key: string, root: string | null = s.team.root): TeamRole | null {
  if (key === root) return 'owner';
  const here = account === WHOLE_STORE ? undefined : s.team.accounts[account]?.members[key]?.role;
  const everywhere = s.team.accounts[WHOLE_STORE]?.members[key]?.role;
  if (here && everywhere) return RANK[here] >= RANK[everywhere] ? here : everywhere;
  return here ?? everywhere ?? null;
}

/** True when `key` holds at least `role` in `account` (see roleOf). */
export function hasRole(s: TeamFields, account: string, key: string, role: TeamRole, root: string | null = s.team.root): boolean {
  const held = roleOf(s, account, key, root);
  return held !== null && RANK[held] >= RANK[role];
}

/** The keys that may decide `account`'s approvals: its approvers and owners, the whole store's and the root. */
export function approversOf(s: TeamFields, account: string): string[] {
  const keys = new Set<string>();
  if (s.team.root) keys.add(s.team.root);
  for (const team of [s.team.accounts[account], s.team.accounts[WHOLE_STORE]])
    for (const m of Object.values(team?.members ?? {})) if (RANK[m.role] >= RANK.approver) keys.add(m.key);
  return [...keys];
}

/** True when `key` may decide `account`'s approvals. */
export function isApprover(s: TeamFields, account: string, key: string): boolean {
  return hasRole(s, account, key, 'approver');
}

/** True when the store has a team at all: anyone besides its root holds a role. */
export function hasTeam(s: TeamFields): boolean {
  return Object.values(s.team.accounts).some((t) => Object.keys(t.members).length > 0);
}

/** The machine an installation key registered, if it did. */
export function machineOf(s: TeamFields, key: string): string | undefined {
  return s.team.installations[key]?.machine;
}

/** Why a change to a team cannot be made by `by`, or nothing when it can: only an owner of the account (or of the whole store) may. */
function changeProblem(
  s: TeamFields,
  d: Omit<TeamEvents['team.member.set'], 'sig'>,
  root: string | null = s.team.root,
): { reason: string; message: string } | undefined {
  const where = d.account === WHOLE_STORE ? 'the whole store' : `account ${d.account}`;
  if (!hasRole(s, d.account, d.by, 'owner', root))
    return { reason: 'not_an_owner', message: `only an owner of ${where} may change who is who in it` };
  if (d.key === root) return { reason: 'root', message: `${d.key} set this store up and owns all of it; its role cannot change` };
  return undefined;
}

export const teamSlice: Slice<TeamFields, TeamEvents> = {
  initial: () => ({ team: { installations: dict(), accounts: dict(), root: null } }),
  on: {
    'installation.registered': (s, d, e) => {
      if (typeof d.key !== 'string' || typeof d.machine !== 'string' || typeof d.sig !== 'string') return;
      if (!verifySignature(d.key, installationMessage(d.key, d.machine), d.sig)) return;
      s.team.installations[d.key] = { key: d.key, machine: d.machine, registered_at: s.team.installations[d.key]?.registered_at ?? e.time };
    },
    'team.member.set': (s, d, e) => {
      if (
        typeof d.by !== 'string' ||
        typeof d.sig !== 'string' ||
        typeof d.account !== 'string' ||
        typeof d.key !== 'string' ||
        typeof d.name !== 'string'
      )
        return;
      if (d.role !== 'member' && d.role !== 'approver' && d.role !== 'owner' && d.role !== 'removed') return;
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
    s.team = {
      installations: toDict(s.team?.installations),
      accounts: toDict(s.team?.accounts, (t) => ({ version: t.version, members: toDict(t.members) })),
      root: s.team?.root ?? null,
    };
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
export async function registerInstallation(
  store: EventStore<TeamFields>,
  signer: Signer,
  machine: string,
): Promise<Installation | undefined> {
  // Registered already (as it stays), it costs no transaction.
  if (registration(store.state, signer, machine).length > 0)
    await store.transact((s) => ({ events: registration(s, signer, machine), result: undefined }));
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
  if (!raw || raw.length !== KEY_BYTES)
    throw new HolonError('invalid_input', `"${key}" is not an installation key (44 characters of base64, as holon team whoami prints)`, {
      key,
    });
  return key;
}

/** The accounts that exist: funded ones (the spend slice's `accounts`, money/spend.ts), besides those with a mandate. */
interface FundedAccounts {
  accounts: Record<string, unknown>;
}

/**
 * Sets one member's role in an account's team, or in the whole store's (`*`), or removes them, signed by
 * `signer`. Refused, with nothing written: an unknown account (not_found), a bad key or name
 * (invalid_input), a signer who is not an owner there (denied), removing someone who is not a member
 * (not_found), changing the root's role (conflict).
 */
export async function setTeamMember(
  store: EventStore<TeamFields & MandatesFields & FundedAccounts>,
  signer: Signer,
  change: MemberChange,
): Promise<TeamMember | null> {
  const account = change.account === WHOLE_STORE ? WHOLE_STORE : accountId(change.account);
  const key = checkedKey(change.key);
  if (change.role !== 'member' && change.role !== 'approver' && change.role !== 'owner' && change.role !== 'removed')
    throw new HolonError('invalid_input', 'a role is member, approver, owner or removed');
  const given = change.name?.trim();
  if (given !== undefined && (given.length === 0 || given.length > 80))
    throw new HolonError('invalid_input', 'a name is 1 to 80 characters');
  const by = signer.publicKey;
  await store.transact((s) => {
    if (account !== WHOLE_STORE && !s.accounts[account] && !Object.values(s.mandates).some((m) => m.account === account))
      throw new HolonError('not_found', `no account "${account}"`, { account });
    const team = s.team.accounts[account];
    const old = team?.members[key];
    if (change.role === 'removed' && !old)
      throw new HolonError('not_found', `${key} is not in the team of account ${account}`, { account, key });
    const name = given ?? old?.name;
    if (name === undefined) throw new HolonError('invalid_input', 'a new member needs a name (--name)');
    const d = { account, key, name, role: change.role, version: team?.version ?? 0, by };
    // Before any transaction the signer is about to become the root.
    const problem = changeProblem(s, d, s.team.root ?? by);
    if (problem)
      throw new HolonError(problem.reason === 'root' ? 'conflict' : 'denied', problem.message, { reason: problem.reason, account });
    if (old && old.role === change.role && old.name === name) return { events: [], result: undefined };
    return { events: [teamEvent('team.member.set', { ...d, sig: signer.sign(memberMessage(d)) })], result: undefined };
  });
  return structuredClone(store.state.team.accounts[account]?.members[key]) ?? null;
}
