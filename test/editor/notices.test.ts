/**
 * What a newcomer meets first, in a real VS Code (the packaged vsix in code-server, clicked in Chromium):
 * the Fund box and the mandate form submitted empty say "Required" and show no grey value; a waiting
 * approval's notification offers Approve…, Reject and Details as its buttons, and no Cancel. Approve…
 * still goes through the human's dialog; a notification that outlived its approval decides nothing.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import type { Locator, Page } from 'playwright-core';
import { ensureTools, packageVsix, screenshot, until } from './harness.ts';
import type { Bridge } from './workbench.ts';
import { answerInput, cli, host, openEditor, pendingInView, pick, runCommand, webview, withEditor } from './workbench.ts';

const MANDATE = 'demo/sandbox';
const PIPELINE = 'holon-labs/invoice-pipeline';
const INVOICES = ['invoice-01.pdf', 'invoice-02.pdf'].map((f) => `holon://files/examples/${f}`);

interface ApprovalJson {
  id: string;
  status: string;
  channel: string | null;
}

interface CallResult {
  structuredContent?: { status?: string };
}

/** An approval's status and the channel that decided it, as `holon approvals --all` lists them. */
async function decided(bridge: Bridge, id: string): Promise<[string, string | null]> {
  const a = (await cli<ApprovalJson[]>(bridge, ['approvals', '--all'])).find((x) => x.id === id);
  if (!a) throw new Error(`no approval ${id} in holon approvals --all`);
  return [a.status, a.channel ?? null];
}

/**
 * Holon's notification of the pipeline's call, as the notification center (the bell) lists it: each call
 * is made after the center was cleared, so the one there is the call's.
 */
async function notice(p: Page, bridge: Bridge): Promise<Locator> {
  await host(bridge, '/command', { id: 'notifications.showList' });
  const found = p.locator('.notifications-center .notification-list-item', { hasText: 'asks you to approve' }).filter({ hasText: PIPELINE }).first();
  await found.waitFor();
  return found;
}

const buttonsOf = async (notice: Locator): Promise<string[]> => (await notice.locator('a.monaco-button').allInnerTexts()).map((t) => t.trim());

