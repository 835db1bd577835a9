/**
 * A human's decision on an approval: who may make it, and recording it with what it does to its subject
 * (effects.ts). Every channel decides here — the panel, an elicitation form, the interactive CLI; no MCP
 * tool does. It stands above the subjects (office, money), which ask for approvals through
 * approvals/flow.ts, so that a decision travels one way: from here down into the subject it concerns.
 */
import type { ApprovalsFields, MandateAccounts } from '../approvals/slice.ts';
import { accountOfApproval, approvalEvent } from '../approvals/slice.ts';
import { channelAccepted } from '../approvals/flow.ts';
import type { Approval, ApprovalChannel } from '../approvals/model.ts';
import { decisionMessage, isExpired } from '../approvals/model.ts';
import type { Clock } from '../kernel/deps.ts';
import { HolonError } from '../kernel/errors.ts';
import type { EventStore, NewEvent, Signer } from '../store/store.ts';
import type { TeamFields } from '../accounts/team.ts';
import { isApprover } from '../accounts/team.ts';
import type { DecisionState } from './effects.ts';
import { decisionEffect } from './effects.ts';

/**
 * True when the installation `decider` may decide `a`: it is an approver (or an owner) of its account,
 * or the state has no transaction yet. Tells a channel whether to offer the decision at all; the fold
 * counts a decision only from such an installation, and `decideApproval` refuses any other at once.
 */
export function mayDecide(
  s: MandateAccounts & TeamFields,
  a: Pick<Approval, 'mandate'>,
  decider: Pick<Signer, 'publicKey'> | undefined,
): boolean {
  if (s.team.root === null) return true;
  return decider !== undefined && isApprover(s, accountOfApproval(s, a), decider.publicKey);
}

/**
 * Records a human's decision. The first decision wins: a second one, from any channel, is refused with
 * the decision already made; so is one from a channel the human turned off, or one after the expiry.
 * `decider` is the installation the human decides from: when the approval's account has approvers, it
 * must be one of them (otherwise denied, reason `not_an_approver`), and the decision carries its
 * signature, without which the fold would not count it. `also` are written in the same transaction, after
 * the decision (an approved payment signed by the human's account): the same assertion covers them.
 */
export async function decideApproval(
  store: EventStore<ApprovalsFields & DecisionState & TeamFields>,
  clock: Clock,
  id: string,
  decision: 'approved' | 'rejected',
  channel: ApprovalChannel,
  decider?: Signer,
  also: readonly NewEvent[] = [],
): Promise<Approval> {
  return store.transact((s) => {
    const a = s.approvals[id];
    if (!a) throw new HolonError('not_found', `no approval "${id}"`, { approval: id });
    if (!channelAccepted(s, channel)) {
      throw new HolonError('denied', `approvals through ${channel} are turned off for this state`, { channel });
    }
    if (a.status !== 'pending') {
      throw new HolonError('conflict', `approval ${id} was already ${a.status}${a.channel ? ` (${a.channel})` : ''}`, { status: a.status });
    }
    if (isExpired(a, clock.now())) throw new HolonError('conflict', `approval ${id} expired at ${a.expires_at}`, { status: 'expired' });
    // The fold counts a decision only from an approver; a decider known here is told so by name (any
    // other is refused as it is appended, by the same rule).
    if (decider && !mayDecide(s, a, decider)) {
      const account = accountOfApproval(s, a);
      const data = { reason: 'not_an_approver', approval: id, account, ...(decider ? { key: decider.publicKey } : {}) };
      throw new HolonError('denied', `only an approver of account ${account} may decide approval ${id}`, data);
    }
    const by = decider?.publicKey;
    const signed = decider && by ? { by, sig: decider.sign(decisionMessage(a, decision, channel)) } : {};
    // What the decision does (a window opens, a proposal merges) lands with it, or neither does.
    const effects = decisionEffect(a.kind)?.(s, a, decision, clock.now()) ?? [];
    return {
      events: [approvalEvent('approval.decided', { id, decision, channel, ...signed }), ...effects, ...also],
      result: { ...structuredClone(a), status: decision, channel, ...(by ? { decided_by: by } : {}) },
    };
  });
}
