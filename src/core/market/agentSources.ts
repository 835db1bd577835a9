/**
 * Where a human adds agents from, for every edge that adds them (`holon agents add`, the editor's Add
 * Agents): a catalog file, a file holding an x402 discovery listing, or the http(s) URL of a facilitator's
 * discovery. Everything is read and checked before anything is added, so a source that does not read adds
 * nothing; a listing's items that cannot be agents are skipped, each with its reason, and the rest added.
 */
import * as fs from 'node:fs';
import type { Clock } from '../kernel/deps.ts';
import { HolonError } from '../kernel/errors.ts';
import type { AgentEntry, Endpoint, Manifest } from '../kernel/model.ts';
import type { EventStore } from '../store/store.ts';
import type { CatalogFields } from './catalog.ts';
import { addAgent, readCatalog } from './catalog.ts';
import type { PayingChain, Skipped } from './discovery.ts';

/** What a source holds: the agents to add, and (for a listing) what was left out and why. */
export interface AgentSource {
  kind: 'catalog' | 'listing';
  /** How the catalog records where the agents came from. */
  source: string;
  entries: { manifest: Manifest; endpoint: Endpoint }[];
  skipped: Skipped[];
  /** Set when the listing held more than Holon reads from one source. */
  truncated: boolean;
}

/** The path of a facilitator's discovery listing (x402 bazaar). */
export const DISCOVERY_PATH = '/discovery/resources';

/** How many resources one page asks for, and the most read from one listing. */
const PAGE = 100;
export const MAX_LISTED = 1000;

/** The most one page of a listing may weigh. */
const MAX_PAGE_BYTES = 4 * 1024 * 1024;

/** Whether `where` is a URL rather than a file. */
export function isListingUrl(where: string): boolean {
  return /^https?:\/\//i.test(where);
}

/**
 * Reads the agents `where` holds. A URL is a facilitator's discovery: its base URL, or the full
 * `/discovery/resources` URL (with any filters the human put on it); it is read page by page (`limit`,
 * `offset`) up to MAX_LISTED resources. A human typed it, so it may be on this machine.
 * `capability` names the capability of every agent of a listing (see discovery.ts); `chain`, the chain the
 * human configured, leaves out a listing's resources paid anywhere else.
 */
export async function readAgentSource(
  where: string,
  options: { fetch: typeof globalThis.fetch; capability?: string | undefined; chain?: PayingChain | undefined },
): Promise<AgentSource> {
  if (isListingUrl(where)) {
    const { items, truncated } = await fetchListing(where, options.fetch);
    return listingSource(`listing:${where}`, items, truncated, options);
  }
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(where, 'utf8'));
  } catch (err) {
    throw new HolonError('invalid_input', `cannot read ${where}: ${(err as Error).message}`, { source: where });
  }
  if (json && typeof json === 'object' && 'items' in json) {
    const { asListing } = await import('./discovery.ts');
    const items = asListing(json, where).items;
    return listingSource(`listing:file:${where}`, items.slice(0, MAX_LISTED), items.length > MAX_LISTED, options);
  }
  if (options.capability !== undefined)
    throw new HolonError('invalid_input', 'a capability is named for the agents of a discovery listing; a catalog file names its own', {
      source: where,
    });
  return { kind: 'catalog', source: `file:${where}`, entries: await readCatalog(where), skipped: [], truncated: false };
}

/** Adds a source's agents to the catalog (a source was checked whole before this). */
export async function addAgentSource(
  store: EventStore<CatalogFields>,
  clock: Clock,
  from: AgentSource,
  source = from.source,
): Promise<AgentEntry[]> {
  const added: AgentEntry[] = [];
  for (const e of from.entries) added.push(await addAgent(store, clock, e.manifest, e.endpoint, source));
  return added;
}

async function listingSource(
  source: string,
  items: readonly unknown[],
  truncated: boolean,
  options: { capability?: string | undefined; chain?: PayingChain | undefined },
): Promise<AgentSource> {
  // The bazaar package and the schemas load only when a listing is read.
  const { listingEntries } = await import('./discovery.ts');
  const { entries, skipped } = listingEntries(items, options);
  if (entries.length === 0) {
    const named = skipped.slice(0, 3).map((k) => `${k.resource ?? '(no resource)'}: ${k.reason}`);
    const more = skipped.length > named.length ? `; and ${skipped.length - named.length} more` : '';
    const why =
      items.length === 0 ? 'it lists no resources' : `none of its ${items.length} resources can be an agent (${named.join('; ')}${more})`;
    throw new HolonError('invalid_input', `nothing added from ${source.replace(/^listing:(file:)?/, '')}: ${why}`, { source, skipped });
  }
  return { kind: 'listing', source, entries: entries.map(({ manifest, endpoint }) => ({ manifest, endpoint })), skipped, truncated };
}

/** Every page of the listing at `where`, up to MAX_LISTED items. */
async function fetchListing(where: string, fetchFn: typeof globalThis.fetch): Promise<{ items: unknown[]; truncated: boolean }> {
  const { asListing } = await import('./discovery.ts');
  const base = new URL(where);
  if (!base.pathname.replace(/\/+$/, '').endsWith(DISCOVERY_PATH)) base.pathname = `${base.pathname.replace(/\/+$/, '')}${DISCOVERY_PATH}`;
  const items: unknown[] = [];
  let offset = 0;
  for (;;) {
    const page = new URL(base);
    page.searchParams.set('limit', String(Math.min(PAGE, MAX_LISTED - items.length)));
    page.searchParams.set('offset', String(offset));
    const listing = asListing(await getJson(page, fetchFn, where), where);
    items.push(...listing.items);
    offset += listing.items.length;
    const total = typeof listing.pagination?.total === 'number' ? listing.pagination.total : offset;
    if (listing.items.length === 0 || offset >= total) return { items, truncated: false };
    if (items.length >= MAX_LISTED) return { items: items.slice(0, MAX_LISTED), truncated: true };
  }
}

async function getJson(url: URL, fetchFn: typeof globalThis.fetch, where: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetchFn(url, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    throw new HolonError('invalid_input', `cannot reach ${where}: ${(err as Error).message}`, { source: where });
  }
  const text = await res.text();
  if (!res.ok)
    throw new HolonError('invalid_input', `${where} answers no discovery listing (HTTP ${res.status})`, {
      source: where,
      status: res.status,
    });
  if (text.length > MAX_PAGE_BYTES)
    throw new HolonError('invalid_input', `${where} answers more than a listing page may weigh`, { source: where });
  try {
    return JSON.parse(text);
  } catch {
    throw new HolonError('invalid_input', `${where} answers no discovery listing: the answer is not JSON`, { source: where });
  }
}
