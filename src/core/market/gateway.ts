/**
 * The market's call lifecycle: resolve the agent (named, or the best-ranked allowed one for a capability)
 * → decide → (approval) → hold → run → settle → receipt → record. Deciding, approving, holding and
 * settling are the shared spend and approval core's; choosing the agent, running it and judging its
 * answer are the market's.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ApprovalWaiter } from '../approvals/flow.ts';
import { capabilityMatches } from '../kernel/capabilities.ts';
import { unusableApproval, untilDecided } from '../approvals/flow.ts';
import type { Approval } from '../approvals/model.ts';
import { approvalStatus } from '../approvals/model.ts';
import type { Clock, Logger } from '../kernel/deps.ts';
import type { Denial } from '../kernel/denials.ts';
import { denial, forAgent } from '../kernel/denials.ts';
import { HolonError } from '../kernel/errors.ts';
import { convertTo } from '../money/fx.ts';
import { newId } from '../kernel/ids.ts';
import type { ProcessRef } from '../store/owner.ts';
import { thisProcess } from '../store/owner.ts';
import type { EventStore, NewEvent, Signer } from '../store/store.ts';
import { mandateDenials, mandateOf } from '../accounts/mandates.ts';
import type { AgentEntry, Endpoint, Mandate, Receipt } from '../kernel/model.ts';
import type { Money, MoneyJson } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { BudgetView } from '../money/spend.ts';
import { chargeOf } from '../rails/settlementView.ts';
import { budgetOf, endHold, gateSpend, limitDenials, roomFor, spendEvent, thresholdDenial } from '../money/spend.ts';
import type { HolonState } from '../fold/state.ts';
import { canonicalHash, checkJsonLimits, previewJson, summarize } from '../kernel/util.ts';
import type { IndexedAgent } from './marketIndex.ts';
import { marketIndex } from './marketIndex.ts';
import type { Ranking } from './policy.ts';
import { agentTimeoutMs, costOf, offers } from './policy.ts';
import type { ReceiptEvents } from './receipts.ts';
import type { ReceiptTree } from './receiptTree.ts';
import { applyToReceipt, receiptEvent } from './receipts.ts';
import { mandateReceiptTree, readReceipt, treeOf } from './receiptTree.ts';

/** Error codes Holon gives a call that failed for a reason of its own (not one the agent declared). */
export const CALL_FAILURES = {
  unreachable: 'the agent could not be reached or did not answer',
  timeout: 'the agent did not answer within its timeout',
  invalid_output: "the agent's output does not match its declared output schema",
  output_too_large: 'the agent answered with more than Holon accepts',
  undeclared_error: 'the agent failed with an error its manifest does not declare',
  payment_refused:
    'the agent asked to be paid in a way Holon does not sign: terms that do not confirm or were paid already, an amount above the ' +
    'hold, another chain or payee than allowed, or no wallet',
} as const;

/** The most output (JSON or text, in bytes) a call may return; more is a failure, not charged. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;

/** The prefix of file handles an agent may pass; they resolve inside `<state>/files/`. */
export const FILE_HANDLE_PREFIX = 'holon://files/';

/** What an agent's MCP tool answered. */
export interface AgentRunResult {
  isError: boolean;
  structured: unknown;
  text: string;
  /** Units the agent reports having used (pages, rows…), for per-unit prices. */
  units: number;
  /** The declared error code when it failed, or `timeout` / `unreachable` / `payment_refused`. */
  errorCode?: string;
  /**
   * What the agent was paid through the terms pairings (it answered 402), the H the payment carries and,
   * on a chain, its settlement record (whose own hold, drawn from the call's, carries the payment).
   */
  paid?: { amount: MoneyJson; terms_hash: string; settlement?: string };
  /** Why Holon refused to pay an agent that answered 402 (`payment_refused`), where it is a refusal of its own. */
  refusal?: Denial;
}

/** The most a call may pay an agent that answers 402: the hold, and how to count an amount against it. */
export interface PayLimit {
  limit: Money;
  /** The call's mandate and hold (its receipt's id): a payment on a chain holds its own money from it. */
  mandate: string;
  hold: string;
  /** The agent called, as a refusal names it. */
  agent: string;
  /** An amount in the mandate's currency, by the human's rates; undefined when there is no rate. */
  convert(amount: Money): Money | undefined;
}

/** Reaches an agent's endpoint (a real MCP client; it lives outside the core). */
export interface AgentRunner {
  run(request: {
    endpoint: Endpoint;
    input: unknown;
    meta: Record<string, unknown>;
    timeoutMs: number;
    signal?: AbortSignal;
    pay?: PayLimit;
  }): Promise<AgentRunResult>;
}

