/**
 * (t) atr_transact against its floor: the exact pairing, allowed under the threshold, through a real SDK
 * client on a durable state, vs what a payment under terms cannot do without — the wallet's EIP-712
 * signature of the same request and one GET of the same ATR from the same local seller.
 */
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { generatePrivateKey } from 'viem/accounts';
import { systemClock, silentLogger } from '../src/core/deps.ts';
import { createMandate } from '../src/core/mandates.ts';
import { setFx } from '../src/core/money/fx.ts';
import type { HolonState } from '../src/core/state.ts';
import type { EventStore } from '../src/core/store/store.ts';
import type { TypedRequest } from '../src/core/wallet.ts';
import { walletFromKey } from '../src/core/wallet.ts';
import { publicFetch } from '../src/server/net/publicFetch.ts';
import { openRuntime } from '../src/server/runtime.ts';
import { JOURNAL_FILE } from '../src/core/store/file/journal.ts';
import { SELLER, startSeller, TEST_NETWORK } from '../examples/sellers/x402Seller.ts';
import { connect } from '../test/helpers.ts';
import { context, log, n, plan, row, side } from './report.ts';
import { interleave } from './timing.ts';
import type { TempDirs } from './world.ts';
import { durableAppender, seedState } from './world.ts';

const BUYER = 'demo/buyer';
const PAIRING = 'x402/exact/eip155';

/** One atr_transact; anything but a signed payment stops the bench. */
async function transact(client: Client, document: unknown): Promise<void> {
  const r = await client.callTool({ name: 'atr_transact', arguments: { pairing: PAIRING, document } });
  const s = r.structuredContent as { signed?: { payload?: { authorization?: Record<string, string> } } } | undefined;
  if (r.isError || !s?.signed?.payload?.authorization) throw new Error(`atr_transact did not sign: ${JSON.stringify(r.content)}`);
}

/**
 * Journal transactions and fdatasyncs per call while `fn` runs `calls` times, untimed: by wrapping the
 * store's transact and the fs module's fdatasyncSync (the journal's group commit may add one by its timer).
 */
async function countWork(store: EventStore<HolonState>, calls: number, fn: () => Promise<void>): Promise<{ transactions: number; fdatasyncs: number }> {
  const transact = store.transact;
  const fdatasync = nodeFs.fdatasyncSync;
  let transactions = 0;
  let syncs = 0;
  store.transact = <T>(...args: Parameters<EventStore<HolonState>['transact']>): Promise<T> => {
    transactions += 1;
    return transact.apply(store, args) as Promise<T>;
  };
  Object.assign(nodeFs, {
    fdatasyncSync: (fd: number) => {
      syncs += 1;
      fdatasync(fd);
    },
  });
  try {
    for (let i = 0; i < calls; i++) await fn();
  } finally {
    store.transact = transact;
    Object.assign(nodeFs, { fdatasyncSync: fdatasync });
  }
  return { transactions: transactions / calls, fdatasyncs: syncs / calls };
}

export async function comparisonT(dirs: TempDirs, closers: (() => Promise<void>)[]): Promise<void> {
  log('(t) atr_transact (exact, under the threshold) vs a wallet signature + one GET of the ATR');
  const dir = dirs.make('t-terms');
  await seedState(dir);
  const wallet = walletFromKey(generatePrivateKey());
  // The seller listens on loopback: reaching it takes the human's setting, as in the tests.
  const runtime = openRuntime(dir, { clock: systemClock, logger: silentLogger, wallet, fetch: publicFetch({ allowPrivate: true }) });
  closers.push(() => runtime.close());
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  await createMandate(runtime.store, systemClock, BUYER, {
    toolsets: ['terms'],
    approval_threshold: '0.50',
    budget: { total: '1000000', per_day: null, per_call: null },
    capabilities: [{ name: 'pay', params: { payees: [`${TEST_NETWORK}:${SELLER}`] } }],
  });
  const seller = await startSeller('honest');
  closers.push(() => seller.close());
  const client = await connect(runtime, { mandate: BUYER });
  closers.push(() => client.close());

  // The floor signs exactly what atr_transact signs (atr_confirm's request, for the same wallet).
  const confirmed = await client.callTool({ name: 'atr_confirm', arguments: { pairing: PAIRING, document: seller.document, account: `${TEST_NETWORK}:${wallet.address}` } });
  const request = (confirmed.structuredContent as { request?: TypedRequest } | undefined)?.request;
  if (confirmed.isError || !request) throw new Error(`atr_confirm failed: ${JSON.stringify(confirmed.content)}`);
  const get = publicFetch({ allowPrivate: true });
  const atrUrl = (seller.document.extensions as { atr: { url: string } }).atr.url;
  const floor = async (): Promise<void> => {
    const res = await get(atrUrl, { headers: { accept: '*/*' } });
    if (res.status !== 200) throw new Error(`the ATR answered ${res.status}`);
    await res.arrayBuffer();
    await wallet.signTypedData(request);
  };

  // What a payment also cannot do without: its settlement on disk before the signature leaves, one
  // fdatasync of a line the size of the journal's last (the settlement of the call just made).
  await transact(client, seller.document);
  const settled = fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8').trimEnd().split('\n').at(-1) ?? '';
  const appender = durableAppender(path.join(dirs.make('t-floor'), 'floor.jsonl'));
  closers.push(async () => appender.close());
  const line = `${'x'.repeat(Buffer.byteLength(settled))}\n`;

  const s = await interleave(
    [
      { name: 'transact', perRound: n(5, 2), warmup: n(30, 5), run: () => transact(client, seller.document) },
      { name: 'floor', perRound: n(5, 2), warmup: n(30, 5), run: floor },
      {
        name: 'durable',
        perRound: n(5, 2),
        warmup: n(30, 5),
        run: async () => {
          await floor();
          appender.append(line);
        },
      },
    ],
    plan(15),
  );
  context['t_per_call'] = await countWork(runtime.store, n(40, 10), () => transact(client, seller.document));
  const subject = side('atr_transact, Holon in-memory', s, 'transact');
  row('t', 'atr_transact (exact, allowed) vs its floor (a wallet signature + one GET of the ATR), in-memory', subject, side('signTypedData + GET of the ATR', s, 'floor'), '≤ 1.5×');
  row('t.d', 'atr_transact vs its floor + 1 durable append (the settlement), in-memory (context)', subject, side('signTypedData + GET + 1 append+fdatasync', s, 'durable'));
}
