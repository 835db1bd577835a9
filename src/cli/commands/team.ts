import { HolonError } from '../../core/kernel/errors.ts';
import { accountId } from '../../core/kernel/ids.ts';
import { lazySigner } from '../../core/store/keys.ts';
import { thisProcess } from '../../core/store/owner.ts';
import { memberLine } from '../../core/views/present.ts';
import type { HolonState } from '../../core/fold/state.ts';
import type { TeamMember, TeamRole, TeamRoleChange } from '../../core/accounts/team.ts';
import { checkedKey, machineOf, roleOf, setTeamMember, WHOLE_STORE } from '../../core/accounts/team.ts';
import type { Command, CommandContext } from '../args.ts';
import { str } from '../args.ts';
import { confirmUnlessGuarded, hasState, open, openExisting, print, withStore } from '../context.ts';

const USAGE =
  "team add KEY --account A|'*' --name N [--role member|approver|owner] | team " +
  "remove KEY --account A|'*' | team list [--account A] | team whoami";

/** A member as `--json` shows it: with the machine its key registered, if it did. */
function memberJson(s: HolonState, m: TeamMember): Record<string, unknown> {
  return { key: m.key, name: m.name, role: m.role, machine: machineOf(s, m.key) ?? null, updated_at: m.updated_at };
}

/** `team list`: the store's root, every account's team (or one), and the installations registered in the store. */
function list(ctx: CommandContext, s: HolonState, only: string | undefined): number {
  if (
    only !== undefined &&
    only !== WHOLE_STORE &&
    !s.team.accounts[only] &&
    !s.accounts[only] &&
    !Object.values(s.mandates).some((m) => m.account === only)
  ) {
    throw new HolonError('not_found', `no account "${only}"`);
  }
  const root = s.team.root ? { key: s.team.root, machine: machineOf(s, s.team.root) ?? null } : null;
  const accounts = Object.keys(s.team.accounts)
    .filter((a) => only === undefined || a === only)
    .sort()
    .map((account) => ({ account, members: Object.values(s.team.accounts[account]?.members ?? {}).map((m) => memberJson(s, m)) }));
  const installations = Object.values(s.team.installations).map((i) => ({
    key: i.key,
    machine: i.machine,
    registered_at: i.registered_at,
  }));
  const where = (a: string): string => (a === WHOLE_STORE ? 'Every account (the whole store)' : `Account ${a}`);
  const lines = [
    root
      ? `Root, owner of everything: ${root.key}  ${root.machine ?? '(not registered yet)'}`
      : 'Nothing is written yet: the first installation to write owns the store.',
  ];
  lines.push(
    ...accounts.flatMap(({ account }) => [
      `${where(account)}:`,
      ...Object.values(s.team.accounts[account]?.members ?? {}).map((m) => `  ${memberLine(m, machineOf(s, m.key))}`),
    ]),
  );
  if (accounts.length === 0)
    lines.push(only === undefined ? 'Nobody else has a role: only the root may act.' : `Nobody but the root has a role in ${only}.`);
  if (only === undefined)
    lines.push(
      installations.length === 0 ? 'No installation is registered in this store.' : 'Installations:',
      ...installations.map((i) => `  ${i.key}  ${i.machine}`),
    );
  return print(ctx, only === undefined ? { root, accounts, installations } : { root, accounts }, lines.join('\n'));
}

/** `team add` and `team remove`: a change only a human at a terminal makes, signed by this installation. */
async function change(ctx: CommandContext, key: string | undefined, role: TeamRoleChange): Promise<number> {
  const given = str(ctx.opts, 'account');
  if (key === undefined || given === undefined) throw new HolonError('invalid_input', `usage: holon ${USAGE}`);
  const account = given === WHOLE_STORE ? WHOLE_STORE : accountId(given);
  checkedKey(key);
  const name = str(ctx.opts, 'name');
  if (role !== 'removed' && name === undefined)
    throw new HolonError('invalid_input', 'holon team add needs --name (how the team shows this person)');
  if (role === 'removed' && (name !== undefined || ctx.opts['approver'] || ctx.opts['role'] !== undefined))
    throw new HolonError('invalid_input', 'holon team remove takes only KEY and --account');
  // Who may do what is for a human to choose: an agent's shell, which has no terminal, cannot give itself a role.
  const where = account === WHOLE_STORE ? 'every account (the whole store)' : account;
  const what =
    role === 'removed'
      ? `Remove ${key} from the team of ${where}?`
      : `Make ${name ?? key} (${key}) ${role === 'owner' ? 'an owner' : role === 'approver' ? 'an approver' : 'a member'} of ${where}?`;
  if (!(await confirmUnlessGuarded(ctx, `${what} [y/N] `, role === 'removed' ? 'removing a team member' : 'adding a team member'))) {
    ctx.out('Not changed.');
    return 1;
  }
  return withStore(
    open(ctx),
    async (store) => {
      const m = await setTeamMember(store, lazySigner(ctx.stateDir), { account, key, name, role });
      return m
        ? print(ctx, { account, ...memberJson(store.state, m) }, `${account}: ${memberLine(m, machineOf(store.state, m.key))}`)
        : print(ctx, { account, key, role: 'removed' }, `Removed ${key} from the team of ${account}.`);
    },
    true,
  );
}

