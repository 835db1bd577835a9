import * as vscode from 'vscode';
import { decideApproval } from '../core/decisions/decide.ts';
import { HolonError } from '../core/kernel/errors.ts';
import type { EditorState } from './editorState.ts';

/**
 * A decision the human made in the editor (the view, a notification, a command), recorded with the
 * panel channel and this installation's key. Whether that channel and that key may decide is the core's
 * rule; the first decision from any channel wins, and a refused or late one is explained, not applied.
 */
export async function decideInEditor(state: EditorState, id: string, decision: 'approved' | 'rejected'): Promise<boolean> {
  try {
    await decideApproval(await state.store(), state.clock, id, decision, 'panel', state.signer);
    return true;
  } catch (err) {
    if (!HolonError.is(err)) throw err;
    const tell = err.reason === 'denied' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    // The setting is the answer only when the channel was refused, not the approver or the passkey.
    const hint = err.reason === 'denied' && err.details['channel'] !== undefined ? ' (setting holon.approvals.channels)' : '';
    tell(`Holon: ${err.message}${hint}`).then(undefined, () => {});
    return false;
  }
}
