import type { Clock, Logger } from '../core/kernel/deps.ts';
import type { EventStore, Signer } from '../core/store/store.ts';
import type { Gateway } from '../core/market/gateway.ts';
import type { HolonState } from '../core/fold/state.ts';
import type { FetchLike } from './net/publicFetch.ts';
import type { Wallet } from '../core/local/wallet.ts';
import type { Forge } from '../core/office/forge.ts';
import type { Merchants } from './commerce/merchants.ts';
import type { ChainReader } from '../core/rails/chain.ts';
import type { Ap2Consent } from '../core/commerce/ap2.ts';

/** What every toolset's handlers reach the core through. */
export interface ServerDeps {
  store: EventStore<HolonState>;
  /** The installation's Ed25519 signer: disclosures, intents, memory artifacts and cursors are signed with it. */
  signer: Signer;
  gateway: Gateway;
  clock: Clock;
  logger: Logger;
  approvals: ApprovalSettings;
  /** The network policy of every link a seller chooses: public addresses only, unless the human allowed private ones. */
  fetch: FetchLike;
  /** The human's wallet, when they created or imported one: the tools that sign are offered only with it. */
  wallet?: Wallet;
  /** The workspace folder the office publishes artifacts into and whose git is its forge. */
  workspace?: string;
  /** The forge pull requests are opened on; without one, the workspace's own git. */
  forge?: Forge;
  /** The merchants the human configured for the commerce tools (none: they answer not_found). */
  merchants?: Merchants;
  /**
   * The chain the human configured (RPC, token, facilitator): every payment signed on it is read back from
   * it, and `pay` settles on it. None: no chain payment is signed at all (Holon signs only what it reads back).
   */
  chain?: ChainReader;
  /**
   * The human's AP2 consent in the state folder (their mandate key, the open mandates they signed): `buy`
   * signs a purchase's mandates with it, inside the gate, at a merchant that negotiated AP2.
   */
  ap2?: Ap2Consent;
}

/** How a server waits for the human when something needs approval. */
export interface ApprovalSettings {
  /** How long a call waits for a decision from any channel (0: return the pending approval at once). */
  waitMs: number;
  /** Ask by MCP elicitation when the client supports it. */
  elicitation: boolean;
  /** The least a call waits when it asked by elicitation, so the human has time to answer the form. */
  elicitationWaitMs: number;
}
