/**
 * Agents found where sellers list them: x402's `bazaar` discovery listing (what a facilitator serves at
 * `GET /discovery/resources`) turned into catalog entries. Pure: it reads the listing it is given and
 * fetches nothing.
 *
 * What an entry is made of, and from whom:
 * - id `publisher/name`: the publisher is the resource URL's host (with its port), the name the last
 *   segment of its path (or the MCP tool's name), then `-` and the first 8 hex digits of the SHA-256 of the
 *   resource URL (with `#tool` for an MCP tool, since one MCP server lists many tools). Lower-case; any run
 *   of other characters becomes `-`. So the same resource gets the same id on every import, and importing
 *   it again replaces it.
 * - price: the cheapest offer Holon can pay (`exact` or `upto`, on an `eip155` network, in a token the
 *   asset table knows, to an EVM address), its atomic amount read with the table's decimals, never the seller's.
 *   An `upto` offer's amount is its most, so the price is the worst case.
 * - payee: that offer's `network:payTo`; the mandate's `pay` grant must still list it.
 * - how it is called: the method and input the bazaar info declares (query parameters for GET and DELETE,
 *   a JSON body for POST, PUT and PATCH), or the MCP tool; its schemas where the info has them.
 * - capability: the one the human named when adding, else the seller's tags that read as capabilities,
 *   else `x402.resource`. The human's word wins because ranking and the mandate's scope go by capability,
 *   and a seller's tag is only its own claim.
 * - data policy: a listing declares none, so the entry says the worst (any region, kept for ever, may
 *   train): a mandate with data rules excludes it until the human knows better.
 * The seller's description and names are kept exactly; they reach an agent marked as data, as every
 * publisher's text does (server/tools/market.ts).
 */
import { createHash } from 'node:crypto';
import type { DiscoveryResource, DiscoveryResourcesResponse } from '@x402/extensions/bazaar';
import { sanitizeResourceServiceMetadata } from '@x402/extensions/bazaar';
import type { ResourceInfo } from '@x402/core/types';
import { HolonError } from '../kernel/errors.ts';
import type { Endpoint, HttpMethod, Manifest } from '../kernel/model.ts';
import { EndpointSchema, firstIssue, ManifestSchema } from '../kernel/schemas.ts';
import { formatUnits, SCALE } from '../kernel/amount.ts';
import { fromAtomic, knownAsset } from '../rails/assets.ts';

/** Why one item of a listing was left out. */
export type SkipCode =
  | 'unreadable'
  | 'x402_version'
  | 'no_call_info'
  | 'unsupported_call'
  | 'no_payable_offer'
  | 'other_chain'
  | 'price_too_large'
  | 'duplicate';

/** The chain the human configured: where an offer must be for the wallet to pay it. */
export interface PayingChain {
  network: string;
  token: string;
}

/** An item left out, and why (the resource is the seller's text, as it came, or null when there was none). */
export interface Skipped {
  resource: string | null;
  code: SkipCode;
  reason: string;
}

/** A catalog entry made from one listed resource. */
export interface DiscoveredEntry {
  manifest: Manifest;
  endpoint: Endpoint;
  /** The resource URL it was made from. */
  resource: string;
}

/** What a listing turned into. */
export interface ListingResult {
  entries: DiscoveredEntry[];
  skipped: Skipped[];
}

/** The capability of an entry whose listing and human name none. */
export const DEFAULT_CAPABILITY = 'x402.resource';

/** What a listing leaves undeclared, as the worst it could be (see above). */
const UNDECLARED_DATA_POLICY = { regions: ['unknown'], retention_days: 36_500, training: true };

/** The most a price may be: the manifest's amounts have at most 15 whole digits. */
const MAX_WHOLE_DIGITS = 15;

const CAPABILITY = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const EVM_NETWORK = /^eip155:[0-9]{1,12}$/;
const ATOMIC = /^[0-9]{1,78}$/;

/** Whether `text` names a capability, as a manifest's capabilities must. */
export function isCapability(text: string): boolean {
  return CAPABILITY.test(text);
}

/**
 * The body of a discovery answer, checked for the shape the bazaar spec gives it (`x402Version` and an
 * `items` list); throws `invalid_input` naming `where` when it is not one.
 */
export function asListing(value: unknown, where: string): DiscoveryResourcesResponse {
  const v = value as Partial<DiscoveryResourcesResponse> | null;
  if (!v || typeof v !== 'object' || Array.isArray(v) || !Array.isArray(v.items))
    throw new HolonError('invalid_input', `${where} is not an x402 discovery listing: it has no "items" list`, { listing: where });
  return v as DiscoveryResourcesResponse;
}

/**
 * Turns a listing's items into catalog entries; an item that cannot be one is skipped, with its reason.
 * `capability`, when given, is the human's and is every entry's only capability.
 */
