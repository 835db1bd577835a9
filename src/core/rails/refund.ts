/**
 * A channel's refund at its closing: what comes back to the payer from the escrow its deposit was paid to,
 * looked for on the chain once it is expected, and credited to the mandate once Holon read it there.
 */
import { getAddress } from 'viem';
import * as M from '../kernel/amount.ts';
import type { EventStore } from '../store/store.ts';
import type { HolonState } from '../fold/state.ts';
import type { ChainReader } from './chain.ts';
import type { Settlement } from './settlement.ts';
import { nonceKey, settlementEvent } from './settlement.ts';
import type { SchemeName } from './schemes.ts';
import { recordedScheme, SCHEMES } from './schemes.ts';
import { startBlock } from './signing.ts';

/**
 * Records that closing a channel gives back `value` of the deposit paid by settlement `id` (from the
 * escrow it was paid to), to be looked for on the chain from now on.
 */
export async function expectRefund(
  deps: { store: EventStore<HolonState>; chain: ChainReader | undefined },
  id: string,
  value: bigint,
): Promise<void> {
  // The head itself, not a recent block: a refund is told only by a transfer from the escrow, and one made
  // before now is not it.
  const from = await startBlock(deps.chain, { atHead: true });
  await deps.store.transact((s) => {
    const r = s.settlements[id];
    if (!r || r.refund?.transaction) return { events: [], result: undefined };
    const event = settlementEvent('settlement.refund_expected', {
      settlement: id,
      value: value.toString(),
      from: r.authorization.to,
      from_block: (from ?? BigInt(r.from_block ?? '0')).toString(),
    });
    return { events: [event], result: undefined };
  });
}

/**
 * The settlement a channel's deposit was paid by: its opening's nonce is H, from the payer to the escrow.
 * Read by that nonce in each scheme's nonce space (the settlements' own index), not by scanning every
 * settlement: the first signed that went to the escrow.
 */
export function channelSettlement(s: HolonState, channel: { atrHash: string; payer: string; escrow: string }): Settlement | undefined {
  const escrow = channel.escrow.toLowerCase();
  for (const name of Object.keys(SCHEMES) as SchemeName[]) {
    const key = nonceKey({ ...recordedScheme(name), authorization: { from: channel.payer, nonce: channel.atrHash } });
    for (const id of s.settlements_by_nonce[key] ?? []) {
      const r = s.settlements[id];
      if (r && r.authorization.to.toLowerCase() === escrow) return r;
    }
  }
  return undefined;
}

/** Reads the chain for a channel's refund, and credits the mandate with it once it is there. */
export async function checkRefund(deps: { store: EventStore<HolonState> }, reader: ChainReader, id: string): Promise<void> {
  const r = deps.store.state.settlements[id];
  const expected = r?.refund;
  if (!r || r.status !== 'landed' || !expected || expected.transaction !== null) return;
  const found = (await reader.transfers(getAddress(expected.from), getAddress(r.authorization.from), BigInt(expected.from_block))).find(
    (t) => t.value === BigInt(expected.value),
  );
  if (!found) return;
  await deps.store.transact((s) => {
    const now = s.settlements[id];
    if (!now?.refund || now.refund.transaction !== null) return { events: [], result: undefined };
    // The deposit's share of what the mandate was charged for it: exact, rounded in the mandate's disfavour.
    const held = M.fromJson(now.held);
    const credit = (held.units * BigInt(expected.value)) / BigInt(now.authorization.value);
    const mandate = s.mandates[now.mandate];
    const event = settlementEvent('settlement.refunded', {
      settlement: id,
      transaction: found.transaction,
      block: found.block.toString(),
      value: expected.value,
      credit: {
        mandate: now.mandate,
        account: mandate?.account ?? now.mandate.split('/')[0] ?? '',
        amount: M.toJson({ units: credit, currency: held.currency }),
        day: now.signed_at.slice(0, 10),
      },
    });
    return { events: [event], result: undefined };
  });
}
