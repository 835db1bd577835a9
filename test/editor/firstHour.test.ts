/**
 * The walkthrough as a newcomer meets it, in a real VS Code (code-server) clicked in Chromium: on a laptop's
 * screen with the chat open, each call step shows its exact prompt and the way without a chat model in the
 * step itself; and the same funded state, opened in a new browser profile, shows what is done and which
 * mandate is selected — the workbench's browser storage holds neither.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import type { Bridge, EditorRun, Started } from './workbench.ts';
import { ensureTools, launchBrowser, openWorkbench, packageVsix, screenshot, until, workbenchUrl } from './harness.ts';
import { cli, host, openEditor, pendingInView, pick, runCommand, webview, withEditor } from './workbench.ts';

const MANDATE = 'demo/sandbox';
const PIPELINE = 'holon-labs/invoice-pipeline';
const FACTURE = 'holon://files/examples/facture.pdf';
const INVOICES = ['invoice-01.pdf', 'invoice-02.pdf', 'invoice-03.pdf', 'invoice-04.pdf'].map((f) => `holon://files/examples/${f}`);
/** The steps a newcomer takes here; the passkey's, first in the walkthrough, is optional and not taken. */
const STEPS = ['fund', 'mandate', 'connect', 'firstCall', 'approve', 'receipt'];

/** The prompts the walkthrough gives, word for word (media/walkthrough/*.md say the same). */
const PROMPTS = {
  firstCall: 'Find an agent that extracts tables and extract the table of holon://files/examples/facture.pdf.',
  approve: 'Run the invoice pipeline on holon://files/examples/invoice-01.pdf to invoice-04.pdf.',
};

function step(p: Page, id: string): Locator {
  return p.locator(`button.getting-started-step[data-step-id$="#${id}"], button.getting-started-step[data-step-id="${id}"]`).first();
}

/** Each step with whether the walkthrough shows it done, e.g. `fund:true`. */
async function ticks(p: Page): Promise<string[]> {
  const out: string[] = [];
  for (const id of STEPS) out.push(`${id}:${(await step(p, id).getAttribute('aria-checked')) ?? 'missing'}`);
  return out;
}

/** Waits until the walkthrough shows every step of STEPS done; the error names the steps that are not. */
async function allTicked(p: Page, where: string): Promise<void> {
  await until(async () => (await ticks(p)).every((t) => t.endsWith(':true')), `every step done ${where}`, 30_000, 250).catch(async (err: Error) => {
    throw new Error(`${err.message}: ${(await ticks(p)).join(', ')}`);
  });
}

/** Whether the whole of `target` is inside the page's viewport and not hidden: what the human can read without scrolling. */
async function onScreen(p: Page, target: Locator): Promise<boolean> {
  if (!(await target.isVisible())) return false;
  const box = await target.boundingBox();
  const size = p.viewportSize();
  if (!box || !size) return false;
  return box.x >= 0 && box.y >= 0 && box.x + box.width <= size.width && box.y + box.height <= size.height;
}

/** Opens the walkthrough with Holon: Get Started and waits for its steps. */
async function openWalkthrough(p: Page): Promise<void> {
  await runCommand(p, 'Holon: Get Started');
  await until(async () => (await p.locator('button.getting-started-step').count()) >= STEPS.length, "the walkthrough's steps", 30_000, 250);
}

async function run(name: string, body: (run: EditorRun) => Promise<void>): Promise<void> {
  await ensureTools();
  const { vsix } = await packageVsix();
  await withEditor(name, { vsix, watchdogMs: 480_000 }, body);
}

test(
  'at 1366×768 with the chat open, the call steps show their exact prompt and the way without a chat model',
  { timeout: 600_000 },
  async () => {
    await run('first-hour-laptop', async ({ dirs, editor, consoleLines }) => {
      const bridge = await openEditor(dirs, editor, consoleLines);
      const p = editor.page as Page;
      await p.setViewportSize({ width: 1366, height: 768 });
      // The chat is open in the secondary side bar, as it is for a Copilot user.
      await host(bridge, '/command', { id: 'workbench.action.chat.open' }).catch(() =>
        host(bridge, '/command', { id: 'workbench.action.toggleAuxiliaryBar' }),
      );
      const chat = p.locator('#workbench\\.parts\\.auxiliarybar');
      await chat.waitFor({ state: 'visible' });
      await p.keyboard.press('Escape');
      await openWalkthrough(p);
      for (const [id, prompt] of Object.entries(PROMPTS)) {
        const s = step(p, id);
        await s.click();
        await until(async () => (await s.getAttribute('aria-expanded')) === 'true', `the ${id} step open`, 15_000, 250);
        const description = s.locator('.step-description-container');
        const text = (await description.innerText()).replace(/\s+/g, ' ');
        assert.ok(text.includes(prompt), `the ${id} step's own text gives the prompt "${prompt}"; it reads: ${text}`);
        const promptLine = description.locator('p', { hasText: prompt.slice(0, 40) }).first();
        await until(() => onScreen(p, promptLine), `the ${id} step's prompt on screen at 1366×768 with the chat open`, 15_000, 250);
        // The way without a model: a terminal, where `holon` is this workspace's, and Claude Code.
        assert.match(text, /No chat model\?/, `the ${id} step says what to do without a chat model; it reads: ${text}`);
        const terminal = description.locator('a, .monaco-button', { hasText: /Terminal/ }).first();
        await until(() => onScreen(p, terminal), `the ${id} step's terminal link on screen`, 15_000, 250);
        assert.ok(
          (await description.locator('a, .monaco-button', { hasText: 'Connect Claude Code' }).count()) > 0,
          `the ${id} step offers Connect Claude Code`,
        );
        await screenshot(p, `first-hour-${id}-1366`);
      }
      assert.ok(await chat.isVisible(), 'the chat stayed open');
    });
  },
);

