import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock, Logger } from './deps.ts';
import { HolonError } from './errors.ts';
import type { EventStore, NewEvent } from './journal.ts';
import type { AgentEntry, Approval, Endpoint, Mandate, Receipt } from './model.ts';
import type { Money, MoneyJson } from './money.ts';
import * as M from './money.ts';
import {
  allowedFor,
  budgetOf,
  capabilityMatches,
  compareRankings,
  convertTo,
  costOf,
  limitReasons,
  mandateReasons,
  rankingOf,
  staticReasons,
  worstCase,
} from './policy.ts';
import type { HolonState } from './state.ts';
import { ev } from './state.ts';
import { inputHash, newId, summarize } from './util.ts';

/** The error code of a call whose agent could not be reached. */
const UNREACHABLE = 'unreachable';

/** How long an approval can be used after it was asked for. */
export const APPROVAL_TTL_MS = 30 * 60 * 1000;

/** The prefix of file handles an agent may pass; they resolve inside `<state>/files/`. */
export const FILE_HANDLE_PREFIX = 'holon://files/';

/** What an agent's MCP tool answered. */
export interface AgentRunResult {
  isError: boolean;
  structured: unknown;
  text: string;
  /** Units the agent reports having used (pages, rows…), for per-unit prices. */
  units: number;
  /** The declared error code, when it failed. */
  errorCode?: string;
}

/** Reaches an agent's endpoint (a real MCP client; it lives outside the core). */
export interface AgentRunner {
  run(request: { endpoint: Endpoint; input: unknown; meta: Record<string, unknown>; signal?: AbortSignal }): Promise<AgentRunResult>;
}

/** Serves the loopback MCP endpoint that delegated calls come back through. */
export interface DelegationHost {
  /** The endpoint's URL, starting it on first use. */
  url(): Promise<string>;
}

/** Checks a call's input against the agent's declared input schema; returns the problems. */
export type InputValidator = (schema: Record<string, unknown>, input: unknown) => string[];

/** What the gateway needs from its host. */
export interface GatewayDeps {
  store: EventStore<HolonState>;
  clock: Clock;
  logger: Logger;
  runner: AgentRunner;
  /** `<state>/files`, where holon://files/ handles resolve. */
  filesRoot: string;
  delegation?: DelegationHost;
  validateInput?: InputValidator;
}

/** A call as the agent asks for it. */
export interface CallRequest {
  agent?: string;
  capability?: string;
  input: unknown;
  max_cost?: MoneyJson;
  approval?: string;
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

/** How the caller waits for the human when a call needs approval. */
export type ApprovalWaiter = (approval: Approval, signal?: AbortSignal) => Promise<'approved' | 'rejected' | 'pending'>;

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

type Decision =
  | { kind: 'denied'; receipt: Receipt }
  | { kind: 'pending'; receipt: Receipt; approval: Approval }
  | { kind: 'rejected'; receipt: Receipt; approval: Approval }
  | { kind: 'started'; receipt: Receipt; entry: AgentEntry; hold: Money };

/** An agent as search and get_agent show it to one mandate. */
export interface AgentView {
  entry: AgentEntry;
  worst_case: MoneyJson | null;
  decision: 'allow' | 'approval_required' | 'deny';
  reasons: string[];
  ranking: ReturnType<typeof rankingOf>;
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
 * The call lifecycle: resolve → decide → (approval) → hold → run → settle → receipt → record. Every
 * decision and hold is made in one journal transaction against the latest state, so concurrent calls
 * from any number of processes can never together exceed a limit.
 */
export class Gateway {
  readonly grants = new GrantRegistry();

  constructor(private readonly deps: GatewayDeps) {}

  get state(): HolonState {
    return this.deps.store.state;
  }

  /** The mandate, or a not_found error. */
  mandate(id: string): Mandate {
    const m = this.state.mandates[id];
    if (!m) throw new HolonError('not_found', `no mandate "${id}"`, { mandate: id });
    return m;
  }

