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
import type { RunDirs } from './harness.ts';
import type { Bridge, Started } from './workbench.ts';
import {
  captureFailure,
  ensureTools,
  finishRun,
  launchBrowser,
  newRun,
  openWorkbench,
  packageVsix,
  screenshot,
  until,
  workbenchUrl,
} from './harness.ts';
import { cli, host, installWithDriver, openEditor, pick, runCommand, stopEditor, watchdog } from './workbench.ts';

const MANDATE = 'demo/sandbox';
const STEPS = ['fund', 'mandate', 'connect', 'firstCall', 'approve', 'receipt'];

/** The prompts the walkthrough gives, word for word (media/walkthrough/*.md say the same). */
const PROMPTS = {
  firstCall: 'Find an agent that extracts tables and extract the table of holon://files/examples/facture.pdf.',
  approve: 'Run the invoice pipeline on holon://files/examples/invoice-01.pdf to invoice-04.pdf.',
};

function step(p: Page, id: string): Locator {
  return p.locator(`button.getting-started-step[data-step-id$="#${id}"], button.getting-started-step[data-step-id="${id}"]`).first();
}

/** Whether the whole of `target` is inside the page's viewport and not hidden: what the human can read without scrolling. */
async function onScreen(p: Page, target: Locator): Promise<boolean> {
  if (!(await target.isVisible())) return false;
  const box = await target.boundingBox();
  const size = p.viewportSize();
  if (!box || !size) return false;
  return box.x >= 0 && box.y >= 0 && box.x + box.width <= size.width && box.y + box.height <= size.height;
}

/** Opens the walkthrough with Holon: Get Started and waits for its six steps. */
async function openWalkthrough(p: Page): Promise<void> {
  await runCommand(p, 'Holon: Get Started');
  await until(async () => (await p.locator('button.getting-started-step').count()) >= STEPS.length, "the walkthrough's steps", 30_000, 250);
}

async function run(name: string, body: (dirs: RunDirs, editor: Started, consoleLines: string[]) => Promise<void>): Promise<void> {
  await ensureTools();
  const { vsix } = await packageVsix();
  const dirs = newRun(name);
  const editor: Started = {};
  const consoleLines: string[] = [];
  const timer = watchdog(editor, 480_000);
  let passed = false;
  try {
    await installWithDriver(dirs, vsix);
    await body(dirs, editor, consoleLines);
    passed = true;
  } catch (err) {
    await captureFailure(editor.page, name, consoleLines);
    throw err;
  } finally {
    clearTimeout(timer);
    await stopEditor(editor);
    finishRun(dirs, passed);
  }
}

test(
  'at 1366×768 with the chat open, the call steps show their exact prompt and the way without a chat model',
  { timeout: 600_000 },
  async () => {
    await run('first-hour-laptop', async (dirs, editor, consoleLines) => {
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
  'a new browser profile on the same funded state shows the mandate the human selected',
  { timeout: 600_000 },
  async () => {
    await run('first-hour-profile', async (dirs, editor, consoleLines) => {
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
      await runCommand(p, 'Holon: Select Mandate');
      await pick(p, MANDATE);
      await statusBar.locator('.statusbar-item', { hasText: MANDATE }).first().waitFor();

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
      await screenshot(fresh, 'first-hour-new-profile');
    });
  },
);
