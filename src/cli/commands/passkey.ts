import * as os from 'node:os';
import { activePasskeys, addPasskey, isGuarded, registrationSubject, removePasskey } from '../../core/accounts/passkeys.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import { accountOn, chainAccountEvent } from '../../core/accounts/chainAccount.ts';
import type { HolonState } from '../../core/fold/state.ts';
import type { KeysSynced } from '../../core/rails/delegation/accountKeys.ts';
import { syncAccountKeys } from '../../core/rails/delegation/accountKeys.ts';
import { createHumanAccount, deployHumanAccount } from '../../core/rails/delegation/humanAccount.ts';
import type { EventStore } from '../../core/store/store.ts';
import { accountRail } from '../chainAccount.ts';
import { CHAIN_OPTIONS } from '../chainOptions.ts';
import type { Command, CommandContext } from '../args.ts';
import { str } from '../args.ts';
import { open, openExisting, print, withStore } from '../context.ts';
import { askPasskeyAtPage, atPage } from '../passkeyPage.ts';

const passkeyCmd: Command = {
  name: 'passkey',
  usage:
    'passkey add [--label NAME] [--rpc-url URL --chain-id N --token ADDRESS] | passkey account [ID] | passkey list | passkey remove ID',
  summary:
    'Adds, lists or removes the passkeys that decide for this state. Once one is added, every decision ' +
    '(an approval, a mandate, money in, a rate, the catalog, a setting) is made on a page Holon opens in ' +
    "your browser, with your passkey; the terminal and the state folder's keys decide nothing. A second " +
    'passkey, or removing one, needs one you have. With a chain (its flags, or $HOLON_RPC_URL), add also deploys ' +
    "your account there, owned by the new passkey alone (the state's wallet pays the gas); account does it later " +
    "for a passkey you have. Then each mandate's limits are signed as a delegation the chain holds. Once the account " +
    'is there, adding or removing a passkey changes its keys too (a passkey it holds signs that on a further page), ' +
    'so add and remove need the chain; account, with an account there, finishes such a change a crash cut short.',
  options: {
    label: { type: 'string', help: "a name for the new passkey (default: this machine's name)" },
    ...CHAIN_OPTIONS,
  },
  positionals: [1, 2],
  async run(ctx) {
    const [verb, id] = ctx.args;
    if (verb === 'list' && id === undefined) return list(ctx);
    if (verb === 'remove' && id !== undefined) return remove(ctx, id);
    if (verb === 'account') return account(ctx, id);
    if (verb === 'add' && id === undefined) return add(ctx);
    throw new HolonError('invalid_input', `usage: holon ${passkeyCmd.usage}`);
  },
};

/** `passkey list`: the passkeys that decide, and the accounts they own. */
async function list(ctx: CommandContext): Promise<number> {
  return withStore(openExisting(ctx), async (store) => {
    const keys = activePasskeys(store.state).map((r) => ({ id: r.credential.id, label: r.label, added_at: r.added_at }));
    const accounts = Object.values(store.state.chain_account.accounts);
    return print(
      ctx,
      { guarded: isGuarded(store.state), passkeys: keys, accounts },
      keys.length === 0
        ? 'No passkey: this state decides with its local keys.'
        : [
            ...keys.map((k) => `${k.id}  ${k.label}  added ${k.added_at}`),
            ...accounts.map((a) => `Account ${a.address} on eip155:${a.chain_id}, owned by passkey ${a.credential}`),
          ].join('\n'),
    );
  });
}

/** `passkey remove ID`: itself a decision, which another passkey confirms; never the last. */
async function remove(ctx: CommandContext, id: string): Promise<number> {
  return withStore(
    openExisting(ctx),
    async (store) => {
      const rail = railFor(ctx, store);
      await removePasskey(store, id);
      const synced = rail ? await syncAccountKeys(store, rail.reader, rail.wallet, askPasskeyAtPage) : undefined;
      return print(ctx, { removed: id, account: synced ?? null }, `Removed passkey ${id}.` + syncedText(synced));
    },
    true,
  );
}