  /** How one agent looks to a mandate right now. */
  view(mandate: Mandate, entry: AgentEntry): AgentView {
    const s = this.state;
    const now = this.deps.clock.now();
    const reasons = [...mandateReasons(mandate, now), ...staticReasons(s, mandate, entry)];
    const w = worstCase(s, mandate, entry);
    if (!w.ok) reasons.push(w.reason);
    let decision: AgentView['decision'] = reasons.length > 0 ? 'deny' : 'allow';
    if (w.ok && decision === 'allow') {
      const budget = budgetOf(s, mandate, now);
      const limits = limitReasons(budget, w.amount, undefined);
      if (limits.length > 0) {
        reasons.push(...limits);
        decision = 'deny';
      } else if (M.compare(w.amount, budget.threshold) > 0) {
        decision = 'approval_required';
        reasons.push(`worst case ${M.format(w.amount)} is above the approval threshold ${M.format(budget.threshold)}`);
      }
    }
    return { entry, worst_case: w.ok ? M.toJson(w.amount) : null, decision, reasons, ranking: rankingOf(s, mandate, entry) };
  }

  /** Agents matching a query and capability: allowed ones ranked, excluded ones with reasons. */
  search(mandateId: string, q: { query?: string | undefined; capability?: string | undefined }): { agents: AgentView[]; excluded: AgentView[] } {
    const mandate = this.mandate(mandateId);
    const needle = q.query?.toLowerCase();
    const views = Object.values(this.state.agents)
      .filter((a) => !q.capability || a.manifest.capabilities.some((c) => capabilityMatches(q.capability ?? '*', c)))
      .filter((a) => {
        if (!needle) return true;
        const m = a.manifest;
        return [m.id, m.name, m.description, ...m.capabilities].some((t) => t.toLowerCase().includes(needle));
      })
      .map((a) => this.view(mandate, a));
    const rank = (v: AgentView): { id: string; ranking: AgentView['ranking'] } => ({ id: v.entry.manifest.id, ranking: v.ranking });
    const agents = views.filter((v) => v.decision !== 'deny').sort((a, b) => compareRankings(rank(a), rank(b)));
    const excluded = views.filter((v) => v.decision === 'deny').sort((a, b) => compareRankings(rank(a), rank(b)));
    return { agents, excluded };
  }

  /** One agent, as the mandate sees it. */
  describe(mandateId: string, agentId: string): AgentView {
    const mandate = this.mandate(mandateId);
    const entry = this.state.agents[agentId];
    if (!entry) throw new HolonError('not_found', `no agent "${agentId}" in the catalog`, { agent: agentId });
    return this.view(mandate, entry);
  }

  /** An approval of this mandate, with expiry applied. */
  approvalStatus(mandateId: string, id: string): { approval: Approval; status: Approval['status'] | 'expired' } {
    const a = this.state.approvals[id];
    if (!a || a.mandate !== mandateId) throw new HolonError('not_found', `no approval "${id}" under mandate ${mandateId}`, { approval: id });
    const expired = (a.status === 'pending' || a.status === 'approved') && Date.parse(a.expires_at) <= this.deps.clock.now();
    return { approval: a, status: expired ? 'expired' : a.status };
  }

  /** A receipt of this mandate with its delegated calls, recursively. */
  receiptTree(mandateId: string, id: string): ReceiptTree {
    const r = this.state.receipts[id];
    if (!r || r.mandate !== mandateId) throw new HolonError('not_found', `no receipt "${id}" under mandate ${mandateId}`, { receipt: id });
    return receiptTree(this.state, id);
  }

