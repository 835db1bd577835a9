/**
 * What the in-host suites share: the Holon extension and its API, the bundled CLI run as a human would
 * run it on the extension's state, and VS Code's own MCP client (start the server, find and invoke tools).
 * Runs inside the extension host, under code-server or Electron alike.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

export const EXTENSION_ID = 'holon.holon';
export const MANDATE = 'demo/sandbox';
export const FACTURE = 'holon://files/examples/facture.pdf';
export const INVOICES = ['invoice-01.pdf', 'invoice-02.pdf', 'invoice-03.pdf', 'invoice-04.pdf'].map((f) => `holon://files/examples/${f}`);
/** Every tool of the market toolset, as the server names them. */
export const MARKET_TOOLS = ['search_agents', 'get_agent', 'call_agent', 'check_approval', 'get_budget', 'get_receipt'];

/** What the extension's activate() returns. */
export interface HolonApi {
  stateDir: string;
  /** Which store the ledger is in: the workspace's journal, or a team store. */
  storeInUse(): { kind: 'journal' } | { kind: 'team'; url: string; label: string };
}

/** The activated Holon extension, its API, and the paths of what it bundles. */
export interface Holon {
  extension: vscode.Extension<unknown>;
  api: HolonApi;
  holonJs: string;
  examplesDir: string;
  activationMs: number;
}

/** Activates Holon (if nothing did yet) and checks the API it returns. */
export async function activateHolon(): Promise<Holon> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  if (!extension) throw new Error(`the extension ${EXTENSION_ID} is not installed in this VS Code`);
  const start = Date.now();
  const exported = await extension.activate();
  const activationMs = Date.now() - start;
  const api = exported as Partial<HolonApi> | undefined;
  if (typeof api?.stateDir !== 'string' || api.stateDir === '' || typeof api.storeInUse !== 'function') throw new Error(`activate() of ${EXTENSION_ID} must return { stateDir, storeInUse }, returned ${JSON.stringify(exported)}`);
  return { extension, api: { stateDir: api.stateDir, storeInUse: api.storeInUse }, holonJs: path.join(extension.extensionPath, 'dist', 'holon.js'), examplesDir: path.join(extension.extensionPath, 'dist', 'examples'), activationMs };
}

