/**
 * A channel's MACs verify only in the `holon mcp` process that made them: after a restart, the hold and
 * the opening from before are declined and nothing is signed in that channel again.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { systemClock } from '../../src/core/kernel/deps.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { createWallet } from '../../src/core/local/wallet.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { startChannelSeller } from '../fixtures/sellers/channelSeller.ts';
import { SELLER, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { chainFlags } from '../chain/support.ts';
import { ensureBuilt, HANG_MS, mcpSession, openLedger, seededState } from './cliHarness.ts';

before(ensureBuilt);

const CHANNEL = 'x402/channel/eip155';
const result = (r: unknown): CallToolResult => r as CallToolResult;
const code = (r: unknown): string | undefined => (result(r).structuredContent as { decline?: { code: string } }).decline?.code;

test('after a restart, the hold and the opening from before are declined; nothing is signed', { timeout: HANG_MS }, async () => {
  const { dir: state, cleanup } = await seededState();
  const seller = await startChannelSeller();
  try {
    const store = await openLedger(state);
    await setFx(store, 'USDC', 'EUR', '0.92');
    await createMandate(store, systemClock, 'demo/pages', { toolsets: ['terms'], approval_threshold: '1.00', capabilities: [{ name: 'pay', params: { payees: [`${TEST_NETWORK}:${SELLER}`] } }] });
    store.close();
    // The seller settles the deposit on the local chain: the wallet holds the token there, and both
    // processes are told that chain (Holon signs only on the chain the human configured).
    const chain = await localChain();
    await chain.fund(createWallet(state), { usdc: 5_000_000n });
    const flags = ['--allow-private-sellers', ...chainFlags(chain)];

    const first = await mcpSession(state, 'demo/pages', flags);
    const t = result(await first.client.callTool({ name: 'atr_transact', arguments: { pairing: CHANNEL, document: seller.document() } }));
    assert.notEqual(t.isError, true, JSON.stringify(t.structuredContent));
    const opened = t.structuredContent as { atr: { base64: string }; signed: unknown; mac: string };
    assert.equal((await fetch(`${seller.url}/page`, { headers: { 'payment-signature': encodePaymentSignatureHeader(opened.signed as never) } })).status, 200);
    const kept = result(await first.client.callTool({ name: 'atr_channel_open', arguments: { pairing: CHANNEL, atr: opened.atr.base64, signed: opened.signed, mac: opened.mac } }));
    const hold = (kept.structuredContent as { hold: Record<string, unknown> }).hold;
    assert.ok(hold['mac']);
    await first.close();

    const second = await mcpSession(state, 'demo/pages', flags);
    try {
      assert.equal(code(await second.client.callTool({ name: 'atr_channel_record_charge', arguments: { hold, charged: '0' } })), 'hold-unverified');
      assert.equal(code(await second.client.callTool({ name: 'atr_channel_within', arguments: { pairing: CHANNEL, hold, document: seller.document() } })), 'hold-unverified');
      assert.equal(code(await second.client.callTool({ name: 'atr_channel_open', arguments: { pairing: CHANNEL, atr: opened.atr.base64, signed: opened.signed, mac: opened.mac } })), 'opening-unverified');
      assert.equal(seller.channel?.cumulative, 0n, 'no voucher was signed');
    } finally {
      await second.close();
    }
  } finally {
    await seller.close();
    cleanup();
  }
});