test('the first hour in a real VS Code: forms that say Required; an approval notification whose buttons are Approve…, Reject and Details', { timeout: 600_000 }, async () => {
  await ensureTools();
  const { vsix } = await packageVsix();
  await withEditor('notices', { vsix }, async ({ dirs, editor, consoleLines, defer }) => {
    const bridge = await openEditor(dirs, editor, consoleLines);
    const p = editor.page as Page;
    const widget = p.locator('.quick-input-widget');

    // Fund: the amount box shows nothing grey, and Enter on it empty says "Required".
    await runCommand(p, 'Holon: Fund Account');
    await answerInput(p, /Account to fund/, 'demo');
    await widget.filter({ hasText: /Amount in EUR/ }).waitFor();
    const amount = widget.locator('input').first();
    assert.equal(await amount.inputValue(), '');
    assert.equal((await amount.getAttribute('placeholder')) ?? '', '', 'the amount box shows no grey value');
    await p.keyboard.press('Enter');
    await widget.filter({ hasText: /Required/ }).waitFor();
    assert.doesNotMatch(await widget.innerText(), /is not an amount/);
    await screenshot(p, 'notices-01-fund-required');
    // The message took the prompt's place; the box's title still names the account.
    await answerInput(p, /Fund demo/, '20');
    await widget.waitFor({ state: 'hidden' });

    // The mandate form: no grey value in Id or Grantee; Create with them empty says "Required" under each, and saves nothing.
    await runCommand(p, 'Holon: Create Mandate');
    const form = await webview(p, 'mandate-form');
    const field = (name: string, inner = 'input'): Locator => form.locator(`[data-testid="field-${name}"] ${inner}`);
    for (const name of ['id', 'grantee']) {
      assert.equal(await field(name).inputValue(), '');
      assert.equal((await field(name).getAttribute('placeholder')) ?? '', '', `${name} shows no grey value`);
    }
    await form.locator('[data-testid="mandate-save"]').click();
    await form.locator('[data-testid="error-id"]').waitFor();
    assert.equal((await form.locator('[data-testid="error-id"]').innerText()).trim(), 'Required');
    assert.equal((await form.locator('[data-testid="error-grantee"]').innerText()).trim(), 'Required');
    await screenshot(p, 'notices-02-mandate-required');
    assert.deepEqual(await cli(bridge, ['mandate', 'list']), [], 'nothing was saved');
    await field('id').fill(MANDATE);
    await field('grantee').fill('Copilot (sandbox)');
    await field('total').fill('20');
    await field('capabilities', 'textarea').fill('extraction.*\npipeline.*');
    await form.locator('[data-testid="mandate-save"]').click();
    await form.locator('[data-testid="mandate-saved"]:not([hidden])').waitFor();
    await host(bridge, '/command', { id: 'workbench.action.closeAllEditors' });
    await runCommand(p, 'Holon: Add Agent');
    await pick(p, 'Demo catalog');
    await until(async () => JSON.stringify(await cli(bridge, ['agents', 'list'])).includes(PIPELINE), 'the demo agents in the catalog', 15_000, 250);

    // An agent in a terminal (its own holon mcp on the same state) makes calls above the threshold.
    const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0] !== 'HOLON_STATE' && e[1] !== undefined));
    const transport = new StdioClientTransport({ command: process.execPath, args: [bridge.holonJs, 'mcp', '--mandate', MANDATE, '--state', bridge.stateDir, '--approval-wait', '120', '--no-elicitation'], env, stderr: 'pipe' });
    const client = new Client({ name: 'holon-notices-test', version: '0.1.0' });
    defer(() => client.close());
    await client.connect(transport);
    const agent = client;
    const seen = new Set<string>();
    const bigCall = async (): Promise<{ id: string; result: Promise<CallResult> }> => {
      await host(bridge, '/command', { id: 'notifications.clearAll' });
      const result = agent.callTool({ name: 'call_agent', arguments: { agent: PIPELINE, input: { files: INVOICES } } }, { timeout: 180_000, resetTimeoutOnProgress: true, onprogress: () => {} }) as Promise<CallResult>;
      result.catch(() => {});
      await runCommand(p, 'Holon: Show Panel');
      const id = await pendingInView(await webview(p, 'budget'), PIPELINE, seen);
      seen.add(id);
      return { id, result };
    };

    // The notification's buttons are the decisions, and nothing that reads as "cancel the call".
    const first = await bigCall();
    let shown = await notice(p, bridge);
    assert.deepEqual(await buttonsOf(shown), ['Approve…', 'Reject', 'Details']);
    await screenshot(p, 'notices-03-approval-notification');
    // Approve… is the human's dialog, as before: the approval is decided only by its Approve.
    await shown.locator('a.monaco-button', { hasText: 'Approve…' }).click();
    const dialog = p.locator('.monaco-dialog-box');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Approve this agent call\?/);
    assert.deepEqual(await decided(bridge, first.id), ['pending', null], 'nothing is decided before the dialog is answered');
    await screenshot(p, 'notices-04-approve-dialog');
    await dialog.locator('a.monaco-button', { hasText: /^Approve$/ }).click();
    assert.equal((await first.result).structuredContent?.status, 'succeeded');
    assert.deepEqual(await decided(bridge, first.id), ['used', 'panel']);

    // Reject decides at once.
    const second = await bigCall();
    shown = await notice(p, bridge);
    await shown.locator('a.monaco-button', { hasText: /^Reject$/ }).click();
    assert.equal((await second.result).structuredContent?.status, 'rejected');
    assert.deepEqual(await decided(bridge, second.id), ['rejected', 'panel']);

    // Decided in the view, the notification stays (VS Code cannot close one from code): its Approve… says so and decides nothing.
    const third = await bigCall();
    await notice(p, bridge);
    await host(bridge, '/command', { id: 'notifications.hideList' });
    await (await webview(p, 'budget')).locator(`[data-testid="reject-${third.id}"]`).click();
    assert.equal((await third.result).structuredContent?.status, 'rejected');
    shown = await notice(p, bridge);
    await shown.locator('a.monaco-button', { hasText: 'Approve…' }).click();
    await p.locator('.notification-list-item', { hasText: `nothing to approve: approval ${third.id} was already rejected` }).first().waitFor();
    assert.equal(await p.locator('.monaco-dialog-box').count(), 0, 'no dialog for an approval already decided');
    assert.deepEqual(await decided(bridge, third.id), ['rejected', 'panel']);
    await screenshot(p, 'notices-05-stale-notification');
  });
});
