/**
 * The catalog as one mandate sees it, computed once per state version and shared by `search_agents`,
 * `get_agent` and the gateway's decision: each agent's search text, static denials and worst case, the
 * agents allowed per capability, and the order by rank. A search or a decision then costs a scan of
 * precomputed entries, never a walk of the catalog per delegating agent, and no money is parsed while
 * sorting. It is rebuilt when the catalog, the rates or the mandate change; the order is redone when a
 * call changes an agent's measured record.
 */
import type { FxFields } from '../fx.ts';
import type { AgentEntry, Mandate } from '../model.ts';
import type { CatalogFields } from './catalog.ts';
import type { Ranking, WorstCase } from './policy.ts';
import { compareRankings, offers, rankingOf, staticDenials, worstCase } from './policy.ts';
import type { Denial } from '../denials.ts';
import type { ReceiptsFields } from './receipts.ts';

/** What the index reads from the state. */
export type MarketState = CatalogFields & FxFields & Pick<ReceiptsFields, 'records' | 'records_version'>;

/** One agent in the index. */
export interface IndexedAgent {
  id: string;
  entry: AgentEntry;
  /** Id, name, description and capabilities, lower-cased, for `query`. */
  text: string;
  /** Why the mandate refuses it whatever the budget (empty when it allows it). */
  denials: Denial[];
}

/** The index of one mandate over one version of the catalog and rates. */
export class MandateIndex {
  readonly agents: IndexedAgent[];
  private readonly byId = new Map<string, IndexedAgent>();
  private readonly allowed = new Map<string, AgentEntry[]>();
  private readonly worst = new Map<string, WorstCase>();
  private rankings = new Map<string, Ranking>();
  private order: IndexedAgent[] | undefined;
  private orderFor = new Map<string, IndexedAgent[]>();
  private recordsVersion: number;

  constructor(
    private readonly s: MarketState,
    readonly mandate: Mandate,
    readonly catalogVersion: number,
    readonly fxVersion: number,
  ) {
    this.recordsVersion = s.records_version;
    this.agents = Object.values(s.agents)
      .map((entry) => {
        const m = entry.manifest;
        return { id: m.id, entry, text: [m.id, m.name, m.description, ...m.capabilities].join('\n').toLowerCase(), denials: staticDenials(s, mandate, entry) };
      })
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const a of this.agents) this.byId.set(a.id, a);
  }

  /** The indexed agent, if the catalog has it. */
  get(id: string): IndexedAgent | undefined {
    return this.byId.get(id);
  }

  /** Agents the mandate allows (static rules only) that offer `capability` (a name or a pattern). */
  allowedFor(capability: string): AgentEntry[] {
    let list = this.allowed.get(capability);
    if (!list) {
      list = this.agents.filter((a) => a.denials.length === 0 && offers(a.entry, capability)).map((a) => a.entry);
      this.allowed.set(capability, list);
    }
    return list;
  }

  /** The agent's worst case for a root call (from an empty chain: remembered), or from `chain` (computed). */
  worstCase(entry: AgentEntry, chain: string[] = []): WorstCase {
    const compute = (e: AgentEntry, c: string[]): WorstCase => worstCase(this.s, this.mandate, e, c, (cap) => this.allowedFor(cap), compute);
    if (chain.length > 0) return compute(entry, chain);
    let w = this.worst.get(entry.manifest.id);
    if (!w) {
      w = compute(entry, []);
      this.worst.set(entry.manifest.id, w);
    }
    return w;
  }

  /** The agent's ranking, as of the latest measured records. */
  ranking(entry: AgentEntry): Ranking {
    this.syncRecords();
    let r = this.rankings.get(entry.manifest.id);
    if (!r) {
      r = rankingOf(this.s, this.mandate, entry);
      this.rankings.set(entry.manifest.id, r);
    }
    return r;
  }

  /** Every agent, best-ranked first (unknown cost last, then by id). */
  ranked(): IndexedAgent[] {
    this.syncRecords();
    if (!this.order) {
      const keyed = this.agents.map((a) => ({ id: a.id, a, ranking: this.ranking(a.entry) }));
      this.order = keyed.sort(compareRankings).map((k) => k.a);
    }
    return this.order;
  }

  /** The agents the mandate allows for `capability`, best-ranked first. */
  rankedFor(capability: string): IndexedAgent[] {
    this.syncRecords();
    let list = this.orderFor.get(capability);
    if (!list) {
      const allowed = new Set(this.allowedFor(capability));
      list = this.ranked().filter((a) => allowed.has(a.entry));
      this.orderFor.set(capability, list);
    }
    return list;
  }

  private syncRecords(): void {
    if (this.recordsVersion === this.s.records_version) return;
    this.recordsVersion = this.s.records_version;
    this.rankings = new Map();
    this.order = undefined;
    this.orderFor = new Map();
  }
}

const cache = new WeakMap<object, Map<string, MandateIndex>>();

/** The index of `mandate` over the state as it is now (remembered until the catalog, rates or mandate change). */
export function marketIndex(s: MarketState, mandate: Mandate): MandateIndex {
  let perState = cache.get(s);
  if (!perState) cache.set(s, (perState = new Map()));
  let idx = perState.get(mandate.id);
  if (!idx || idx.mandate !== mandate || idx.catalogVersion !== s.catalog_version || idx.fxVersion !== s.fx_version) {
    idx = new MandateIndex(s, mandate, s.catalog_version, s.fx_version);
    perState.set(mandate.id, idx);
  }
  return idx;
}
