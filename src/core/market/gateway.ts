/**
 * The market's call lifecycle: resolve the agent (named, or the best-ranked allowed one for a capability)
 * → decide → (approval) → hold → run → settle → receipt → record. Deciding, approving, holding and
 * settling are the shared spend and approval core's; choosing the agent, running it and judging its
 * answer are the market's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { untilDecided } from '../approvals/flow.ts';
import type { Approval } from '../approvals/model.ts';
import { approvalStatus } from '../approvals/model.ts';
import type { Denial } from '../kernel/denials.ts';
import { HolonError } from '../kernel/errors.ts';
import { convertTo } from '../money/fx.ts';
import { newId } from '../kernel/ids.ts';
import { mandateDenials, mandateOf } from '../accounts/mandates.ts';
import { requiresTerms } from '../kernel/capabilities.ts';
import type { AgentEntry, Mandate, Receipt } from '../kernel/model.ts';
import type { Money, MoneyJson } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { BudgetView } from '../money/spend.ts';
import { budgetOf, limitDenials, thresholdDenial } from '../money/spend.ts';
import type { HolonState } from '../fold/state.ts';
import { canonicalHash, checkJsonLimits, previewJson, summarize } from '../kernel/util.ts';
import type { IndexedAgent } from './marketIndex.ts';
import { marketIndex } from './marketIndex.ts';
import type { Ranking } from './policy.ts';
import { agentTimeoutMs } from './policy.ts';
import type { ReceiptTree } from './receiptTree.ts';
import { mandateReceiptTree, readReceipt, treeOf } from './receiptTree.ts';

import type { AgentRunResult, CallOptions, CallOutcome, CallRequest, GatewayDeps, Grant } from './call.ts';
import { FILE_HANDLE_PREFIX } from './call.ts';
import type { Prepared } from './decide.ts';
import { decide, detached } from './decide.ts';
import { finishCall, judge } from './settle.ts';

// The call's vocabulary lives in call.ts, beside the decision and the settlement that read it; the
// gateway's callers name it here, with the gateway.
export type {
  AgentRunner,
  AgentRunResult,
  CallOptions,
  CallOutcome,
  CallRequest,
  DelegationHost,
  GatewayDeps,
  Grant,
  PayLimit,
  SchemaValidator,
} from './call.ts';
export { CALL_FAILURES, FILE_HANDLE_PREFIX, MAX_OUTPUT_BYTES } from './call.ts';

/** An agent as search and get_agent show it to one mandate. */
export interface AgentView {
  entry: AgentEntry;
  worst_case: MoneyJson | null;
  decision: 'allow' | 'approval_required' | 'deny';
  /** Why it is denied, or why it needs approval (`over_threshold`). */
  denials: Denial[];
  ranking: Ranking;
}

/** What a search found, with what the limit left out. */
export interface SearchResult {
  agents: AgentView[];
  excluded: AgentView[];
  /** How many matched in all, allowed and excluded, before the limit. */
  total: { agents: number; excluded: number };
}

/** The grants of calls running in this process, by token. */
export class GrantRegistry {
  private readonly grants = new Map<string, Grant>();

  issue(grant: Omit<Grant, 'token' | 'used'>): Grant {
    const g: Grant = { ...grant, token: newId('grant') + newId('').slice(1), used: 0 };
    this.grants.set(g.token, g);
    return g;
  }

  resolve(token: string): Grant | undefined {
    return this.grants.get(token);
  }

  revoke(token: string): void {
    this.grants.delete(token);
  }
}

/**
 * The market gateway. Every decision and hold is made in one journal transaction against the latest
 * state, so concurrent calls from any number of processes can never together exceed a limit.
 */
export class Gateway {
  readonly grants = new GrantRegistry();

  constructor(private readonly deps: GatewayDeps) {}

  get state(): HolonState {
    return this.deps.store.state;
  }

