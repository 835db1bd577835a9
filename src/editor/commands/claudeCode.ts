import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Binding } from '../../core/local/bindings.ts';
import { bindingFor, writeBinding } from '../../core/local/bindings.ts';
import { isGuarded } from '../../core/accounts/passkeys.ts';
import { decideBinding } from '../../core/accounts/workspaces.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import type { Mandate } from '../../core/kernel/model.ts';
import { harnessPermissions } from '../../core/office/tools.ts';
import type { EditorState } from '../editorState.ts';
import { storeBeside } from '../storeSetting.ts';
import type { CommandDeps, FeatureCommands } from './command.ts';
import { pickMandate } from './command.ts';

/**
 * Claude Code's own enforcement of the office's gating (seed 004): the office tools the mandate grants
 * are allowed in `.claude/settings.local.json`, the others denied, so the harness refuses them before
 * they reach Holon. Holon still checks every call: these lists only save a round trip.
 */
function writeClaudePermissions(folder: string, server: string, mandate: Mandate | undefined): string {
  if (!mandate) throw new HolonError('not_found', 'the mandate is gone');
  const file = path.join(folder, '.claude', 'settings.local.json');
  type Settings = { permissions?: { allow?: string[]; deny?: string[] } };
  const existing = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Settings) : {};
  const ours = (rule: string): boolean => rule.startsWith(`mcp__${server}__`);
  const { allow, deny } = harnessPermissions(server, mandate);
  const permissions = {
    ...existing.permissions,
    allow: [...(existing.permissions?.allow ?? []).filter((r) => !ours(r)), ...allow],
    deny: [...(existing.permissions?.deny ?? []).filter((r) => !ours(r)), ...deny],
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...existing, permissions }, null, 2) + '\n');
  return file;
}

/**
 * Binds the folder to the mandate on the editor's own state folder and store (its URL without the
 * password), as the human chose them here: a Holon server Claude Code starts in the folder then serves
 * only that mandate, whatever the .mcp.json it was started from says (core/local/bindings.ts). In a state
 * a passkey guards, the binding is first the human's decision in the journal, made on the passkey's page
 * (the editor's store asks it), since a server counts the file only when the journal holds it.
 */
async function bindForClaudeCode(state: EditorState, folder: string, mandate: string): Promise<Binding> {
  if (state.storeFailure) throw new HolonError('conflict', state.storeFailure);
  if (!state.state.mandates[mandate]) throw new HolonError('not_found', `no mandate "${mandate}"`);
  // On a team store the state folder holds only the installation key, and may not be made yet.
  fs.mkdirSync(state.dir, { recursive: true });
  const store = storeBeside(state.storeInUse);
  const binding = bindingFor({ workspace: folder, state: state.dir, store: store === '' ? null : store, mandate }, state.clock);
  const opened = await state.store();
  if (isGuarded(opened.state)) await decideBinding(opened, binding.workspace, binding.mandate);
  return writeBinding(binding);
}

/** Writes (or adds to) the folder's .mcp.json: Claude Code starts this server from it. */
function writeMcpJson(folder: string, name: string, args: string[]): string {
  const file = path.join(folder, '.mcp.json');
  const existing = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers?: Record<string, unknown> }) : {};
  const servers = { ...(existing.mcpServers ?? {}), [name]: { command: 'node', args: [...args, '--workspace', folder] } };
  fs.writeFileSync(file, JSON.stringify({ ...existing, mcpServers: servers }, null, 2) + '\n');
  return file;
}

/** Connecting Claude Code to the first workspace folder, bound to one mandate. */
export function claudeCodeCommands(deps: CommandDeps): FeatureCommands<'connectClaudeCode'> {
  const { state } = deps;
  return {
    connectClaudeCode: async () => {
      const mandate = state.selected ?? (await pickMandate(deps, 'Mandate Claude Code acts for'));
      if (!mandate) return;
      const first = vscode.workspace.workspaceFolders?.[0]?.uri;
      if (first?.scheme !== 'file') {
        throw new HolonError('not_found', "open a folder first: Claude Code's server is bound to it, and .mcp.json goes in its root");
      }
      // Bound before the line is shown or .mcp.json written, so no server started from them ever runs unbound.
      const binding = await bindForClaudeCode(state, first.fsPath, mandate);
      const folder = binding.workspace;
      const name = `holon-${mandate.replace('/', '-')}`;
      // On a team store, Claude Code's server opens it too (its password from PGPASSWORD or ~/.pgpass: see storeBeside).
      const store = binding.store !== null ? ['--store', binding.store] : [];
      const args = [deps.holonJs, 'mcp', '--mandate', mandate, '--state', state.dir, ...store];
      const q = (s: string): string => (/^[\w./:@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
      const line = `claude mcp add ${name} -- node ${args.map(q).join(' ')}`;
      const copy = 'Copy';
      const write = 'Write .mcp.json';
      const office = state.state.mandates[mandate]?.toolsets.includes('office') === true;
      const withPermissions = 'Write .mcp.json and Permissions';
      const answer = await vscode.window.showInformationMessage(
        `Holon: ${folder} is now bound to ${mandate}: a Holon server started in it serves only this mandate, whatever its command line ` +
          `says. Connect Claude Code to it (run this in the folder):\n${line}`,
        { modal: false },
        copy,
        write,
        ...(office ? [withPermissions] : []),
      );
      if (answer === copy) await vscode.env.clipboard.writeText(line);
      if (answer === write || answer === withPermissions) {
        const written = [writeMcpJson(folder, name, args)];
        if (answer === withPermissions) written.push(writeClaudePermissions(folder, name, state.state.mandates[mandate]));
        void vscode.window.showInformationMessage(`Holon: wrote ${name} to ${written.join(' and ')}.`);
      }
    },
  };
}