/** Serves the loopback MCP endpoint that delegated calls come back through. */
export interface DelegationHost {
  /** The endpoint's URL, starting it on first use. */
  url(): Promise<string>;
}

/** Checks a value against a JSON Schema (an agent's input or output schema); returns the problems. */
export type SchemaValidator = (schema: Record<string, unknown>, value: unknown) => string[];

/** What the gateway needs from its host. */
export interface GatewayDeps {
  store: EventStore<HolonState>;
  clock: Clock;
  logger: Logger;
  runner: AgentRunner;
  /** `<state>/files`, where holon://files/ handles resolve. */
  filesRoot: string;
  delegation?: DelegationHost;
  validate?: SchemaValidator;
  /** The process that runs the calls (this one, unless a test says otherwise): named on each hold. */
  owner?: ProcessRef;
  /** The installation key of the state: an approval this gateway asks for names it, with the machine. */
  signer?: Signer;
}

/** A call as the agent asks for it. */
export interface CallRequest {
  agent?: string | undefined;
  capability?: string | undefined;
  input: unknown;
  max_cost?: MoneyJson | undefined;
  approval?: string | undefined;
}

/** The right a delegating agent holds for the duration of its parent call. */
export interface Grant {
  token: string;
  mandate: string;
  parent: string;
  capabilities: string[];
  max_calls: number;
  used: number;
  /** Agent ids from the root call down to the parent, to refuse cycles. */
  chain: string[];
}

/** Options of one call. */
export interface CallOptions {
  grant?: Grant;
  signal?: AbortSignal;
  waitForApproval?: ApprovalWaiter;
}

/** How a call ended. */
export type CallOutcome =
  | { kind: 'denied'; receipt: Receipt }
  | { kind: 'pending'; receipt: Receipt; approval: Approval }
  | { kind: 'rejected'; receipt: Receipt; approval: Approval }
  | { kind: 'done'; receipt: Receipt; entry: AgentEntry; result: AgentRunResult | null };

type Decision = Exclude<CallOutcome, { kind: 'done' }> | { kind: 'started'; receipt: Receipt; entry: AgentEntry; hold: Money };

/**
 * A decision as the caller keeps it: a copy of what the state may still change (an approval, a
 * receipt). A call about to run holds the receipt its decision made, which the state never holds (it
 * folds the event's own copy); and a catalog entry is never changed in place (adding an agent again
 * replaces it), so it keeps the state's own, and its schemas stay the objects the validator has compiled.
 */
function detached(d: Decision): Decision {
  return d.kind === 'started' ? d : structuredClone(d);
}

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

/** What a call's decision needs of its request, made once, before the lock (a decision may be made again). */
interface Prepared {
  mandateId: string;
  request: CallRequest;
  maxCost: Money | undefined;
  inputSha256: string;
  inputBytes: number;
  /** What the receipt and the ledger keep of the input, and what a human is shown of it. */
  inputSummary: string;
  inputPreview: string;
  files: Record<string, string>;
}

/** What one decision works with (see `Gateway.deciding`). */
interface Deciding {
  s: HolonState;
  p: Prepared;
  now: number;
  mandate: Mandate;
  idx: ReturnType<typeof marketIndex>;
  approvalId: string | undefined;
  approval: Approval | undefined;
  grant: Grant | undefined;
  /** The receipt the decision fills in: the one that waited for this approval, or a new one. */
  receipt: Receipt;
  /** True when it continues the receipt that waited. */
  reuse: boolean;
}

/** A decision and the events that record it, appended in the decision's transaction. */
type Decided = { events: NewEvent[]; result: Decision };

/** The call refused: a denied receipt (a new one if the one that waited stays as it was). */
function denied(d: Pick<Deciding, 'receipt' | 'reuse'>, denials: Denial[]): Decided {
  const r: Receipt = { ...d.receipt, id: d.reuse ? newId('rcpt') : d.receipt.id, status: 'denied', denials };
  return { events: [receiptEvent('call.denied', { receipt: r })], result: { kind: 'denied', receipt: r } };
}

