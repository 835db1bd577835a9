/**
 * Holon inside a real VS Code's extension host: it activates, its commands and provider are there, and
 * VS Code's own MCP client (vscode.lm) lists and runs the market tools of the selected mandate.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Holon } from './host.ts';
import { activateHolon, allowToolsWithoutModal, FACTURE, holonCli, invoke, MANDATE, MARKET_TOOLS, seedDemo, startServer } from './host.ts';

const COMMAND_IDS = [
  'holon.fundAccount',
  'holon.selectMandate',
  'holon.createMandate',
  'holon.editMandate',
  'holon.showPanel',
  'holon.approve',
  'holon.reject',
  'holon.showReceipts',
  'holon.addAgent',
  'holon.connectClaudeCode',
  'holon.verifyLedger',
  'holon.openStateFolder',
  'holon.createWallet',
  'holon.importWallet',
  'holon.showProposal',
  'holon.createRunToken',
  'holon.setStorePassword',
  'holon.clearStorePassword',
  'holon.getStarted',
  'holon.addPasskey',
];

describe('Holon in a real VS Code', function () {
  let holon: Holon;

  it('activates and says where its state is', async function () {
    holon = await activateHolon();
    assert.equal(holon.extension.isActive, true);
    assert.ok(holon.api.stateDir.length > 0);
    console.log(`activated in ${holon.activationMs} ms; state in ${holon.api.stateDir}`);
  });

  it('registers every command it contributes', async function () {
    const contributed = (holon.extension.packageJSON as { contributes: { commands: { command: string }[] } }).contributes.commands.map((c) => c.command);
    assert.deepEqual([...contributed].sort(), [...COMMAND_IDS].sort());
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(COMMAND_IDS.filter((id) => !registered.has(id)), [], 'commands contributed but not registered');
  });

  it('contributes the MCP server definition provider', function () {
    const providers = (holon.extension.packageJSON as { contributes: { mcpServerDefinitionProviders: { id: string }[] } }).contributes.mcpServerDefinitionProviders;
    assert.deepEqual(providers.map((p) => p.id), ['holon.mandate']);
  });

  it('lists the market tools in vscode.lm.tools once the server is started', async function () {
    await seedDemo(holon);
    await vscode.commands.executeCommand('holon.selectMandate', MANDATE);
    await allowToolsWithoutModal();
    const names = await startServer(MARKET_TOOLS);
    console.log(`tools: ${names.join(', ')}`);
    // mcp_<label>_<tool>, the label being the provider's "Holon · demo/sandbox".
    for (const n of names) assert.match(n, /^mcp_holon_demo/);
  });

  it('reads no security setting from the workspace: an agent that edits .vscode/settings.json widens nothing', async function () {
    // The run's workspace settings turn terminal approvals on and plant a registry (test/editor/harness.ts).
    const channels = vscode.workspace.getConfiguration('holon').inspect<string[]>('approvals.channels');
    assert.ok(channels?.workspaceValue === undefined || channels.workspaceValue.includes('cli'), 'the workspace file says cli');
    const recorded = JSON.parse(await holonCli(holon, ['approvals', 'channels', '--json'])) as { channels: string[] };
    assert.deepEqual(recorded.channels, ['elicitation', 'panel'], 'what the journal holds is the user\'s choice, not the workspace\'s');
    // The workspace also names a team store (a ledger the agent would control): the editor stays on the
    // user's choice, this workspace's journal or the team store of the user's settings (when a run names one).
    const store = vscode.workspace.getConfiguration('holon').inspect<string>('store');
    assert.ok(store?.workspaceValue === undefined || /planted/.test(store.workspaceValue), 'the workspace file names a store');
    const users = store?.globalValue;
    const inUse = holon.api.storeInUse();
    assert.deepEqual(inUse.kind === 'team' ? { kind: inUse.kind, url: inUse.url } : inUse, users ? { kind: 'team', url: users } : { kind: 'journal' });
    assert.equal(fs.existsSync(path.join(holon.api.stateDir, 'journal.jsonl')), !users, 'the ledger is the journal in the state folder, or the team store with none beside it');
    const scopes = (holon.extension.packageJSON as { contributes: { configuration: { properties: Record<string, { scope?: string }> } } }).contributes.configuration.properties;
    for (const [key, p] of Object.entries(scopes)) assert.equal(p.scope, 'application', `${key} is a user setting only`);
  });

  it('runs search_agents through VS Code\'s MCP client', async function () {
    const out = await invoke('search_agents', { capability: 'extraction.*' });
    assert.match(out.text, /acme\/table-extract/);
  });

  it('runs a call under the threshold at once, with a receipt', async function () {
    const out = await invoke('call_agent', { agent: 'acme/table-extract', input: { file: FACTURE } });
    const status = out.structured?.['status'];
    assert.equal(status, 'succeeded', `call_agent returned: ${out.text.slice(0, 2000)}`);
    const receipts = JSON.parse(await holonCli(holon, ['receipts', '--json'])) as unknown;
    assert.match(JSON.stringify(receipts), /acme\/table-extract/);
  });

  it('keeps one form per mandate: Edit Mandate on a mandate whose form is open shows it, and so does Create Mandate', async function () {
    const tabs = (label: string): vscode.Tab[] => vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.label === label);
    const opened = async (label: string): Promise<void> => {
      const deadline = Date.now() + 30_000;
      while (tabs(label).length === 0) {
        if (Date.now() > deadline) throw new Error(`no tab "${label}" within 30 s`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    for (const [command, args, label] of [
      ['holon.editMandate', [MANDATE], `Mandate ${MANDATE}`],
      ['holon.createMandate', [], 'New Mandate'],
    ] as const) {
      await vscode.commands.executeCommand(command, ...args);
      await opened(label);
      await vscode.commands.executeCommand(command, ...args);
      // The tabs reach the extension host in the order they open: once a document opened after it shows,
      // a second form's tab, had one opened, would show too.
      const sentinel = await vscode.workspace.openTextDocument({ content: `after ${command}` });
      await vscode.window.showTextDocument(sentinel, { preview: false });
      const deadline = Date.now() + 30_000;
      const shown = (): boolean =>
        vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === sentinel.uri.toString()));
      while (!shown()) {
        if (Date.now() > deadline) throw new Error('the sentinel document did not open within 30 s');
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(tabs(label).length, 1, `one "${label}" tab after running ${command} twice`);
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("imports the wallet as the state's: `holon wallet` on the same state names the same address", async function () {
    const key = `0x${'5'.repeat(63)}1`;
    const address = (await vscode.commands.executeCommand('holon.importWallet', key)) as string;
    assert.match(address, /^0x[0-9a-fA-F]{40}$/);
    const shown = JSON.parse(await holonCli(holon, ['wallet', '--json'])) as { address: string };
    assert.equal(shown.address, address, 'the terminal and the editor sign with one wallet');
    assert.equal(fs.statSync(path.join(holon.api.stateDir, 'keys', 'wallet.key')).mode & 0o077, 0, 'the key file is the user\'s alone');
  });

  it('verifies the ledger in a worker thread, from the command palette', async function () {
    const report = (await vscode.commands.executeCommand('holon.verifyLedger')) as { ok: boolean; events: number; first_bad?: unknown };
    assert.equal(report.ok, true, JSON.stringify(report));
    assert.ok(report.events > 0);
    assert.equal(report.first_bad, undefined);
  });
});
