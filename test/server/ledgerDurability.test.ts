/**
 * The ledger line of a call is group-committed: a paid atr_transact makes one fdatasync on its way (its
 * settlement's, which covers the call's line and hold before it), not one for the line and one for the
 * money; a call that writes nothing durable of its own has its line flushed before it answers. Counted on
 * a durable journal, through a real SDK client; the group commit's own timer is told apart by its stack.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import * as path from 'node:path';
import { after, before, mock, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { generatePrivateKey } from 'viem/accounts';
import { silentLogger, systemClock } from '../../src/core/kernel/deps.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { JOURNAL_FILE } from '../../src/core/store/file/journal.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import { publicFetch } from '../../src/server/net/publicFetch.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import { openRuntime } from '../../src/server/runtime.ts';
import type { Seller } from '../../examples/sellers/x402Seller.ts';
import { SELLER, startSeller, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { connect, seedDemo, tempDir } from '../helpers.ts';
import { chainOf } from '../chain/support.ts';
import { callTool, structured } from './support.ts';

const PAIRING = 'x402/exact/eip155';
const BUYER = 'demo/buyer';

/** Every fdatasync of this process: the journal's size then, and whether the group commit's timer made it. */
const syncs: { size: number; timer: boolean }[] = [];
const realSync = fs.fdatasyncSync;

let runtime: Runtime;
let client: Client;
let seller: Seller;
let cleanup: () => void;
let journal: string;

before(async () => {
  mock.method(fs, 'fdatasyncSync', (fd: number) => {
    realSync(fd);
    syncs.push({ size: fs.fstatSync(fd).size, timer: (new Error().stack ?? '').includes('listOnTimeout') });
  });
  const made = tempDir();
  cleanup = made.cleanup;
  journal = path.join(made.dir, JOURNAL_FILE);
  // Durable, as `holon mcp` runs: every durable append is an fdatasync. On the local chain the seller asks
  // to be paid on (Holon signs only on the chain the human configured); reading it writes nothing.
  runtime = openRuntime(made.dir, {
    clock: systemClock,
    logger: silentLogger,
    wallet: walletFromKey(generatePrivateKey()),
    fetch: publicFetch({ allowPrivate: true }),
    chain: chainOf(await localChain()),
  });
  await seedDemo(runtime.store, systemClock, { stateDir: made.dir });
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  await createMandate(runtime.store, systemClock, BUYER, {
    toolsets: ['terms'],
    approval_threshold: '0.50',
    budget: { total: '100', per_day: null, per_call: null },
    capabilities: [{ name: 'pay', params: { payees: [`${TEST_NETWORK}:${SELLER}`] } }],
  });
  seller = await startSeller('honest');
  client = await connect(runtime, { mandate: BUYER });
});
after(async () => {
  mock.restoreAll();
  await client.close();
  await seller.close();
  await runtime.close();
  cleanup();
});

/** Runs `call`; returns the fdatasyncs made on its way (not by the timer) and how much of the journal was durable when it answered. */
async function synced<T>(call: () => Promise<T>): Promise<{ result: T; onTheWay: number; durable: number; size: number }> {
  const from = syncs.length;
  const result = await call();
  const mine = syncs.slice(from);
  return { result, onTheWay: mine.filter((s) => !s.timer).length, durable: Math.max(0, ...syncs.map((s) => s.size)), size: fs.statSync(journal).size };
}

type Event = { type: string; data: Record<string, unknown> };
const events = (): Event[] =>
  fs
    .readFileSync(journal, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Event);

test('a paid atr_transact makes one fdatasync: its settlement, which covers its ledger line and its hold', async () => {
  const before = events().length;
  const t = await synced(() => callTool(client, 'atr_transact', { pairing: PAIRING, document: seller.document }));
  assert.notEqual(t.result.isError, true, JSON.stringify(t.result.structuredContent));
  assert.ok(structured<{ signed: unknown }>(t.result).signed);
  assert.equal(t.onTheWay, 1);
  assert.equal(t.durable, t.size, 'everything the call wrote is on disk when it answers');
  // The line comes first: a money event on disk always has its call's line before it. The hold stays
  // held (no `hold.settled`) until Holon reads the payment landed on the chain, which no one sends it to here.
  const mine = events().slice(before);
  assert.deepEqual([mine[0]?.type, mine[0]?.data['tool']], ['tool.called', 'atr_transact']);
  assert.deepEqual(
    mine.slice(1).map((e) => e.type),
    ['hold.placed', 'settlement.signed'],
  );
});

test('a ledgered call that writes nothing durable of its own has its line on disk before it answers', async () => {
  const paid = structured<{ signed: unknown; atr: { base64: string } }>(await callTool(client, 'atr_transact', { pairing: PAIRING, document: seller.document }));
  const before = events().length;
  const c = await synced(() => callTool(client, 'atr_check', { pairing: PAIRING, atr: paid.atr.base64, presented: paid.signed }));
  assert.notEqual(c.result.isError, true, JSON.stringify(c.result.structuredContent));
  assert.deepEqual(
    events()
      .slice(before)
      .map((e) => [e.type, e.data['tool']]),
    [['tool.called', 'atr_check']],
  );
  assert.equal(c.onTheWay, 1, 'the flush before the answer');
  assert.equal(c.durable, c.size);
});