/** What is refused before any agent is looked at: the approval presented, the mandate, a delegation's grant. */
function earlyDenials(d: Deciding): Denial[] {
  const unusable = d.approvalId !== undefined ? unusableApproval(d.s, d.mandate.id, d.approvalId, d.now) : undefined;
  if (unusable) return [unusable];
  const early = mandateDenials(d.mandate, d.now);
  if (early.length > 0) return early;
  const grant = d.grant;
  if (!grant) return [];
  const capability = d.p.request.capability;
  if (!capability || !grant.capabilities.some((c) => capabilityMatches(c, capability)))
    return [denial('delegation_capability', { allowed: grant.capabilities })];
  if (grant.used >= grant.max_calls) return [denial('delegation_count', { max: grant.max_calls })];
  return [];
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
          await this.deps.store.transact((s) => this.decide(s, prepared, approvalId, options.grant), {
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

  /**
   * The decision, made under the journal lock against the latest state: what is refused before any agent
   * is looked at, then which agent (resolve, each candidate tried with fit), then the spend gate.
   */
  private decide(s: HolonState, p: Prepared, approvalId: string | undefined, grant: Grant | undefined): Decided {
    const d = this.deciding(s, p, approvalId, grant);
    const early = earlyDenials(d);
    if (early.length > 0) return denied(d, early);
    const target = this.resolve(d);
    return 'denials' in target ? denied(d, target.denials) : this.gate(d, target.agent, target.worst);
  }

  /** What one decision works with, read once: the mandate, its market, the approval and the receipt it fills. */
  private deciding(s: HolonState, p: Prepared, approvalId: string | undefined, grant: Grant | undefined): Deciding {
    const now = this.deps.clock.now();
    const nowIso = new Date(now).toISOString();
    const mandate = mandateOf(s, p.mandateId);
    const approval = approvalId ? s.approvals[approvalId] : undefined;
    // A re-submission after approval continues the receipt that waited; anything else gets a new one.
    const waiting = approval && approval.mandate === mandate.id && approval.ref ? s.open_receipts[approval.ref] : undefined;
    const reuse = waiting?.status === 'pending_approval' && approval?.status !== 'used';
    const receipt: Receipt = {
      id: reuse && waiting ? waiting.id : newId('rcpt'),
      parent: grant?.parent ?? null,
      mandate: mandate.id,
      agent: p.request.agent ?? null,
      version: null,
      capability: p.request.capability ?? null,
      status: 'denied',
      worst_case: null,
      cost: null,
      denials: [],
      error: null,
      approval: approvalId ?? null,
      input_summary: p.inputSummary,
      output_summary: null,
      started_at: nowIso,
      ended_at: nowIso,
      duration_ms: null,
      children: [],
    };
    return { s, p, now, mandate, idx: marketIndex(s, mandate), approvalId, approval, grant, receipt, reuse };
  }

  /** The target: the named agent, the approved agent, or the best-ranked allowed one that fits. */
  private resolve(d: Deciding): { agent: IndexedAgent; worst: Money } | { denials: Denial[] } {
    const { p, idx, approval, mandate } = d;
    const chain = d.grant?.chain ?? [];
    const room = roomFor(d.s, mandate, d.grant?.parent ?? null, d.now);
    if (p.request.agent !== undefined) {
      const named = idx.get(p.request.agent);
      if (!named) return { denials: [denial('unknown_agent', { agent: p.request.agent })] };
      const fits = this.fit(d, room, chain, named);
      return 'worst' in fits ? { agent: named, worst: fits.worst } : fits;
    }
    const capability = p.request.capability ?? '';
    const candidates = idx.rankedFor(capability).filter((a) => !chain.includes(a.id));
    // The agent the human approved comes first, so a re-submission runs what was approved.
    const preferred =
      approval && approval.mandate === mandate.id && approval.subject.kind === 'agent_call' ? idx.get(approval.subject.agent) : undefined;
    if (preferred && offers(preferred.entry, capability)) candidates.unshift(preferred);
    if (candidates.length === 0) return { denials: [denial('no_agent', { capability })] };
    const refused: Denial[] = [];
    for (const c of candidates) {
      const fits = this.fit(d, room, chain, c);
      if ('worst' in fits) return { agent: c, worst: fits.worst };
      refused.push(...forAgent(c.id, fits.denials));
    }
    return { denials: refused };
  }

  /** Whether one agent can take this call: its own denials, the input's schema, its worst case within the limits. */
  private fit(d: Deciding, room: ReturnType<typeof roomFor>, chain: string[], a: IndexedAgent): { worst: Money } | { denials: Denial[] } {
    if (a.denials.length > 0) return { denials: a.denials };
    // A malformed input is refused before anything is held, asked or sent, and never counts against the
    // agent's record.
    const problems = this.deps.validate?.(a.entry.manifest.input_schema, d.p.request.input) ?? [];
    if (problems.length > 0) return { denials: [denial('input_schema', { agent: a.id, problems })] };
    const w = d.idx.worstCase(a.entry, chain);
    if (!w.ok) return { denials: [w.denial] };
    const limits = limitDenials(room, w.amount, d.p.maxCost);
    return limits.length > 0 ? { denials: limits } : { worst: w.amount };
  }

  /** The spend gate for the chosen agent's worst case: held and started, asked of a human, or refused. */
  private gate(d: Deciding, chosen: IndexedAgent, worst: Money): Decided {
    const { s, p, mandate, grant } = d;
    const entry = chosen.entry;
    const m = entry.manifest;
    const receipt: Receipt = {
      ...d.receipt,
      agent: m.id,
      version: m.version,
      capability: p.request.capability ?? m.capabilities[0] ?? null,
      worst_case: M.toJson(worst),
    };
    const gate = gateSpend(s, {
      id: receipt.id,
      mandate,
      payee: { kind: 'agent', id: m.id },
      amount: worst,
      maxCost: p.maxCost,
      parent: grant?.parent ?? null,
      subject: {
        kind: 'agent_call',
        agent: m.id,
        version: m.version,
        capability: receipt.capability,
        input_sha256: p.inputSha256,
        input_preview: p.inputPreview,
        input_bytes: p.inputBytes,
        delegated_calls: m.delegated_calls,
      },
      approvalId: d.approvalId,
      now: d.now,
      owner: this.deps.owner ?? thisProcess(),
      installation: this.deps.signer,
    });
    switch (gate.kind) {
      case 'denied':
        return denied({ ...d, receipt }, gate.denials);
      case 'pending':
      case 'rejected': {
        // The receipt that waited (call() reads it back as it is now, ended if it was rejected).
        const waited = gate.approval.ref ? (s.open_receipts[gate.approval.ref] ?? { ...receipt, id: gate.approval.ref }) : receipt;
        return { events: [], result: { kind: gate.kind, receipt: waited, approval: gate.approval } };
      }
      case 'ask': {
        const r: Receipt = {
          ...receipt,
          status: 'pending_approval',
          approval: gate.approval.id,
          ended_at: null,
          denials: [thresholdDenial(worst, mandate)],
        };
        return {
          events: [...gate.events, receiptEvent('call.pending', { receipt: r })],
          result: { kind: 'pending', receipt: r, approval: gate.approval },
        };
      }
      case 'held': {
        if (grant) grant.used += 1;
        const r: Receipt = { ...receipt, status: 'running', ended_at: null, denials: [] };
        return {
          events: [...gate.events, receiptEvent('call.started', { receipt: r })],
          result: { kind: 'started', receipt: r, entry, hold: worst },
        };
      }
    }
  }

  /** Runs the held call through the agent's endpoint, then settles it. */
  private async run(receipt: Receipt, entry: AgentEntry, hold: Money, p: Prepared, options: CallOptions): Promise<CallOutcome> {
    const started = this.deps.clock.now();
    const meta: Record<string, unknown> = { 'holon/files': p.files, 'holon/receipt': receipt.id };
    let grant: Grant | undefined;
    let result: AgentRunResult;
    try {
      if (entry.manifest.delegated_calls.length > 0 && this.deps.delegation) {
        grant = this.grants.issue({
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
      }
      result = await this.deps.runner.run({
        endpoint: entry.endpoint,
        input: p.request.input,
        meta,
        timeoutMs: agentTimeoutMs(entry),
        ...(options.signal ? { signal: options.signal } : {}),
        // An agent that answers 402 is paid through the terms pairings, never above what is held.
        ...(entry.endpoint.type === 'x402'
          ? {
              pay: {
                limit: hold,
                mandate: receipt.mandate,
                hold: receipt.id,
                agent: entry.manifest.id,
                convert: (m: Money) => convertTo(this.state, m, hold.currency),
              },
            }
          : {}),
      });
    } catch (err) {
      this.deps.logger.warn(`agent ${entry.manifest.id} could not be reached: ${(err as Error).message}`);
      result = { isError: true, structured: null, text: '', units: 0, errorCode: 'unreachable' };
    } finally {
      if (grant) this.grants.revoke(grant.token);
    }
    const judged = this.judge(entry, result);
    const duration = Math.max(0, this.deps.clock.now() - started);
    const settled = await this.deps.store.transact(
      (s) => {
        // What an agent was paid through the terms pairings is what it cost; otherwise its price.
        const priceCost = !judged.charged
          ? M.zero(entry.manifest.price.currency)
          : result.paid
            ? M.fromJson(result.paid.amount)
            : costOf(entry, judged.units);
        const currency = s.mandates[receipt.mandate]?.currency ?? hold.currency;
        // A payment on a chain Holon reads holds its own money, drawn from this call's, until the chain
        // says where it went (money/landing.ts): the call's own hold then owes nothing more for it.
        const stl = result.paid?.settlement ? s.settlements[result.paid.settlement] : undefined;
        // (An `upto` payment that landed already carries what the chain moved, no longer its worst case.)
        const carries = stl !== undefined && stl.status !== 'unchecked' && stl.held.currency === currency;
        const carried = carries ? M.fromJson(stl.status === 'landed' ? chargeOf(stl) : stl.held).units : 0n;
        // Never charge more than was held for this call (what its children did not use).
        const cost = carries ? M.zero(currency) : (convertTo(s, priceCost, currency) ?? M.zero(currency));
        const end =
          carries && s.holds[receipt.id]
            ? { events: [spendEvent('hold.settled', { hold: receipt.id, cost: '0.00' })], charged: 0n }
            : endHold(s, receipt.id, cost, judged.error?.code ?? 'succeeded');
        const endedAt = new Date(this.deps.clock.now()).toISOString();
        const finished: ReceiptEvents['call.finished'] = {
          receipt: receipt.id,
          status: judged.error ? 'failed' : 'succeeded',
          cost: M.toJson({ units: end.charged + carried, currency }),
          price_cost: M.toJson(priceCost),
          error: judged.error,
          output_summary: judged.error ? null : (judged.summary ?? null),
          duration_ms: duration,
          ended_at: endedAt,
          terms_hash: result.paid?.terms_hash ?? null,
          // Why Holon refused to pay it, where it was a refusal of its own: said as every refusal is.
          ...(judged.error?.code === 'payment_refused' && result.refusal ? { denials: [result.refusal] } : {}),
        };
        // The receipt as the journal will read it back, built here: it has left the folded state.
        const open = s.open_receipts[receipt.id] ?? receipt;
        const done = applyToReceipt(open, { type: 'call.finished', data: finished }, endedAt) ?? open;
        return { events: [receiptEvent('call.finished', finished), ...end.events], result: structuredClone(done) };
      },
      // Made durable by the next durable append or soon after (group commit): a crash of the machine, or
      // of a team store's database, before then can lose it and leave the hold in place — over-reserved,
      // never overspent (a team store's process writes it again if it still runs). It only reads the
      // state and builds events: a team store may write it in one round trip (see TxOptions).
      { durable: false, rerunnable: true },
    );
    return { kind: 'done', receipt: settled, entry, result: judged.result };
  }

  /**
   * What an agent's answer counts as. A declared error is charged as the manifest says; an output over
   * the size cap or outside the declared output schema is a failure, never charged, and counts against
   * the agent's record. The agent's own words never reach the receipt: only a code and a description
   * Holon or the manifest wrote.
   */
  private judge(
    entry: AgentEntry,
    r: AgentRunResult,
  ): { result: AgentRunResult | null; error: Receipt['error']; charged: boolean; units: number; summary?: string } {
    const fail = (code: keyof typeof CALL_FAILURES): { result: null; error: Receipt['error']; charged: false; units: 0 } => ({
      result: null,
      error: { code, message: CALL_FAILURES[code], charged: false },
      charged: false,
      units: 0,
    });
    if (r.isError) {
      const declared = entry.manifest.errors.find((e) => e.code === r.errorCode);
      if (declared)
        return {
          result: r,
          error: { code: declared.code, message: declared.description, charged: declared.charged },
          charged: declared.charged,
          units: r.units,
        };
      if (r.errorCode === 'timeout' || r.errorCode === 'unreachable' || r.errorCode === 'payment_refused') return fail(r.errorCode);
      return { ...fail('undeclared_error'), result: r };
    }
    // Written to JSON once: its size here, and in the receipt's summary.
    const json = r.structured !== null && r.structured !== undefined ? JSON.stringify(r.structured) : undefined;
    const size = Buffer.byteLength(json ?? r.text);
    if (size > MAX_OUTPUT_BYTES) return fail('output_too_large');
    const value = json !== undefined ? r.structured : parseOr(r.text);
    const problems = this.deps.validate?.(entry.manifest.output_schema, value) ?? [];
    if (problems.length > 0) return fail('invalid_output');
    return { result: r, error: null, charged: true, units: r.units, summary: describeOutput(r, json) };
  }
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The shape and size of an output (its structured part as `json`, when it has one), never its text:
 * what the ledger keeps of another agent's words.
 */
function describeOutput(r: AgentRunResult, json: string | undefined): string {
  if (json === undefined) return `text, ${r.text.length} chars`;
  return `${Array.isArray(r.structured) ? 'JSON array' : 'JSON object'}, ${json.length} bytes`;
}
