/**
 * What a human reads before their passkey signs a decision: each event it writes, in words. The page
 * shows these lines and nothing the agent wrote as an instruction; the passkey signs the events
 * themselves, so words and signature cannot part.
 */
import type { Approval } from '../approvals/model.ts';
import type { HolonState } from '../fold/state.ts';
import type { AgentEntry, Mandate } from '../kernel/model.ts';
import { approvalMessage } from './present.ts';

const limits = (m: Mandate): string =>
  `${m.budget.total} ${m.currency} total, ${m.budget.per_day ?? 'no'} per day, ${m.budget.per_call ?? 'no'} per call, ` +
  `approval above ${m.approval_threshold} ${m.currency}, ${m.status}${m.expires_at ? `, until ${m.expires_at}` : ''}`;

/** One event in words, on the state it is written to. */
function eventWords(s: HolonState, e: { type: string; data: unknown }): string[] {
  const d = e.data as Record<string, unknown>;
  switch (e.type) {
    case 'approval.decided': {
      const a = s.approvals[String(d['id'])] as Approval | undefined;
      const verb = d['decision'] === 'approved' ? 'APPROVE' : 'REJECT';
      return a ? [`${verb}:`, ...approvalMessage(a).split('\n').slice(1)] : [`${verb} approval ${String(d['id'])}`];
    }
    case 'account.funded':
      return [`Fund account ${String(d['account'])} with ${String(d['amount'])} ${String(d['currency'])}`];
    case 'fx.set':
      return [`Exchange rate: 1 ${String(d['from'])} = ${String(d['rate'])} ${String(d['to'])}`];
    case 'agent.added': {
      const entry = d['entry'] as AgentEntry;
      return [`Add agent ${entry.manifest.id} to the catalog (from ${entry.source})`];
    }
    case 'settings.updated':
      return [`Approvals answered only through: ${JSON.stringify(d['approval_channels'])}`];
    case 'meter.limits.set':
      return [`Tool-call limits of ${String(d['mandate'])}: rate ${JSON.stringify(d['rate'])}, quota ${JSON.stringify(d['quota'])}`];
    case 'mandate.created':
    case 'mandate.updated': {
      const m = d['mandate'] as Mandate;
      const before = s.mandates[m.id];
      return before
        ? [`Change mandate ${m.id}:`, `before: ${limits(before)}`, `after:  ${limits(m)}`]
        : [`Create mandate ${m.id} for ${m.grantee.name}: ${limits(m)}`];
    }
    case 'team.member.set':
      return [`Make ${String(d['name'])} (${String(d['key'])}) ${String(d['role'])} of ${String(d['account'])}`];
    case 'workspace.bound': {
      const before = s.workspaces[String(d['workspace'])];
      return [
        `Bind the workspace ${String(d['workspace'])} to mandate ${String(d['mandate'])}`,
        'a Holon server started in it serves only that mandate',
        ...(before ? [`before: ${before.mandate}`] : []),
      ];
    }
    case 'passkey.registered':
      return [`Add passkey "${String(d['label'])}"`];
    case 'passkey.removed': {
      const r = s.passkeys.credentials[String(d['id'])];
      return [`Remove passkey "${r?.label ?? String(d['id'])}"`];
    }
    default:
      return [];
  }
}

/** The lines for a transaction's events: what the human decides, in the order it is written. */
export function decisionWords(s: HolonState, events: readonly { type: string; data: unknown }[]): string[] {
  const lines = events.flatMap((e) => eventWords(s, e));
  // What a decision also writes (a window it opens, a merge it does) follows from the lines above; a kind
  // with no words here is named, so that nothing is signed unseen.
  const unnamed = events.filter((e) => eventWords(s, e).length === 0).map((e) => e.type);
  return unnamed.length > 0 ? [...lines, `With it: ${[...new Set(unnamed)].join(', ')}`] : lines;
}
