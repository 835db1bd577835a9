/**
 * Paying an x402 agent that offers `@x402/evm`'s `upto` scheme (core/rails/schemes/upto.ts says how it moves
 * money): which of an agent's offers `call_agent` takes, and the payment the human's wallet signs for an
 * `upto` one — the Permit2 witness transfer of the worst case bound to H and, where Permit2 may not move the
 * wallet's token yet, the EIP-2612 permit the seller's facilitator submits with the settlement (x402's
 * `eip2612GasSponsoring`, which the seller must have declared). Nothing here trusts the seller for what the
 * chain can answer: the allowance, the permit nonce and whether H's Permit2 nonce is spent are read there.
 */
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { getAddress, isAddress } from 'viem';
import { denial } from '../../core/kernel/denials.ts';
import { knownAsset } from '../../core/rails/assets.ts';
import type { ChainReader } from '../../core/rails/chain.ts';
import { assertNonceUnspent, reads } from '../../core/rails/signing.ts';
import type { HolonState } from '../../core/fold/state.ts';
import { PERMIT2, permitRequest, uptoAuthorization, uptoRequest, uptoSettlementAuthorization } from '../../core/rails/schemes/upto.ts';
import type { Wallet } from '../../core/local/wallet.ts';
import { evmOptions, exactOptions, refuse } from './x402Exact.ts';

/** How a receipt names an `upto` payment's pairing: x402's `upto` on an EVM chain, H as Permit2's nonce. */
export const UPTO = 'x402/upto/eip155';

/** x402's extension through which a payer's EIP-2612 permit of Permit2 reaches the facilitator. */
const EIP2612_SPONSORING = 'eip2612GasSponsoring';

/** The `upto` EVM options of `accepts`: the facilitator the payer's witness names is part of the offer. */
export function uptoOptions(accepts: unknown[]): PaymentRequirements[] {
  return evmOptions(accepts, 'upto', (e) => typeof e['facilitatorAddress'] === 'string' && isAddress(e['facilitatorAddress']));
}

/**
 * The offer `call_agent` pays, of an agent's `exact` and `upto` offers on the chain and in the token the
 * human configured (Holon signs only what it reads back there: an `upto` payment's cost is what the chain
 * shows, never the seller's word): the one whose signature authorizes the least, `exact` on a tie — a
 * fixed price no higher than the worst case is never worse, and is known before anything is signed.
 */
export function choosePayment(accepts: unknown[], chain: ChainReader | undefined): PaymentRequirements | undefined {
  const candidates = [...exactOptions(accepts), ...uptoOptions(accepts)].filter(
    (o) => reads(chain, o.network, o.asset) && knownAsset(o.network, o.asset),
  );
  let best: PaymentRequirements | undefined;
  for (const o of candidates) if (!best || BigInt(o.amount) < BigInt(best.amount)) best = o;
  return best;
}

/**
 * The `upto` payment for `option`, of at most its amount, bound to H (`h`) and valid until `deadline`,
 * signed by the wallet. Refused, before anything is signed: when H's Permit2 nonce is spent already (the
 * terms were paid: the payment could never land), or an `upto` payment of these terms may still land,
 * or when Permit2 may not move the amount and the seller takes no EIP-2612 permit.
 */
export async function paidUpto(
  deps: { wallet: Wallet; chain: ChainReader; state: HolonState },
  chosen: {
    option: PaymentRequirements;
    resource: PaymentRequired['resource'];
    deadline: string;
    extensions: Record<string, unknown> | undefined;
  },
  h: string,
): Promise<PaymentPayload> {
  const { wallet, chain } = deps;
  const o = chosen.option;
  const asset = knownAsset(o.network, o.asset);
  if (!asset) throw refuse(denial('offer_unreadable', { read: 'x402/unknown-asset' }));
  const authorization = uptoAuthorization({
    from: wallet.address,
    token: o.asset,
    amount: o.amount,
    to: o.payTo,
    facilitator: getAddress(String(o.extra['facilitatorAddress'])),
    deadline: chosen.deadline,
    h,
  });
  await assertNonceUnspent(deps.state, chain, { scheme: 'upto', authorization: uptoSettlementAuthorization(authorization) });
  // Permit2 moves the token only as far as the wallet allowed it; what it may not, an EIP-2612 permit allows.
  const sponsoring = chosen.extensions?.[EIP2612_SPONSORING] as { info?: Record<string, unknown> } | undefined;
  const needsPermit = (await chain.allowance(wallet.address, PERMIT2)) < BigInt(o.amount);
  if (needsPermit && !sponsoring) throw refuse(denial('offer_unreadable', { read: 'x402/upto-permit2-not-approved' }));
  const chainId = Number(o.network.slice('eip155:'.length));
  const permit = needsPermit
    ? permitRequest(authorization, { name: asset.name, version: asset.version, chainId }, await chain.permitNonce(wallet.address))
    : undefined;
  const signature = await wallet.signTypedData(uptoRequest(authorization, chainId));
  const extensions = permit
    ? {
        [EIP2612_SPONSORING]: {
          ...sponsoring,
          // What the seller declared, echoed, with the permit (x402's resource server checks the echo).
          info: { ...sponsoring?.info, ...permit.info, signature: await wallet.signTypedData(permit.request) },
        },
      }
    : undefined;
  return {
    x402Version: 2,
    resource: chosen.resource,
    accepted: o,
    payload: { signature, permit2Authorization: authorization },
    ...(extensions ? { extensions } : {}),
  };
}
