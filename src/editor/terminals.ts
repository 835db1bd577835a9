import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';

/**
 * Integrated terminals see the same state as the editor: HOLON_STATE, and a `holon` on PATH that runs
 * the bundled CLI with VS Code's own Node.
 */
export function registerTerminals(context: vscode.ExtensionContext, stateDir: string, holonJs: string): void {
  const bin = path.join(context.globalStorageUri.fsPath, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = `#!/bin/sh\nELECTRON_RUN_AS_NODE=1 exec ${q(process.execPath)} ${q(holonJs)} "$@"\n`;
  const file = path.join(bin, 'holon');
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== script) fs.writeFileSync(file, script, { mode: 0o755 });
  const env = context.environmentVariableCollection;
  env.description = 'Holon: the `holon` command and this workspace\'s state';
  env.replace('HOLON_STATE', stateDir);
  env.prepend('PATH', bin + path.delimiter);
}
