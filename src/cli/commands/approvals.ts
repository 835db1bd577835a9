import { decideApproval, mayDecide } from '../../core/decisions/decide.ts';
import { isGuarded } from '../../core/accounts/passkeys.ts';
import { channelAccepted, pendingApprovals, setApprovalChannels } from '../../core/approvals/flow.ts';
import { accountOfApproval } from '../../core/approvals/slice.ts';
import type { ApprovalChannel } from '../../core/approvals/model.ts';
import { APPROVAL_CHANNELS, isWaiting } from '../../core/approvals/model.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import { lazySigner } from '../../core/store/keys.ts';
import { closeWindow, openWindows } from '../../core/office/colleagues.ts';
import { approvalMessage } from '../../core/views/present.ts';
import type { HolonState } from '../../core/fold/state.ts';
import type { NewEvent, Signer } from '../../core/store/store.ts';
import { accountOn } from '../../core/accounts/chainAccount.ts';
import { chainReader } from '../../core/rails/chain.ts';
import { CHAIN_OPTIONS, chainOf } from '../chainOptions.ts';
import { askPasskeyAtPage } from '../passkeyPage.ts';
import type { Command } from '../args.ts';
import { clock, confirmAtTerminal, confirmUnlessGuarded, list, open, openExisting, print, withStore } from '../context.ts';
import { approvalLine } from '../render.ts';

/** `approvals channels …`: which channels may answer approvals on this state. Setting it is interactive. */
async function channels(ctx: Parameters<Command['run']>[0], value: string | undefined): Promise<number> {
  if (value === undefined) {
    return withStore(openExisting(ctx), async (store) => {
      const set = store.state.settings.approval_channels;
      return print(
        ctx,
        { channels: set ?? [...APPROVAL_CHANNELS] },
        `Approvals are answered through: ` +
          `${(set ?? APPROVAL_CHANNELS).join(', ') || 'nothing (no approval can be given)'}` +
          `${set === null ? ' (all: never restricted)' : ''}.`,
      );
    });
  }
  const wanted = value === 'all' ? [...APPROVAL_CHANNELS] : (list(value) ?? []);
  const unknown = wanted.filter((c) => !(APPROVAL_CHANNELS as readonly string[]).includes(c));
  if (unknown.length > 0)
    throw new HolonError('invalid_input', `unknown channel ${unknown.join(', ')}; use ${APPROVAL_CHANNELS.join(', ')} or all`);
  // Like approving, choosing who may approve is for a human: their passkey on its page where it guards the
  // state, otherwise a terminal (an agent's shell has none).
  if (
    !(await confirmUnlessGuarded(
      ctx,
      `Answer approvals on this state only through ${wanted.join(', ')}? [y/N] `,
      'setting approval channels',
    ))
  ) {
    ctx.out('Not changed.');
    return 1;
  }
  return withStore(
    open(ctx),
    async (store) => {
      await setApprovalChannels(store, wanted as ApprovalChannel[]);
      return print(ctx, { channels: wanted }, `Approvals on this state are now answered through: ${wanted.join(', ')}.`);
    },
    true,
  );
}

const approvalsCmd: Command = {
  name: 'approvals',
  usage: 'approvals [--all] | approvals channels [panel,elicitation,cli | all]',
  summary:
    'Lists approvals waiting for you (all of them with --all), of every kind: agent ' +
    'calls, payments, capability windows, proposals… `approvals channels` shows, or ' +
    '(interactively) sets, where approvals may be answered.',
  options: { all: { type: 'boolean', help: 'include decided, used and expired approvals' } },
  positionals: [0, 2],
  async run(ctx) {
    const [sub, value] = ctx.args;
    if (sub === 'channels') return channels(ctx, value);
    if (sub !== undefined) throw new HolonError('invalid_input', 'usage: holon approvals [--all] | holon approvals channels [LIST]');
    return withStore(openExisting(ctx), async (store) => {
      const now = clock.now();
      const all = ctx.opts['all'] ? Object.values(store.state.approvals) : pendingApprovals(store.state, now);
      return print(ctx, all, all.length === 0 ? 'No approvals waiting.' : all.map((a) => approvalLine(a, now)).join('\n'));
    });
  },
};

/**
 * The `payment.authorized` event for payment approval `id`: the passkey signs, on its page, the payment as
 * the human's account on the chain the flags or the environment name. None where no chain is configured,
 * or the state has no account on it: the hot key pays after the approval, as before.
 */
async function paymentFromAccount(ctx: Parameters<Command['run']>[0], s: HolonState, id: string): Promise<NewEvent[]> {
  const config = chainOf(ctx.opts);
  if (!config || !accountOn(s, config.chainId)) return [];
  const { authorizeFromAccount } = await import('../../core/rails/delegation/accountPays.ts');
  const event = await authorizeFromAccount(s, chainReader(config), id, askPasskeyAtPage, clock.now());
  return event ? [event] : [];
}

/** Checks an approval can be decided here, by this installation, before asking the human anything. */
export function decidable(state: HolonState, id: string, decider: Signer): void {
  const a = state.approvals[id];
  if (!a) throw new HolonError('not_found', `no approval "${id}"`);
  if (!isWaiting(a, clock.now()))
    throw new HolonError('conflict', `approval ${id} is already ${a.status === 'pending' ? 'expired' : a.status}`);
  if (!channelAccepted(state, 'cli')) {
    throw new HolonError(
      'denied',
      'approvals from the terminal are turned off for this state; approve in the editor (setting holon.approvals.channels)',
    );
  }
  if (!mayDecide(state, a, decider)) {
    const account = accountOfApproval(state, a);
    throw new HolonError(
      'denied',
      `only an approver of account ${account} may decide approval ${id}; this ` +
        `installation is not one (holon team list --account ${account})`,
      { reason: 'not_an_approver' },
    );
  }
}

