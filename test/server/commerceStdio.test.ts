/** The built server with the human's merchants: `holon mcp --mandate M --merchant stationery=acp:URL,hardware=ucp:URL` over stdio. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { purchasesOf } from '../../src/core/commerce/purchases.ts';
import { silentLogger, systemClock } from '../../src/core/kernel/deps.ts';
import { openState } from '../../src/core/holon.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { startAcpMerchant } from '../../examples/merchants/acpMerchant.ts';
import { startUcpMerchant } from '../../examples/merchants/ucpMerchant.ts';
import { HOLON_BIN, servedState } from '../helpers.ts';
import { callTool } from './support.ts';

test('holon mcp --merchant: quote and buy at both local merchants through the built binary', async () => {
  const state = await servedState();
  const acp = await startAcpMerchant();
  const ucp = await startUcpMerchant();
  try {
    const setup = openState(state.dir, { clock: systemClock, logger: silentLogger, durable: false, watch: false });
    try {
      await createMandate(setup, systemClock, 'demo/shopper', { toolsets: ['commerce'], approval_threshold: '30.00', budget: { total: '60.00', per_day: null, per_call: null }, capabilities: [{ name: 'commerce.buy' }] });
    } finally {
      setup.close();
    }
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [HOLON_BIN, 'mcp', '--mandate', 'demo/shopper', '--state', state.dir, '--merchant', `stationery=acp:${acp.url},hardware=ucp:${ucp.url}`],
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'commerce-stdio', version: '1.0.0' });
    await client.connect(transport);
    const ok = <T>(r: CallToolResult): T => {
      assert.notEqual(r.isError, true, `${JSON.stringify(r.structuredContent)}\n${stderr}`);
      return r.structuredContent as T;
    };
    try {
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['quote', 'buy']);
      const cart = ok<{ status: string; total: { amount: string } }>(await callTool(client, 'quote', { merchant: 'stationery', lines: [{ product: 'desk-lamp', quantity: 1 }] }));
      assert.deepEqual([cart.status, cart.total.amount], ['ready', '50.40']);
      const order = ok<{ id: string; charged: { amount: string } }>(await callTool(client, 'buy', { merchant: 'hardware', lines: [{ product: 'sticker-pack', quantity: 4 }], replay_key: 'stickers-1' }));
      assert.equal(order.id, 'ord_1', "the merchant's order id, as the merchant sent it");
      assert.equal(order.charged.amount, '1.9872');
    } finally {
      await client.close();
    }
    const after = openState(state.dir, { clock: systemClock, logger: silentLogger, durable: false, watch: false });
    try {
      assert.deepEqual(purchasesOf(after.state).map((p) => [p.merchant, p.order?.id, p.charged?.amount]), [['hardware', 'ord_1', '1.9872']]);
    } finally {
      after.close();
    }
    assert.equal(ucp.orders.length, 1);
  } finally {
    await acp.close();
    await ucp.close();
    state.cleanup();
  }
});
