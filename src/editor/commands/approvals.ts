import * as vscode from 'vscode';
import { pendingApprovals } from '../../core/approvals/flow.ts';
import { HolonError } from '../../core/errors.ts';
import { approvalMessage, approvalView } from '../../core/present.ts';
import { decideInEditor } from '../decisions.ts';
import type { CommandDeps, FeatureCommands } from './command.ts';

async function pickApproval(deps: CommandDeps, verb: string, id: unknown): Promise<string | undefined> {
  if (typeof id === 'string') return id;
  const items = pendingApprovals(deps.state.state, deps.state.clock.now()).map((a) => {
    const v = approvalView(a);
    const amount = v.amount ? `: ${v.amount}${v.threshold ? ` (threshold ${v.threshold})` : ''}` : '';
    return { label: a.id, description: v.title, detail: `${a.mandate}${amount}` };
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
      const a = id ? state.state.approvals[id] : undefined;
      if (!id || !a) return;
      // A human click on a modal, even when another extension passed the id.
      const yes = 'Approve';
      const [first = '', ...rest] = approvalMessage(a).split('\n');
      const answer = await vscode.window.showWarningMessage(first, { modal: true, detail: rest.join('\n').slice(0, 2000) }, yes);
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
