/**
 * The catalog as one mandate sees it, computed once per state version and shared by `search_agents`,
 * `get_agent` and the gateway's decision: each agent's search text, static denials and worst case, the
 * agents per capability, and the order by rank. A search or a decision then costs a look-up of
 * precomputed entries, never a walk of the catalog per delegating agent, and no money is parsed while
 * sorting. It is rebuilt when the catalog, the rates or the mandate change; when a call changes an agent's
 * measured record, only that agent is ranked again and the order re-sorted on its cached keys.
 */
import { capabilityMatches } from '../kernel/capabilities.ts';
import type { Denial } from '../kernel/denials.ts';
import type { FxFields } from '../money/fx.ts';
import type { AgentEntry, Mandate } from '../kernel/model.ts';
import type { Money } from '../kernel/amount.ts';
import type { CatalogFields } from './catalog.ts';
import type { Ranking, WorstCase } from './policy.ts';
import { compareRankings, rankingOf, staticDenials, worstCase } from './policy.ts';
import type { ReceiptsFields } from './receipts.ts';

/** What the index reads from the state. */
export type MarketState = CatalogFields & FxFields & Pick<ReceiptsFields, 'records' | 'records_version'>;

/** One agent in the index. */
export interface IndexedAgent {
  id: string;
  entry: AgentEntry;
  /** The capabilities it offers (kept beside the rest, so a scan does not reach into the manifest). */
  caps: string[];
  /** Id, name, description and capabilities, lower-cased, for `query`. */
  text: string;
  /** Why the mandate refuses it whatever the budget (empty when it allows it). */
  denials: Denial[];
}

/** The index of one mandate over one version of the catalog and rates. */
export class MandateIndex {
  readonly agents: IndexedAgent[];
  private readonly byId = new Map<string, IndexedAgent>();
  /** Exact capability → the agents offering it. */
  private readonly byCap = new Map<string, IndexedAgent[]>();
  private readonly allowed = new Map<string, AgentEntry[]>();
  private readonly worst = new Map<string, WorstCase>();
  private readonly fixedOf = new Map<string, { denials: Denial[]; worst: Money | null }>();
  /** Rankings, with the measured run count each was computed from. */
  private readonly rankings = new Map<string, { ranking: Ranking; runs: number }>();
  private order: IndexedAgent[] | undefined;
  private lastOrder: IndexedAgent[];
  /** Agents whose rank may have changed since the last order (undefined: order everything). */
  private moved: Set<string> | undefined;
  private position = new Map<IndexedAgent, number>();
  private matchingFor = new Map<string, IndexedAgent[]>();
  private orderFor = new Map<string, IndexedAgent[]>();
  private recordsVersion: number;