/** Runs the bundled CLI with VS Code's own runtime, as the integrated terminal's `holon` does. */
export function holonCli(holon: Holon, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_RUN_AS_NODE: '1' };
    delete env['HOLON_STATE'];
    // On a team store (the user's settings name one), the human's terminal names it too.
    const where = holon.api.storeInUse();
    const store = where.kind === 'team' ? ['--store', where.url] : [];
    execFile(process.execPath, [holon.holonJs, ...args, '--state', holon.api.stateDir, ...store], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`holon ${args.join(' ')} failed: ${err.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** The demo world on the extension's state, set up with the CLI: funds, demo/sandbox, the example agents and invoices. */
export async function seedDemo(holon: Holon, options: { funds?: string; total?: string; perDay?: string; perCall?: string } = {}): Promise<void> {
  await holonCli(holon, ['fund', 'demo', options.funds ?? '5']);
  await holonCli(holon, ['fx', 'USD', 'EUR', '0.92']);
  await holonCli(holon, [
    'mandate', 'create', MANDATE, '--threshold', '0.50', '--total', options.total ?? '5', '--per-day', options.perDay ?? '4', '--per-call', options.perCall ?? '3.50',
    '--capabilities', 'extraction.*,pipeline.*', '--regions', 'EU', '--retention', '30', '--training', 'no',
  ]);
  await holonCli(holon, ['agents', 'add', path.join(holon.examplesDir, 'catalog.json')]);
  copyDemoFiles(holon);
}

/** The invoices where holon://files/examples/… resolves (what Holon: Add Agent → Demo catalog copies). */
export function copyDemoFiles(holon: Holon): void {
  const from = path.join(holon.examplesDir, 'files');
  const to = path.join(holon.api.stateDir, 'files', 'examples');
  fs.mkdirSync(to, { recursive: true });
  for (const f of fs.readdirSync(from)) fs.copyFileSync(path.join(from, f), path.join(to, f));
}

/**
 * Lets `vscode.lm.invokeTool` run tools that are not read-only without VS Code's "Run …?" modal, which
 * nobody could click from inside the host: the global auto-approve setting, and the context key VS Code's
 * own API tests set to skip its one-time "Enable global auto approve?" confirmation.
 */
export async function allowToolsWithoutModal(): Promise<void> {
  await vscode.workspace.getConfiguration('chat.tools.global').update('autoApprove', true, vscode.ConfigurationTarget.Global);
  await vscode.commands.executeCommand('setContext', 'vscode.chat.tools.global.autoApprove.testMode', true);
}

/** The MCP tool whose server-side name is `tool` (VS Code names it mcp_<server label>_<tool>). */
export function findTool(tool: string): vscode.LanguageModelToolInformation | undefined {
  return vscode.lm.tools.find((t) => t.name.startsWith('mcp_') && t.name.endsWith(`_${tool}`));
}

/**
 * Starts the MCP servers and waits for `tools` to be live. `workbench.mcp.startServer` does nothing until
 * the workbench knows the provider, so it is retried every 500 ms.
 */
export async function startServer(tools: string[] = MARKET_TOOLS, timeoutMs = 60_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  for (;;) {
    const found = tools.map(findTool);
    if (found.every((t) => t !== undefined)) return found.map((t) => t!.name);
    if (Date.now() > deadline) {
      const names = vscode.lm.tools.map((t) => t.name).filter((n) => n.startsWith('mcp_'));
      throw new Error(`the tools ${tools.join(', ')} did not appear in vscode.lm.tools within ${timeoutMs / 1000} s (MCP tools: ${names.join(', ') || 'none'}${lastError ? `; last error: ${lastError}` : ''})`);
    }
    try {
      await Promise.race([
        vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true, autoTrustChanges: true }),
        new Promise((r) => setTimeout(r, 2000)),
      ]);
    } catch (err) {
      lastError = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A tool's result as text, and its structured content when the server sent one. */
export interface ToolOutput {
  text: string;
  structured: Record<string, unknown> | undefined;
}

/** A LanguageModelDataPart holding JSON (a newer API than the @types/vscode this project builds against). */
function isJsonData(part: unknown): part is { mimeType: string; data: Uint8Array } {
  const p = part as { mimeType?: unknown; data?: unknown } | null;
  return typeof p?.mimeType === 'string' && p.mimeType.includes('json') && p.data instanceof Uint8Array;
}

/** Calls an MCP tool through VS Code's own client, outside any chat. */
export async function invoke(tool: string, input: Record<string, unknown>, token?: vscode.CancellationToken): Promise<ToolOutput> {
  const info = findTool(tool);
  if (!info) throw new Error(`no MCP tool named *_${tool} in vscode.lm.tools`);
  const result = await vscode.lm.invokeTool(info.name, { input, toolInvocationToken: undefined }, token);
  const texts: string[] = [];
  let structured: Record<string, unknown> | undefined;
  for (const part of result.content) {
    if (part instanceof vscode.LanguageModelTextPart) texts.push(part.value);
    else if (isJsonData(part)) {
      try {
        structured = JSON.parse(new TextDecoder().decode(part.data)) as Record<string, unknown>;
      } catch {
        // not JSON after all: the text parts still say what happened
      }
    }
  }
  const text = texts.join('\n');
  // VS Code may hand structured content back as a JSON text part instead.
  if (!structured) {
    for (const t of texts) {
      try {
        const v = JSON.parse(t) as unknown;
        if (v && typeof v === 'object' && !Array.isArray(v)) structured = v as Record<string, unknown>;
      } catch {
        // plain text
      }
    }
  }
  return { text, structured };
}