  /** The mandate, or a not_found error. */
  mandate(id: string): Mandate {
    return mandateOf(this.state, id);
  }

  /** How one indexed agent looks to a mandate right now. */
  private view(mandate: Mandate, a: IndexedAgent, budget: BudgetView, now: number): AgentView {
    const idx = marketIndex(this.state, mandate);
    const fixed = idx.fixed(a);
    const denials = [...mandateDenials(mandate, now), ...fixed.denials];
    let decision: AgentView['decision'] = denials.length > 0 ? 'deny' : 'allow';
    if (fixed.worst && decision === 'allow') {
      const limits = limitDenials(budget, fixed.worst, undefined);
      if (limits.length > 0) {
        denials.push(...limits);
        decision = 'deny';
      } else if (M.compare(fixed.worst, budget.threshold) > 0) {
        decision = 'approval_required';
        denials.push(thresholdDenial(fixed.worst, mandate));
      }
    }
    return { entry: a.entry, worst_case: fixed.worst ? M.toJson(fixed.worst) : null, decision, denials, ranking: idx.ranking(a.entry) };
  }

  /**
   * Agents matching a query and capability, best-ranked first: up to `limit` allowed ones and up to
   * `limit` excluded ones (with why), and how many matched in all. Only the agents listed are described
   * in full; the others are counted from their fixed part and the budget, with no allocation.
   */
  search(mandateId: string, q: { query?: string | undefined; capability?: string | undefined; limit?: number | undefined }): SearchResult {
    const mandate = this.mandate(mandateId);
    const now = this.deps.clock.now();
    const idx = marketIndex(this.state, mandate);
    const budget = budgetOf(this.state, mandate, now);
    const refused = mandateDenials(mandate, now).length > 0;
    const needle = q.query?.toLowerCase();
    const limit = q.limit ?? 20;
    const out: SearchResult = { agents: [], excluded: [], total: { agents: 0, excluded: 0 } };
    for (const a of q.capability ? idx.matching(q.capability) : idx.ranked()) {
      if (needle && !a.text.includes(needle)) continue;
      const f = idx.fixed(a);
      const w = f.worst?.units;
      const denied =
        refused ||
        f.denials.length > 0 ||
        w === undefined ||
        (budget.per_call !== null && w > budget.per_call.units) ||
        w > budget.remaining.units ||
        (budget.remaining_today !== null && w > budget.remaining_today.units);
      if (denied) out.total.excluded += 1;
      else out.total.agents += 1;
      const list = denied ? out.excluded : out.agents;
      if (list.length < limit) list.push(this.view(mandate, a, budget, now));
    }
    return out;
  }

  /** One agent, as the mandate sees it. */
  describe(mandateId: string, agentId: string): AgentView {
    const mandate = this.mandate(mandateId);
    const a = marketIndex(this.state, mandate).get(agentId);
    if (!a) throw new HolonError('not_found', `no agent "${agentId}" in the catalog`, { agent: agentId });
    const now = this.deps.clock.now();
    return this.view(mandate, a, budgetOf(this.state, mandate, now), now);
  }

  /**
   * An approval of this mandate, of any kind (an agent call, a payment, an office request, a proposal),
   * with expiry applied: every approval id a tool hands the agent can be checked.
   */
  approvalStatus(mandateId: string, id: string): { approval: Approval; status: ReturnType<typeof approvalStatus> } {
    const a = this.state.approvals[id];
    if (!a || a.mandate !== mandateId) {
      throw new HolonError('not_found', `no approval "${id}" under mandate ${mandateId}`, { approval: id });
    }
    return {
      approval: a,
      status: approvalStatus(a, this.deps.clock.now()),
    };
  }

  /** A receipt of this mandate with its delegated calls, recursively. */
  receiptTree(mandateId: string, id: string): Promise<ReceiptTree> {
    return mandateReceiptTree(this.deps.store, mandateId, id);
  }

