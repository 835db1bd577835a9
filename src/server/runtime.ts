import type { Clock, Logger } from '../core/kernel/deps.ts';
import type { EventStore } from '../core/store/store.ts';
import { refusalNotice } from '../core/store/store.ts';
import { filesRoot, openState } from '../core/holon.ts';
import { lazySigner } from '../core/store/keys.ts';
import { Gateway } from '../core/market/gateway.ts';
import { recoverOrphanedHolds } from '../core/money/spend.ts';
import type { ChainConfig } from '../core/rails/chain.ts';
import { chainReader } from '../core/rails/chain.ts';
import { watchLandings } from '../core/rails/landing.ts';
import { cancellerOf } from '../core/rails/cancel.ts';
import type { HolonState } from '../core/fold/state.ts';
import { McpAgentRunner } from './agentClient.ts';
import type { FetchLike } from './net/publicFetch.ts';
import { publicFetch } from './net/publicFetch.ts';
import type { Wallet } from '../core/local/wallet.ts';
import type { Forge } from '../core/office/forge.ts';
import { loadWallet } from '../core/local/wallet.ts';
import { stateConsent } from '../core/commerce/ap2.ts';
import type { MerchantConfig } from './commerce/merchants.ts';
import { merchantsOf } from './commerce/merchants.ts';
import { X402AgentRunner } from './terms/x402Agent.ts';
import type { ApprovalSettings, ServerDeps } from './serverDeps.ts';
import { LoopbackDelegationHost } from './transports/delegation.ts';
import { createSchemaValidator } from './validate.ts';

/** Everything a process needs to serve or make calls on one state. */
export interface Runtime {
  /** The state folder (files, keys, and the journal of the embedded store). */
  stateDir: string;
  deps: ServerDeps;
  store: EventStore<HolonState>;
  /** Stops everything. */
  close(): Promise<void>;
}

/** Default approval settings for a headless process: answer at once, ask by elicitation when possible. */
export const HEADLESS_APPROVALS: ApprovalSettings = { waitMs: 0, elicitation: true, elicitationWaitMs: 120_000 };

/** What a runtime is opened with; everything but the clock and the logger has a default. */
export interface RuntimeOptions {
  clock: Clock;
  logger: Logger;
  approvals?: ApprovalSettings;
  durable?: boolean;
  store?: EventStore<HolonState>;
  fetch?: FetchLike;
  allowPrivateSellers?: boolean;
  wallet?: Wallet;
  workspace?: string;
  forge?: Forge;
  merchants?: readonly MerchantConfig[];
  /** The chain payments are read back from (and `pay` settles on); none: nothing is read. */
  chain?: ChainConfig;
  /** How often open payments are looked for on the chain (default: by where the node is). */
  landingPollMs?: number;
}

/**
 * The work a runtime does in the background, started once its store is open; returns what stops it. The
 * holds of a server that died mid-call (kill -9, a crash) are given back by the next one. Payments signed
 * here or by a process that died before it could read them back are read on the chain, and a payment a
 * human released is cancelled on the chain by the wallet, where it can pay the gas. Rows of a team store
 * that were not folded are told to whoever runs the server (never to the agent), each once.
 */
function startBackground(
  store: EventStore<HolonState>,
  signer: ReturnType<typeof lazySigner>,
  options: RuntimeOptions,
  chain: ReturnType<typeof chainReader> | undefined,
  wallet: Wallet | undefined,
): () => void {
  const { clock, logger } = options;
  const stopRecovery = recoverOrphanedHolds(store, logger);
  const cancel = chain ? cancellerOf(wallet, chain) : undefined;
  const stopLandings = watchLandings({ store, clock, chain, logger, signer, cancel }, options.landingPollMs);
  if (store.refused.length > 0) logger.warn(refusalNotice(store.refused, 'holon verify --store'));
  const stopRefusals = store.onRefused((tx) => logger.warn(refusalNotice([tx], 'holon verify --store')));
  return () => {
    stopRecovery();
    stopLandings();
    stopRefusals();
  };
}

/** How the runtime reaches sellers: the given fetch, else the public internet only unless the human allowed private addresses. */
function sellerFetch(options: RuntimeOptions): FetchLike {
  if (options.allowPrivateSellers)
    options.logger.warn('sellers on private addresses (loopback, your network) are allowed: only for a seller you run yourself');
  return options.fetch ?? publicFetch({ allowPrivate: options.allowPrivateSellers === true });
}

/**
 * The composition root shared by `holon mcp`, the CLI and the tests: the store, the gateway, a real MCP
 * client for agents, and the loopback endpoint for delegated calls.
 */
export function openRuntime(stateDir: string, options: RuntimeOptions): Runtime {
  const store =
    options.store ??
    openState(stateDir, {
      clock: options.clock,
      logger: options.logger,
      ...(options.durable !== undefined ? { durable: options.durable } : {}),
    });
  const wallet = options.wallet ?? loadWallet(stateDir);
  const fetch = sellerFetch(options);
  const chain = options.chain ? chainReader(options.chain) : undefined;
  const x402 = new X402AgentRunner({
    fetch,
    wallet,
    now: () => options.clock.now(),
    logger: options.logger,
    store,
    clock: options.clock,
    chain,
  });
  // A paid MCP tool is paid by the same payer as an HTTP resource that answers 402.
  const runner = new McpAgentRunner(options.logger, x402, x402.paying);
  // The delegation endpoint needs the deps that the gateway it serves is part of.
  const holder: { deps?: ServerDeps } = {};
  const delegation = new LoopbackDelegationHost(() => {
    if (!holder.deps) throw new Error('runtime not ready');
    return holder.deps;
  });
  const signer = lazySigner(stateDir);
  const gateway = new Gateway({
    store,
    signer,
    clock: options.clock,
    logger: options.logger,
    runner,
    delegation,
    filesRoot: filesRoot(stateDir),
    validate: createSchemaValidator(),
  });
  const deps: ServerDeps = {
    store,
    signer,
    gateway,
    clock: options.clock,
    logger: options.logger,
    approvals: options.approvals ?? HEADLESS_APPROVALS,
    fetch,
    ...(wallet ? { wallet } : {}),
    ...(options.workspace ? { workspace: options.workspace } : {}),
    ...(options.forge ? { forge: options.forge } : {}),
    ...(options.merchants?.length ? { merchants: merchantsOf(options.merchants) } : {}),
    ...(chain ? { chain } : {}),
    ap2: stateConsent(stateDir),
  };
  holder.deps = deps;
  const stopBackground = startBackground(store, signer, options, chain, wallet);
  return {
    stateDir,
    deps,
    store,
    async close() {
      stopBackground();
      delegation.close();
      try {
        await runner.close();
      } finally {
        store.close();
      }
    },
  };
}
