/**
 * A flagged payment's hold, as the human sees it and ends it at a terminal: the built `holon mcp` on the
 * local chain calls an agent that says "settled" and never settles. `holon holds` says what the hold is
 * (a payment on the chain, flagged), never "placed by an older Holon"; `holon holds release` asks at a
 * terminal as `holon approve` does, and refuses without one; once released, the running server cancels
 * the authorization with the wallet (it has gas), the chain shows it can never land, and the money is back.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generatePrivateKey } from 'viem/accounts';
import { systemClock } from '../../src/core/kernel/deps.ts';
import { addAgent } from '../../src/core/market/catalog.ts';
import { saveWallet } from '../../src/core/local/wallet.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import type { Seller } from '../../examples/sellers/x402Seller.ts';
import { startSeller } from '../../examples/sellers/x402Seller.ts';
import { manifest } from '../core/fixtures.ts';
import type { McpSession } from '../cli/cliHarness.ts';
import { ensureBuilt, HANG_MS, holonIn, inTerminal, json, mcpSession, ok, openLedger, seededState, until } from '../cli/cliHarness.ts';
import { SELLER_PAYEE, x402Endpoint } from './support.ts';

const MANDATE = 'demo/hirer';
let chain: LocalChain;
let seller: Seller;

before(async () => {
  await ensureBuilt();
  chain = await localChain();
  seller = await startSeller('claims-unpaid', { amount: '150000' });
});
after(async () => seller.close());

type Budget = { held: { amount: string }; spent: { amount: string } };

test('holon holds names a flagged payment and releases it at a terminal; the server cancels it on the chain and the money comes back', { timeout: HANG_MS }, async () => {
  const { dir: state, cleanup } = await seededState();
  let server: McpSession | undefined;
  try {
    const wallet = saveWallet(state, generatePrivateKey());
    await chain.fund(wallet, { usdc: 1_000_000n, eth: 10n ** 17n });
    await ok(state, ['fx', 'USDC', 'EUR', '0.92']);
    await ok(state, ['mandate', 'create', MANDATE, '--total', '5', '--threshold', '2', '--capabilities', 'extraction.*', '--payees', SELLER_PAYEE]);
    const ledger = await openLedger(state);
    await addAgent(ledger, systemClock, manifest('sellers/liar', ['extraction.table'], { price: { currency: 'USDC', per_call: '0.15' } }), x402Endpoint(`${seller.url}/resource`), 'test');
    ledger.close();
    const flags = ['--allow-private-sellers', '--rpc-url', chain.rpcUrl, '--chain-id', String(chain.chainId), '--token', chain.token, '--facilitator', chain.facilitator.url];
    server = await mcpSession(state, MANDATE, flags);
    const before = (await json<Budget[]>(state, ['budget', MANDATE]))[0];
    await server.client.callTool({ name: 'call_agent', arguments: { agent: 'sellers/liar', input: {} } });

    const holds = await until(async () => {
      const rows = await json<{ hold: string; settlement: string | null; why: string }[]>(state, ['holds']);
      return rows.find((r) => r.settlement !== null && /flagged/.test(r.why));
    }, 'the payment to be flagged');
    assert.match(holds.why, /^payment stl_\S+ on eip155:31337: not landed: flagged \(the payee named a transaction that does not show this payment/);
    const listed = await ok(state, ['holds']);
    assert.ok(!listed.includes('placed by an older Holon'), listed);

    // Without a terminal it is refused; at one, answered no, nothing changes.
    const plain = await holonIn(state, ['holds', 'release', holds.hold]);
    assert.notEqual(plain.code, 0);
    const declined = await inTerminal(['holds', 'release', holds.hold, '--state', state], { answer: 'n' });
    assert.match(declined.output, /Release it\? \[y\/N\]/);
    assert.match(declined.output, /Not released/);
    const released = await inTerminal(['holds', 'release', holds.hold, '--state', state], { answer: 'y' });
    assert.equal(released.code, 0, released.output);
    assert.match(released.output, /Released payment stl_\S+: not landed: released by a human; its money stays held until it can no longer land/);

    // The server sends the cancellation; once the chain shows it, the hold is gone and the money back.
    const after = await until(async () => {
      const b = (await json<Budget[]>(state, ['budget', MANDATE]))[0];
      return b?.held.amount === before?.held.amount ? b : undefined;
    }, 'the release to end once the authorization is cancelled');
    assert.equal(after.spent.amount, before?.spent.amount, 'nothing counted as spent');
    const rows = await json<{ hold: string }[]>(state, ['holds']);
    assert.ok(!rows.some((r) => r.hold === holds.hold));
    const kept = seller.received[0];
    assert.ok(kept, 'the seller kept the signed payment');
  } finally {
    await server?.close().catch(() => {});
    cleanup();
  }
});
