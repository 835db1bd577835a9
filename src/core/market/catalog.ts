/**
 * The catalog: agents a human added (from the demo catalog, a registry file, or one by one). Manifests are
 * kept in the journal and never read from the workspace at call time.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock } from '../kernel/deps.ts';
import { HolonError } from '../kernel/errors.ts';
import type { EventStore } from '../store/store.ts';
import type { AgentEntry, Endpoint, Manifest } from '../kernel/model.ts';
import type { Slice } from '../store/slice.ts';
import { eventsOf } from '../store/slice.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';

/** The catalog's part of the state. */
export interface CatalogFields {
  agents: Dict<AgentEntry>;
  /** Counts catalog changes, so what is derived from the catalog (the market index) knows when to rebuild. */
  catalog_version: number;
}

export interface CatalogEvents {
  'agent.added': { entry: AgentEntry };
}

const catalogEvent = eventsOf<CatalogEvents>();

export const catalogSlice: Slice<CatalogFields, CatalogEvents> = {
  initial: () => ({ agents: dict(), catalog_version: 0 }),
  on: {
    'agent.added': (s, d) => {
      s.agents[d.entry.manifest.id] = structuredClone(d.entry);
      s.catalog_version += 1;
    },
  },
  revive: (s) => {
    s.agents = toDict(s.agents);
    s.catalog_version ??= 0;
  },
};

/** Adds (or replaces) an agent in the catalog. */
export async function addAgent(
  store: EventStore<CatalogFields>,
  clock: Clock,
  manifest: unknown,
  endpoint: unknown,
  source: string,
): Promise<AgentEntry> {
  // The schemas (zod) are loaded on the first write that needs them, never to fold or read a state.
  const { EndpointSchema, firstIssue, ManifestSchema } = await import('../kernel/schemas.ts');
  const m = ManifestSchema.safeParse(manifest);
  if (!m.success) throw new HolonError('invalid_input', `manifest: ${firstIssue(m.error)}`);
  const e = EndpointSchema.safeParse(endpoint);
  if (!e.success) throw new HolonError('invalid_input', `endpoint: ${firstIssue(e.error)}`);
  const entry: AgentEntry = {
    manifest: m.data as Manifest,
    endpoint: e.data as Endpoint,
    source,
    added_at: new Date(clock.now()).toISOString(),
  };
  await store.transact(() => ({ events: [catalogEvent('agent.added', { entry })], result: undefined }));
  return entry;
}

/**
 * Reads a catalog file (`{agents: [{manifest, endpoint}]}`, or one `{manifest, endpoint}`); endpoint
 * arguments starting with "./" resolve against the file's folder.
 */
export async function readCatalog(file: string): Promise<{ manifest: Manifest; endpoint: Endpoint }[]> {
  const { CatalogSchema, firstIssue } = await import('../kernel/schemas.ts');
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new HolonError('invalid_input', `cannot read catalog ${file}: ${(err as Error).message}`);
  }
  const parsed = CatalogSchema.safeParse(json && typeof json === 'object' && 'manifest' in json ? { agents: [json] } : json);
  if (!parsed.success) throw new HolonError('invalid_input', `catalog ${file}: ${firstIssue(parsed.error)}`);
  const dir = path.dirname(path.resolve(file));
  return parsed.data.agents.map((a) => {
    const endpoint = a.endpoint as Endpoint;
    if (endpoint.type !== 'stdio') return { manifest: a.manifest as Manifest, endpoint };
    const args = endpoint.args.map((x) => (x.startsWith('./') ? path.join(dir, x) : x));
    return { manifest: a.manifest as Manifest, endpoint: { ...endpoint, args, cwd: endpoint.cwd ? path.resolve(dir, endpoint.cwd) : dir } };
  });
}
