/**
 * The channel pairing through a real SDK Client: Holon opens a channel with the human's wallet (the
 * deposit is the payment the mandate allows), keeps it, pays each page with a voucher and closes it; the
 * seller checks every signature itself, and settles the deposit on the local chain. Every opening, chosen and hold is taken back only exactly as
 * this process returned it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { generatePrivateKey } from 'viem/accounts';
import { setFx } from '../../src/core/money/fx.ts';
import { createMandate, patchMandate } from '../../src/core/accounts/mandates.ts';
import { publicFetch } from '../../src/server/net/publicFetch.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import type { TypedRequest } from '../../src/core/local/wallet.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import type { ChannelSeller } from '../fixtures/sellers/channelSeller.ts';
import { startChannelSeller } from '../fixtures/sellers/channelSeller.ts';
import { SELLER, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { localChain } from '../../examples/chain/chain.ts';
import type { TestClock } from '../helpers.ts';
import { connect, demoRuntime, TestClock as Clock, until } from '../helpers.ts';
import { chainOf } from '../chain/support.ts';
import { callTool } from './support.ts';

const CHANNEL = 'x402/channel/eip155';
const BUYER = 'demo/pages';
const wallet = walletFromKey(generatePrivateKey());

let runtime: Runtime;
let clock: TestClock;
let client: Client;
let cleanup: () => Promise<void>;
const sellers: ChannelSeller[] = [];

before(async () => {
  // Holon signs only on the chain the human configured: the local one, where the seller settles the deposits.
  const chain = await localChain();
  const world = await demoRuntime({ clock: new Clock(Date.now()), fetch: publicFetch({ allowPrivate: true, maxBytes: 64 * 1024 }), wallet, chain: chainOf(chain) });
  ({ runtime, clock, cleanup } = world);
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  await createMandate(runtime.store, clock, BUYER, {
    toolsets: ['terms'],
    approval_threshold: '1.00',
    budget: { total: '5.00', per_day: null, per_call: null },
    capabilities: [{ name: 'pay', params: { payees: [`${TEST_NETWORK}:${SELLER}`] } }],
  });
  client = await connect(runtime, { mandate: BUYER });
  // The seller settles each opening's deposit on the local chain: the wallet holds the token there.
  await chain.fund(wallet.address, { usdc: 5_000_000n });
});
after(async () => {
  await client.close();
  await cleanup();
  for (const s of sellers) await s.close();
});

const seller = async (): Promise<ChannelSeller> => {
  const s = await startChannelSeller();
  sellers.push(s);
  return s;
};
const json = <T>(r: CallToolResult): T => {
  assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent));
  return r.structuredContent as T;
};
const declineOf = (r: CallToolResult): string => {
  assert.equal(r.isError, true, JSON.stringify(r.structuredContent));
  return (r.structuredContent as { decline: { code: string } }).decline.code;
};
const send = (s: ChannelSeller, signed: unknown): Promise<Response> => fetch(`${s.url}/page`, { headers: { 'payment-signature': encodePaymentSignatureHeader(signed as never) } });
type Hold = Record<string, unknown> & { mac: string; charged: string; signed: string };

/** Opens a channel with Holon's wallet and keeps it: the hold. */
async function opened(s: ChannelSeller): Promise<{ hold: Hold; atr: string; settlement: string }> {
  const t = json<{ atr: { base64: string }; signed: unknown; mac: string; settlement: { id: string } }>(await callTool(client, 'atr_transact', { pairing: CHANNEL, document: s.document() }));
  const res = await send(s, t.signed);
  assert.equal(res.status, 200, s.refused.join());
  const kept = json<{ hold: Hold }>(await callTool(client, 'atr_channel_open', { pairing: CHANNEL, atr: t.atr.base64, signed: t.signed, mac: t.mac }));
  return { hold: kept.hold, atr: t.atr.base64, settlement: t.settlement.id };
}

