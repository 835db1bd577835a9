import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { pendingApprovals } from '../core/approvals/flow.ts';
import type { Binding } from '../core/bindings.ts';
import { bindingFor, writeBinding } from '../core/bindings.ts';
import { copyExampleFiles } from '../core/demoFiles.ts';
import { HolonError } from '../core/errors.ts';
import { ACCOUNT_ID, ID_RULES } from '../core/ids.ts';
import { verifyInWorker } from '../core/holon.ts';
import { JOURNAL_FILE } from '../core/store/file/journal.ts';
import { addAgent, readCatalog } from '../core/market/catalog.ts';
import * as M from '../core/money/amount.ts';
import { approvalMessage, approvalView } from '../core/present.ts';
import { fund } from '../core/money/spend.ts';
import { verifyText } from '../core/store/verify.ts';
import { COMMANDS } from './commandIds.ts';
import { decideInEditor } from './decisions.ts';
import type { EditorState } from './editorState.ts';
import type { EditorWallet } from './wallet.ts';
import type { MandateEditorPanels } from './mandateEditorPanel.ts';
import type { ProposalPanels } from './proposalPanel.ts';
import type { ReceiptsPanel } from './receiptsPanel.ts';
import { registries, storeSetting } from './settings.ts';
import { storeBeside, teamStoreFromSetting } from './storeSetting.ts';
import type { TeamStore } from './storeSetting.ts';
import { harnessPermissions } from '../core/office/tools.ts';
import { createRunToken } from '../core/runTokens.ts';
import type { Mandate } from '../core/model.ts';

/**
 * Claude Code's own enforcement of the office's gating (seed 004): the office tools the mandate grants
 * are allowed in `.claude/settings.local.json`, the others denied, so the harness refuses them before
 * they reach Holon. Holon still checks every call: these lists only save a round trip.
 */
function writeClaudePermissions(folder: string, server: string, mandate: Mandate | undefined): string {
  if (!mandate) throw new HolonError('not_found', 'the mandate is gone');
  const file = path.join(folder, '.claude', 'settings.local.json');
  const existing = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { permissions?: { allow?: string[]; deny?: string[] } }) : {};
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
 * only that mandate, whatever the .mcp.json it was started from says (core/bindings.ts).
 */
function bindForClaudeCode(state: EditorState, folder: string, mandate: string): Binding {
  if (state.storeFailure) throw new HolonError('conflict', state.storeFailure);
  if (!state.state.mandates[mandate]) throw new HolonError('not_found', `no mandate "${mandate}"`);
  // On a team store the state folder holds only the installation key, and may not be made yet.
  fs.mkdirSync(state.dir, { recursive: true });
  const store = storeBeside(state.storeInUse);
  return writeBinding(bindingFor({ workspace: folder, state: state.dir, store: store === '' ? null : store, mandate }, state.clock));
}

/** What the commands need. */
export interface CommandDeps {
  state: EditorState;
  wallet: EditorWallet;
  holonJs: string;
  demoCatalog: string;
  receipts: ReceiptsPanel;
  mandateEditor: MandateEditorPanels;
  proposals: ProposalPanels;
  secrets: vscode.SecretStorage;
  log: vscode.LogOutputChannel;
}

/** The team store `holon.store` names; a command about its password has nothing to do without one. */
function namedTeamStore(): TeamStore {
  const team = teamStoreFromSetting(storeSetting());
  if (!team) throw new HolonError('invalid_input', 'no team store is set: put its postgres://user@host:port/database URL in holon.store, in your user settings, first');
  return team;
}

function validAmount(text: string): string | undefined {
  try {
    if (M.parseUnits(text) <= 0n) return 'The amount must be more than zero';
    return undefined;
  } catch (err) {
    return HolonError.is(err) ? err.message : 'Not an amount';
  }
}

async function pickMandate(deps: CommandDeps, placeHolder: string): Promise<string | undefined> {
  const items = Object.values(deps.state.state.mandates).map((m) => ({ label: m.id, description: `${m.status} · threshold ${m.approval_threshold} ${m.currency}`, detail: m.grantee.name }));
  if (items.length === 0) {
    const create = 'Create Mandate';
    if ((await vscode.window.showInformationMessage('Holon: there is no mandate yet.', create)) === create) await vscode.commands.executeCommand(COMMANDS.createMandate);
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { placeHolder }))?.label;
}