test(
  'a new browser profile on the same funded state shows the walkthrough done and the mandate selected',
  { timeout: 600_000 },
  async () => {
    await run('first-hour-profile', async ({ dirs, editor, consoleLines }) => {
      const bridge = await openEditor(dirs, editor, consoleLines);
      const p = editor.page as Page;
      const statusBar = p.locator('#workbench\\.parts\\.statusbar');
      // The human's setup, at a terminal and in the palette.
      await cli(bridge, ['fund', 'demo', '5']);
      await cli(bridge, [
        'mandate',
        'create',
        MANDATE,
        '--threshold',
        '0.50',
        '--total',
        '5',
        '--per-day',
        '5',
        '--per-call',
        '5',
        '--capabilities',
        'extraction.*,pipeline.*',
        '--regions',
        'EU',
        '--retention',
        '30',
        '--training',
        'no',
      ]);
      await runCommand(p, 'Holon: Add Agent');
      await pick(p, 'Demo catalog');
      await until(
        async () => JSON.stringify(await cli(bridge, ['agents', 'list'])).includes(PIPELINE),
        'the demo agents in the catalog',
        15_000,
        250,
      );
      await runCommand(p, 'Holon: Select Mandate');
      await pick(p, MANDATE);
      await statusBar.locator('.statusbar-item', { hasText: MANDATE }).first().waitFor();
      // A small call, and the big one approved in the Holon view.
      await host(bridge, '/startServer');
      const small = await host<{ structured?: Record<string, unknown>; text: string }>(bridge, '/invoke', {
        tool: 'call_agent',
        input: { agent: 'acme/table-extract', input: { file: FACTURE } },
      });
      assert.equal(small.structured?.['status'], 'succeeded', small.text);
      const big = host<{ structured?: Record<string, unknown>; text: string }>(bridge, '/invoke', {
        tool: 'call_agent',
        input: { agent: PIPELINE, input: { files: INVOICES } },
      });
      big.catch(() => {});
      await runCommand(p, 'Holon: Show Panel');
      const view = await webview(p, 'budget');
      const id = await pendingInView(view, PIPELINE, new Set());
      await view.locator(`[data-testid="approve-${id}"]`).click();
      assert.equal((await big).structured?.['status'], 'succeeded');
      await runCommand(p, 'Holon: Show Receipts');
      await webview(p, 'receipt-tree');
      await openWalkthrough(p);
      await allTicked(p, 'in the first profile');

      // The same code-server and state folder, a new browser: nothing of the first profile's storage.
      await editor.browser?.close();
      const bridgeFile = path.join(dirs.root, 'bridge.json');
      fs.rmSync(bridgeFile, { force: true });
      editor.browser = await launchBrowser(dirs);
      const fresh = await editor.browser.newPage({ viewport: { width: 1600, height: 1000 } });
      editor.page = fresh;
      fresh.on('console', (m) => consoleLines.push(m.text()));
      fresh.setDefaultTimeout(30_000);
      await openWorkbench(fresh, workbenchUrl(editor.server as NonNullable<Started['server']>, dirs));
      const again = await until(
        async () => {
          const text = await readFile(bridgeFile, 'utf8').catch(() => undefined);
          return text ? (JSON.parse(text) as Bridge) : undefined;
        },
        'the test driver in the new session',
        60_000,
        200,
      );
      assert.equal(again.stateDir, bridge.stateDir, 'the same state folder');
      await fresh.locator('#workbench\\.parts\\.statusbar .statusbar-item', { hasText: MANDATE }).first().waitFor();
      // Nothing was done in this profile: what the walkthrough shows done comes from the workspace's state.
      await openWalkthrough(fresh);
      await allTicked(fresh, 'in the new profile');
      await screenshot(fresh, 'first-hour-new-profile');
      // The status bar's tooltip says what the human needs (the mandate's money); this workspace's own
      // journal, the default, goes unsaid as in the Holon view.
      await fresh.locator('#workbench\\.parts\\.statusbar .statusbar-item', { hasText: MANDATE }).first().hover();
      const tooltip = fresh.locator('.workbench-hover, .monaco-hover', { hasText: `Holon — ${MANDATE}` }).first();
      await tooltip.waitFor();
      const said = await tooltip.innerText();
      assert.match(said, /remaining/, said);
      assert.doesNotMatch(said, /journal/, `the tooltip reads: ${said}`);
    });
  },
);
