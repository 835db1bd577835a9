import * as vscode from 'vscode';
import { pendingApprovals } from '../../core/approvals/flow.ts';
import { approvalStatus } from '../../core/approvals/model.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import type { PendingApproval } from '../../webview/protocol/holonView.ts';
import { decideInEditor } from '../decisions.ts';
import { approvalPrompt, pendingApprovalView } from '../views.ts';
import type { CommandDeps, FeatureCommands } from './command.ts';

/** An approval as the view's card shows it: the command's pick and dialog say exactly what the card says. */
function presented(deps: CommandDeps, id: string): PendingApproval | undefined {
  const a = deps.state.state.approvals[id];
  return a ? pendingApprovalView(deps.state.state, a, { decider: deps.state.signer, wallet: deps.wallet.address ?? null }) : undefined;
}

/** How an approval that stopped waiting ended, in words. */
const ENDED = {
  approved: 'was already approved',
  used: 'was already approved',
  rejected: 'was already rejected',
  expired: 'expired unanswered',
} as const;

/**
 * The approval to decide: the one named (a notification's button, another extension), or the human's pick.
 * A named one that no longer waits is explained, not decided: a notification VS Code cannot close may
 * outlive its approval.
 */
async function pickApproval(deps: CommandDeps, verb: string, id: unknown): Promise<string | undefined> {
  if (typeof id === 'string') {
    const a = deps.state.state.approvals[id];
    const status = a ? approvalStatus(a, deps.state.clock.now()) : 'pending';
    if (status === 'pending') return id;
    void vscode.window.showInformationMessage(`Holon: nothing to ${verb}: approval ${id} ${ENDED[status]}.`);
    return undefined;
  }
  const items = pendingApprovals(deps.state.state, deps.state.clock.now()).flatMap((a) => {
    const p = presented(deps, a.id);
    if (!p) return [];
    const amount = p.amount ? ` · ${p.amountLabel} ${p.amount.text}${p.threshold ? ` above ${p.threshold.text}` : ''}` : '';
    return [{ label: a.id, description: p.title, detail: `Asked by ${p.askedBy} · ${p.mandate}${amount}` }];
  });
  if (items.length === 0) {
    void vscode.window.showInformationMessage('Holon: no approval is waiting.');
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { placeHolder: `Approval to ${verb}` }))?.label;
}

/** Deciding what waits for the human: approvals, and the proposals behind some of them. */
export function approvalCommands(deps: CommandDeps): FeatureCommands<'approve' | 'reject' | 'showProposal'> {
  const { state } = deps;
  return {
    approve: async (idArg) => {
      const id = await pickApproval(deps, 'approve', idArg);
      const p = id ? presented(deps, id) : undefined;
      if (!id || !p) return;
      // A human click on a modal, even when another extension (or a notification's link) passed the id.
      const yes = 'Approve';
      const { message, detail } = approvalPrompt(p);
      const answer = await vscode.window.showWarningMessage(message, { modal: true, detail: detail.slice(0, 4000) }, yes);
      if (answer === yes) await decideInEditor(state, id, 'approved');
    },
    reject: async (idArg) => {
      const id = await pickApproval(deps, 'reject', idArg);
      if (id) await decideInEditor(state, id, 'rejected');
    },
    showProposal: async (idArg) => {
      const open = Object.values(state.state.office.proposals).filter((p) => p.status === 'open');
      const pick = async (): Promise<string | undefined> => {
        const items = open.map((p) => ({ label: p.id, description: p.title, detail: `proposed by ${p.proposer.slug}` }));
        return (await vscode.window.showQuickPick(items, { placeHolder: 'Proposal to review' }))?.label;
      };
      // Another extension may name the proposal, or the approval it waits on.
      const named = (arg: string): string | undefined => state.state.office.proposals[arg]?.id ?? open.find((p) => p.approval === arg)?.id;
      const id = typeof idArg === 'string' ? named(idArg) : await pick();
      if (typeof idArg === 'string' && !id) throw new HolonError('not_found', `no proposal "${idArg}"`);
      if (id) deps.proposals.show(id);
    },
  };
}