export function listingEntries(
  items: readonly unknown[],
  options: { capability?: string | undefined; chain?: PayingChain | undefined } = {},
): ListingResult {
  if (options.capability !== undefined && !isCapability(options.capability))
    throw new HolonError(
      'invalid_input',
      `"${options.capability}" is not a capability (lower-case words joined by dots, e.g. weather.forecast)`,
    );
  const entries: DiscoveredEntry[] = [];
  const skipped: Skipped[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    const r = itemEntry(item, options.capability, options.chain);
    if ('code' in r) {
      skipped.push(r);
      continue;
    }
    if (seen.has(r.manifest.id)) {
      skipped.push({ resource: r.resource, code: 'duplicate', reason: `listed more than once (as ${r.manifest.id})` });
      continue;
    }
    seen.add(r.manifest.id);
    entries.push(r);
  }
  return { entries, skipped };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const objOr = (v: unknown, fallback: Obj): Obj => (isObj(v) ? v : fallback);

/** One item as an entry, or why not. */
function itemEntry(item: unknown, capability: string | undefined, chain: PayingChain | undefined): DiscoveredEntry | Skipped {
  if (!isObj(item)) return skip(null, 'unreadable', 'the item is not a JSON object');
  const r = item as Partial<DiscoveryResource>;
  const resource = typeof r.resource === 'string' ? r.resource : null;
  const url = resource === null ? undefined : parseHttpUrl(resource);
  if (!url || resource === null) return skip(resource, 'unreadable', 'its "resource" is not an http(s) URL');
  if (r.x402Version !== 2)
    return skip(resource, 'x402_version', `it is an x402 version ${String(r.x402Version)} item; Holon reads version 2`);

  const bazaar = isObj(r.extensions) ? r.extensions['bazaar'] : undefined;
  if (!isObj(bazaar) || !isObj(bazaar['info']) || !isObj(bazaar['info']['input']))
    return skip(resource, 'no_call_info', 'it has no bazaar info saying how it is called');
  // The info is not run through the schema it carries (the package's check compiles it with a second JSON
  // Schema engine, a seventh of the CLI's size): what Holon reads of it is checked field by field below, and
  // the agent it makes by the catalog's own schemas.
  const info = bazaar['info'] as { input: Obj; output?: unknown };
  const inputProps = objOr(objOr(objOr(bazaar['schema'], {})['properties'], {})['input'], {});
  const schemaOf = (key: string): Obj | undefined => {
    const s = objOr(inputProps['properties'], {})[key];
    return isObj(s) ? s : undefined;
  };

  const offer = payableOffer(r.accepts, chain);
  if ('reason' in offer) return skip(resource, offer.code, offer.reason);

  const call = callOf(info.input, url, offer.payee, schemaOf);
  if ('reason' in call) return skip(resource, 'unsupported_call', call.reason);

  const meta = sanitizeResourceServiceMetadata({ url: resource, serviceName: r.serviceName, tags: r.tags } as ResourceInfo);
  const caps = capability !== undefined ? [capability] : capabilitiesOf(meta.tags ?? []);
  const output = objOr(info.output, {});
  const outputSchema = objOr(objOr(objOr(objOr(bazaar['schema'], {})['properties'], {})['output'], {})['properties'], {})['example'];
  const manifest: Manifest = {
    id: agentId(url, call.tool),
    version: '1.0.0',
    name: meta.serviceName ?? call.tool ?? `${url.host}${url.pathname}`,
    description:
      typeof r.description === 'string' ? r.description : typeof info.input['description'] === 'string' ? info.input['description'] : '',
    publisher: url.host,
    capabilities: caps.length > 0 ? caps : [DEFAULT_CAPABILITY],
    input_schema: call.inputSchema,
    output_schema: isObj(outputSchema) ? outputSchema : {},
    errors: [],
    price: { currency: offer.currency, per_call: offer.amount },
    data_policy: structuredClone(UNDECLARED_DATA_POLICY),
    models: [],
    delegated_calls: [],
    examples: call.example === undefined ? [] : [{ input: call.example, ...('example' in output ? { output: output['example'] } : {}) }],
  };
  // What the catalog would refuse is refused here, for this item only, so adding the rest cannot fail halfway.
  const m = ManifestSchema.safeParse(manifest);
  if (!m.success) return skip(resource, 'unreadable', `it makes no manifest: ${firstIssue(m.error)}`);
  const e = EndpointSchema.safeParse(call.endpoint);
  if (!e.success) return skip(resource, 'unreadable', `it makes no endpoint: ${firstIssue(e.error)}`);
  return { manifest, endpoint: call.endpoint, resource };
}

const skip = (resource: string | null, code: SkipCode, reason: string): Skipped => ({ resource, code, reason });

function parseHttpUrl(text: string): URL | undefined {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The offer Holon would pay, as a price and a payee; or why there is none. Like the paying side, it takes
 * the cheapest it can pay (`exact` on a tie with `upto`), among offers in the currency of the first one
 * (amounts in two currencies do not compare without a rate).
 */
function payableOffer(
  accepts: unknown,
  chain: PayingChain | undefined,
): { currency: string; amount: string; payee: string } | { code: SkipCode; reason: string } {
  const offers = Array.isArray(accepts) ? accepts.filter(isObj) : [];
  const seen: string[] = [];
  let best: { currency: string; units: bigint; exact: boolean; payee: string } | undefined;
  let tooLarge: string | undefined;
  let elsewhere: string | undefined;
  for (const o of offers) {
    const scheme = String(o['scheme']);
    const network = String(o['network']);
    const asset = typeof o['asset'] === 'string' ? knownAsset(network, o['asset']) : undefined;
    seen.push(`${scheme} on ${network}`);
    if ((scheme !== 'exact' && scheme !== 'upto') || !EVM_NETWORK.test(network) || !asset) continue;
    // Where a chain is configured, an offer elsewhere could never be paid: the agent would be ranked and then refused.
    if (chain && (network !== chain.network || String(o['asset']).toLowerCase() !== chain.token.toLowerCase())) {
      elsewhere ??= network;
      continue;
    }
    const payTo = o['payTo'];
    const amount = o['amount'];
    if (typeof payTo !== 'string' || !EVM_ADDRESS.test(payTo) || typeof amount !== 'string' || !ATOMIC.test(amount)) continue;
    const { units } = fromAtomic(amount, asset.decimals, asset.currency);
    if (units / 10n ** BigInt(SCALE) >= 10n ** BigInt(MAX_WHOLE_DIGITS)) {
      tooLarge ??= amount;
      continue;
    }
    const exact = scheme === 'exact';
    if (best && (asset.currency !== best.currency || units > best.units || (units === best.units && (best.exact || !exact)))) continue;
    best = { currency: asset.currency, units, exact, payee: `${network}:${payTo}` };
  }
  if (best) return { currency: best.currency, amount: formatUnits(best.units), payee: best.payee };
  if (tooLarge !== undefined)
    return { code: 'price_too_large', reason: `its price, ${tooLarge} of the token's smallest units, is more than Holon can hold` };
  if (elsewhere !== undefined && chain)
    return { code: 'other_chain', reason: `it is paid on ${elsewhere}, and the wallet pays on ${chain.network} (in ${chain.token}) only` };
  const what = seen.length > 0 ? `it offers ${seen.join(', ')}` : 'it offers no payment';
  return { code: 'no_payable_offer', reason: `${what}; Holon pays exact or upto on an EVM network, in a token it knows` };
}

interface Call {
  endpoint: Endpoint;
  tool: string | undefined;
  inputSchema: Obj;
  example: unknown;
}

/** How the bazaar info says the resource is called, as an endpoint with its input schema; or why Holon cannot call it. */
function callOf(input: Obj, url: URL, payee: string, schemaOf: (key: string) => Obj | undefined): Call | { reason: string } {
  if (input['type'] === 'mcp') {
    // The package's type names it `toolName`, the spec `tool`: either is the tool.
    const tool = typeof input['toolName'] === 'string' ? input['toolName'] : input['tool'];
    if (typeof tool !== 'string' || tool.length === 0) return { reason: 'its MCP info names no tool' };
    if (input['transport'] !== undefined && input['transport'] !== 'streamable-http')
      return { reason: `its MCP transport is ${String(input['transport'])}; Holon speaks Streamable HTTP` };
    return {
      endpoint: { type: 'http', url: url.href, tool, payee },
      tool,
      inputSchema: objOr(input['inputSchema'], { type: 'object' }),
      example: input['example'],
    };
  }
  if (input['type'] !== 'http') return { reason: `its input type is ${String(input['type'])}; Holon calls http and mcp` };
  const body = 'bodyType' in input;
  const method = typeof input['method'] === 'string' ? input['method'].toUpperCase() : body ? 'POST' : 'GET';
  if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method))
    return { reason: `its method is ${method}; Holon calls GET, POST, PUT, PATCH and DELETE` };
  const query = method === 'GET' || method === 'DELETE';
  if (!query && input['bodyType'] !== 'json') return { reason: `its body is ${String(input['bodyType'])}; Holon sends JSON bodies` };
  return {
    endpoint: { type: 'x402', url: url.href, payee, method: method as HttpMethod, input: query ? 'query' : 'json' },
    tool: undefined,
    // A query or a JSON body is an object, whether or not the seller's schema says so.
    inputSchema: { type: 'object', ...schemaOf(query ? 'queryParams' : 'body') },
    example: query ? input['queryParams'] : input['body'],
  };
}

/** The seller's tags that read as capabilities (lower-cased, spaces as dashes). */
function capabilitiesOf(tags: readonly string[]): string[] {
  const out = tags.map((t) => t.trim().toLowerCase().replace(/\s+/g, '-')).filter(isCapability);
  return [...new Set(out)];
}

/** The id rule above. */
function agentId(url: URL, tool: string | undefined): string {
  const slug = (text: string, max: number): string =>
    text
      .toLowerCase()
      .replace(/[^a-z0-9_.-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .slice(0, max)
      .replace(/[.-]+$/, '');
  const hash = createHash('sha256')
    .update(tool === undefined ? url.href : `${url.href}#${tool}`)
    .digest('hex')
    .slice(0, 8);
  const segments = url.pathname.split('/').filter((s) => s.length > 0);
  const base = slug(tool ?? segments.at(-1) ?? '', 54);
  return `${slug(url.host, 63) || 'x402'}/${base ? `${base}-` : ''}${hash}`;
}
