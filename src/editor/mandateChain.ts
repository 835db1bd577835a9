/**
 * A mandate saved in the editor's form, kept in step on chain as `holon mandate create|edit` keeps it: where
 * the state has the human's account on the chain of the user's settings (`holon.chain.*`), its delegation is
 * disabled and an active mandate's limits signed again, each on the passkey's page. Without those settings a
 * mandate that has a delegation is left as the chain holds it, and the human is told so.
 *
 * No `vscode` here: the page comes in as `atPage`, so a test drives it against a real chain with a software
 * passkey. The chain's code (viem, the wallet, the account's calls) loads only when a mandate needs it.
 */
import { accountOn, delegationOfMandate } from '../core/accounts/chainAccount.ts';
import { askSignatureOnPage } from '../core/ceremony/ask.ts';
import type { Answer, Ceremony } from '../core/ceremony/page.ts';
import type { HolonState } from '../core/fold/state.ts';
import { HolonError } from '../core/kernel/errors.ts';
import type { ChainConfig } from '../core/rails/chain.ts';
import type { EventStore } from '../core/store/store.ts';

export interface MandateChainDeps {
  store: EventStore<HolonState>;
  /** The state folder: where the hot key that sends the account's calls is kept. */
  dir: string;
  /** The chain of the user's settings, or null when none is set. */
  chain: ChainConfig | null;
  atPage: (c: Ceremony) => Promise<Answer>;
}

/**
 * After mandate `id` was saved: what its delegation on chain now is, in words for a notification; '' when
 * the state has no account on that chain (or no chain and no delegation). Refused (`denied`, not_asserted)
 * when the passkey's page was closed: then the chain holds what it held.
 */
export async function mandateOnChainFromEditor(deps: MandateChainDeps, id: string): Promise<string> {
  const { store, chain } = deps;
  if (!chain) {
    const live = delegationOfMandate(store.state, id);
    return live
      ? `Mandate ${id}'s delegation ${live.digest} still holds what it held on chain: set holon.chain.rpcUrl, ` +
          '.id and .token in your user settings, and save the mandate again, to disable it and sign the new limits.'
      : '';
  }
  if (!accountOn(store.state, chain.chainId)) return '';
  const [{ loadWallet }, { chainReader }, { followMandateOnChain, mandateOnChainText }] = await Promise.all([
    import('../core/local/wallet.ts'),
    import('../core/rails/chain.ts'),
    import('../core/rails/delegation/humanAccount.ts'),
  ]);
  const wallet = loadWallet(deps.dir);
  if (!wallet)
    throw new HolonError('invalid_input', "this state has no wallet to send the account's transactions: holon wallet create makes one");
  const reader = chainReader(chain);
  const done = await followMandateOnChain(store, reader, wallet, id, askSignatureOnPage(deps.atPage));
  return mandateOnChainText(reader.config.network, done).trim();
}
