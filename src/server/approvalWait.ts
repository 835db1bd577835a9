import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { channelAccepted, decideApproval, waitForDecision } from '../core/admin.ts';
import { HolonError } from '../core/errors.ts';
import type { ApprovalWaiter } from '../core/gateway.ts';
import type { Approval } from '../core/model.ts';
import { format, fromJson } from '../core/money.ts';
import { summarize } from '../core/util.ts';
import type { ServerDeps } from './serverDeps.ts';

/** The form's one field. It has no default: only a human choosing "Approve" approves. */
export const APPROVAL_FORM_SCHEMA = {
  type: 'object',
  properties: {
    decision: { type: 'string', title: 'Decision', description: 'Approve runs this one call; Reject refuses it.', enum: ['Approve', 'Reject'] },
  },
  required: ['decision'],
} as const;

/** What the human reads before deciding. */
export function approvalMessage(a: Approval): string {
  const delegated = a.delegated_calls.reduce((n, d) => n + d.max_count, 0);
  return [
    `Holon · ${a.mandate}: approve this call?`,
    `Agent: ${a.agent} ${a.version}`,
    `Worst case: ${format(fromJson(a.worst_case))} (threshold ${format(fromJson(a.threshold))})${delegated > 0 ? `, including up to ${delegated} delegated calls` : ''}`,
    `Input: ${summarize(a.input, 400)}`,
    `Approval ${a.id}, valid until ${a.expires_at}.`,
  ].join('\n');
}

/**
 * Waits for the human on every accepted channel at once: the journal (the panel, `holon approve`) and,
 * when the client supports it, an elicitation form. The first decision wins; the others are withdrawn.
 */
export function createApprovalWaiter(deps: ServerDeps, server: Server, extra: RequestHandlerExtra<ServerRequest, ServerNotification>): ApprovalWaiter {
  return async (approval, signal) => {
    const caps = server.getClientCapabilities()?.elicitation;
    // An empty elicitation capability means form mode (the spec before URL mode existed).
    const canElicit = deps.approvals.elicitation && channelAccepted(deps.store.state, 'elicitation') && caps !== undefined && (caps.form !== undefined || caps.url === undefined);
    const waitMs = canElicit ? Math.max(deps.approvals.waitMs, deps.approvals.elicitationWaitMs) : deps.approvals.waitMs;
    if (waitMs <= 0) return 'pending';

    const withdraw = new AbortController();
    const onAbort = (): void => withdraw.abort();
    signal?.addEventListener('abort', onAbort);
    const progressToken = extra._meta?.progressToken;
    const onTick = (elapsed: number): void => {
      if (progressToken === undefined) return;
      void extra
        .sendNotification({
          method: 'notifications/progress',
          params: {
            progressToken,
            progress: Math.floor(elapsed / 1000),
            total: Math.ceil(waitMs / 1000),
            message: `waiting for the human to approve ${approval.id} (worst case ${format(fromJson(approval.worst_case))})`,
          },
        })
        .catch(() => {});
    };

    if (canElicit) {
      server
        .elicitInput({ mode: 'form', message: approvalMessage(approval), requestedSchema: APPROVAL_FORM_SCHEMA as never }, { signal: withdraw.signal, timeout: waitMs })
        .then(async (answer) => {
          // accept+Approve approves; accept+Reject or decline rejects; cancel leaves it pending.
          if (answer.action === 'cancel') return;
          const approve = answer.action === 'accept' && answer.content?.['decision'] === 'Approve';
          await decideApproval(deps.store, deps.clock, approval.id, approve ? 'approved' : 'rejected', 'elicitation');
        })
        .catch((err: unknown) => {
          // Withdrawn because another channel decided first, timed out, or already decided: all expected.
          if (!withdraw.signal.aborted && !HolonError.is(err, 'conflict')) deps.logger.warn(`elicitation for ${approval.id}: ${(err as Error).message}`);
        });
    }
    try {
      const status = await waitForDecision(deps.store, approval.id, waitMs, { signal: withdraw.signal, onTick });
      return status === 'approved' ? 'approved' : status === 'rejected' ? 'rejected' : 'pending';
    } finally {
      withdraw.abort();
      signal?.removeEventListener('abort', onAbort);
    }
  };
}
