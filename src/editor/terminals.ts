import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { STORE_ENV } from '../core/store/url.ts';
import type { EditorState } from './editorState.ts';
import { storeBeside } from './storeSetting.ts';

/**
 * Integrated terminals see the same state as the editor: HOLON_STATE, HOLON_STORE (the team store's URL
 * without its password, or none: see storeBeside), and a `holon` on PATH that runs the bundled CLI with
 * VS Code's own Node. Returns what keeps HOLON_STORE on the store the editor is on.
 */
export function registerTerminals(context: vscode.ExtensionContext, state: EditorState, holonJs: string): vscode.Disposable {
  const stateDir = state.dir;
  const bin = path.join(context.globalStorageUri.fsPath, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = `#!/bin/sh\nELECTRON_RUN_AS_NODE=1 exec ${q(process.execPath)} ${q(holonJs)} "$@"\n`;
  const file = path.join(bin, 'holon');
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== script) fs.writeFileSync(file, script, { mode: 0o755 });
  const env = context.environmentVariableCollection;
  env.description = "Holon: the `holon` command and this workspace's state";
  env.replace('HOLON_STATE', stateDir);
  env.prepend('PATH', bin + path.delimiter);
  const followStore = (): void => {
    const value = storeBeside(state.storeInUse);
    // Only a change: each replace marks open terminals as needing a restart.
    if (env.get(STORE_ENV)?.value !== value) env.replace(STORE_ENV, value);
  };
  followStore();
  return state.onDidChange(followStore);
}
