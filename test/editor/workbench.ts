/**
 * What the editor tests do in the workbench, as the human does it (the command palette, quick inputs,
 * the webviews), and through the test driver in the extension host (test/editor/suite/driver.ts).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Browser, FrameLocator, Locator, Page } from 'playwright-core';
import type { CodeServer, RunDirs } from './harness.ts';
import {
  captureFailure,
  DRIVER_EXTENSION_ID,
  finishRun,
  installExtension,
  launchBrowser,
  newRun,
  openWorkbench,
  packageDriver,
  startCodeServer,
  until,
  workbenchUrl,
} from './harness.ts';

/** What the driver in the extension host wrote when it was ready. */
export interface Bridge {
  port: number;
  stateDir: string;
  holonJs: string;
  activationMs: number;
  /** The team store the editor is on (the run's `holon.store`), for the CLI and agents the test starts beside it. */
  store?: string;
}

/** `--store URL` when the editor is on a team store: what a human adds to a command in their terminal. */
export const storeArgs = (bridge: Bridge): string[] => (bridge.store ? ['--store', bridge.store] : []);

/** Asks the driver inside the extension host to do something with the vscode API. */
export async function host<T>(bridge: Bridge, op: string, body: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${bridge.port}${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(240_000),
  });
  const value = (await res.json()) as T & { error?: string };
  if (!res.ok) throw new Error(`the in-host driver failed ${op}: ${value.error ?? res.status}`);
  return value;
}

