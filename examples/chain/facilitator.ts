/**
 * An x402 facilitator for the local chain: `@x402/core`'s `x402Facilitator` with `@x402/evm`'s `exact` and
 * `upto` EVM schemes (their facilitator side), served over HTTP the way a hosted facilitator is (`GET /supported`,
 * `POST /verify`, `POST /settle`), so a seller reaches it with `@x402/core`'s `HTTPFacilitatorClient`
 * exactly as it would reach the public one for Base. It verifies a payment's EIP-3009 signature and
 * simulates the transfer on the chain, then settles it: it submits `transferWithAuthorization` from its
 * own key, waits for the transaction to be mined and checks its `Transfer` log. Nothing here decides
 * whether a payment is good; the official scheme does, against the chain.
 *
 * It also keeps a discovery listing, as x402's `bazaar` extension has facilitators do: every resource whose
 * payment it verified or settled with a valid `extensions.bazaar` (read by the official package's
 * `extractDiscoveryInfo`), and every one a seller lists with it directly (`list`, for a seller that has not
 * been paid yet), served at `GET /discovery/resources` in pages (`limit`, `offset`).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import type { DiscoveryResource, DiscoveryResourcesResponse } from '@x402/extensions/bazaar';
import { extractDiscoveryInfo } from '@x402/extensions/bazaar';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { UptoEvmScheme } from '@x402/evm/upto/facilitator';
import type { Hex } from 'viem';
import { createWalletClient, nonceManager, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { localChainDefinition, localTransport, NETWORK } from './network.ts';

/** A facilitator listening on loopback. */
export interface Facilitator {
  url: string;
  /** The address it submits settlements from (it pays their gas). */
  address: `0x${string}`;
  /**
   * Lists a resource as a seller's 402 describes it (its `resource`, `accepts` and `extensions.bazaar`),
   * as it would be listed once paid. False when its bazaar info does not read, as the official extractor
   * decides; then nothing is listed.
   */
  list(offer: PaymentRequired): boolean;
  close(): Promise<void>;
}

/** The largest page the listing serves, and the one it serves when asked for none. */
const MAX_PAGE = 100;
const DEFAULT_PAGE = 20;

/** What a facilitator request may weigh: a payment and its requirements are a few kilobytes. */
const MAX_BODY = 64 * 1024;

/**
 * Starts a facilitator for the chain at `rpcUrl`, settling from `key` (which must hold gas). It listens
 * on a free loopback port; its server does not keep the process alive.
 */