  constructor(
    private readonly s: MarketState,
    readonly mandate: Mandate,
    readonly catalogVersion: number,
    readonly fxVersion: number,
  ) {
    this.recordsVersion = s.records_version;
    this.agents = this.lastOrder = Object.values(s.agents)
      .map((entry) => {
        const m = entry.manifest;
        return {
          id: m.id,
          entry,
          caps: [...m.capabilities],
          text: [m.id, m.name, m.description, ...m.capabilities].join('\n').toLowerCase(),
          denials: staticDenials(s, mandate, entry),
        };
      })
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const a of this.agents) {
      this.byId.set(a.id, a);
      for (const c of a.caps) {
        const list = this.byCap.get(c);
        if (list) list.push(a);
        else this.byCap.set(c, [a]);
      }
    }
  }

  /** The indexed agent, if the catalog has it. */
  get(id: string): IndexedAgent | undefined {
    return this.byId.get(id);
  }

  /** Agents offering a capability matching `pattern`, in catalog (id) order. */
  private offering(pattern: string): IndexedAgent[] {
    if (!pattern.includes('*')) return this.byCap.get(pattern) ?? [];
    const found = new Set<IndexedAgent>();
    for (const [c, list] of this.byCap) if (capabilityMatches(pattern, c)) for (const a of list) found.add(a);
    return [...found];
  }

  /** Agents the mandate allows (static rules only) that offer `capability` (a name or a pattern). */
  allowedFor(capability: string): AgentEntry[] {
    let list = this.allowed.get(capability);
    if (!list) {
      list = this.offering(capability)
        .filter((a) => a.denials.length === 0)
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((a) => a.entry);
      this.allowed.set(capability, list);
    }
    return list;
  }

  /** The agent's worst case for a root call (from an empty chain: remembered), or from `chain` (computed). */
  worstCase(entry: AgentEntry, chain: string[] = []): WorstCase {
    const compute = (e: AgentEntry, c: string[]): WorstCase =>
      worstCase(this.s, this.mandate, e, c, (cap) => this.allowedFor(cap), compute);
    if (chain.length > 0) return compute(entry, chain);
    let w = this.worst.get(entry.manifest.id);
    if (!w) {
      w = compute(entry, []);
      this.worst.set(entry.manifest.id, w);
    }
    return w;
  }

  /**
   * What does not change until the catalog, the rates or the mandate do: why the mandate refuses the
   * agent whatever the budget (its static denials, and why it has no worst case), and its worst case.
   */
  fixed(a: IndexedAgent): { denials: Denial[]; worst: Money | null } {
    let f = this.fixedOf.get(a.id);
    if (!f) {
      const w = this.worstCase(a.entry);
      const denials = [...a.denials];
      // An agent without a rate has no worst case either: the reason is said once.
      if (!w.ok && !denials.some((d) => JSON.stringify(d) === JSON.stringify(w.denial))) denials.push(w.denial);
      f = { denials, worst: w.ok ? w.amount : null };
      this.fixedOf.set(a.id, f);
    }
    return f;
  }

  /** The agent's ranking, as of the latest measured records. */
  ranking(entry: AgentEntry): Ranking {
    this.syncRecords();
    const id = entry.manifest.id;
    let r = this.rankings.get(id);
    if (!r) {
      r = { ranking: rankingOf(this.s, this.mandate, entry), runs: this.s.records[id]?.runs ?? 0 };
      this.rankings.set(id, r);
    }
    return r.ranking;
  }

  /** Every agent, best-ranked first (unknown cost last, then by id). */
  ranked(): IndexedAgent[] {
    this.syncRecords();
    if (!this.order) {
      const key = (a: IndexedAgent): { id: string; ranking: Ranking } => ({ id: a.id, ranking: this.ranking(a.entry) });
      if (this.moved && this.moved.size <= 64) {
        // After a call moved a few agents: take them out and put each back where its new rank says.
        const moved = [...this.moved].map((id) => this.byId.get(id)).filter((a): a is IndexedAgent => a !== undefined);
        const order = this.lastOrder.filter((a) => !this.moved?.has(a.id));
        for (const a of moved) {
          const k = key(a);
          let lo = 0;
          let hi = order.length;
          while (lo < hi) {
            const mid = (lo + hi) >> 1;
            if (compareRankings(key(order[mid] as IndexedAgent), k) < 0) lo = mid + 1;
            else hi = mid;
          }
          order.splice(lo, 0, a);
        }
        this.order = order;
      } else {
        this.order = this.lastOrder
          .map((a) => ({ ...key(a), a }))
          .sort(compareRankings)
          .map((k) => k.a);
      }
      this.moved = undefined;
      this.lastOrder = this.order;
      this.position = new Map(this.order.map((a, i) => [a, i]));
    }
    return this.order;
  }

  /** Every agent offering `capability` (a name or a pattern), allowed or not, best-ranked first. */
  matching(capability: string): IndexedAgent[] {
    this.ranked();
    let list = this.matchingFor.get(capability);
    if (!list) {
      const at = (a: IndexedAgent): number => this.position.get(a) ?? 0;
      list = [...this.offering(capability)].sort((a, b) => at(a) - at(b));
      this.matchingFor.set(capability, list);
    }
    return list;
  }

  /** The agents the mandate allows for `capability`, best-ranked first. */
  rankedFor(capability: string): IndexedAgent[] {
    this.ranked();
    let list = this.orderFor.get(capability);
    if (!list) {
      list = this.matching(capability).filter((a) => a.denials.length === 0);
      this.orderFor.set(capability, list);
    }
    return list;
  }

  /** After calls changed measured records: ranks again only the agents whose record moved. */
  private syncRecords(): void {
    if (this.recordsVersion === this.s.records_version) return;
    this.recordsVersion = this.s.records_version;
    const moved = new Set<string>();
    for (const [id, rec] of Object.entries(this.s.records)) {
      const cached = this.rankings.get(id);
      if (cached && cached.runs !== rec.runs) {
        this.rankings.delete(id);
        moved.add(id);
      }
    }
    if (moved.size === 0) return;
    // An order still to be made keeps its own list of what moved; one already made learns these.
    if (this.order) this.moved = moved;
    else if (this.moved) for (const id of moved) this.moved.add(id);
    this.order = undefined;
    this.matchingFor = new Map();
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