/** `passkey account [ID]`: the account on the configured chain, for a state a passkey guards already. */
async function account(ctx: CommandContext, id: string | undefined): Promise<number> {
  return withStore(
    openExisting(ctx),
    async (store) => {
      const rail = accountRail(ctx);
      if (!rail) throw new HolonError('invalid_input', 'holon passkey account needs a chain: --rpc-url URL --chain-id N --token ADDRESS');
      if (accountOn(store.state, rail.reader.config.chainId)) {
        if (id !== undefined) throw new HolonError('conflict', `the human has an account on chain ${rail.reader.config.chainId} already`);
        const synced = await syncAccountKeys(store, rail.reader, rail.wallet, askPasskeyAtPage);
        return print(ctx, synced, `Your account ${synced!.account} holds the keys of this state's passkeys.` + syncedText(synced));
      }
      const a = await createHumanAccount(store, rail.reader, rail.wallet, id);
      // The state's other passkeys become keys of the account too, each signed by one it holds already.
      const synced = await syncAccountKeys(store, rail.reader, rail.wallet, askPasskeyAtPage);
      return print(
        ctx,
        { ...a, keys: synced ?? null },
        `Your account on eip155:${a.chain_id} is ${a.address}, owned by passkey ${a.credential}.` + syncedText(synced),
      );
    },
    true,
  );
}

/** `passkey add`: registered on the page; with a chain, its account deployed and recorded in the same decision. */
async function add(ctx: CommandContext): Promise<number> {
  const label = str(ctx.opts, 'label') ?? os.hostname();
  return withStore(
    open(ctx),
    async (store) => {
      const first = !isGuarded(store.state);
      const rail = railFor(ctx, store);
      const answer = await atPage({
        kind: 'register',
        title: 'Holon: add a passkey',
        lines: [
          first
            ? 'From now on, only this passkey decides for this Holon state: approvals, mandates, funding, rates, the catalog, settings.'
            : 'A further passkey that decides for this Holon state; one you already have confirms it next.',
          `Its name: ${label}`,
        ],
        user: `Holon on ${os.hostname()}`,
        subject: registrationSubject,
      });
      if (answer.kind !== 'registered') {
        ctx.out('Not added.');
        return 1;
      }
      // With a chain, the new passkey's account is deployed first and recorded beside it: one decision.
      const existing = rail ? accountOn(store.state, rail.reader.config.chainId) : undefined;
      const account = rail && !existing ? await deployHumanAccount(rail.reader, rail.wallet, answer.credential) : undefined;
      const added = await addPasskey(
        store,
        answer.credential,
        label,
        answer.assertion,
        account ? [chainAccountEvent('account.created', account)] : [],
      );
      // The journal decided; now the account the state has already takes the key (see syncAccountKeys).
      const synced = rail && existing ? await syncAccountKeys(store, rail.reader, rail.wallet, askPasskeyAtPage) : undefined;
      return print(
        ctx,
        { id: added.credential.id, label: added.label, guarded: true, account: account ?? synced ?? null },
        `Added passkey ${added.credential.id} (${added.label}).` +
          (first ? ' From now on, only your passkey decides for this state.' : '') +
          (account ? ` Your account on eip155:${account.chain_id} is ${account.address}, owned by this passkey alone.` : '') +
          syncedText(synced),
      );
    },
    true,
  );
}

/**
 * The chain for a change of passkeys: none needed while the state has no account, and refused without one
 * when it has: the account's keys must change with the journal, or it would still take a removed passkey.
 */
function railFor(ctx: CommandContext, store: EventStore<HolonState>): ReturnType<typeof accountRail> {
  const rail = accountRail(ctx);
  const unreached = Object.values(store.state.chain_account.accounts).filter((a) => a.chain_id !== rail?.reader.config.chainId);
  if (unreached.length > 0)
    throw new HolonError(
      'invalid_input',
      `your account ${unreached[0]!.address} on eip155:${unreached[0]!.chain_id} holds your passkeys' keys: ` +
        'give its chain (--rpc-url URL --chain-id N --token ADDRESS) so that it changes with them',
    );
  return rail;
}

/** What changed on the account, in words; nothing when nothing did. */
function syncedText(s: KeysSynced | undefined): string {
  if (!s) return '';
  const what = [
    ...s.added.map((id) => `now holds the key of passkey ${id}`),
    ...s.removed.map((id) => `no longer holds the key of passkey ${id}`),
  ];
  return what.length === 0 ? '' : ` Your account ${s.account} ${what.join(' and ')} (${s.transactions.join(', ')}).`;
}

export const commands: Command[] = [passkeyCmd];