  /** The tree under the receipt a call returned. */
  outcomeTree(outcome: CallOutcome): Promise<ReceiptTree> {
    return treeOf(this.deps.store, outcome.receipt);
  }

  /** Makes one call, from decision to receipt. */
  async call(mandateId: string, request: CallRequest, options: CallOptions = {}): Promise<CallOutcome> {
    const prepared = this.prepare(mandateId, request);
    const { decision, status } = await untilDecided(
      this.deps.store,
      // A decision only reads the state and builds events, unless it counts a delegated call against its
      // grant: without one, a team store may decide it on the state it has and write it in one round trip.
      async (approvalId) =>
        detached(
          await this.deps.store.transact((s) => decide(this.deps, s, prepared, approvalId, options.grant), {
            rerunnable: options.grant === undefined,
          }),
        ),
      (d) => (d.kind === 'pending' ? d.approval : undefined),
      { approvalId: request.approval, wait: options.waitForApproval, signal: options.signal },
    );
    if (decision.kind === 'started') return this.run(decision.receipt, decision.entry, decision.hold, prepared, options);
    if (decision.kind !== 'pending' || status === null) return decision;
    // Waited and stopped: the receipt and approval as they are now (a rejection ends the receipt).
    const approval = structuredClone(this.state.approvals[decision.approval.id] ?? decision.approval);
    const receipt = (await readReceipt(this.deps.store, decision.receipt.id)) ?? decision.receipt;
    return status === 'rejected' ? { kind: 'rejected', receipt, approval } : { kind: 'pending', receipt, approval };
  }

  /** Checks what can be checked before touching the journal: shape, size, file handles. */
  private prepare(mandateId: string, request: CallRequest): Prepared {
    if ((request.agent === undefined) === (request.capability === undefined)) {
      throw new HolonError('invalid_input', 'give exactly one of "agent" or "capability"');
    }
    const mandate = this.mandate(mandateId);
    if (request.agent !== undefined && !this.state.agents[request.agent]) {
      throw new HolonError('not_found', `no agent "${request.agent}" in the catalog; search_agents lists them`, { agent: request.agent });
    }
    checkJsonLimits(request.input, 'the input');
    // Build what the decision reads before the journal lock is taken: under it, only what another
    // process changed since is done again.
    const idx = marketIndex(this.state, mandate);
    if (request.capability !== undefined) for (const a of idx.rankedFor(request.capability)) idx.fixed(a);
    else if (request.agent !== undefined) idx.worstCase(this.state.agents[request.agent] as AgentEntry);
    const maxCost = request.max_cost ? M.fromJson(request.max_cost) : undefined;
    if (maxCost && maxCost.units <= 0n) throw new HolonError('invalid_input', 'max_cost must be positive');
    if (maxCost && maxCost.currency !== mandate.currency)
      throw new HolonError('invalid_input', `max_cost must be in the mandate's currency, ${mandate.currency}`);
    return {
      mandateId,
      request,
      maxCost,
      inputSha256: canonicalHash(request.input),
      inputBytes: Buffer.byteLength(JSON.stringify(request.input ?? null)),
      inputSummary: summarize(request.input),
      inputPreview: previewJson(request.input),
      files: this.resolveFiles(request.input),
    };
  }

  /** Maps every holon://files/ handle in the input to a real path inside `<state>/files`, or refuses. */
  resolveFiles(input: unknown): Record<string, string> {
    const out: Record<string, string> = {};
    const root = path.resolve(this.deps.filesRoot);
    let realRoot: string | undefined;
    const stack: unknown[] = [input];
    while (stack.length > 0) {
      const v = stack.pop();
      if (typeof v === 'string') {
        if (!v.startsWith(FILE_HANDLE_PREFIX)) continue;
        const rel = v.slice(FILE_HANDLE_PREFIX.length);
        let real: string;
        try {
          // The system's realpath: one call, where Node's own walks the path a component at a time.
          real = fs.realpathSync.native(path.resolve(root, rel));
        } catch {
          throw new HolonError('invalid_input', `file handle ${v} does not name a file in the state's files folder`, { handle: v });
        }
        realRoot ??= fs.realpathSync.native(root);
        if (rel.length === 0 || !real.startsWith(realRoot + path.sep) || !fs.statSync(real).isFile()) {
          throw new HolonError('invalid_input', `file handle ${v} points outside the state's files folder`, { handle: v });
        }
        out[v] = real;
      } else if (Array.isArray(v)) stack.push(...v);
      else if (v && typeof v === 'object') stack.push(...Object.values(v));
    }
    return out;
  }

