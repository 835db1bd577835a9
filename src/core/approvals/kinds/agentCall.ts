/**
 * A call to another agent whose worst case is above the mandate's threshold. Bound to the agent, its exact
 * version and the input's hash: a call to another version, or with another input, needs a new approval.
 */
import type { KindSpec } from './kind.ts';
import { APPROVAL_TTL_MS } from './kind.ts';

/** What the human is shown before an agent call runs. */
export interface AgentCallSubject {
  kind: 'agent_call';
  agent: string;
  version: string;
  capability: string | null;
  /** SHA-256 (hex) of the input's RFC 8785 form: what the approval is bound to. */
  input_sha256: string;
  /** The input as the human reads it, cut to a readable length; the hash covers all of it. */
  input_preview: string;
  input_bytes: number;
  delegated_calls: { capability: string; max_count: number }[];
}

export const agentCall: KindSpec<AgentCallSubject> = {
  kind: 'agent_call',
  label: 'Agent call',
  amountLabel: 'Worst case',
  ttlMs: APPROVAL_TTL_MS,
  binds: (s) => ({ agent: s.agent, version: s.version, input_sha256: s.input_sha256 }),
  view: (s) => {
    const delegated = s.delegated_calls.reduce((n, d) => n + d.max_count, 0);
    const calls = s.delegated_calls.map((d) => `${d.capability} × ${d.max_count}`).join(', ');
    return {
      title: `Call ${s.agent} ${s.version}`,
      subject: s.agent,
      facts: [
        { label: 'Version', value: s.version },
        ...(delegated > 0 ? [{ label: 'Delegated calls', value: `up to ${delegated} (${calls})` }] : []),
        { label: 'Input', value: `${s.input_bytes} bytes, SHA-256 ${s.input_sha256.slice(0, 16)}…` },
      ],
      detail: s.input_preview,
      removals: [],
    };
  },
};
