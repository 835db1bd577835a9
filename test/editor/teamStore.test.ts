/**
 * A lead's editor on a team store: the packaged vsix in code-server with `holon.store` in the user's
 * settings, on a real PostgreSQL; a developer's machine (its own state folder, HOLON_MACHINE=dev-box)
 * runs an agent on the same store. The developer's agent asks; the lead's Holon view shows who asked and
 * from which machine; the lead approves there, and the developer's waiting call goes on.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { inTerminal } from '../cli/cliHarness.ts';
import { copyExampleFiles, tempDir } from '../helpers.ts';
import type { TestPostgres } from '../pg/harness.ts';
import { startPostgres } from '../pg/harness.ts';
import { ensureTools, packageVsix, ROOT, screenshot, until } from './harness.ts';
import { cli, openEditor, pendingInView, runCommand, webview, withEditor } from './workbench.ts';

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
  await withEditor('team-store', { vsix, settings: { 'holon.store': store } }, async ({ dirs, editor, consoleLines, defer }) => {
    const dev = tempDir('holon-dev-');
    defer(() => dev.cleanup());
    // The developer's files, that the agent's call names by holon://files/ handles.
    copyExampleFiles(dev.dir);
    const bridge = await openEditor(dirs, editor, consoleLines);
    const p = editor.page as Page;

    // The editor is on the team store: the view says so, and its state folder holds no journal of its own.
    await runCommand(p, 'Holon: Show Panel');
    const view = await webview(p, 'store');
    assert.equal(await view.locator('[data-testid="store"]').getAttribute('data-kind'), 'team');
    assert.equal(fs.existsSync(path.join(bridge.stateDir, 'journal.jsonl')), false);

    // The lead, at a terminal of their editor: the account, the developer's mandate, the agents, and the team.
    const lead = (args: string[]): Promise<unknown> => cli(bridge, args);
    await lead(['fund', 'demo', '20']);
    await lead(['mandate', 'create', MANDATE, '--threshold', '0.50', '--total', '20', '--capabilities', 'extraction.*,pipeline.*', '--regions', 'EU', '--retention', '30', '--training', 'no']);
    await lead(['agents', 'add', path.join(ROOT, 'examples', 'catalog.json')]);
    // The lead's editor wrote the store's first transaction: its installation owns the store.
    const leadWho = (await lead(['team', 'whoami'])) as { root: boolean };
    assert.equal(leadWho.root, true);
    const devEnv = { ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0] !== 'HOLON_STATE' && e[1] !== undefined)), HOLON_MACHINE: 'dev-box', HOLON_STORE: store };
    const devWhoami = await promisify(execFile)(process.execPath, [bridge.holonJs, 'team', 'whoami', '--state', dev.dir, '--json'], { env: devEnv });
    const devKey = (JSON.parse(devWhoami.stdout) as { key: string }).key;
    const added = await inTerminal(['team', 'add', devKey, '--account', 'demo', '--name', 'Dev', '--state', bridge.stateDir, '--store', store], { answer: 'y' });
    assert.equal(added.code, 0, added.output);

    // The developer's agent, on another machine of the team, asks for more than the threshold.
    const transport = new StdioClientTransport({ command: process.execPath, args: [bridge.holonJs, 'mcp', '--mandate', MANDATE, '--state', dev.dir, '--approval-wait', '120', '--no-elicitation'], env: devEnv, stderr: 'pipe' });
    const agent = new Client({ name: 'dev-agent', version: '0.1.0' });
    defer(() => agent.close());
    await agent.connect(transport);
    const call = agent.callTool({ name: 'call_agent', arguments: { agent: PIPELINE, input: { files: INVOICES } } }, { timeout: 180_000, resetTimeoutOnProgress: true, onprogress: () => {} });
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
  });
});
