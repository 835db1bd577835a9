/**
 * (t) atr_transact against its floor: the exact pairing, allowed under the threshold, through a real SDK
 * client on a durable state with the local chain configured, vs what a payment under terms cannot do
 * without — the wallet's EIP-712 signature of the same request, one GET of the same ATR from the same
 * local seller, and the chain read Holon makes before it signs under H (is the nonce spent already?).
 * Each iteration pays a seller of its own terms (a wallet pays under one H once), started before it,
 * untimed.
 */
import * as fs from 'node:fs';
import nodeFs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { generatePrivateKey } from 'viem/accounts';
import { systemClock, silentLogger } from '../src/core/kernel/deps.ts';
import { createMandate } from '../src/core/accounts/mandates.ts';
import { setFx } from '../src/core/money/fx.ts';
import type { HolonState } from '../src/core/fold/state.ts';
import type { EventStore } from '../src/core/store/store.ts';
import type { TypedRequest } from '../src/core/local/wallet.ts';
import { walletFromKey } from '../src/core/local/wallet.ts';
import { publicFetch } from '../src/server/net/publicFetch.ts';
import { openRuntime } from '../src/server/runtime.ts';
import { JOURNAL_FILE } from '../src/core/store/file/journal.ts';
import type { Seller } from '../examples/sellers/x402Seller.ts';
import { SELLER, startSeller, TEST_NETWORK } from '../examples/sellers/x402Seller.ts';
import { localChain } from '../examples/chain/chain.ts';
import { chainConfig, chainReader } from '../src/core/rails/chain.ts';
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
async function countWork(
  store: EventStore<HolonState>,
  calls: number,
  before: () => Promise<void>,
  fn: () => Promise<void>,
  after: () => Promise<void>,
): Promise<{ transactions: number; fdatasyncs: number }> {
  const transact = store.transact;
  const fdatasync = nodeFs.fdatasyncSync;
  let transactions = 0;
  let syncs = 0;
  let counting = false;
  store.transact = <T>(...args: Parameters<EventStore<HolonState>['transact']>): Promise<T> => {
    if (counting) transactions += 1;
    return transact.apply(store, args) as Promise<T>;
  };
  Object.assign(nodeFs, {
    fdatasyncSync: (fd: number) => {
      if (counting) syncs += 1;
      fdatasync(fd);
    },
  });
  try {
    for (let i = 0; i < calls; i++) {
      // Only the call's own work: setting up its seller (an atr_confirm) writes a ledger line too.
      await before();
      counting = true;
      await fn();
      counting = false;
      await after();
    }
  } finally {
    store.transact = transact;
    Object.assign(nodeFs, { fdatasyncSync: fdatasync });
  }
  return { transactions: transactions / calls, fdatasyncs: syncs / calls };
}

export async function comparisonT(dirs: TempDirs, closers: (() => Promise<void>)[]): Promise<void> {
  log('(t) atr_transact (exact, under the threshold) vs a wallet signature + one GET of the ATR + the nonce read on the chain');
  const dir = dirs.make('t-terms');
  await seedState(dir);
  const wallet = walletFromKey(generatePrivateKey());
  // The local chain (stopped with the run, by (x)'s closer or here): Holon signs only on a chain it reads.
  const chain = await localChain();
  const config = chainConfig({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, token: chain.token, facilitator: chain.facilitator.url });
  // The seller listens on loopback: reaching it takes the human's setting, as in the tests.
  const runtime = openRuntime(dir, {
    clock: systemClock,
    logger: silentLogger,
    wallet,
    fetch: publicFetch({ allowPrivate: true }),
    chain: config,
  });
  closers.push(() => runtime.close());
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  await createMandate(runtime.store, systemClock, BUYER, {
    toolsets: ['terms'],
    approval_threshold: '0.50',
    budget: { total: '1000000', per_day: null, per_call: null },
    capabilities: [{ name: 'pay', params: { payees: [`${TEST_NETWORK}:${SELLER}`] } }],
  });
  const client = await connect(runtime, { mandate: BUYER });
  closers.push(() => client.close());

  // A seller of its own terms for each iteration, started before it (not timed) and closed after.
  let sellers = 0;
  let seller: Seller | undefined;
  let request: TypedRequest | undefined;
  const fresh = async (): Promise<void> => {
    sellers += 1;
    seller = await startSeller('honest', { atr: `Agentic terms (bench t ${sellers} of ${process.pid}): one table, as JSON.\n` });
    // The floor signs exactly what atr_transact signs (atr_confirm's request, for the same wallet).
    const confirmed = await client.callTool({ name: 'atr_confirm', arguments: { pairing: PAIRING, document: seller.document, account: `${TEST_NETWORK}:${wallet.address}` } });
    request = (confirmed.structuredContent as { request?: TypedRequest } | undefined)?.request;
    if (confirmed.isError || !request) throw new Error(`atr_confirm failed: ${JSON.stringify(confirmed.content)}`);
  };
  const done = async (): Promise<void> => {
    await seller?.close();
    seller = undefined;
  };
  const now = (): { seller: Seller; request: TypedRequest } => {
    if (!seller || !request) throw new Error('no seller');
    return { seller, request };
  };
  const get = publicFetch({ allowPrivate: true });
  const reader = chainReader(config);
  const floor = async (): Promise<void> => {
    const { seller: s, request: r } = now();
    const res = await get((s.document.extensions as { atr: { url: string } }).atr.url, { headers: { accept: '*/*' } });
    if (res.status !== 200) throw new Error(`the ATR answered ${res.status}`);
    await res.arrayBuffer();
    if (await reader.authorizationSpent(wallet.address, s.hash as `0x${string}`)) throw new Error('the nonce is spent');
    await wallet.signTypedData(r);
  };

  // What a payment also cannot do without: its settlement on disk before the signature leaves, one
  // fdatasync of a line the size of the journal's last (the settlement of the call just made).
  await fresh();
  await transact(client, now().seller.document);
  await done();
  const settled = fs.readFileSync(path.join(dir, JOURNAL_FILE), 'utf8').trimEnd().split('\n').at(-1) ?? '';
  const appender = durableAppender(path.join(dirs.make('t-floor'), 'floor.jsonl'));
  closers.push(async () => appender.close());
  const line = `${'x'.repeat(Buffer.byteLength(settled))}\n`;

  const s = await interleave(
    [
      { name: 'transact', perRound: n(5, 2), warmup: n(30, 5), before: fresh, after: done, run: () => transact(client, now().seller.document) },
      { name: 'floor', perRound: n(5, 2), warmup: n(30, 5), before: fresh, after: done, run: floor },
      {
        name: 'durable',
        perRound: n(5, 2),
        warmup: n(30, 5),
        before: fresh,
        after: done,
        run: async () => {
          await floor();
          appender.append(line);
        },
      },
    ],
    plan(15),
  );
  context['t_per_call'] = await countWork(runtime.store, n(40, 10), fresh, () => transact(client, now().seller.document), done);
  context['t_sellers'] = sellers;
  const subject = side('atr_transact, Holon in-memory transport', s, 'transact');
  row(
    't',
    'atr_transact (exact, allowed) vs its floor (a wallet signature + one GET of the ATR + the nonce read on the chain), in-memory transport',
    subject,
    side('signTypedData + GET of the ATR + authorizationState', s, 'floor'),
    '≤ 1.5×',
  );
  row(
    't.d',
    'atr_transact vs its floor + 1 durable append (the payment: its hold and settlement, one transaction), in-memory transport',
    subject,
    side('signTypedData + GET + read + 1 append+fdatasync', s, 'durable'),
    '≤ 1.5×',
  );
}