async function pickApproval(deps: CommandDeps, verb: string, id: unknown): Promise<string | undefined> {
  if (typeof id === 'string') return id;
  const items = pendingApprovals(deps.state.state, deps.state.clock.now()).map((a) => {
    const v = approvalView(a);
    return { label: a.id, description: v.title, detail: `${a.mandate}${v.amount ? `: ${v.amount}${v.threshold ? ` (threshold ${v.threshold})` : ''}` : ''}` };
  });
  if (items.length === 0) {
    void vscode.window.showInformationMessage('Holon: no approval is waiting.');
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { placeHolder: `Approval to ${verb}` }))?.label;
}

/** Every command of the palette. Each validates its input in the quick input and explains failures. */
export function registerCommands(deps: CommandDeps): vscode.Disposable {
  const { state } = deps;
  const run =
    (fn: (...args: unknown[]) => Promise<unknown>) =>
    async (...args: unknown[]): Promise<unknown> => {
      try {
        return await fn(...args);
      } catch (err) {
        const message = HolonError.is(err) ? err.message : (err as Error).message;
        deps.log.error(`command failed: ${(err as Error).stack ?? message}`);
        void vscode.window.showErrorMessage(`Holon: ${message}`);
        return undefined;
      }
    };
  const register = (id: string, fn: (...args: unknown[]) => Promise<unknown>): vscode.Disposable => vscode.commands.registerCommand(id, run(fn));

  return vscode.Disposable.from(
    register(COMMANDS.fundAccount, async (accountArg) => {
      const selected = state.selected ? state.state.mandates[state.selected] : undefined;
      const account =
        typeof accountArg === 'string'
          ? accountArg
          : await vscode.window.showInputBox({
              title: 'Holon: Fund Account',
              prompt: 'Account to fund',
              value: selected?.account ?? 'demo',
              validateInput: (v) => (ACCOUNT_ID.test(v) ? undefined : ID_RULES.account),
            });
      if (!account) return;
      const currency = selected?.currency ?? 'EUR';
      const amount = await vscode.window.showInputBox({ title: `Holon: Fund ${account}`, prompt: `Amount in ${currency}`, placeHolder: '5.00', validateInput: validAmount });
      if (!amount) return;
      const m = await fund(await state.store(), account, amount, currency);
      void vscode.window.showInformationMessage(`Holon: funded ${account} with ${M.format(m)}.`);
    }),
    register(COMMANDS.selectMandate, async (idArg) => {
      const id = typeof idArg === 'string' ? idArg : await pickMandate(deps, 'Mandate the agent acts for');
      if (!id) return;
      if (!state.state.mandates[id]) throw new HolonError('not_found', `no mandate "${id}"`);
      await state.select(id);
    }),
    register(COMMANDS.createMandate, async () => deps.mandateEditor.open('create')),
    register(COMMANDS.editMandate, async (idArg) => {
      const id = typeof idArg === 'string' ? idArg : await pickMandate(deps, 'Mandate to edit');
      if (id) deps.mandateEditor.open('edit', id);
    }),
    register(COMMANDS.showPanel, async () => vscode.commands.executeCommand('holon.view.focus')),
    register(COMMANDS.approve, async (idArg) => {
      const id = await pickApproval(deps, 'approve', idArg);
      const a = id ? state.state.approvals[id] : undefined;
      if (!id || !a) return;
      // A human click on a modal, even when another extension passed the id.
      const yes = 'Approve';
      const [first = '', ...rest] = approvalMessage(a).split('\n');
      const answer = await vscode.window.showWarningMessage(first, { modal: true, detail: rest.join('\n').slice(0, 2000) }, yes);
      if (answer === yes) await decideInEditor(state, id, 'approved');
    }),
    register(COMMANDS.reject, async (idArg) => {
      const id = await pickApproval(deps, 'reject', idArg);
      if (id) await decideInEditor(state, id, 'rejected');
    }),
    register(COMMANDS.showReceipts, async (idArg) => deps.receipts.show(typeof idArg === 'string' ? idArg : null)),
    register(COMMANDS.addAgent, async () => {
      const items = [
        { label: 'Demo catalog', description: 'built in: five local example agents', file: deps.demoCatalog },
        ...registries().map((r) => ({ label: path.basename(r), description: r, file: r })),
        { label: 'From a file…', description: 'a catalog or {manifest, endpoint} JSON', file: '' },
      ];
      const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Where to add agents from' });
      if (!pick) return;
      let file = pick.file;
      if (!file) {
        const uri = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { JSON: ['json'] } });
        if (!uri?.[0]) return;
        file = uri[0].fsPath;
      }
      const entries = await readCatalog(file);
      const store = await state.store();
      for (const e of entries) await addAgent(store, state.clock, e.manifest, e.endpoint, pick.file === deps.demoCatalog ? 'demo-catalog' : `file:${file}`);
      if (pick.file === deps.demoCatalog) copyExampleFiles(path.dirname(deps.demoCatalog), state.dir);
      void vscode.window.showInformationMessage(`Holon: added ${entries.map((e) => e.manifest.id).join(', ')}.`);
    }),
    register(COMMANDS.connectClaudeCode, async () => {
      const mandate = state.selected ?? (await pickMandate(deps, 'Mandate Claude Code acts for'));
      if (!mandate) return;
      const first = vscode.workspace.workspaceFolders?.[0]?.uri;
      if (first?.scheme !== 'file') throw new HolonError('not_found', "open a folder first: Claude Code's server is bound to it, and .mcp.json goes in its root");
      // Bound before the line is shown or .mcp.json written, so no server started from them ever runs unbound.
      const binding = bindForClaudeCode(state, first.fsPath, mandate);
      const folder = binding.workspace;
      const name = `holon-${mandate.replace('/', '-')}`;
      // On a team store, Claude Code's server opens it too (its password from PGPASSWORD or ~/.pgpass: see storeBeside).
      const args = [deps.holonJs, 'mcp', '--mandate', mandate, '--state', state.dir, ...(binding.store !== null ? ['--store', binding.store] : [])];
      const q = (s: string): string => (/^[\w./:@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
      const line = `claude mcp add ${name} -- node ${args.map(q).join(' ')}`;
      const copy = 'Copy';
      const write = 'Write .mcp.json';
      const office = state.state.mandates[mandate]?.toolsets.includes('office') === true;
      const withPermissions = 'Write .mcp.json and Permissions';
      const answer = await vscode.window.showInformationMessage(
        `Holon: ${folder} is now bound to ${mandate}: a Holon server started in it serves only this mandate, whatever its command line says. Connect Claude Code to it (run this in the folder):\n${line}`,
        { modal: false },
        copy,
        write,
        ...(office ? [withPermissions] : []),
      );
      if (answer === copy) await vscode.env.clipboard.writeText(line);
      if (answer === write || answer === withPermissions) {
        const file = path.join(folder, '.mcp.json');
        const existing = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers?: Record<string, unknown> }) : {};
        const servers = { ...(existing.mcpServers ?? {}), [name]: { command: 'node', args: [...args, '--workspace', folder] } };
        fs.writeFileSync(file, JSON.stringify({ ...existing, mcpServers: servers }, null, 2) + '\n');
        const written = [file];
        if (answer === withPermissions) written.push(writeClaudePermissions(folder, name, state.state.mandates[mandate]));
        void vscode.window.showInformationMessage(`Holon: wrote ${name} to ${written.join(' and ')}.`);
      }
    }),
    register(COMMANDS.verifyLedger, async () => {
      const team = state.storeInUse.kind === 'team' ? await state.storeForServer() : undefined;
      if (!team && !fs.existsSync(path.join(state.dir, JOURNAL_FILE))) throw new HolonError('not_found', 'there is no ledger yet');
      // A team store's rows are read in batches on the database's connection, not hashed here in one go: no worker needed.
      const r = team ? await (await import('../core/teamAdmin.ts')).verifyTeamStore(team) : await verifyInWorker(state.dir);
      const text = `Holon: ledger ${verifyText(r, team ? 'row' : 'line')}`;
      if (r.ok) void vscode.window.showInformationMessage(text);
      else void vscode.window.showErrorMessage(text);
      return r;
    }),
    register(COMMANDS.createWallet, async () => {
      const create = 'Create Wallet';
      const answer = await vscode.window.showInformationMessage(
        'Holon: create a wallet to sign the payments your mandates allow? Its key stays in VS Code\'s secret storage; fund it from your own wallet.',
        { modal: true },
        create,
      );
      if (answer !== create) return undefined;
      const address = await deps.wallet.keep(undefined);
      void vscode.window.showInformationMessage(`Holon: wallet ${address} created. Fund it with the tokens your sellers take.`);
      return address;
    }),
    register(COMMANDS.createRunToken, async () => {
      const mandate = state.selected ?? (await pickMandate(deps, 'Mandate the run acts for'));
      if (!mandate) return undefined;
      const ttl = await vscode.window.showQuickPick(
        [
          { label: '1 hour', ms: 3600_000 },
          { label: '8 hours', ms: 8 * 3600_000 },
          { label: '1 day', ms: 24 * 3600_000 },
        ],
        { placeHolder: `How long a client may use ${mandate} over HTTP (holon serve)` },
      );
      if (!ttl) return undefined;
      const made = await createRunToken(await state.store(), state.clock, { mandate, ttlMs: ttl.ms, label: 'editor' });
      // Shown once, never written anywhere: only its hash is kept. The client reads it from its environment.
      const copy = 'Copy Token';
      const answer = await vscode.window.showInformationMessage(
        `Holon: run token ${made.id} for ${mandate}, until ${new Date(made.expires_at).toLocaleString()}. Start \`holon serve\` and give the client HOLON_RUN_TOKEN; \`holon token end ${made.id}\` ends the run.`,
        copy,
      );
      if (answer === copy) await vscode.env.clipboard.writeText(made.token);
      return made.id;
    }),
    register(COMMANDS.showProposal, async (idArg?: unknown) => {
      const open = Object.values(state.state.office.proposals).filter((p) => p.status === 'open');
      const id =
        typeof idArg === 'string'
          ? (state.state.office.proposals[idArg]?.id ?? open.find((p) => p.approval === idArg)?.id)
          : (await vscode.window.showQuickPick(open.map((p) => ({ label: p.id, description: p.title, detail: `proposed by ${p.proposer.slug}` })), { placeHolder: 'Proposal to review' }))?.label;
      if (typeof idArg === 'string' && !id) throw new HolonError('not_found', `no proposal "${idArg}"`);
      if (id) deps.proposals.show(id);
    }),
    register(COMMANDS.importWallet, async (key?: unknown) => {
      // A key passed by another extension's call is taken; a human pastes theirs into a password box.
      const pasted = typeof key === 'string' ? key : await vscode.window.showInputBox({ title: 'Holon: import a wallet', prompt: 'The private key (0x and 64 hex digits). It is kept in VS Code\'s secret storage, never in a file.', password: true, ignoreFocusOut: true });
      if (!pasted) return undefined;
      const address = await deps.wallet.keep(pasted);
      void vscode.window.showInformationMessage(`Holon: wallet ${address} imported.`);
      return address;
    }),
    // The password goes to SecretStorage (the OS keychain) under a key naming the store's URL, never to
    // settings; the state reopens the store when it changes (teamStore.ts).
    register(COMMANDS.setStorePassword, async (passwordArg?: unknown) => {
      const team = namedTeamStore();
      const password =
        typeof passwordArg === 'string'
          ? passwordArg
          : await vscode.window.showInputBox({ title: `Holon: password of the team store ${team.label}`, prompt: `The PostgreSQL password for ${team.url}. It is kept in VS Code's secret storage, never in settings or the workspace.`, password: true, ignoreFocusOut: true });
      if (password === undefined || password === '') return undefined;
      await deps.secrets.store(team.secretKey, password);
      void vscode.window.showInformationMessage(`Holon: password kept for the team store ${team.label}; reconnecting.`);
      return team.label;
    }),
    register(COMMANDS.clearStorePassword, async () => {
      const team = namedTeamStore();
      await deps.secrets.delete(team.secretKey);
      void vscode.window.showInformationMessage(`Holon: the password of the team store ${team.label} is forgotten.`);
      return team.label;
    }),
    register(COMMANDS.openStateFolder, async () => {
      // Only a desktop VS Code on this machine can show a folder in the OS; elsewhere (a browser, a
      // remote) the path is what the human can use.
      if (vscode.env.uiKind === vscode.UIKind.Desktop && !vscode.env.remoteName) {
        await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(state.dir));
        return;
      }
      const copy = 'Copy Path';
      if ((await vscode.window.showInformationMessage(`Holon: the state is in ${state.dir}`, copy)) === copy) await vscode.env.clipboard.writeText(state.dir);
    }),
  );
}
