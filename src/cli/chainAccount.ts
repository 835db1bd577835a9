/**
 * The human's account on chain, as the commands reach it: the chain the flags or the environment name, and
 * the hot key in the state folder that sends the account's transactions and pays their gas.
 */
import { accountOn } from '../core/accounts/chainAccount.ts';
import type { HolonState } from '../core/fold/state.ts';
import { HolonError } from '../core/kernel/errors.ts';
import type { Wallet } from '../core/local/wallet.ts';
import { loadWallet } from '../core/local/wallet.ts';
import type { ChainReader } from '../core/rails/chain.ts';
import { chainReader } from '../core/rails/chain.ts';
import { delegateMandate } from '../core/rails/delegation/humanAccount.ts';
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
 * When the state has an account on the configured chain, has the passkey sign mandate `id`'s limits as its
 * delegation to the hot key (a second touch, after the mandate's own decision). Returns what to tell the
 * human: nothing where no account is.
 */
export async function delegateOnChain(ctx: CommandContext, store: EventStore<HolonState>, id: string): Promise<string> {
  const rail = chainOf(ctx.opts) ? accountRail(ctx) : undefined;
  if (!rail || !accountOn(store.state, rail.reader.config.chainId)) return '';
  const d = await delegateMandate(store, rail.reader, id, askPasskeyAtPage, rail.wallet.address);
  return (
    `\nOn ${rail.reader.config.network}, your account ${d.delegation.delegator} holds these limits ` +
    `for Holon's hot key (delegation ${d.digest}).`
  );
}