describe('x402/channel/eip155', () => {
  test('open with the deposit, pay each page by voucher, record the charge, close: the seller takes every signature', async () => {
    const s = await seller();
    const spentBefore = runtime.store.state.spend[BUYER]?.spent ?? 0n;
    const open = await opened(s);
    let { hold } = open;
    assert.equal(s.channel?.id, hold['channel']);
    // The deposit is held until Holon reads it landed in the seller's escrow, then counted as spent.
    await until(() => runtime.store.state.settlements[open.settlement]?.status === 'landed', 'the deposit to land');
    assert.equal((runtime.store.state.spend[BUYER]?.spent ?? 0n) - spentBefore, 184_000n, 'the deposit, 0.20 USDC at 0.92, is the payment the mandate allowed');
    for (let page = 1; page <= 3; page++) {
      const w = json<{ signed: unknown; hold: Hold }>(await callTool(client, 'atr_channel_within', { pairing: CHANNEL, hold, document: s.document() }));
      if (page === 1) {
        // A voucher carries H as its terms: atr_check reads it back.
        assert.deepEqual(json(await callTool(client, 'atr_check', { pairing: CHANNEL, atr: s.atr.toString('base64'), presented: w.signed })), { atrHash: s.hash });
      }
      const res = await send(s, w.signed);
      assert.equal(res.status, 200, s.refused.join());
      const body = (await res.json()) as { charged: string };
      hold = json<{ hold: Hold }>(await callTool(client, 'atr_channel_record_charge', { hold: w.hold, charged: body.charged })).hold;
      assert.equal(hold.charged, String(50_000 * page));
    }
    // Past the deposit (0.20 = 4 pages), the fifth page is never signed.
    const fourth = json<{ signed: unknown; hold: Hold }>(await callTool(client, 'atr_channel_within', { pairing: CHANNEL, hold, document: s.document() }));
    assert.equal((await send(s, fourth.signed)).status, 200);
    assert.equal(declineOf(await callTool(client, 'atr_channel_within', { pairing: CHANNEL, hold: fourth.hold, document: s.document() })), 'offer-unreadable');
    const closed = json<{ signed: unknown; hold: Hold }>(await callTool(client, 'atr_channel_within', { pairing: CHANNEL, hold: { ...fourth.hold }, refund: {} }));
    const res = await send(s, closed.signed);
    assert.equal(res.status, 200, s.refused.join());
    assert.equal(s.channel?.closed, true);
  });

  test('a hold changed in any member, with a member added or removed, or a stale one, is declined; nothing is signed', async () => {
    const s = await seller();
    const { hold } = await opened(s);
    const variants: Record<string, unknown>[] = [];
    for (const key of Object.keys(hold).filter((k) => k !== 'mac')) {
      const v = hold[key];
      variants.push({ ...hold, [key]: typeof v === 'boolean' ? !v : typeof v === 'string' ? `${v}0` : 1 });
      const { [key]: _gone, ...removed } = hold;
      variants.push(removed);
    }
    variants.push({ ...hold, extra: 'x' }, { ...hold, mac: `0x${'00'.repeat(32)}` });
    for (const bad of variants) {
      assert.equal(declineOf(await callTool(client, 'atr_channel_record_charge', { hold: bad, charged: '50000' })), 'hold-unverified');
      assert.equal(declineOf(await callTool(client, 'atr_channel_within', { pairing: CHANNEL, hold: bad, document: s.document() })), 'hold-unverified');
    }
    assert.equal(s.channel?.cumulative, 0n, 'the seller saw no voucher');
    // Members in another order are the same hold.
    const reordered = Object.fromEntries(Object.entries(hold).reverse());
    assert.equal((await callTool(client, 'atr_channel_record_charge', { hold: reordered, charged: '0' })).isError, undefined);
  });

  test('only the latest hold is taken back: an older one (after a voucher or a recorded charge) is declined, and nothing is signed', async () => {
    const s = await seller();
    const t = json<{ atr: { base64: string }; signed: unknown; mac: string }>(await callTool(client, 'atr_transact', { pairing: CHANNEL, document: s.document() }));
    assert.equal((await send(s, t.signed)).status, 200, s.refused.join());
    const opening = { pairing: CHANNEL, atr: t.atr.base64, signed: t.signed, mac: t.mac };
    const h0 = json<{ hold: Hold }>(await callTool(client, 'atr_channel_open', opening)).hold;
    const w1 = json<{ signed: unknown; hold: Hold }>(await callTool(client, 'atr_channel_within', { pairing: CHANNEL, hold: h0, document: s.document() }));
    const res = await send(s, w1.signed);
    assert.equal(res.status, 200, s.refused.join());
    const older = (r: CallToolResult): string => {
      assert.equal((r.structuredContent as { signed?: unknown }).signed, undefined, 'nothing signed');
      return declineOf(r);
    };
    // h0 is older than w1.hold: neither a voucher, nor a close, nor a charge is taken with it.
    assert.equal(older(await callTool(client, 'atr_channel_within', { pairing: CHANNEL, hold: h0, document: s.document() })), 'hold-unverified');
    assert.equal(older(await callTool(client, 'atr_channel_within', { pairing: CHANNEL, hold: h0, refund: {} })), 'hold-unverified');
    assert.equal(older(await callTool(client, 'atr_channel_record_charge', { hold: h0, charged: '50000' })), 'hold-unverified');
    // A recorded charge returns a new hold too: after it, only its result is the latest.
    const h2 = json<{ hold: Hold }>(await callTool(client, 'atr_channel_record_charge', { hold: w1.hold, charged: ((await res.json()) as { charged: string }).charged })).hold;
    assert.equal(older(await callTool(client, 'atr_channel_within', { pairing: CHANNEL, hold: w1.hold, document: s.document() })), 'hold-unverified');
    assert.equal(older(await callTool(client, 'atr_channel_record_charge', { hold: w1.hold, charged: '50000' })), 'hold-unverified');
    // A declined call leaves the latest as it was; opening the channel again gives it back, never a fresh one.
    assert.deepEqual(json<{ hold: Hold }>(await callTool(client, 'atr_channel_open', opening)).hold, h2);
    // Two calls with the same latest hold: one signs, the other is declined, never both.
    const both = await Promise.all([1, 2].map(() => callTool(client, 'atr_channel_within', { pairing: CHANNEL, hold: h2, document: s.document() })));
    assert.deepEqual(both.map((r) => r.isError === true).sort(), [false, true]);
    assert.equal(declineOf(both.find((r) => r.isError) as CallToolResult), 'hold-unverified');
    const w3 = json<{ signed: unknown; hold: Hold }>(both.find((r) => !r.isError) as CallToolResult);
    assert.equal((await send(s, w3.signed)).status, 200, s.refused.join());
    assert.equal(s.channel?.cumulative, 100_000n, 'the seller took two vouchers, one per page');
    const closed = json<{ signed: unknown }>(await callTool(client, 'atr_channel_within', { pairing: CHANNEL, hold: w3.hold, refund: {} }));
    assert.equal((await send(s, closed.signed)).status, 200, s.refused.join());
  });

  test('an opening or a chosen not returned by this process is declined before anything is signed', async () => {
    const s = await seller();
    const account = `${TEST_NETWORK}:${wallet.address}`;
    const c = json<{ atr: { base64: string }; chosen: Record<string, unknown>; request: TypedRequest }>(await callTool(client, 'atr_confirm', { pairing: CHANNEL, document: s.document(), account }));
    const signature = await wallet.signTypedData(c.request);
    const changed = { ...c.chosen, option: { ...(c.chosen['option'] as object), payTo: '0x000000000000000000000000000000000000dEaD' } };
    assert.equal(declineOf(await callTool(client, 'atr_finish', { pairing: CHANNEL, atr: c.atr.base64, chosen: changed, signature })), 'chosen-unverified');
    const f = json<{ signed: Record<string, unknown>; mac: string }>(await callTool(client, 'atr_finish', { pairing: CHANNEL, atr: c.atr.base64, chosen: c.chosen, signature }));
    assert.equal(declineOf(await callTool(client, 'atr_channel_open', { pairing: CHANNEL, atr: c.atr.base64, signed: f.signed, mac: `0x${'11'.repeat(32)}` })), 'opening-unverified');
    assert.equal(declineOf(await callTool(client, 'atr_channel_open', { pairing: CHANNEL, atr: c.atr.base64, signed: { ...f.signed, x402Version: 3 }, mac: f.mac })), 'opening-unverified');
    assert.equal(declineOf(await callTool(client, 'atr_channel_open', { pairing: CHANNEL, atr: c.atr.base64, signed: f.signed, landed: { forged: true }, mac: f.mac })), 'opening-unverified');
    assert.equal((await callTool(client, 'atr_channel_open', { pairing: CHANNEL, atr: c.atr.base64, signed: f.signed, mac: f.mac })).isError, undefined);
  });

  test('Holon\'s mandate still applies within a channel: a payee no longer allowed is not paid', async () => {
    const s = await seller();
    const { hold } = await opened(s);
    await patchMandate(runtime.store, clock, BUYER, { capabilities: [{ name: 'pay', params: { payees: ['eip155:1:0x0000000000000000000000000000000000000001'] } }] });
    try {
      assert.equal(declineOf(await callTool(client, 'atr_channel_within', { pairing: CHANNEL, hold, document: s.document() })), 'capability-scope');
    } finally {
      await patchMandate(runtime.store, clock, BUYER, { capabilities: [{ name: 'pay', params: { payees: [`${TEST_NETWORK}:${SELLER}`] } }] });
    }
  });
});
