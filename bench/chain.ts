/**
 * (x) Money that moves: `atr_transact` end to end on the local chain — Holon confirms H (fetches the ATR),
 * signs within the mandate (the hold and the settlement record written, durable), the agent sends the
 * payment to the seller (which settles it through the facilitator and has it mined), and Holon reads it
 * landed (its watch of the chain) — vs its floor: a viem EIP-712 signature of the same authorization, one
 * HTTP round trip to the same kind of seller (its settlement and mining included), and one
 * `eth_getTransactionReceipt`. Each iteration pays a seller of its own terms (a wallet pays under one H
 * once); starting it is not timed.
 */
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Hex } from 'viem';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createMandate } from '../src/core/accounts/mandates.ts';
import { setFx } from '../src/core/money/fx.ts';
import { chainConfig } from '../src/core/rails/chain.ts';
import { TRANSFER_TYPES } from '../src/core/rails/schemes/exact.ts';
import { silentLogger, systemClock } from '../src/core/kernel/deps.ts';
import { walletFromKey } from '../src/core/local/wallet.ts';
import { publicFetch } from '../src/server/net/publicFetch.ts';
import { openRuntime } from '../src/server/runtime.ts';
import { localChain } from '../examples/chain/chain.ts';
import type { Seller } from '../examples/sellers/x402Seller.ts';
import { SELLER, startSeller, TEST_NETWORK } from '../examples/sellers/x402Seller.ts';
import { connect, seedDemo } from '../test/helpers.ts';
import { context, log, n, plan, row, side } from './report.ts';
import { interleave } from './timing.ts';
import type { TempDirs } from './world.ts';

const PAYER = 'demo/buyer';
/** One payment: 0.01 USDC. */
const PRICE = '10000';

export async function comparisonX(dirs: TempDirs, closers: (() => Promise<void>)[]): Promise<void> {
  log('(x) atr_transact end to end on the local chain (confirm, sign, settle, landed) vs a viem signature + one round trip + one receipt');
  const chain = await localChain();
  closers.push(() => chain.stop());
  const key = generatePrivateKey();
  const wallet = walletFromKey(key);
  const account = privateKeyToAccount(key);
  await chain.fund(wallet.address, { usdc: 100_000_000n });

  const dir = dirs.make('x-chain');
  const runtime = openRuntime(dir, {
    clock: systemClock,
    logger: silentLogger,
    fetch: publicFetch({ allowPrivate: true, maxBytes: 64 * 1024 }),
    wallet,
    chain: chainConfig({ rpcUrl: chain.rpcUrl, chainId: chain.chainId, token: chain.token, facilitator: chain.facilitator.url }),
  });
  await seedDemo(runtime.store, systemClock, { funds: '1000', stateDir: dir });
  await setFx(runtime.store, 'USDC', 'EUR', '0.92');
  await createMandate(runtime.store, systemClock, PAYER, {
    toolsets: ['terms'],
    approval_threshold: '100.00',
    budget: { total: '900.00', per_day: null, per_call: null },
    capabilities: [{ name: 'pay', params: { payees: [`${TEST_NETWORK}:${SELLER}`] } }],
  });
  const client = await connect(runtime, { mandate: PAYER });
  closers.push(async () => {
    await client.close();
    await runtime.close();
  });

  // A seller of its own terms for each iteration, started before it (not timed) and closed after.
  let sellers = 0;
  let current: Seller | undefined;
  const fresh = async (): Promise<void> => {
    sellers += 1;
    current = await startSeller('honest', {
      amount: PRICE,
      atr: `Agentic terms (bench ${sellers} of ${process.pid}): one table, 0.01 USDC, as JSON.\n`,
    });
  };
  const done = async (): Promise<void> => {
    await current?.close();
    current = undefined;
  };
  const sellerNow = (): Seller => {
    if (!current) throw new Error('no seller');
    return current;
  };

  /** Holon end to end: atr_transact, the agent sends the payment, Holon reads it landed. */
  const holon = async (): Promise<void> => {
    const s = sellerNow();
    const r = await client.callTool({ name: 'atr_transact', arguments: { pairing: 'x402/exact/eip155', document: s.document } });
    const out = r.structuredContent as { signed?: PaymentPayload; settlement?: { id: string } } | undefined;
    if (r.isError || !out?.signed || !out.settlement) throw new Error(`atr_transact failed: ${JSON.stringify(r.structuredContent)}`);
    const res = await fetch(`${s.url}/resource`, { headers: { 'payment-signature': encodePaymentSignatureHeader(out.signed) } });
    if (res.status !== 200) throw new Error(`the seller refused: ${s.refused.join()}`);
    await res.arrayBuffer();
    const id = out.settlement.id;
    // Holon's own watch of the chain decides it; this loop only notices (a microtask-cheap check).
    for (;;) {
      const stl = runtime.store.state.settlements[id];
      if (stl?.status === 'landed') return;
      if (stl && stl.status !== 'signed') throw new Error(`payment ${id} did not land: ${stl.status}`);
      await new Promise((r2) => setTimeout(r2, 1));
    }
  };

  /** The floor: a viem EIP-712 signature of the same authorization, one round trip, one receipt. */
  const floor = async (): Promise<void> => {
    const s = sellerNow();
    const option = s.document.accepts[0] as PaymentRequirements;
    const message = {
      from: account.address,
      to: getAddress(option.payTo),
      value: BigInt(option.amount),
      validAfter: 0n,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 300),
      nonce: s.hash as Hex,
    };
    const signature = await account.signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: chain.chainId, verifyingContract: chain.token },
      types: TRANSFER_TYPES,
      primaryType: 'TransferWithAuthorization',
      message,
    });
    const payload = {
      x402Version: 2,
      resource: s.document.resource,
      accepted: option,
      payload: {
        signature,
        authorization: { ...message, value: String(message.value), validAfter: '0', validBefore: String(message.validBefore) },
      },
    } as PaymentPayload;
    const res = await fetch(`${s.url}/resource`, { headers: { 'payment-signature': encodePaymentSignatureHeader(payload) } });
    if (res.status !== 200) throw new Error(`the seller refused the floor's payment: ${s.refused.join()}`);
    await res.arrayBuffer();
    const tx = decodePaymentResponseHeader(res.headers.get('payment-response') ?? '').transaction as Hex;
    const receipt = await chain.client.getTransactionReceipt({ hash: tx });
    if (receipt.status !== 'success') throw new Error(`${tx} reverted`);
  };

  const samples = await interleave(
    [
      { name: 'holon', perRound: n(3, 2), warmup: n(5, 2), before: fresh, after: done, run: holon },
      { name: 'floor', perRound: n(3, 2), warmup: n(5, 2), before: fresh, after: done, run: floor },
    ],
    plan(20),
  );
  row(
    'x',
    'atr_transact end to end on the local chain (confirm, sign, settle, landed) vs a viem signature + one round trip + one receipt',
    side('atr_transact, sent, read landed by Holon', samples, 'holon'),
    side('viem EIP-712 sign + 1 HTTP round trip + 1 eth_getTransactionReceipt', samples, 'floor'),
  );
  context['x_chain'] = { node: 'Hardhat Network (automine)', price_usdc: '0.01', sellers };
}
