/**
 * The human's account on chain, as the commands reach it: the chain the flags or the environment name, and
 * the hot key in the state folder that sends the account's transactions and pays their gas.
 */
import { accountOn, delegationOfMandate } from '../core/accounts/chainAccount.ts';
import type { HolonState } from '../core/fold/state.ts';
import { HolonError } from '../core/kernel/errors.ts';
import type { Wallet } from '../core/local/wallet.ts';
import { loadWallet } from '../core/local/wallet.ts';
import type { ChainReader } from '../core/rails/chain.ts';
import { chainReader } from '../core/rails/chain.ts';
import { followMandateOnChain, mandateOnChainText } from '../core/rails/delegation/humanAccount.ts';
import type { EventStore } from '../core/store/store.ts';
import type { CommandContext } from './args.ts';
import { chainOf } from './chainOptions.ts';
import { askPasskeyAtPage } from './passkeyPage.ts';

/** The chain and the hot key; undefined when no chain is configured; refused when there is no hot key. */
export function accountRail(ctx: CommandContext): { reader: ChainReader; wallet: Wallet } | undefined {
  const chain = chainOf(ctx.opts);
  if (!chain) return undefined;
  const wallet = loadWallet(ctx.stateDir);
  if (!wallet)
    throw new HolonError('invalid_input', "this state has no wallet to send the account's transactions: holon wallet create makes one");
  return { reader: chainReader(chain), wallet };
}

/**
 * Keeps mandate `id`'s delegation on chain in step with the mandate just written, when the state has an
 * account on the configured chain: its delegation, if it has one, is disabled first (a touch), and an
 * active mandate's limits are then signed again, less what the account already moved for it (another
 * touch). Disabling comes first so that two delegations of one mandate are never live at once, and what
 * was spent is read once the old one can spend no more. Returns what to tell the human: nothing where no
 * account is; where the mandate has a delegation but no chain is configured, that it still holds.
 */
export async function delegateOnChain(ctx: CommandContext, store: EventStore<HolonState>, id: string): Promise<string> {
  const rail = chainOf(ctx.opts) ? accountRail(ctx) : undefined;
  if (!rail || !accountOn(store.state, rail.reader.config.chainId)) {
    const live = delegationOfMandate(store.state, id);
    return live
      ? `\nMandate ${id}'s delegation ${live.digest} still holds what it held on chain: give the chain's settings ` +
          '(--rpc-url, --chain-id, --token) to disable it and sign the new limits.'
      : '';
  }
  const { network } = rail.reader.config;
  const done = await followMandateOnChain(store, rail.reader, rail.wallet, id, askPasskeyAtPage);
  return mandateOnChainText(network, done);
}