/** The bundled CLI of the installed vsix, on the extension's state, as the human runs it in a terminal. */
export function cli<T>(bridge: Bridge, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env['HOLON_STATE'];
    execFile(
      process.execPath,
      [bridge.holonJs, ...args, '--state', bridge.stateDir, ...storeArgs(bridge), '--json'],
      { env, timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`holon ${args.join(' ')}: ${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as T);
      },
    );
  });
}

/** How many times the palette is opened again when it closed under the human (see `again`). */
const PALETTE_TRIES = 3;

/**
 * Runs `steps` in the palette, again if the palette closed before they were done: a panel the previous
 * command revealed can take the focus a moment late, and a quick input closes when it loses the focus. A
 * human opens it again; so does the test, at most PALETTE_TRIES times. Each wait is for a condition.
 */
async function again(steps: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await steps();
      return;
    } catch (err) {
      if (attempt >= PALETTE_TRIES) throw err;
    }
  }
}

/** F1 and the command's title; its row, clicked. */
async function openCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input').first();
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().click({ timeout: 10_000 });
}

/** F1, the command's title, then its row: the palette as the human uses it. */
export async function runCommand(page: Page, title: string): Promise<void> {
  await again(() => openCommand(page, title));
}

/** A command whose quick pick the human answers with the row `label`: the palette, then the pick. */
export async function runCommandAndPick(page: Page, title: string, label: string): Promise<void> {
  await again(async () => {
    await openCommand(page, title);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
    await row.waitFor({ state: 'visible', timeout: 10_000 });
    await row.click({ timeout: 10_000 });
  });
}

/** The quick input after a command opened it: waits for it, types `value` (when given), Enter. */
export async function answerInput(page: Page, expectPrompt: string | RegExp, value?: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  await widget.filter({ hasText: expectPrompt }).waitFor({ state: 'visible' });
  if (value !== undefined) {
    // The widget is reused from one input to the next: the value must be in this prompt's box when Enter goes.
    const input = widget.locator('input').first();
    await until(
      async () => {
        if ((await input.inputValue()) !== value) await input.fill(value);
        return (await input.inputValue()) === value && (await widget.filter({ hasText: expectPrompt }).count()) > 0;
      },
      `"${value}" typed into the input that asks ${String(expectPrompt)}`,
      15_000,
      100,
    );
  }
  // The box checks what was typed through the extension host, and takes no Enter while its last answer
  // (for the empty box: "Required") stands; on a busy machine that answer can trail the typing. So Enter
  // goes again, a second apart, until this prompt is gone; a new prompt in the reused widget stops it.
  const asking = async (): Promise<boolean> => (await widget.filter({ hasText: expectPrompt }).count()) > 0 && (await widget.isVisible());
  await until(
    async () => {
      if (!(await asking())) return true;
      // Enter goes to the box itself, as a person clicks back into it when something else took the focus
      // (a walkthrough step that was just expanded focuses itself a moment later).
      const box = widget.locator('input').first();
      if (value === undefined || (await box.inputValue()) === value) await box.press('Enter');
      return false;
    },
    `the input that asks ${String(expectPrompt)} to take Enter`,
    15_000,
    1_000,
  );
}

/** Picks the quick pick row with `label`. */
export async function pick(page: Page, label: string): Promise<void> {
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ state: 'visible' });
  await row.click();
}

/** The content of the webview (two iframes deep) that renders [data-testid=marker]: the view or a panel. */
export async function webview(page: Page, marker: string): Promise<FrameLocator> {
  return until(
    async () => {
      const frames = page.locator('iframe.webview.ready');
      const n = await frames.count();
      for (let i = 0; i < n; i++) {
        const inner = page.frameLocator('iframe.webview.ready').nth(i).frameLocator('iframe#active-frame');
        if ((await inner.locator(`[data-testid="${marker}"]`).count()) > 0) return inner;
      }
      return undefined;
    },
    `a webview showing [data-testid="${marker}"]`,
    30_000,
    250,
  );
}

/** The id of the first pending approval the Holon view shows for `agent` that is not in `seen`. */
export async function pendingInView(view: FrameLocator, agent: string, seen: Set<string>): Promise<string> {
  return until(
    async () => {
      const buttons = view.locator('[data-testid^="approve-"]');
      const n = await buttons.count();
      for (let i = 0; i < n; i++) {
        const id = ((await buttons.nth(i).getAttribute('data-testid')) ?? '').slice('approve-'.length);
        if (!id || seen.has(id)) continue;
        if ((await view.locator(`[data-testid="approval-subject-${id}"]`).textContent())?.trim() === agent) return id;
      }
      return undefined;
    },
    `an approval for ${agent} in the Holon view`,
    60_000,
    250,
  );
}

/** What a test started, as soon as each part exists: what its clean-up (and its watchdog) stops. */
export interface Started {
  server?: CodeServer;
  browser?: Browser;
  page?: Page;
}

/** Installs the packaged vsix and the test driver into the run; returns the folder Holon went into. */
export async function installWithDriver(dirs: RunDirs, vsix: string): Promise<string> {
  const holonDir = installExtension(dirs, vsix);
  installExtension(dirs, await packageDriver(), DRIVER_EXTENSION_ID);
  return holonDir;
}

/**
 * Past `ms`, stops the browser and code-server, so that a hung step fails the test instead of hanging
 * the run. Clear it once the test is done.
 */
export function watchdog(started: Started, ms = 420_000, onFire: () => void = () => {}): NodeJS.Timeout {
  return setTimeout(() => {
    onFire();
    void started.browser?.close();
    void started.server?.stop();
  }, ms);
}

/** Stops what a test started: the browser, then code-server. */
export async function stopEditor(started: Started): Promise<void> {
  await started.browser?.close().catch(() => {});
  await started.server?.stop();
}

/** A run of the editor that a test drives: its folders, what it started, and the browser's console. */
export interface EditorRun {
  dirs: RunDirs;
  editor: Started;
  consoleLines: string[];
  /** The folder the packaged vsix went into. */
  installed: string;
  /** Runs `fn` on the way out, pass or fail, before the editor stops (an MCP client the test started, a folder). */
  defer(fn: () => unknown): void;
}

/** How a run is set up besides its name. */
export interface EditorRunOptions {
  /** The packaged extension (packageVsix()). */
  vsix: string;
  /** The user's settings in the run. */
  settings?: Record<string, unknown>;
  watchdogMs?: number;
  onWatchdog?: () => void;
  /** Before a failure's screenshot, so that it shows what matters (e.g. every notification). */
  beforeCapture?: () => Promise<unknown>;
}

/**
 * Runs `body` against an editor of its own: a new run with the vsix and the test driver installed, under a
 * watchdog. On the way out, pass or fail: a failure's screenshot and console, what `body` deferred, the
 * browser and code-server stopped, and the run's folder removed when it passed (kept for a failure).
 */
export async function withEditor(name: string, options: EditorRunOptions, body: (run: EditorRun) => Promise<void>): Promise<void> {
  const dirs = newRun(name, options.settings);
  const editor: Started = {};
  const consoleLines: string[] = [];
  const deferred: (() => unknown)[] = [];
  const timer = watchdog(editor, options.watchdogMs, options.onWatchdog);
  let passed = false;
  try {
    const installed = await installWithDriver(dirs, options.vsix);
    await body({ dirs, editor, consoleLines, installed, defer: (fn) => void deferred.push(fn) });
    passed = true;
  } catch (err) {
    await options.beforeCapture?.().catch(() => {});
    await captureFailure(editor.page, name, consoleLines);
    throw err;
  } finally {
    clearTimeout(timer);
    for (const fn of deferred.reverse())
      await Promise.resolve()
        .then(fn)
        .catch(() => {});
    await stopEditor(editor);
    finishRun(dirs, passed);
  }
}

/**
 * Starts code-server on `dirs` (the vsix and the driver installed), opens the workbench in Chromium and
 * waits for the driver in the extension host; returns what the driver wrote. Each part goes into
 * `started` as it starts, so a failure later still leaves it to be stopped.
 */
export async function openEditor(dirs: RunDirs, started: Started, consoleLines: string[]): Promise<Bridge> {
  const bridgeFile = path.join(dirs.root, 'bridge.json');
  started.server = await startCodeServer(dirs, { env: { HOLON_EDITOR_BRIDGE: bridgeFile } });
  started.browser = await launchBrowser(dirs);
  const page = await started.browser.newPage({ viewport: { width: 1600, height: 1000 } });
  started.page = page;
  page.on('console', (m) => consoleLines.push(m.text()));
  page.setDefaultTimeout(30_000);
  await openWorkbench(page, workbenchUrl(started.server, dirs));
  const bridge = await until(
    async () => {
      const text = await readFile(bridgeFile, 'utf8').catch(() => undefined);
      return text ? (JSON.parse(text) as Bridge & { error?: string }) : undefined;
    },
    'the test driver in the extension host',
    60_000,
    200,
  );
  if (bridge.error) throw new Error(`the test driver failed in the extension host: ${bridge.error}`);
  return dirs.store ? { ...bridge, store: dirs.store } : bridge;
}

/**
 * Whether the command palette offers a command with this title, as the human sees the palette. To know the
 * list has caught up with the typing, it first shows `control` (a command that is always there and that
 * `title` does not match), then waits for that row to go before looking for `title`.
 */
export async function paletteOffers(page: Page, title: string, control = 'Holon: Fund Account'): Promise<boolean> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input').first();
  await input.waitFor({ state: 'visible' });
  const rows = page.locator('.quick-input-list .monaco-list-row');
  await input.fill(`>${control}`);
  await rows.filter({ hasText: control }).first().waitFor();
  await input.fill(`>${title}`);
  await rows.filter({ hasText: control }).first().waitFor({ state: 'detached' });
  const offered = (await rows.filter({ hasText: title }).count()) > 0;
  await page.keyboard.press('Escape');
  return offered;
}

/** The colours an element's text is drawn in and on: its colour, and the first background behind it that is not transparent. */
async function colours(target: Locator): Promise<[string, string]> {
  // The page's DOM types are not this (Node) project's: the element is described by what is used of it.
  type El = { parentElement: El | null; ownerDocument: { defaultView: unknown } };
  return target.evaluate((el: El) => {
    let node: El | null = el;
    let bg = 'rgba(0, 0, 0, 0)';
    const view = el.ownerDocument.defaultView as { getComputedStyle(e: El): { color: string; backgroundColor: string } };
    while (node) {
      const c = view.getComputedStyle(node).backgroundColor;
      if (c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') {
        bg = c;
        break;
      }
      node = node.parentElement;
    }
    return [view.getComputedStyle(el).color, bg] as [string, string];
  });
}

/** The WCAG contrast ratio of an element's text against what is behind it (4.5 is the floor for body text). */
export async function contrastOf(target: Locator): Promise<{ ratio: number; fg: string; bg: string }> {
  const [fg, bg] = await colours(target);
  const channels = (css: string): number[] => (css.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
  const luminance = (css: string): number => {
    const [r = 0, g = 0, b = 0] = channels(css).map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [hi, lo] = [luminance(fg), luminance(bg)].sort((x, y) => y - x) as [number, number];
  return { ratio: (hi + 0.05) / (lo + 0.05), fg, bg };
}

/**
 * How many Tab presses, from where the focus is now, until the element of the webview `view` matching
 * `selector` has the focus; undefined when `max` presses do not reach it.
 */
export async function tabsTo(page: Page, view: FrameLocator, selector: string, max = 20): Promise<number | undefined> {
  const focused = async (): Promise<boolean> => (await view.locator(`${selector}:focus`).count()) > 0;
  for (let n = 0; n <= max; n++) {
    if (await focused()) return n;
    await page.keyboard.press('Tab');
  }
  return undefined;
}
