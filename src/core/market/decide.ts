/**
 * A call's decision, made under the journal lock against the latest state: what is refused before any
 * agent is looked at, which agent takes the call (the named one, the approved one, or the best-ranked
 * allowed one that fits), and the spend gate for its worst case: held, asked of a human, or refused.
 */
import { capabilityMatches } from '../kernel/capabilities.ts';
import { unusableApproval } from '../approvals/flow.ts';
import type { Approval } from '../approvals/model.ts';
import type { Denial } from '../kernel/denials.ts';
import { denial, forAgent } from '../kernel/denials.ts';
import { newId } from '../kernel/ids.ts';
import { thisProcess } from '../store/owner.ts';
import type { NewEvent } from '../store/store.ts';
import { mandateDenials, mandateOf } from '../accounts/mandates.ts';
import type { AgentEntry, Mandate, Receipt } from '../kernel/model.ts';
import type { Money } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import { gateSpend, limitDenials, roomFor, thresholdDenial } from '../money/spend.ts';
import type { HolonState } from '../fold/state.ts';
import type { IndexedAgent } from './marketIndex.ts';
import { marketIndex } from './marketIndex.ts';
import { offers } from './policy.ts';
import { receiptEvent } from './receipts.ts';

import type { CallOutcome, CallRequest, GatewayDeps, Grant } from './call.ts';

/** What a decision needs from the gateway's host. */
type DecideDeps = Pick<GatewayDeps, 'clock' | 'validate' | 'owner' | 'signer'>;

export type Decision = Exclude<CallOutcome, { kind: 'done' }> | { kind: 'started'; receipt: Receipt; entry: AgentEntry; hold: Money };

/**
 * A decision as the caller keeps it: a copy of what the state may still change (an approval, a
 * receipt). A call about to run holds the receipt its decision made, which the state never holds (it
 * folds the event's own copy); and a catalog entry is never changed in place (adding an agent again
 * replaces it), so it keeps the state's own, and its schemas stay the objects the validator has compiled.
 */
export function detached(d: Decision): Decision {
  return d.kind === 'started' ? d : structuredClone(d);
}

/** What a call's decision needs of its request, made once, before the lock (a decision may be made again). */
export interface Prepared {
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

/** What one decision works with (see `deciding`). */
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
 * The decision, made under the journal lock against the latest state: what is refused before any agent
 * is looked at, then which agent (resolve, each candidate tried with fit), then the spend gate.
 */
export function decide(deps: DecideDeps, s: HolonState, p: Prepared, approvalId: string | undefined, grant: Grant | undefined): Decided {
  const d = deciding(deps, s, p, approvalId, grant);
  const early = earlyDenials(d);
  if (early.length > 0) return denied(d, early);
  const target = resolve(deps, d);
  return 'denials' in target ? denied(d, target.denials) : gate(deps, d, target.agent, target.worst);
}

/** What one decision works with, read once: the mandate, its market, the approval and the receipt it fills. */
function deciding(deps: DecideDeps, s: HolonState, p: Prepared, approvalId: string | undefined, grant: Grant | undefined): Deciding {
  const now = deps.clock.now();
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
function resolve(deps: DecideDeps, d: Deciding): { agent: IndexedAgent; worst: Money } | { denials: Denial[] } {
  const { p, idx, approval, mandate } = d;
  const chain = d.grant?.chain ?? [];
  const room = roomFor(d.s, mandate, d.grant?.parent ?? null, d.now);
  if (p.request.agent !== undefined) {
    const named = idx.get(p.request.agent);
    if (!named) return { denials: [denial('unknown_agent', { agent: p.request.agent })] };
    const fits = fit(deps, d, room, chain, named);
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
    const fits = fit(deps, d, room, chain, c);
    if ('worst' in fits) return { agent: c, worst: fits.worst };
    refused.push(...forAgent(c.id, fits.denials));
  }
  return { denials: refused };
}

/** Whether one agent can take this call: its own denials, the input's schema, its worst case within the limits. */
function fit(
  deps: DecideDeps,
  d: Deciding,
  room: ReturnType<typeof roomFor>,
  chain: string[],
  a: IndexedAgent,
): { worst: Money } | { denials: Denial[] } {
  if (a.denials.length > 0) return { denials: a.denials };
  // A malformed input is refused before anything is held, asked or sent, and never counts against the
  // agent's record.
  const problems = deps.validate?.(a.entry.manifest.input_schema, d.p.request.input) ?? [];
  if (problems.length > 0) return { denials: [denial('input_schema', { agent: a.id, problems })] };
  const w = d.idx.worstCase(a.entry, chain);
  if (!w.ok) return { denials: [w.denial] };
  const limits = limitDenials(room, w.amount, d.p.maxCost);
  return limits.length > 0 ? { denials: limits } : { worst: w.amount };
}

/** The spend gate for the chosen agent's worst case: held and started, asked of a human, or refused. */
function gate(deps: DecideDeps, d: Deciding, chosen: IndexedAgent, worst: Money): Decided {
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
    owner: deps.owner ?? thisProcess(),
    installation: deps.signer,
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