  /** Runs the held call through the agent's endpoint, then settles it. */
  private async run(receipt: Receipt, entry: AgentEntry, hold: Money, p: Prepared, options: CallOptions): Promise<CallOutcome> {
    const started = this.deps.clock.now();
    const meta: Record<string, unknown> = { 'holon/files': p.files, 'holon/receipt': receipt.id };
    let grant: Grant | undefined;
    let result: AgentRunResult;
    try {
      grant = await this.delegate(receipt, entry, options, meta);
      result = await this.deps.runner.run({
        endpoint: entry.endpoint,
        input: p.request.input,
        meta,
        timeoutMs: agentTimeoutMs(entry),
        ...(options.signal ? { signal: options.signal } : {}),
        // An agent that asks to be paid (an x402 402, a paid MCP tool) is paid never above what is held,
        // and only to the payee its catalog entry declares.
        pay: {
          limit: hold,
          mandate: receipt.mandate,
          hold: receipt.id,
          agent: entry.manifest.id,
          requireTerms: requiresTerms(mandateOf(this.state, receipt.mandate)),
          convert: (m: Money) => convertTo(this.state, m, hold.currency),
        },
      });
    } catch (err) {
      this.deps.logger.warn(`agent ${entry.manifest.id} could not be reached: ${(err as Error).message}`);
      result = { isError: true, structured: null, text: '', units: 0, errorCode: 'unreachable' };
    } finally {
      if (grant) this.grants.revoke(grant.token);
    }
    const judged = judge(entry, result, this.deps.validate);
    const duration = Math.max(0, this.deps.clock.now() - started);
    const settled = await this.deps.store.transact(
      (s) => finishCall(s, { receipt, entry, hold, result, judged, duration, endedAt: new Date(this.deps.clock.now()).toISOString() }),
      // Made durable by the next durable append or soon after (group commit): a crash of the machine, or
      // of a team store's database, before then can lose it and leave the hold in place — over-reserved,
      // never overspent (a team store's process writes it again if it still runs). It only reads the
      // state and builds events: a team store may write it in one round trip (see TxOptions).
      { durable: false, rerunnable: true },
    );
    return { kind: 'done', receipt: settled, entry, result: judged.result };
  }

  /**
   * The grant an agent that declares delegated calls holds while it runs, put in the call's `meta` with
   * where to come back; none when it declares none or this host serves no delegation endpoint.
   */
  private async delegate(
    receipt: Receipt,
    entry: AgentEntry,
    options: CallOptions,
    meta: Record<string, unknown>,
  ): Promise<Grant | undefined> {
    if (entry.manifest.delegated_calls.length === 0 || !this.deps.delegation) return undefined;
    const grant = this.grants.issue({
      mandate: receipt.mandate,
      parent: receipt.id,
      capabilities: entry.manifest.delegated_calls.map((d) => d.capability),
      max_calls: entry.manifest.delegated_calls.reduce((n, d) => n + d.max_count, 0),
      chain: [...(options.grant?.chain ?? []), entry.manifest.id],
    });
    meta['holon/grant'] = {
      url: await this.deps.delegation.url(),
      token: grant.token,
      capabilities: grant.capabilities,
      max_calls: grant.max_calls,
    };
    return grant;
  }
}
