/**
 * The in-host suite (test/editor/suite/extension.test.ts) in a real VS Code: code-server with the
 * repository as the extension under development, opened by Chromium (the extension host only runs while
 * a workbench is connected). The suite's mocha report arrives through the page's console, its exit code
 * through `codeAutomationExit`; the report is also written to test-results/editor/inhost-report.txt.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { CodeServer, SuiteExit } from './harness.ts';
import { buildSuites, captureFailure, ensureBuilt, ensureTools, EXTENSION_ROOT, finishRun, launchBrowser, newRun, openWorkbench, RESULTS, since, startCodeServer, workbenchUrl } from './harness.ts';

/** How long the suite may run once the workbench is open. */
const SUITE_TIMEOUT_MS = 240_000;
/** What runSuite.ts puts before every line of mocha's report. */
const REPORT_PREFIX = '[holon-suite] ';

test('the in-host suite passes inside code-server', { timeout: 600_000 }, async () => {
  const started = Date.now();
  await ensureTools();
  const toolsMs = Date.now() - started;
  await ensureBuilt();
  const { runSuite } = await buildSuites();

  const dirs = newRun('inhost');
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let passed = false;
  const consoleLines: string[] = [];
  const report: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  try {
    server = await startCodeServer(dirs, { smokeTestDriver: true });
    browser = await launchBrowser(dirs);
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('console', (m) => {
      const text = m.text();
      consoleLines.push(text);
      const at = text.indexOf(REPORT_PREFIX);
      if (at >= 0) report.push(...text.slice(at).split(REPORT_PREFIX).map((l) => l.trimEnd()).filter((l) => l !== ""));
    });
    page.on('pageerror', (e) => consoleLines.push(`pageerror: ${e.message}`));
    const suiteStart = Date.now();
    const { exit } = await openWorkbench(page, workbenchUrl(server, dirs, { extensionDevelopmentPath: EXTENSION_ROOT, extensionTestsPath: runSuite }));
    const result = await Promise.race([
      exit,
      new Promise<SuiteExit>((_, reject) => (timer = setTimeout(() => reject(new Error(`the in-host suite did not finish within ${SUITE_TIMEOUT_MS / 1000} s`)), SUITE_TIMEOUT_MS))),
    ]);
    fs.mkdirSync(RESULTS, { recursive: true });
    fs.writeFileSync(path.join(RESULTS, 'inhost-report.txt'), report.join('\n') + '\n');
    process.stderr.write(`[editor] in-host suite: exit ${result.code} after ${since(suiteStart)} (tools ${(toolsMs / 1000).toFixed(1)} s, total ${since(started)})\n`);
    const details = report.length > 0 ? report.join('\n') : `no report; the console said:\n${consoleLines.slice(-40).join('\n')}\n--- code-server log ---\n${server.logTail(30)}`;
    assert.equal(result.code, 0, `the in-host suite failed:\n${details}`);
    passed = true;
  } catch (err) {
    await captureFailure(page, 'inhost', consoleLines);
    throw err;
  } finally {
    clearTimeout(timer);
    await browser?.close();
    await server?.stop();
    finishRun(dirs, passed);
  }
});
