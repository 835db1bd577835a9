/**
 * `pay` to a CAIP-10 `eip155:` account: the x402/EIP-3009 rail. An intent the gate allowed is paid by an
 * EIP-3009 authorization the human's wallet signs (a random nonce, valid for a few minutes), recorded in
 * the journal with its settlement before it leaves the process, settled through the facilitator the
 * human configured, and read back from the chain before its receipt says it landed. A facilitator that
 * does not answer (it may have submitted the payment all the same) leaves the intent authorized with its
 * money held: the same intent sent again, by the agent or after a restart, sends the same authorization
 * again, never a second one, and the chain says whether it landed.
 */
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import type { Clock, Logger } from '../kernel/deps.ts';
import { HolonError } from '../kernel/errors.ts';
import { quotedName } from '../kernel/foreign.ts';
import type { Money } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { EventStore, Signer } from '../store/store.ts';
import type { HolonState } from '../fold/state.ts';
import type { TypedRequest, Wallet } from '../local/wallet.ts';
import type { ChainReader } from './chain.ts';
import { checkLanding, recordClaim } from './landing.ts';
import { recordSigned } from './signing.ts';
import type { Authorization } from './scheme.ts';
import type { Settlement } from './settlement.ts';
import { settlementFor } from './settlement.ts';
import { exact } from './schemes/exact.ts';

/** An x402 v2 payment's requirements, as Holon builds them for its own payments (the `exact` scheme). */
export interface ExactRequirements {
  scheme: 'exact';
  network: string;
  asset: string;
  amount: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: { name: string; version: string };
}

/** What a facilitator answered a settlement with (`@x402/core`'s SettleResponse, as much as Holon reads). */
export interface FacilitatorAnswer {
  success: boolean;
  transaction: string;
  errorReason?: string | undefined;
}

/** The facilitator Holon settles its own payments through (an HTTP one, `@x402/core`'s client, in the server). */
export interface FacilitatorClient {
  /** Settles a payment; throws when no answer came (a timeout, the connection lost): the payment may have settled. */
  settle(payload: unknown, requirements: ExactRequirements): Promise<FacilitatorAnswer>;
}

/** The chain rail: the chain it pays on, the wallet that signs, the facilitator that submits. */
export interface ChainRail {
  reader: ChainReader;
  wallet: Wallet;
  facilitator: FacilitatorClient;
  logger?: Logger | undefined;
}

/** How long an authorization Holon signs for `pay` can be settled: long enough for a facilitator, short enough to expire. */
const VALIDITY_SECONDS = 120;

/** An amount of the rail's token in its smallest units; refused when it has more decimals than the token. */
export function tokenUnits(amount: Money, decimals: number): bigint {
  const shift = decimals - M.SCALE;
  if (shift >= 0) return amount.units * 10n ** BigInt(shift);
  const div = 10n ** BigInt(-shift);
  if (amount.units % div !== 0n)
    throw new HolonError('invalid_input', `the token has ${decimals} decimals; ${M.formatUnits(amount.units)} has more`);
  return amount.units / div;
}

/** The payment an intent sends: the authorization to sign, and the requirements it settles under. */
function build(rail: ChainRail, payTo: string, amount: Money, now: number): { request: TypedRequest; requirements: ExactRequirements } {
  const c = rail.reader.config;
  const value = tokenUnits(amount, c.asset.decimals).toString();
  const to = getAddress(payTo);
  const message: Authorization = {
    from: rail.wallet.address,
    to,
    value,
    validAfter: '0',
    validBefore: String(Math.floor(now / 1000) + VALIDITY_SECONDS),
    nonce: `0x${randomBytes(32).toString('hex')}`,
  };
  return {
    request: exact.request(message, { name: c.asset.name, version: c.asset.version, chainId: c.chainId, token: c.token }),
    requirements: {
      scheme: 'exact',
      network: c.network,
      asset: c.token,
      amount: value,
      payTo: to,
      maxTimeoutSeconds: VALIDITY_SECONDS,
      extra: { name: c.asset.name, version: c.asset.version },
    },
  };
}

