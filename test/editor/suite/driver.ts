/**
 * The browser test's hands inside the extension host. A page cannot call `vscode.lm.invokeTool`, so the
 * browser test installs this file as a tiny helper extension (beside Holon's vsix) that asks, over a small
 * HTTP server on 127.0.0.1, to start the MCP server and to call tools through VS Code's own MCP client —
 * while the human's part (the palette, the Holon view, the notifications) is clicked in the browser.
 * On activation it writes `{port, stateDir, holonJs, activationMs}` (or `{error}`) to $HOLON_EDITOR_BRIDGE.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import { activateHolon, allowToolsWithoutModal, invoke, startServer } from './host.ts';

type Handler = (body: Record<string, unknown>) => Promise<unknown>;

const handlers: Record<string, Handler> = {
  '/startServer': async (body) => ({ tools: await startServer(Array.isArray(body['tools']) ? (body['tools'] as string[]) : undefined) }),
  '/invoke': async (body) => invoke(String(body['tool']), (body['input'] ?? {}) as Record<string, unknown>),
  '/command': async (body) => ({ result: (await vscode.commands.executeCommand(String(body['id']), ...((body['args'] as unknown[] | undefined) ?? []))) ?? null }),
  // A user setting, as the human sets it in their settings (the test's stand-in for the Settings editor);
  // Holon's unless another section is named (`workbench`, for its colour theme).
  '/setting': async (body) => {
    const section = typeof body['section'] === 'string' ? body['section'] : 'holon';
    await vscode.workspace.getConfiguration(section).update(String(body['key']), body['value'], vscode.ConfigurationTarget.Global);
    return { ok: true };
  },
};

function serve(req: http.IncomingMessage, res: http.ServerResponse): void {
  let raw = '';
  req.on('data', (d: Buffer) => (raw += d.toString()));
  req.on('end', () => {
    const handler = handlers[req.url ?? ''];
    const reply = (status: number, value: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.method !== 'POST' || !handler) return reply(404, { error: `no ${req.method} ${req.url}` });
    let body: Record<string, unknown>;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return reply(400, { error: 'body is not JSON' });
    }
    handler(body).then(
      (value) => reply(200, value),
      (err: unknown) => reply(500, { error: (err as Error).stack ?? String(err) }),
    );
  });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const bridgeFile = process.env['HOLON_EDITOR_BRIDGE'];
  if (!bridgeFile) throw new Error('HOLON_EDITOR_BRIDGE is not set: the driver is started by test/editor/browser.test.ts');
  try {
    const holon = await activateHolon();
    await allowToolsWithoutModal();
    const server = http.createServer(serve);
    server.requestTimeout = 0;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    context.subscriptions.push({ dispose: () => void server.close() });
    const { port } = server.address() as AddressInfo;
    fs.writeFileSync(bridgeFile, JSON.stringify({ port, stateDir: holon.api.stateDir, holonJs: holon.holonJs, activationMs: holon.activationMs }));
  } catch (err) {
    fs.writeFileSync(bridgeFile, JSON.stringify({ error: (err as Error).stack ?? String(err) }));
  }
}

export function deactivate(): void {}