/** `team whoami`: this installation's key and machine, and its role in each account it has one in. */
async function whoami(ctx: CommandContext): Promise<number> {
  const key = lazySigner(ctx.stateDir).publicKey;
  const machine = thisProcess().host;
  if (ctx.store === undefined && !hasState(ctx.stateDir)) return print(ctx, { key, machine, root: false, roles: {} }, `${key}  ${machine}`);
  return withStore(openExisting(ctx), async (store) => {
    const s = store.state;
    const accounts = [
      ...new Set([...Object.keys(s.accounts), ...Object.values(s.mandates).map((m) => m.account), ...Object.keys(s.team.accounts)]),
    ].sort();
    const roles: Record<string, TeamRole> = {};
    for (const a of accounts) {
      const r = roleOf(s, a, key);
      if (r) roles[a] = r;
    }
    const root = s.team.root === key;
    const lines = [
      `${key}  ${machine}`,
      ...(root
        ? ['root: owner of everything in this store']
        : Object.entries(roles).map(([a, r]) => `${r} of ${a === WHOLE_STORE ? 'every account' : a}`)),
    ];
    return print(ctx, { key, machine, root, roles }, lines.join('\n'));
  });
}

const teamCmd: Command = {
  name: 'team',
  usage: USAGE,
  summary:
    'Who may do what on a shared store. The installation that wrote its first ' +
    'transaction (holon store init) is its root and owns everything; owners fund ' +
    'accounts, set mandates, rates and agents, and say who is who; approvers decide ' +
    "an account's approvals; members ask and spend under its mandates. A role holds " +
    "in one account, or with --account '*' in all of them. `whoami` prints this " +
    "installation's key, to give to whoever adds you. Adding and removing are interactive only.",
  options: {
    account: { type: 'string', help: "the account whose team it is ('*': every account)" },
    name: { type: 'string', help: 'how the team shows the person (add)' },
    role: { type: 'string', help: 'member (default), approver or owner (add)' },
    approver: { type: 'boolean', help: 'the same as --role approver (add)' },
  },
  positionals: [1, 2],
  async run(ctx) {
    const [action, key] = ctx.args;
    switch (action) {
      case 'add': {
        const role = str(ctx.opts, 'role') ?? (ctx.opts['approver'] ? 'approver' : 'member');
        if (role !== 'member' && role !== 'approver' && role !== 'owner')
          throw new HolonError('invalid_input', `--role is member, approver or owner, not "${role}"`);
        if (ctx.opts['approver'] && role !== 'approver') throw new HolonError('invalid_input', '--approver and --role disagree');
        return change(ctx, key, role);
      }
      case 'remove':
        return change(ctx, key, 'removed');
      case 'list': {
        if (key !== undefined || ctx.opts['name'] !== undefined || ctx.opts['approver'] || ctx.opts['role'] !== undefined)
          throw new HolonError('invalid_input', 'usage: holon team list [--account A]');
        const only = str(ctx.opts, 'account');
        return withStore(openExisting(ctx), async (store) => list(ctx, store.state, only));
      }
      case 'whoami':
        if (key !== undefined) throw new HolonError('invalid_input', 'usage: holon team whoami');
        return whoami(ctx);
      default:
        throw new HolonError('invalid_input', `unknown action "${action ?? ''}"; usage: holon ${USAGE}`);
    }
  },
};

export const commands: Command[] = [teamCmd];
