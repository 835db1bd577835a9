import * as vscode from 'vscode';
import { channelAccepted, decideApproval } from '../core/approvals/flow.ts';
import { HolonError } from '../core/errors.ts';
import type { EditorState } from './editorState.ts';

/**
 * A decision the human made in the editor (the view, a notification, a command). Recorded with the
 * panel channel; the first decision from any channel wins, and a late one is explained, not applied.
 */
export async function decideInEditor(state: EditorState, id: string, decision: 'approved' | 'rejected'): Promise<boolean> {
  try {
    if (decision === 'approved' && !channelAccepted(state.state, 'panel')) {
      void vscode.window.showWarningMessage('Holon: approvals in the editor are turned off (setting holon.approvals.channels).');
      return false;
    }
    await decideApproval(state.store, state.clock, id, decision, 'panel');
    return true;
  } catch (err) {
    if (HolonError.is(err)) {
      void vscode.window.showInformationMessage(`Holon: ${err.message}`);
      return false;
    }
    throw err;
  }
}
