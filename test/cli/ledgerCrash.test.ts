/**
 * kill -9 mid-call with the call's ledger line group-committed (written, not yet flushed): the built
 * `holon mcp` ledgers atr_confirm and then fetches the seller's terms from a seller that never answers;
 * killed while it waits, it has lost nothing it wrote. The line is whole and sealed in the journal, the
 * next process folds it, and `holon verify` finds nothing to refuse.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { before, test } from 'node:test';
import { systemClock } from '../../src/core/kernel/deps.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { pidAlive } from '../../src/core/store/file/lock.ts';
import { SELLER, startSeller, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { ensureBuilt, HANG_MS, holonIn, mcpSession, openLedger, readEvents, seededState, until } from './cliHarness.ts';

before(ensureBuilt);

const MANDATE = 'demo/terms';

test('a server killed with -9 after ledgering a call, before anything durable: the line is in the journal, whole and sealed', { timeout: HANG_MS }, async () => {
  const { dir: state, cleanup } = await seededState();
  // A seller whose terms never arrive: the call waits in its fetch, after its line was written.
  let asked = 0;
  const stalled = http.createServer(() => (asked += 1));
  await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
  const honest = await startSeller('honest');
  try {
    const store = await openLedger(state);
    await createMandate(store, systemClock, MANDATE, { toolsets: ['terms'], capabilities: [{ name: 'pay', params: { payees: [`${TEST_NETWORK}:${SELLER}`] } }] });
    store.close();
    const { port } = stalled.address() as AddressInfo;
    const atr = { ...(honest.document.extensions?.['atr'] as { hash: string }), url: `http://127.0.0.1:${port}/atr` };
    const document = { ...honest.document, extensions: { ...honest.document.extensions, atr } };

    const server = await mcpSession(state, MANDATE, ['--allow-private-sellers']);
    try {
      const account = `${TEST_NETWORK}:0x${'11'.repeat(20)}`;
      server.client.callTool({ name: 'atr_confirm', arguments: { pairing: 'x402/exact/eip155', document, account } }).catch(() => {});
      await until(() => asked === 1, 'the call to fetch the terms');
      process.kill(server.pid as number, 'SIGKILL');
      await until(() => !pidAlive(server.pid as number), 'the server to die');
    } finally {
      await server.close().catch(() => {});
    }

    const lines = (await readEvents(state)).filter((e) => e.type === 'tool.called' && e.data['tool'] === 'atr_confirm');
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.data['mandate'], MANDATE);
    assert.ok(lines[0]?.tx, 'its transaction is sealed');
    const report = JSON.parse((await holonIn(state, ['verify', '--json'])).stdout) as { ok: boolean };
    assert.equal(report.ok, true, JSON.stringify(report));
    // The next process folds it and writes on after it.
    const next = await openLedger(state);
    try {
      assert.ok(next.seq >= (lines[0]?.seq ?? Infinity));
    } finally {
      next.close();
    }
  } finally {
    stalled.closeAllConnections();
    stalled.close();
    await honest.close();
    cleanup();
  }
});