  /** Makes one call, from decision to receipt. */
  async call(mandateId: string, request: CallRequest, options: CallOptions = {}): Promise<CallOutcome> {
    const prepared = this.prepare(mandateId, request);
    let approvalId = request.approval;
    for (;;) {
      // Outcomes are copies: the state they were read from keeps changing after the call returns.
      const decision = await this.deps.store.transact((s) => this.decide(s, prepared, approvalId, options.grant));
      if (decision.kind === 'denied' || decision.kind === 'rejected') return structuredClone(decision);
      if (decision.kind === 'pending') {
        const answer = options.waitForApproval ? await options.waitForApproval(decision.approval, options.signal) : 'pending';
        if (answer === 'approved') {
          approvalId = decision.approval.id;
          continue;
        }
        // Stop waiting under the lock: a decision that landed just before still counts, so a human
        // told "the waiting server runs it" is never left with a call that nobody runs.
        const status = answer === 'rejected' ? 'rejected' : await this.release(decision.approval.id);
        if (status === 'approved') {
          approvalId = decision.approval.id;
          continue;
        }
        const current = this.state.approvals[decision.approval.id] ?? decision.approval;
        const receipt = this.state.receipts[decision.receipt.id] ?? decision.receipt;
        if (status === 'rejected') return structuredClone({ kind: 'rejected', receipt, approval: current });
        return structuredClone({ kind: 'pending', receipt, approval: current });
      }
      return this.run(decision.receipt, decision.entry, decision.hold, prepared, options);
    }
  }

  /**
   * Marks that nobody waits for an approval any more (a later decision is used on re-submission), and
   * returns its status as of that moment.
   */
  private async release(id: string): Promise<Approval['status']> {
    return this.deps.store.transact((s) => {
      const a = s.approvals[id];
      if (!a) return { events: [], result: 'pending' as const };
      return { events: a.status === 'pending' && !a.released ? [ev('approval.released', { id })] : [], result: a.status };
    });
  }

  /** Checks what can be checked before touching the journal: shape, file handles. */
  private prepare(mandateId: string, request: CallRequest): Prepared {
    if ((request.agent === undefined) === (request.capability === undefined)) {
      throw new HolonError('invalid_input', 'give exactly one of "agent" or "capability"');
    }
    if (request.agent !== undefined && !this.state.agents[request.agent]) {
      throw new HolonError('not_found', `no agent "${request.agent}" in the catalog; search_agents lists them`, { agent: request.agent });
    }
    this.mandate(mandateId);
    const maxCost = request.max_cost ? M.fromJson(request.max_cost) : undefined;
    if (maxCost && maxCost.units <= 0n) throw new HolonError('invalid_input', 'max_cost must be positive');
    return { mandateId, request, maxCost, hash: inputHash(request.input), files: this.resolveFiles(request.input) };
  }

  /** Maps every holon://files/ handle in the input to a real path inside `<state>/files`, or refuses. */
  resolveFiles(input: unknown): Record<string, string> {
    const out: Record<string, string> = {};
    const root = path.resolve(this.deps.filesRoot);
    const visit = (v: unknown): void => {
      if (typeof v === 'string') {
        if (!v.startsWith(FILE_HANDLE_PREFIX)) return;
        const rel = v.slice(FILE_HANDLE_PREFIX.length);
        const abs = path.resolve(root, rel);
        let real: string;
        try {
          real = fs.realpathSync(abs);
        } catch {
          throw new HolonError('invalid_input', `file handle ${v} does not name a file in the state's files folder`, { handle: v });
        }
        const realRoot = fs.realpathSync(root);
        if (rel.length === 0 || !real.startsWith(realRoot + path.sep) || !fs.statSync(real).isFile()) {
          throw new HolonError('invalid_input', `file handle ${v} points outside the state's files folder`, { handle: v });
        }
        out[v] = real;
      } else if (Array.isArray(v)) v.forEach(visit);
      else if (v && typeof v === 'object') Object.values(v).forEach(visit);
    };
    visit(input);
    return out;
  }