const approveCmd: Command = {
  name: 'approve',
  usage: 'approve APPROVAL_ID [--no-run] [--rpc-url URL --chain-id N --token ADDRESS]',
  summary:
    'Approves one waiting approval, after showing it to you. Interactive only. If the ' +
    'server that asked is still waiting, it goes ahead at once; otherwise the agent ' +
    're-submits with the approval id. Nothing runs in this terminal (approvals keep ' +
    'no copy of the input, only its hash).',
  options: {
    'no-run': { type: 'boolean', help: 'only approve (always the case; kept for seed 000 compatibility)' },
    // A payment on this chain, where the human's account is, is signed by their passkey as the account.
    ...CHAIN_OPTIONS,
  },
  positionals: [1, 1],
  async run(ctx) {
    const id = ctx.args[0] ?? '';
    return withStore(
      openExisting(ctx),
      async (store) => {
        const decider = lazySigner(ctx.stateDir);
        decidable(store.state, id, decider);
        const a = store.state.approvals[id];
        if (!a) throw new HolonError('not_found', `no approval "${id}"`);
        process.stdout.write(`${approvalMessage(a)}\n`);
        // Where a passkey guards the state, the page asks (decisions/asserted.ts): nothing typed here decides.
        if (!isGuarded(store.state) && !(await confirmAtTerminal('Approve? [y/N] ', 'approve'))) {
          ctx.out('Not approved.');
          return 1;
        }
        // A payment on the configured chain, where the human has an account there: their passkey signs it as the account first.
        const also = a.kind === 'payment' && isGuarded(store.state) ? await paymentFromAccount(ctx, store.state, id) : [];
        await decideApproval(store, clock, id, 'approved', 'cli', decider, also);
        // Some decisions do their work as they are recorded; only a call or a payment is re-submitted.
        const done: Partial<Record<typeof a.kind, string>> = {
          payment_intent: 'The parked payment is made.',
          capability_window: 'The window is open now.',
          budget_override: "Today's limit is raised.",
          proposal: 'The proposal is merged into the personnel file.',
          action: 'The agent sees it approved.',
          unlanded_payment:
            'The payment is released: its money goes back once it can no longer land (Holon cancels it on the chain where the ' +
            'wallet has gas for that; otherwise when its authorization lapses). Should it land before, it is counted as spent.',
        };
        const effect = done[a.kind];
        const waiting = store.state.approvals[id]?.released !== true;
        const signed =
          also.length > 0 ? ' Your account signed the payment: that signature is what is sent, and the hot key signs nothing for it.' : '';
        return print(
          ctx,
          {
            approval: id,
            status: 'approved',
            waiting_server: effect ? false : waiting,
            ...(also.length > 0 ? { signed_by_account: true } : {}),
          },
          (effect
            ? `Approved ${id}. ${effect}`
            : waiting
              ? `Approved ${id}. The waiting server goes ahead now.`
              : `Approved ${id}. The agent can now re-submit with approval: "${id}".`) + signed,
        );
      },
      true,
    );
  },
};

const rejectCmd: Command = {
  name: 'reject',
  usage: 'reject APPROVAL_ID',
  summary: 'Rejects a waiting approval; what it was for will not happen.',
  options: {},
  positionals: [1, 1],
  async run(ctx) {
    return withStore(
      openExisting(ctx),
      async (store) => {
        const a = await decideApproval(store, clock, ctx.args[0] ?? '', 'rejected', 'cli', lazySigner(ctx.stateDir));
        return print(ctx, { approval: a.id, status: 'rejected' }, `Rejected ${a.id}.`);
      },
      true,
    );
  },
};

const windowsCmd: Command = {
  name: 'windows',
  usage: 'windows [close APPROVAL_ID]',
  summary: 'Lists the capability windows open now (what a human lent an agent for some hours); `windows close ID` ends one at once.',
  options: {},
  positionals: [0, 2],
  async run(ctx) {
    const [action, id] = ctx.args;
    if (action === undefined) {
      return withStore(openExisting(ctx), async (store) => {
        const open = openWindows(store.state, clock.now());
        const lines = open.map(
          (w) =>
            `${w.approval}  ${w.mandate}  ${w.capability.name}` +
            `${w.capability.params ? ` ${JSON.stringify(w.capability.params)}` : ''}  until ` +
            `${w.closes_at}`,
        );
        return print(ctx, open, lines.length === 0 ? 'No capability window is open.' : lines.join('\n'));
      });
    }
    if (action !== 'close' || !id) throw new HolonError('invalid_input', 'usage: holon windows [close APPROVAL_ID]');
    return withStore(
      open(ctx),
      async (store) => {
        const w = await closeWindow(store, clock, id);
        return print(ctx, w, `Closed: ${w.mandate} no longer has ${w.capability.name} from ${id}.`);
      },
      true,
    );
  },
};

export const commands: Command[] = [approvalsCmd, approveCmd, rejectCmd, windowsCmd];