export async function startFacilitator(options: { rpcUrl: string; key: Hex; maxPage?: number }): Promise<Facilitator> {
  // The nonce manager orders concurrent settlements from the one key instead of letting them race.
  const account = privateKeyToAccount(options.key, { nonceManager });
  const client = createWalletClient({
    account,
    chain: localChainDefinition(options.rpcUrl),
    transport: localTransport(options.rpcUrl),
    pollingInterval: 50,
  }).extend(publicActions);
  const signer = toFacilitatorEvmSigner({
    address: account.address,
    getCode: (args) => client.getCode(args),
    readContract: (args) => client.readContract({ ...args, args: args.args ?? [] }),
    // viem's own types are narrower than the scheme's generic records; the values are the scheme's typed data.
    verifyTypedData: (args) => client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
    writeContract: (args) => client.writeContract({ ...args, args: args.args } as Parameters<typeof client.writeContract>[0]),
    sendTransaction: (args) => client.sendTransaction(args),
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
  });
  const facilitator = new x402Facilitator();
  registerExactEvmScheme(facilitator, { signer, networks: NETWORK });
  // `upto`: a Permit2 witness transfer of at most what the payer signed, settled through x402's upto proxy
  // (placed on the local chain at the address it has on Base: placed.ts) for the amount the seller asks.
  facilitator.register(NETWORK, new UptoEvmScheme(signer));
  const listing = new Listing();
  facilitator.onAfterVerify(async (c) => void (c.result.isValid && listing.catalog(c.paymentPayload, c.requirements)));
  facilitator.onAfterSettle(async (c) => void (c.result.success && listing.catalog(c.paymentPayload, c.requirements)));
  const maxPage = options.maxPage ?? MAX_PAGE;

  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    void (async () => {
      if (req.method === 'GET' && req.url === '/supported') return reply(200, facilitator.getSupported());
      const url = new URL(req.url ?? '/', 'http://facilitator');
      if (req.method === 'GET' && url.pathname === '/discovery/resources') {
        const page = listing.page(url.searchParams, maxPage);
        return page ? reply(200, page) : reply(400, { error: 'limit and offset are whole numbers (limit from 1)' });
      }
      if (req.method !== 'POST' || (req.url !== '/verify' && req.url !== '/settle')) return reply(404, { error: 'not found' });
      const body = await readJson(req);
      if (!body) return reply(400, { error: 'the body must be JSON: {x402Version, paymentPayload, paymentRequirements}' });
      const payload = body['paymentPayload'] as PaymentPayload | undefined;
      const requirements = body['paymentRequirements'] as PaymentRequirements | undefined;
      if (!payload || !requirements) return reply(400, { error: 'missing paymentPayload or paymentRequirements' });
      return reply(
        200,
        req.url === '/verify' ? await facilitator.verify(payload, requirements) : await facilitator.settle(payload, requirements),
      );
    })().catch((err: unknown) => reply(500, { error: err instanceof Error ? err.message : String(err) }));
  });
  // Neither the server nor a connection a client keeps alive holds the process open.
  server.on('connection', (socket) => socket.unref());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    address: account.address,
    // The offer read as the payment for it would be: the same extractor lists both.
    list: (offer) =>
      offer.accepts
        .map((accepted) =>
          listing.catalog(
            { x402Version: offer.x402Version, resource: offer.resource, accepted, payload: {}, extensions: offer.extensions ?? {} },
            accepted,
          ),
        )
        .every(Boolean),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The resources this facilitator has seen, one per resource URL (and MCP tool), each with every way it was
 * offered (one per scheme and network), in the order first seen.
 */
class Listing {
  private readonly items = new Map<string, DiscoveryResource>();

  /** Catalogs the resource a payment (or a seller's offer) was for; false when it carries no valid bazaar info. */
  catalog(payload: PaymentPayload, requirements: PaymentRequirements): boolean {
    const found = extractDiscoveryInfo(payload, requirements);
    if (!found) return false;
    const tool = 'toolName' in found ? found.toolName : undefined;
    const key = tool === undefined ? found.resourceUrl : `${found.resourceUrl}#${tool}`;
    const before = this.items.get(key);
    const accepts = (before?.accepts ?? []).filter((a) => a.scheme !== requirements.scheme || a.network !== requirements.network);
    const bazaar = found.extensions?.['bazaar'];
    this.items.set(key, {
      resource: found.resourceUrl,
      type: found.discoveryInfo.input.type,
      x402Version: found.x402Version,
      accepts: [...accepts, requirements],
      lastUpdated: new Date().toISOString(),
      ...(found.description !== undefined ? { description: found.description } : {}),
      ...(found.mimeType !== undefined ? { mimeType: found.mimeType } : {}),
      ...(found.serviceName !== undefined ? { serviceName: found.serviceName } : {}),
      ...(found.tags !== undefined ? { tags: found.tags } : {}),
      ...(bazaar !== undefined ? { extensions: { bazaar } } : {}),
    });
    return true;
  }

  /** One page, as the bazaar spec's `GET /discovery/resources` answers; undefined when the query does not read. */
  page(query: URLSearchParams, maxPage: number): DiscoveryResourcesResponse | undefined {
    const whole = (name: string, fallback: number): number | undefined => {
      const v = query.get(name);
      if (v === null) return fallback;
      return /^[0-9]{1,9}$/.test(v) ? Number(v) : undefined;
    };
    const limit = whole('limit', DEFAULT_PAGE);
    const offset = whole('offset', 0);
    if (limit === undefined || offset === undefined || limit < 1) return undefined;
    const type = query.get('type');
    const all = [...this.items.values()].filter((i) => type === null || i.type === type);
    const take = Math.min(limit, maxPage);
    return { x402Version: 2, items: all.slice(offset, offset + take), pagination: { limit: take, offset, total: all.length } };
  }
}

/** A request's JSON object body, or nothing when it is not one or is too big. */
async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