  /** The decision, made under the journal lock against the latest state. Returns its events. */
  private decide(s: HolonState, p: Prepared, approvalId: string | undefined, grant: Grant | undefined): { events: NewEvent[]; result: Decision } {
    const now = this.deps.clock.now();
    const nowIso = new Date(now).toISOString();
    const mandate = s.mandates[p.mandateId];
    if (!mandate) throw new HolonError('not_found', `no mandate "${p.mandateId}"`);
    const approval = approvalId ? s.approvals[approvalId] : undefined;
    const reuse = approval && approval.mandate === mandate.id && approval.status !== 'used' && s.receipts[approval.receipt]?.status === 'pending_approval';
    const receipt: Receipt = {
      id: reuse && approval ? approval.receipt : newId('rcpt'),
      parent: grant?.parent ?? null,
      mandate: mandate.id,
      agent: p.request.agent ?? null,
      version: null,
      capability: p.request.capability ?? null,
      status: 'denied',
      worst_case: null,
      cost: null,
      reasons: [],
      error: null,
      approval: approvalId ?? null,
      input_summary: summarize(p.request.input),
      output_summary: null,
      started_at: nowIso,
      ended_at: nowIso,
      duration_ms: null,
      children: [],
    };
    const deny = (reasons: string[]): { events: NewEvent[]; result: Decision } => {
      const r = { ...receipt, status: 'denied' as const, reasons };
      if (reuse) r.id = newId('rcpt');
      return { events: [ev('call.denied', { receipt: r })], result: { kind: 'denied', receipt: r } };
    };

    if (approvalId && approval?.status === 'used' && approval.mandate === mandate.id) {
      return deny([`approval ${approval.id} was already used by receipt ${approval.used_by ?? '?'}`]);
    }
    const mReasons = mandateReasons(mandate, now);
    if (mReasons.length > 0) return deny(mReasons);
    if (grant) {
      const capability = p.request.capability ?? '';
      if (!p.request.capability || !grant.capabilities.some((c) => capabilityMatches(c, capability))) {
        return deny([`a delegated call may only ask for a declared capability (${grant.capabilities.join(', ')}) by capability`]);
      }
      if (grant.used >= grant.max_calls) return deny([`the parent declared at most ${grant.max_calls} delegated calls`]);
    }

    // Resolve the target: the named agent, the approved agent, or the best-ranked allowed one that fits.
    const budget = budgetOf(s, mandate, now);
    const chain = grant?.chain ?? [];
    let entry: AgentEntry | undefined;
    let worst: Money | undefined;
    const fit = (e: AgentEntry): string[] => {
      const reasons = staticReasons(s, mandate, e);
      if (reasons.length > 0) return reasons;
      // A malformed input is refused before anything is held, asked or sent, and never counts against
      // the agent's record.
      const schema = this.deps.validateInput?.(e.manifest.input_schema, p.request.input) ?? [];
      if (schema.length > 0) return [`the input does not match ${e.manifest.id}'s input schema: ${schema.join('; ')}`];
      const w = worstCase(s, mandate, e, chain);
      if (!w.ok) return [w.reason];
      // A delegated call is paid from its parent's hold, which the budget already counts: that hold is
      // its whole room, today's included.
      const room = grant ? { ...budget, remaining: { units: s.holds[grant.parent]?.units ?? 0n, currency: mandate.currency }, remaining_today: null } : budget;
      const limits = limitReasons(room, w.amount, p.maxCost);
      if (limits.length > 0) return limits;
      worst = w.amount;
      return [];
    };
    if (p.request.agent) {
      entry = s.agents[p.request.agent];
      if (!entry) return deny([`no agent "${p.request.agent}" in the catalog`]);
      const reasons = fit(entry);
      if (reasons.length > 0) return deny(reasons);
    } else {
      const capability = p.request.capability ?? '';
      const preferred = approval && approval.mandate === mandate.id ? s.agents[approval.agent] : undefined;
      const candidates = allowedFor(s, mandate, capability)
        .filter((e) => !chain.includes(e.manifest.id))
        .map((e) => ({ id: e.manifest.id, entry: e, ranking: rankingOf(s, mandate, e) }))
        .sort(compareRankings);
      if (preferred && preferred.manifest.capabilities.some((c) => capabilityMatches(capability, c))) {
        candidates.unshift({ id: preferred.manifest.id, entry: preferred, ranking: rankingOf(s, mandate, preferred) });
      }
      if (candidates.length === 0) return deny([`no agent the mandate allows offers capability "${capability}"`]);
      const refused: string[] = [];
      for (const c of candidates) {
        const reasons = fit(c.entry);
        if (reasons.length === 0) {
          entry = c.entry;
          break;
        }
        refused.push(...reasons.map((r) => `${c.id}: ${r}`));
      }
      if (!entry) return deny(refused);
    }
    if (!entry || !worst) return deny(['no agent could be chosen']);
    receipt.agent = entry.manifest.id;
    receipt.version = entry.manifest.version;
    receipt.capability = p.request.capability ?? entry.manifest.capabilities[0] ?? null;
    receipt.worst_case = M.toJson(worst);

    if (approvalId) {
      const problems = approvalProblems(approval, mandate, entry, p.hash, worst, now);
      if (problems === 'pending' && approval) {
        return { events: [], result: { kind: 'pending', receipt: s.receipts[approval.receipt] ?? receipt, approval } };
      }
      if (problems === 'rejected' && approval) {
        return { events: [], result: { kind: 'rejected', receipt: s.receipts[approval.receipt] ?? receipt, approval } };
      }
      if (Array.isArray(problems) && problems.length > 0) return deny(problems);
    } else if (!grant && M.compare(worst, budget.threshold) > 0) {
      const a: Approval = {
        id: newId('apr'),
        mandate: mandate.id,
        agent: entry.manifest.id,
        version: entry.manifest.version,
        input_hash: p.hash,
        input: p.request.input,
        worst_case: M.toJson(worst),
        threshold: M.toJson(budget.threshold),
        delegated_calls: entry.manifest.delegated_calls,
        receipt: receipt.id,
        requested_at: nowIso,
        expires_at: new Date(now + APPROVAL_TTL_MS).toISOString(),
        status: 'pending',
      };
      const r: Receipt = {
        ...receipt,
        status: 'pending_approval',
        approval: a.id,
        ended_at: null,
        reasons: [`worst case ${M.format(worst)} is above the approval threshold ${M.format(budget.threshold)}`],
      };
      return { events: [ev('approval.requested', { approval: a }), ev('call.pending', { receipt: r })], result: { kind: 'pending', receipt: r, approval: a } };
    }

    if (grant) grant.used += 1;
    const r: Receipt = { ...receipt, status: 'running', ended_at: null, reasons: [] };
    return {
      events: [ev('call.started', { receipt: r, hold: M.formatUnits(worst.units), approval: approvalId ?? null })],
      result: { kind: 'started', receipt: r, entry, hold: worst },
    };
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
        meta['holon/grant'] = { url: await this.deps.delegation.url(), token: grant.token, capabilities: grant.capabilities, max_calls: grant.max_calls };
      }
      result = await this.deps.runner.run({ endpoint: entry.endpoint, input: p.request.input, meta, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (err) {
      this.deps.logger.warn(`agent ${entry.manifest.id} could not be reached: ${(err as Error).message}`);
      result = { isError: true, structured: null, text: '', units: 0, errorCode: UNREACHABLE };
    } finally {
      if (grant) this.grants.revoke(grant.token);
    }
    const duration = Math.max(0, this.deps.clock.now() - started);
    const settled = await this.deps.store.transact((s) => {
      const declared = result.isError ? entry.manifest.errors.find((e) => e.code === result.errorCode) : undefined;
      // The agent's own words (its error text, its output) are data: only a declared code and the
      // manifest's description go into the receipt; the rest reaches the caller wrapped.
      const charged = !result.isError || declared?.charged === true;
      const priceCost = charged ? costOf(entry, result.units) : M.zero(entry.manifest.price.currency);
      const mandate = s.mandates[receipt.mandate];
      const currency = mandate?.currency ?? hold.currency;
      let cost = convertTo(s, priceCost, currency) ?? M.zero(currency);
      // Never charge more than was held for this call (what its children did not use).
      const left = s.holds[receipt.id]?.units ?? hold.units;
      if (cost.units > left) cost = { units: left, currency };
      const error = result.isError
        ? declared
          ? { code: declared.code, message: declared.description, charged: declared.charged }
          : result.errorCode === UNREACHABLE
            ? { code: UNREACHABLE, message: 'the agent could not be reached or did not answer', charged: false }
            : { code: 'undeclared_error', message: 'the agent failed with an error its manifest does not declare', charged: false }
        : null;
      const endedAt = new Date(this.deps.clock.now()).toISOString();
      return {
        events: [
          ev('call.settled', {
            receipt: receipt.id,
            status: result.isError ? 'failed' : 'succeeded',
            cost: M.toJson(cost),
            price_cost: M.toJson(priceCost),
            error,
            output_summary: result.isError ? null : describeOutput(result.structured ?? result.text),
            ended_at: endedAt,
            duration_ms: duration,
          }),
        ],
        result: s.receipts[receipt.id] ?? receipt,
      };
    });
    return { kind: 'done', receipt: structuredClone(settled), entry, result };
  }
}

/** The shape and size of an output, never its text: what the ledger keeps of another agent's words. */
function describeOutput(v: unknown): string {
  if (typeof v === 'string') return `text, ${v.length} chars`;
  const size = JSON.stringify(v ?? null).length;
  return `${Array.isArray(v) ? 'JSON array' : v === null ? 'nothing' : 'JSON object'}, ${size} bytes`;
}

interface Prepared {
  mandateId: string;
  request: CallRequest;
  maxCost: Money | undefined;
  hash: string;
  files: Record<string, string>;
}

/** Why an approval cannot be used for this call; 'pending' or 'rejected' when the human has not said yes. */
function approvalProblems(a: Approval | undefined, mandate: Mandate, entry: AgentEntry, hash: string, worst: Money, now: number): string[] | 'pending' | 'rejected' {
  if (!a) return ['approval not found'];
  const problems: string[] = [];
  if (a.mandate !== mandate.id) return ['approval not found under this mandate'];
  if (a.status === 'used') return [`approval ${a.id} was already used by receipt ${a.used_by ?? '?'}`];
  if (Date.parse(a.expires_at) <= now) return [`approval ${a.id} expired at ${a.expires_at}`];
  if (a.agent !== entry.manifest.id) problems.push(`approval ${a.id} is for agent ${a.agent}, not ${entry.manifest.id}`);
  else if (a.version !== entry.manifest.version) problems.push(`approval ${a.id} is for ${a.agent} version ${a.version}, not ${entry.manifest.version}`);
  if (a.input_hash !== hash) problems.push(`approval ${a.id} was given for a different input`);
  // The human approved the worst case they saw; a dearer catalog since then needs a new decision.
  if (worst.currency !== a.worst_case.currency || M.compare(worst, M.fromJson(a.worst_case)) > 0) {
    problems.push(`the worst case is now ${M.format(worst)}, above the ${M.format(M.fromJson(a.worst_case))} that was approved`);
  }
  if (problems.length > 0) return problems;
  if (a.status === 'pending') return 'pending';
  if (a.status === 'rejected') return 'rejected';
  return [];
}

/** A receipt with its delegated calls, and the cost of the whole tree. */
export interface ReceiptTree extends Omit<Receipt, 'children'> {
  total_cost: MoneyJson | null;
  children: ReceiptTree[];
}

/** Builds the tree under a receipt. */
export function receiptTree(s: HolonState, id: string): ReceiptTree {
  const r = s.receipts[id];
  if (!r) throw new HolonError('not_found', `no receipt "${id}"`);
  const children = r.children.map((c) => receiptTree(s, c));
  let total: Money | null = r.cost ? M.fromJson(r.cost) : null;
  for (const c of children) {
    if (c.total_cost) total = total ? M.add(total, M.fromJson(c.total_cost)) : M.fromJson(c.total_cost);
  }
  return { ...r, total_cost: total ? M.toJson(total) : null, children };
}

/** The newest root calls (delegated calls stay under their parents), optionally of one mandate or status. */
export function recentRootReceipts(s: HolonState, filter: { mandate?: string | undefined; status?: Receipt['status'] | undefined; limit: number }): Receipt[] {
  return Object.values(s.receipts)
    .filter((r) => r.parent === null && (!filter.mandate || r.mandate === filter.mandate) && (!filter.status || r.status === filter.status))
    .sort((a, b) => (a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : 0))
    .slice(0, filter.limit);
}
