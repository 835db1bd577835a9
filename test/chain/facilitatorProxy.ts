/**
 * A facilitator in front of the real one (examples/chain/facilitator.ts), for the tests that need one
 * that fails the way a network does: it passes every request on, and for the settlements it is told to,
 * lets the real facilitator submit and mine the payment, then drops the connection instead of answering
 * (`drop`), or drops the connection at once and submits only when released (`lose`: the one who asked
 * gave up on it, and the facilitator went on), or holds the request until released (`hold`); or lies: it
 * says it settled, naming `claim` as the transaction, and keeps the payment unsubmitted (`lie`), or refuses
 * it with `reason` as its words (`refuse`).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FacilitatorProxy {
  url: string;
  /** How the next settlements are treated, one each: `drop` after the real one settled, `hold` until `release()`. */
  faults: ('drop' | 'lose' | 'hold' | 'lie' | 'refuse')[];
  /** What a lie names as the transaction, and a refusal's reason. */
  claim: string;
  reason: string;
  /** The settlement requests it lied about, as they came (`{paymentPayload, paymentRequirements}`): what a liar keeps. */
  kept: { paymentPayload: unknown; paymentRequirements: unknown }[];
  /** Settlement requests seen, and how many the real facilitator answered. */
  settles: number;
  settled: number;
  /** Lets held settlements through. */
  release(): void;
  /** Settlements waiting for `release()`. */
  readonly waiting: number;
  close(): Promise<void>;
}

export async function startFacilitatorProxy(target: string): Promise<FacilitatorProxy> {
  const held: (() => void)[] = [];
  const released = false;
  const server = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
      const isSettle = req.url === '/settle';
      const fault = isSettle ? proxy.faults.shift() : undefined;
      if (isSettle) proxy.settles += 1;
      if (fault === 'lie') {
        proxy.kept.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as FacilitatorProxy['kept'][number]);
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({ success: true, transaction: proxy.claim, network: 'eip155:31337', payer: '' }),
        );
      }
      if (fault === 'refuse')
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ success: false, errorReason: proxy.reason, transaction: '', network: 'eip155:31337' }));
      if (fault === 'lose') req.socket.destroy();
      if ((fault === 'hold' || fault === 'lose') && !released) await new Promise<void>((r) => held.push(r));
      const answer = await fetch(`${target}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers: { 'content-type': 'application/json' },
        ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
      });
      const body = Buffer.from(await answer.arrayBuffer());
      if (isSettle) proxy.settled += 1;
      // Settled and mined; the answer never reaches the one who asked.
      if (fault === 'drop' || fault === 'lose') return void req.socket.destroy();
      return void res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const proxy: FacilitatorProxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    faults: [],
    claim: `0x${'00'.repeat(32)}`,
    reason: 'refused',
    kept: [],
    settles: 0,
    settled: 0,
    release: () => {
      for (const r of held.splice(0)) r();
    },
    get waiting() {
      return held.length;
    },
    close: async () => {
      proxy.release();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return proxy;
}
