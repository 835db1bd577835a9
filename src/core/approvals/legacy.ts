/**
 * Journals written before approvals had kinds held agent-call approvals in a flat shape. They are read as
 * the agent-call approvals they were; the journal itself is never rewritten (its hashes must hold).
 */
import type { MoneyJson } from '../kernel/amount.ts';
import { previewJson } from '../kernel/util.ts';
import type { Approval, ApprovalSubject } from './model.ts';
import { bindingOf } from './model.ts';

interface LegacyApproval {
  id: string;
  mandate: string;
  agent: string;
  version: string;
  input_hash: string;
  input?: unknown;
  worst_case: MoneyJson;
  threshold: MoneyJson;
  delegated_calls?: { capability: string; max_count: number }[];
  receipt: string;
  requested_at: string;
  expires_at: string;
  status: Approval['status'];
}

/** An approval as the current code reads it, whichever shape it was written in. */
export function upcastApproval(a: Approval | LegacyApproval): Approval {
  if ('kind' in a) return a;
  const subject: ApprovalSubject = {
    kind: 'agent_call',
    agent: a.agent,
    version: a.version,
    capability: null,
    input_sha256: a.input_hash,
    input_preview: previewJson(a.input),
    input_bytes: Buffer.byteLength(JSON.stringify(a.input ?? null)),
    delegated_calls: a.delegated_calls ?? [],
  };
  const { id, mandate, receipt, requested_at, expires_at, status, worst_case, threshold, ...rest } = a;
  const extra = rest as Partial<Approval>;
  return {
    id,
    kind: 'agent_call',
    mandate,
    ...bindingOf(mandate, subject),
    subject,
    amount: worst_case,
    threshold,
    ref: receipt,
    requested_at,
    expires_at,
    status,
    ...(extra.decided_at ? { decided_at: extra.decided_at } : {}),
    ...(extra.channel ? { channel: extra.channel } : {}),
    ...(extra.released ? { released: extra.released } : {}),
    ...(extra.used_by ? { used_by: extra.used_by } : {}),
  };
}