/** What paying an intent on the chain needs from its host. */
export interface ChainPayDeps {
  store: EventStore<HolonState>;
  clock: Clock;
  signer?: Signer;
  rail: ChainRail;
}

/** The x402 payment a settlement keeps, with the requirements it was built for. */
interface Kept {
  x402Version: 2;
  accepted: ExactRequirements;
  payload: { signature: string; authorization: Authorization };
}

/**
 * Pays authorized intent `id` on the chain, or sends its payment again: signs an authorization (only when
 * none was signed for it yet), records it, asks the facilitator to settle it, and reads the chain. Returns
 * the settlement as the chain left it: landed (the intent settled with it), or still open (held), or
 * final without landing (the intent failed, its money back). A facilitator that gave no answer is
 * `lock_timeout` (retry as is): the payment may have landed, and sending the intent again finds out.
 */
export async function payIntentOnChain(deps: ChainPayDeps, id: string, order: { to: string; amount: Money }): Promise<Settlement> {
  const rail = deps.rail;
  let settlement = settlementFor(deps.store.state, { kind: 'intent', id });
  // A new authorization only where none can land any more: never beside one that still may.
  if (!settlement || settlement.status === 'expired' || settlement.status === 'released') {
    const intent = deps.store.state.intents[id];
    const hold = deps.store.state.holds[id];
    if (!intent || !hold) throw new Error(`intent ${id} has no money held to pay with`);
    const built = build(rail, order.to, order.amount, deps.clock.now());
    const signature = await rail.wallet.signTypedData(built.request);
    const payload: Kept = {
      x402Version: 2,
      accepted: built.requirements,
      payload: { signature, authorization: built.request.message as unknown as Authorization },
    };
    const recorded = await recordSigned(
      { store: deps.store, chain: rail.reader, wallet: rail.wallet },
      {
        mandate: intent.mandate,
        for: { kind: 'intent', id },
        hold: id,
        held: { units: hold.units, currency: hold.currency },
        network: built.requirements.network,
        token: built.requirements.asset,
        authorization: payload.payload.authorization,
        payload,
        amount: order.amount,
      },
    );
    settlement = deps.store.state.settlements[recorded.id] as Settlement;
  }
  // Sent only while it may still land; the very bytes recorded, whoever sends them.
  if (settlement.status === 'signed') {
    const kept = settlement.payload as Kept;
    let answer: FacilitatorAnswer | undefined;
    try {
      answer = await rail.facilitator.settle(kept, kept.accepted);
    } catch (err) {
      rail.logger?.warn(`the facilitator did not answer for payment ${settlement.id}: ${(err as Error).message}`);
    }
    if (answer?.success && answer.transaction) await recordClaim(deps, settlement.id, answer.transaction, 'facilitator');
    const landing = { store: deps.store, clock: deps.clock, chain: rail.reader, ...(deps.signer ? { signer: deps.signer } : {}) };
    const read = await checkLanding(landing, settlement.id, { claimed: answer?.success === true });
    if (read?.status === 'signed' && !answer) {
      throw new HolonError(
        'lock_timeout',
        `the facilitator did not answer, and the payment is not on ${read.network} yet; its money stays held. Send the same intent ` +
          `again with the same idempotency key: Holon sends the same authorization again, never a second one`,
        { settlement: read.id },
      );
    }
    if (read?.status === 'signed') {
      // The facilitator's reason is its own words: quoted, so it reads as one name and never as more of the sentence.
      const why = answer?.errorReason ? `the facilitator said ${quotedName(answer.errorReason)}` : 'no reason given';
      throw new HolonError(
        'agent_failed',
        `the facilitator did not settle the payment (${why}), ` +
          `and it is not on ${read.network}; ` +
          'its money stays held until it lands or its authorization expires. Send the same intent again with the same key later',
        { settlement: read.id },
      );
    }
    return read ?? settlement;
  }
  return settlement;
}
