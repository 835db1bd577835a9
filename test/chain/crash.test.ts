/**
 * kill -9 between signing and settlement: the built `holon mcp`, on the local chain, pays an `eip155:`
 * account; its facilitator holds the settlement while the server is killed. The settlement record (the
 * signed authorization, in the journal before it was sent) outlives the process: the facilitator settles
 * it after all, and the next server on the state reads the chain and settles the intent with the
 * transaction the chain shows — its money counted once, neither released as "interrupted" nor paid again.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { pidAlive } from '../../src/core/store/file/lock.ts';
import { saveWallet } from '../../src/core/local/wallet.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import type { McpSession } from '../cli/cliHarness.ts';
import { ensureBuilt, HANG_MS, holonIn, json, mcpSession, ok, readEvents, seededState, until } from '../cli/cliHarness.ts';
import type { FacilitatorProxy } from './facilitatorProxy.ts';
import { startFacilitatorProxy } from './facilitatorProxy.ts';
import { onChain } from './support.ts';

const MANDATE = 'demo/payer';
let chain: LocalChain;
let proxy: FacilitatorProxy;

before(async () => {
  await ensureBuilt();
  chain = await localChain();
  proxy = await startFacilitatorProxy(chain.facilitator.url);
});
after(async () => proxy.close());

type Job = { status: string; receipt: { rail: string; reference: string } | null; settlement: { status: string; transaction: string } | null };

test('a server killed with -9 between signing and settlement: the next one reconciles the payment with the chain', { timeout: HANG_MS }, async () => {
  const { dir: state, cleanup } = await seededState();
  const sessions: McpSession[] = [];
  try {
    const key = generatePrivateKey();
    const wallet = saveWallet(state, key);
    await chain.fund(wallet, { usdc: 1_000_000n });
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    await ok(state, ['fx', 'USDC', 'EUR', '0.92']);
    await ok(state, ['mandate', 'create', MANDATE, '--toolsets', 'money,records', '--payees', `eip155:31337:${payee}`, '--total', '5', '--threshold', '2']);
    const flags = ['--rpc-url', chain.rpcUrl, '--chain-id', String(chain.chainId), '--token', chain.token, '--facilitator', proxy.url];

    const first = await mcpSession(state, MANDATE, flags);
    sessions.push(first);
    proxy.faults.push('hold');
    const intent = { payee: `eip155:31337:${payee}`, amount: '0.25', currency: 'USDC', purpose: 'crash test', idempotency_key: 'crash-1' };
    first.client.callTool({ name: 'pay', arguments: { intent } }).catch(() => {});
    // Signed and recorded before it was sent: the facilitator has it, and holds it.
    await until(() => proxy.waiting === 1, 'the settlement to reach the facilitator');
    const signed = (await readEvents(state)).find((e) => e.type === 'settlement.signed');
    assert.ok(signed, 'the signed authorization is in the journal before it left');
    process.kill(first.pid as number, 'SIGKILL');
    await until(() => !pidAlive(first.pid as number), 'the server to die');

    // Its hold is the chain's to end: a human at a terminal cannot release it as if nothing had been signed.
    const hold = (signed.data as { settlement: { hold: string } }).settlement.hold;
    const release = await holonIn(state, ['holds', 'release', hold]);
    assert.notEqual(release.code, 0);
    assert.match(release.stderr, /carries payment stl_.*It ends when the chain shows it landed/s);

    // The facilitator settles it all the same, and the money moves once.
    const before = await chain.usdcOf(wallet);
    proxy.release();
    await until(async () => (await chain.usdcOf(payee)) === 250_000n, 'the held settlement to be mined');
    assert.equal(await chain.usdcOf(wallet), before - 250_000n);

    // The next server reads the chain: the intent settles with the chain's transaction.
    const next = await mcpSession(state, MANDATE, flags);
    sessions.push(next);
    const job = await until(async () => {
      const r = await next.client.callTool({ name: 'get_job', arguments: { idempotency_key: 'crash-1' } });
      const j = r.structuredContent as Job;
      return j.status === 'settled' ? j : undefined;
    }, 'the next server to reconcile the payment');
    assert.equal(job.receipt?.rail, 'x402');
    assert.equal(job.settlement?.status, 'landed');
    const mined = await onChain(chain, job.receipt?.reference ?? '');
    assert.deepEqual(mined.transfers, [{ from: wallet, to: payee, value: 250_000n }]);
    assert.equal(await chain.usdcOf(payee), 250_000n, 'paid once');
    const budget = (await json<{ spent: { amount: string }; held: { amount: string } }[]>(state, ['budget', MANDATE]))[0];
    assert.deepEqual([budget?.spent.amount, budget?.held.amount], ['0.23', '0.00']);
    // Its hold was never given back as interrupted.
    assert.ok(!(await readEvents(state)).some((e) => e.type === 'hold.released' && (e.data as { reason: string }).reason === 'interrupted'));
  } finally {
    for (const s of sessions) await s.close().catch(() => {});
    cleanup();
  }
});
