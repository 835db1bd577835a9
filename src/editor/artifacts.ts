import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HolonState } from '../core/fold/state.ts';

/**
 * The file of a published artifact, to open in the editor. The path comes from the journal's record,
 * never from the view; it must still be a plain file inside the workspace (an agent can write the
 * workspace, and could have swapped the file for a link since).
 */
export function artifactFile(s: HolonState, id: string, workspace: vscode.Uri | undefined): vscode.Uri | undefined {
  const a = s.office.artifacts[id];
  if (!a || !workspace || workspace.scheme !== 'file') return undefined;
  const root = fs.realpathSync(workspace.fsPath);
  const file = path.resolve(root, a.path, a.filename);
  if (path.relative(root, file).startsWith('..')) return undefined;
  try {
    if (!fs.lstatSync(file).isFile() || fs.realpathSync(file) !== file) return undefined;
  } catch {
    return undefined;
  }
  return vscode.Uri.file(file);
}
