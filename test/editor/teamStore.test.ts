/**
 * A lead's editor on a team store: the packaged vsix in code-server with `holon.store` in the user's
 * settings, on a real PostgreSQL; a developer's machine (its own state folder, HOLON_MACHINE=dev-box)
 * runs an agent on the same store. The developer's agent asks; the lead's Holon view shows who asked and
 * from which machine; the lead approves there, and the developer's waiting call goes on.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Browser, Page } from 'playwright-core';
import { inTerminal } from '../cli/cliHarness.ts';
import { copyExampleFiles, tempDir } from '../helpers.ts';
import type { TestPostgres } from '../pg/harness.ts';
import { startPostgres } from '../pg/harness.ts';
import type { CodeServer, RunDirs } from './harness.ts';
import {
  captureFailure,
  DRIVER_EXTENSION_ID,
  ensureTools,
  finishRun,
  installExtension,
  launchBrowser,
  newRun,
  openWorkbench,
  packageDriver,
  packageVsix,
  ROOT,
  screenshot,
  startCodeServer,
  until,
  workbenchUrl,
} from './harness.ts';
import type { Bridge } from './workbench.ts';
import { cli, pendingInView, runCommand, webview } from './workbench.ts';

const MANDATE = 'demo/dev';
const PIPELINE = 'holon-labs/invoice-pipeline';
const INVOICES = ['invoice-01.pdf', 'invoice-02.pdf'].map((f) => `holon://files/examples/${f}`);

let pg: TestPostgres;
before(async () => {
  pg = await startPostgres();
});
after(() => pg.stop());

test("a developer's agent asks on the team store; the lead approves it in the Holon view of their editor", { timeout: 600_000 }, async () => {
  await ensureTools();
  const { vsix } = await packageVsix();
  // No password in the URL: the test cluster admits local connections without one.
  const store = await pg.createDatabase('team');
  const dirs: RunDirs = newRun('team', { 'holon.store': store });
  const bridgeFile = path.join(dirs.root, 'bridge.json');
  const dev = tempDir('holon-dev-');
  // The developer's files, that the agent's call names by holon://files/ handles.
  copyExampleFiles(dev.dir);
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let agent: Client | undefined;
  let passed = false;
  const consoleLines: string[] = [];
  const watchdog = setTimeout(() => {
    void browser?.close();
    void server?.stop();
  }, 420_000);
  try {
    installExtension(dirs, vsix);
    installExtension(dirs, await packageDriver(), DRIVER_EXTENSION_ID);
    server = await startCodeServer(dirs, { env: { HOLON_EDITOR_BRIDGE: bridgeFile } });
    browser = await launchBrowser(dirs);
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    page.on('console', (m) => consoleLines.push(m.text()));
    page.setDefaultTimeout(30_000);
    await openWorkbench(page, workbenchUrl(server, dirs));
    const bridge = await until(async () => {
      const { readFile } = await import('node:fs/promises');
      const text = await readFile(bridgeFile, 'utf8').catch(() => undefined);
      return text ? (JSON.parse(text) as Bridge & { error?: string }) : undefined;
    }, 'the test driver in the extension host', 60_000, 200);
    if (bridge.error) throw new Error(`the test driver failed in the extension host: ${bridge.error}`);
    const p = page;

    // The editor is on the team store: the view says so, and its state folder holds no journal of its own.
    await runCommand(p, 'Holon: Show Panel');
    const view = await webview(p, 'store');
    assert.equal(await view.locator('[data-testid="store"]').getAttribute('data-kind'), 'team');

    // The lead, at a terminal of their editor: the account, the developer's mandate, the agents, and the team.
    const lead = (args: string[]): Promise<unknown> => cli(bridge, [...args, '--store', store]);
    await lead(['fund', 'demo', '20']);
    await lead(['mandate', 'create', MANDATE, '--threshold', '0.50', '--total', '20', '--capabilities', 'extraction.*,pipeline.*', '--regions', 'EU', '--retention', '30', '--training', 'no']);
    await lead(['agents', 'add', path.join(ROOT, 'examples', 'catalog.json')]);
    const leadKey = ((await lead(['team', 'whoami'])) as { key: string }).key;
    const devEnv = { ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0] !== 'HOLON_STATE' && e[1] !== undefined)), HOLON_MACHINE: 'dev-box', HOLON_STORE: store };
    const devWhoami = await promisify(execFile)(process.execPath, [bridge.holonJs, 'team', 'whoami', '--state', dev.dir, '--json'], { env: devEnv });
    const devKey = (JSON.parse(devWhoami.stdout) as { key: string }).key;
    for (const [key, name, role] of [[leadKey, 'Lea', ['--approver']], [devKey, 'Dev', []]] as const) {
      const r = await inTerminal(['team', 'add', key, '--account', 'demo', '--name', name, ...role, '--state', bridge.stateDir, '--store', store], { answer: 'y' });
      assert.equal(r.code, 0, r.output);
    }

    // The developer's agent, on another machine of the team, asks for more than the threshold.
    const transport = new StdioClientTransport({ command: process.execPath, args: [bridge.holonJs, 'mcp', '--mandate', MANDATE, '--state', dev.dir, '--approval-wait', '120', '--no-elicitation'], env: devEnv, stderr: 'pipe' });
    agent = new Client({ name: 'dev-agent', version: '0.1.0' });
    await agent.connect(transport);
    const call = agent.callTool({ name: 'call_agent', arguments: { agent: PIPELINE, input: { files: INVOICES } } }, undefined, { timeout: 180_000, resetTimeoutOnProgress: true, onprogress: () => {} });
    // A call that ends before anyone decides went wrong: say how, rather than wait for the view.
    let early: string | undefined;
    void call.then((r) => void (early = JSON.stringify(r).slice(0, 1000)), (err: unknown) => void (early = String(err)));

    // The lead's view shows it: who asked, from which machine, and that the lead may decide.
    const id = await Promise.race([
      pendingInView(view, PIPELINE, new Set()),
      until(() => early, 'the call to end', 120_000).then((r) => Promise.reject(new Error(`the call ended before the lead decided: ${r}`))),
    ]);
    assert.equal((await view.locator(`[data-testid="approval-machine-${id}"]`).textContent())?.trim(), 'dev-box');
    assert.match((await view.locator(`[data-testid="approval-asked-by-${id}"]`).textContent()) ?? '', /dev/);
    assert.equal(await view.locator(`[data-testid="approval-not-yours-${id}"]`).count(), 0);
    await screenshot(p, '10-team-store-approval-from-dev-box');
    await view.locator(`[data-testid="approve-${id}"]`).click();

    // The decision crosses to the developer's machine through the store; the call goes on.
    const out = (await call) as { structuredContent?: Record<string, unknown> };
    assert.equal(out.structuredContent?.['status'], 'succeeded', JSON.stringify(out).slice(0, 2000));
    const approvals = (await lead(['approvals', '--all'])) as { id: string; status: string; channel: string | null }[];
    assert.deepEqual(
      approvals.filter((a) => a.id === id).map((a) => [a.status, a.channel]),
      [['used', 'panel']],
    );
    await view.locator(`[data-testid="approval-${id}"]`).waitFor({ state: 'detached' });
    await screenshot(p, '11-team-store-approved');
    passed = true;
  } catch (err) {
    await captureFailure(page, 'team-store', consoleLines);
    throw err;
  } finally {
    clearTimeout(watchdog);
    await agent?.close().catch(() => {});
    await browser?.close().catch(() => {});
    await server?.stop();
    finishRun(dirs, passed);
    dev.cleanup();
  }
});
