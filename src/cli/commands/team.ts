import { HolonError } from '../../core/errors.ts';
import { accountId } from '../../core/ids.ts';
import { lazySigner } from '../../core/keys.ts';
import { thisProcess } from '../../core/owner.ts';
import { memberLine } from '../../core/present.ts';
import type { HolonState } from '../../core/state.ts';
import type { TeamMember, TeamRoleChange } from '../../core/team.ts';
import { checkedKey, isApprover, machineOf, setTeamMember } from '../../core/team.ts';
import type { Command, CommandContext } from '../args.ts';
import { str } from '../args.ts';
import { confirmAtTerminal, hasState, open, openExisting, print, withStore } from '../context.ts';

const USAGE = 'team add KEY --account A --name N [--approver] | team remove KEY --account A | team list [--account A] | team whoami';

/** A member as `--json` shows it: with the machine its key registered, if it did. */
function memberJson(s: HolonState, m: TeamMember): Record<string, unknown> {
  return { key: m.key, name: m.name, role: m.role, machine: machineOf(s, m.key) ?? null, updated_at: m.updated_at };
}

/** `team list`: every account's team (or one), and the installations registered in the store. */
function list(ctx: CommandContext, s: HolonState, only: string | undefined): number {
  if (only !== undefined && !s.team.accounts[only] && !s.accounts[only] && !Object.values(s.mandates).some((m) => m.account === only)) {
    throw new HolonError('not_found', `no account "${only}"`);
  }
  const accounts = Object.keys(s.team.accounts)
    .filter((a) => only === undefined || a === only)
    .sort()
    .map((account) => ({ account, members: Object.values(s.team.accounts[account]?.members ?? {}).map((m) => memberJson(s, m)) }));
  const installations = Object.values(s.team.installations).map((i) => ({ key: i.key, machine: i.machine, registered_at: i.registered_at }));
  const lines = accounts.flatMap(({ account }) => [`Account ${account}:`, ...Object.values(s.team.accounts[account]?.members ?? {}).map((m) => `  ${memberLine(m, machineOf(s, m.key))}`)]);
  if (only !== undefined && accounts.length === 0) lines.push(`Account ${only} has no team: anyone at a channel decides its approvals.`);
  if (only === undefined) {
    if (accounts.length === 0) lines.push('No account has a team: anyone at a channel decides approvals.');
    lines.push(installations.length === 0 ? 'No installation is registered in this store.' : 'Installations:', ...installations.map((i) => `  ${i.key}  ${i.machine}`));
  }
  return print(ctx, only === undefined ? { accounts, installations } : { accounts }, lines.join('\n'));
}

/** `team add` and `team remove`: a change only a human at a terminal makes, signed by this installation. */
async function change(ctx: CommandContext, key: string | undefined, role: TeamRoleChange): Promise<number> {
  const given = str(ctx.opts, 'account');
  if (key === undefined || given === undefined) throw new HolonError('invalid_input', `usage: holon ${USAGE}`);
  const account = accountId(given);
  checkedKey(key);
  const name = str(ctx.opts, 'name');
  if (role !== 'removed' && name === undefined) throw new HolonError('invalid_input', 'holon team add needs --name (how the team shows this person)');
  if (role === 'removed' && (name !== undefined || ctx.opts['approver'])) throw new HolonError('invalid_input', 'holon team remove takes only KEY and --account');
  // Who may approve is for a human to choose: an agent's shell, which has no terminal, cannot make itself an approver.
  const what = role === 'removed' ? `Remove ${key} from the team of ${account}?` : `Make ${name ?? key} (${key}) ${role === 'approver' ? 'an approver' : 'a member'} of ${account}?`;
  if (!(await confirmAtTerminal(`${what} [y/N] `, role === 'removed' ? 'removing a team member' : 'adding a team member'))) {
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

/** `team whoami`: this installation's key and machine, and where it is an approver. */
async function whoami(ctx: CommandContext): Promise<number> {
  const key = lazySigner(ctx.stateDir).publicKey;
  const machine = thisProcess().host;
  if (ctx.store === undefined && !hasState(ctx.stateDir)) return print(ctx, { key, machine, approver_of: [] }, `${key}  ${machine}`);
  return withStore(openExisting(ctx), async (store) => {
    const approverOf = Object.keys(store.state.team.accounts).filter((a) => isApprover(store.state, a, key));
    return print(ctx, { key, machine, approver_of: approverOf }, `${key}  ${machine}${approverOf.length > 0 ? `\napprover of ${approverOf.join(', ')}` : ''}`);
  });
}

const teamCmd: Command = {
  name: 'team',
  usage: USAGE,
  summary:
    "Who may decide an account's approvals on a shared store. Once an account has an approver, only its approvers decide its approvals; the first change to a team must make this installation an approver. `whoami` prints this installation's key, to give to whoever adds you. Adding and removing are interactive only.",
  options: {
    account: { type: 'string', help: 'the account whose team it is' },
    name: { type: 'string', help: 'how the team shows the person (add)' },
    approver: { type: 'boolean', help: 'make them an approver, not only a member (add)' },
  },
  positionals: [1, 2],
  async run(ctx) {
    const [action, key] = ctx.args;
    switch (action) {
      case 'add':
        return change(ctx, key, ctx.opts['approver'] ? 'approver' : 'member');
      case 'remove':
        return change(ctx, key, 'removed');
      case 'list': {
        if (key !== undefined || ctx.opts['name'] !== undefined || ctx.opts['approver']) throw new HolonError('invalid_input', 'usage: holon team list [--account A]');
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
