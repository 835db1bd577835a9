/**
 * What the editor tests do in the workbench, as the human does it (the command palette, quick inputs,
 * the webviews), and through the test driver in the extension host (test/editor/suite/driver.ts).
 */
import { execFile } from 'node:child_process';
import type { FrameLocator, Page } from 'playwright-core';
import { until } from './harness.ts';

/** What the driver in the extension host wrote when it was ready. */
export interface Bridge {
  port: number;
  stateDir: string;
  holonJs: string;
  activationMs: number;
}

/** Asks the driver inside the extension host to do something with the vscode API. */
export async function host<T>(bridge: Bridge, op: string, body: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${bridge.port}${op}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(240_000) });
  const value = (await res.json()) as T & { error?: string };
  if (!res.ok) throw new Error(`the in-host driver failed ${op}: ${value.error ?? res.status}`);
  return value;
}

/** The bundled CLI of the installed vsix, on the extension's state, as the human runs it in a terminal. */
export function cli<T>(bridge: Bridge, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env['HOLON_STATE'];
    execFile(process.execPath, [bridge.holonJs, ...args, '--state', bridge.stateDir, '--json'], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`holon ${args.join(' ')}: ${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as T);
    });
  });
}

/** F1, the command's title, then its row: the palette as the human uses it. */
export async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input').first();
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().click();
}

/** The quick input after a command opened it: waits for it, types `value` (when given), Enter. */
export async function answerInput(page: Page, expectPrompt: string | RegExp, value?: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  await widget.filter({ hasText: expectPrompt }).waitFor({ state: 'visible' });
  if (value !== undefined) await widget.locator('input').first().fill(value);
  await page.keyboard.press('Enter');
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
