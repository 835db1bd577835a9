/**
 * Holon clicked in a real browser: the packaged vsix installed into code-server, driven by Chromium the
 * way the human uses it — the command palette, the Holon view, the receipts panel, VS Code's elicitation
 * notification — while calls come from VS Code's own MCP client (asked through a tiny helper extension,
 * test/editor/suite/driver.ts) and from a separate `holon mcp` client on the same state.
 * Screenshots of each step go to test-results/editor/.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { FrameLocator, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { localChain } from '../../examples/chain/chain.ts';
import { SELLER, startSeller, TEST_NETWORK } from '../../examples/sellers/x402Seller.ts';
import { silentLogger, systemClock } from '../../src/core/kernel/deps.ts';
import { openStore } from '../../src/core/holon.ts';
import { DEMO_OFFICE, seedOffice } from '../../src/core/office/demoOffice.ts';
import { loadOpenMandates, loadPublished, signClosedMandates } from '../../src/core/commerce/ap2.ts';
import { loadAgentKey } from '../../src/core/local/mandateKey.ts';
import { UcpCheckout } from '../../src/server/commerce/ucp.ts';
import { startUcpMerchant } from '../../examples/merchants/ucpMerchant.ts';
import type { Bridge, EditorRunOptions } from './workbench.ts';
import {
  answerInput,
  cli,
  contrastOf,
  host,
  openEditor,
  paletteOffers,
  pendingInView,
  pick,
  runCommand,
  runCommandAndPick,
  storeArgs,
  tabsTo,
  webview,
  withEditor,
} from './workbench.ts';
import { attachAuthenticator, exportCredential, pressOnPage } from '../helpers/passkeyBrowser.ts';
import { ensureTools, packageVsix, RESULTS, screenshot, since, until, VSIX_ALLOWED, VSIX_MAX_BYTES } from './harness.ts';

const MANDATE = 'demo/sandbox';
/** Who acts under it, as the human names them in the form. */
const GRANTEE = 'Copilot (sandbox)';
const FACTURE = 'holon://files/examples/facture.pdf';
const BUYER = 'demo/buyer';
const PIPELINE = 'holon-labs/invoice-pipeline';
const INVOICES = ['invoice-01.pdf', 'invoice-02.pdf', 'invoice-03.pdf', 'invoice-04.pdf'].map((f) => `holon://files/examples/${f}`);

/** The walkthrough's steps, in order (package.json contributes.walkthroughs). */
const WALKTHROUGH_STEPS = ['passkey', 'fund', 'mandate', 'connect', 'firstCall', 'approve', 'receipt'];

/** The walkthrough's step buttons on its page (VS Code's Welcome editor). */
function walkthroughSteps(p: Page): ReturnType<Page['locator']> {
  return p.locator(WALKTHROUGH_STEPS.map((id) => `button.getting-started-step[data-step-id$="${id}"]`).join(', '));
}

function walkthroughStep(p: Page, id: string): ReturnType<Page['locator']> {
  return p.locator(`button.getting-started-step[data-step-id$="#${id}"], button.getting-started-step[data-step-id="${id}"]`).first();
}

/** Each step and whether VS Code shows it done (`aria-checked`). */
async function walkthroughState(p: Page): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for (const id of WALKTHROUGH_STEPS) out.push([id, (await walkthroughStep(p, id).getAttribute('aria-checked')) ?? 'missing']);
  return out;
}

interface ToolOutput {
  text: string;
  structured: Record<string, unknown> | undefined;
}

interface ApprovalJson {
  id: string;
  agent: string;
  status: string;
  channel: string | null;
}

async function approvalOf(bridge: Bridge, id: string): Promise<ApprovalJson> {
  const all = await cli<ApprovalJson[]>(bridge, ['approvals', '--all']);
  const a = all.find((x) => x.id === id);
  if (!a) throw new Error(`no approval ${id} in holon approvals --all`);
  return a;
}

test(
  'Holon in code-server, clicked in Chromium: fund, select, approve, reject, elicitation, another client',
  { timeout: 600_000 },
  async () => {
    const timings: string[] = [];
    /** One step of the story: timed, and named in the failure. */
    const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      const start = Date.now();
      try {
        const value = await fn();
        timings.push(`${name}: ${since(start)}`);
        process.stderr.write(`[editor] browser: ${name} (${since(start)})\n`);
        return value;
      } catch (err) {
        (err as Error).message = `step "${name}" failed: ${(err as Error).message}`;
        throw err;
      }
    };
    const started = Date.now();
    await step('tools', () => ensureTools());

    const { vsix, files, bytes } = await step('package the vsix', () => packageVsix());
    const stray = files.filter(
      (f) => !['extension.vsixmanifest', '[Content_Types].xml'].includes(f) && !VSIX_ALLOWED.some((re) => re.test(f)),
    );
    assert.deepEqual(stray, [], `the vsix holds files that do not run (fix .vscodeignore): ${stray.join(', ')}`);
    for (const needed of [
      'extension/package.json',
      'extension/dist/extension.js',
      'extension/dist/holon.js',
      'extension/dist/webview/holonView.js',
      'extension/dist/examples/catalog.json',
      'extension/skills/confirming-the-atr-hash-before-paying/SKILL.md',
      'extension/dist/apps/holon.html',
    ]) {
      assert.ok(files.includes(needed), `the vsix lacks ${needed}`);
    }
    assert.ok(
      bytes <= VSIX_MAX_BYTES,
      `the vsix is ${bytes} bytes, above ${VSIX_MAX_BYTES}: \`npm run package\`, then \`unzip -v holon-*.vsix | sort -k3 -rn | head\` shows what grew`,
    );
    // One copy of the MCP SDK (and zod) in the package, which the CLI and every demo agent share.
    const stage = path.dirname(vsix);
    const scripts = files.filter((f) => /\.m?js$/.test(f)).map((f) => f.replace(/^extension\//, ''));
    const carrying = (marker: string): string[] => scripts.filter((f) => fs.readFileSync(path.join(stage, f), 'utf8').includes(marker));
    assert.deepEqual(carrying('Server does not support'), ['dist/sdk.js'], 'the MCP server SDK is in dist/sdk.js only');
    assert.deepEqual(carrying('Client does not support'), ['dist/sdk.js'], 'the MCP client SDK is in dist/sdk.js only');
    // The MCP Apps' page is one file every ui:// view is served from: it carries its own copy of the ext-apps
    // client and zod (a browser page cannot share dist/sdk.js), English messages only. ext-apps 2 runs on the
    // SDK v2's protocol core, which carries every revision's codec: 355 kB (98 kB in the package) where
    // ext-apps 1 took 282 kB.
    const appsPage = fs.statSync(path.join(stage, 'dist', 'apps', 'holon.html')).size;
    assert.ok(appsPage < 365_000, `dist/apps/holon.html is ${appsPage} bytes`);
    process.stderr.write(
      `[editor] vsix: ${(bytes / 1024 / 1024).toFixed(2)} MB (${bytes} bytes), ${files.length} files; the apps' page ${appsPage} bytes\n`,
    );

    // Light Modern: what a new user found pale (orange amounts on white) is checked in it.
    let bridgeReady: Bridge | undefined;
    const options: EditorRunOptions = {
      vsix,
      settings: { 'workbench.colorTheme': 'Light Modern' },
      // A hung step must not hang the test run: past this, everything is stopped and the pending step fails.
      watchdogMs: 420_000,
      onWatchdog: () => process.stderr.write('[editor] browser: watchdog fired, stopping the browser and code-server\n'),
      // The failure screenshot shows every notification, toasted or not.
      beforeCapture: async () => {
        if (bridgeReady) await host(bridgeReady, '/command', { id: 'notifications.showList' });
      },
    };
    await withEditor('browser', options, async ({ dirs, editor, consoleLines, installed, defer }) => {
      const bridge = await step('open the workbench', async () => {
        const b = await openEditor(dirs, editor, consoleLines);
        assert.ok(b.holonJs.startsWith(installed + path.sep), `Holon runs from ${b.holonJs}, not from the installed vsix ${installed}`);
        process.stderr.write(`[editor] Holon activated in ${b.activationMs} ms\n`);
        await screenshot(editor.page as Page, '01-workbench');
        return b;
      });
      bridgeReady = bridge;
      const p = editor.page as Page;
      const statusBar = p.locator('#workbench\\.parts\\.statusbar');
      const clearNotifications = (): Promise<unknown> => host(bridge, '/command', { id: 'notifications.clearAll' });

      await step(
        "a new user's palette offers only what applies: no Approve with nothing waiting, no team store's password, no empty proposal, nothing to edit",
        async () => {
          for (const title of [
            'Holon: Approve…',
            'Holon: Reject…',
            'Holon: Set Team Store Password',
            'Holon: Clear Team Store Password',
            'Holon: Show Personnel Proposal',
            'Holon: Edit Mandate',
          ]) {
            assert.equal(await paletteOffers(p, title), false, `the palette offers ${title}, which does not apply`);
          }
          assert.equal(await paletteOffers(p, 'Holon: Create Mandate'), true);
        },
      );

      await step(
        'a fresh install: Holon: Get Started opens the walkthrough, seven steps and none done; its Fund Account funds the account and checks the step',
        async () => {
          await runCommand(p, 'Holon: Get Started');
          const steps = walkthroughSteps(p);
          await until(async () => (await steps.count()) === WALKTHROUGH_STEPS.length, "the walkthrough's seven steps", 30_000, 250);
          assert.deepEqual(
            await walkthroughState(p),
            WALKTHROUGH_STEPS.map((id) => [id, 'false']),
          );
          await screenshot(p, '01-walkthrough-fresh');
          // The passkey step comes first and is optional (a passkey is added last, below); Fund Account's button funds.
          const fund = walkthroughStep(p, 'fund');
          if ((await fund.getAttribute('aria-expanded')) !== 'true') await fund.click();
          await fund
            .locator('a, button, .monaco-button')
            .filter({ hasText: /^Fund Account$/ })
            .first()
            .click();
          await answerInput(p, /Account to fund/, 'demo');
          await answerInput(p, /Amount in EUR/, '20');
          await p.locator('.quick-input-widget').waitFor({ state: 'hidden' });
          await until(async () => (await fund.getAttribute('aria-checked')) === 'true', "the walkthrough's fund step done", 15_000, 250);
          await screenshot(p, '01-walkthrough-funded');
        },
      );

      await step(
        'create the mandate in the form: what does not parse is refused in the form; two lines are two capabilities; a confirmation; Edit reveals the same tab',
        async () => {
          await runCommand(p, 'Holon: Create Mandate');
          const form = await webview(p, 'mandate-form');
          const field = (name: string, inner = 'input'): ReturnType<FrameLocator['locator']> =>
            form.locator(`[data-testid="field-${name}"] ${inner}`);
          await field('id').fill(MANDATE);
          await field('grantee').fill(GRANTEE);
          await field('total').fill('20');
          await field('perDay').fill('20');
          await field('perCall').fill('5');
          await field('threshold').fill('0.50');
          await field('regions').fill('EU');
          await field('retentionDays').fill('30');
          // The help says one per line; a human who writes both on one line is told so in the form, and nothing is saved.
          assert.match(await form.locator('[data-field="capabilities"] .field-help').innerText(), /One per line/);
          await field('capabilities', 'textarea').fill('extraction.*, pipeline.*');
          await form.locator('[data-testid="mandate-save"]').click();
          await form.locator('[data-testid="error-capabilities"]').waitFor();
          assert.match(await form.locator('[data-testid="error-capabilities"]').innerText(), /put each on its own line/);
          await screenshot(p, '02-mandate-form-refused');
          assert.deepEqual(await cli(bridge, ['mandate', 'list']), [], 'nothing was saved');
          await field('capabilities', 'textarea').fill('extraction.*\npipeline.*');
          await form.locator('[data-testid="mandate-save"]').click();
          await form.locator('[data-testid="mandate-saved"]:not([hidden])').waitFor();
          const shown = await cli<{
            capabilities: { name: string; params?: { capabilities?: string[] } }[];
            grantee: { name: string };
            budget_view: { account: { funded: { amount: string } } };
          }>(bridge, ['mandate', 'show', MANDATE]);
          assert.deepEqual(shown.capabilities.find((c) => c.name === 'market.call')?.params?.capabilities, ['extraction.*', 'pipeline.*']);
          assert.equal(shown.grantee.name, GRANTEE);
          assert.equal(shown.budget_view.account.funded.amount, '20.00');
          // The human is told it worked, and what the mandate now allows.
          await host(bridge, '/command', { id: 'notifications.showList' });
          await p
            .locator('.notifications-center .notification-list-item', { hasText: `mandate ${MANDATE} created` })
            .first()
            .waitFor();
          await screenshot(p, '02-mandate-created');
          await host(bridge, '/command', { id: 'notifications.hideList' });
          // Editing it (twice) shows the one panel it has, never a second tab with the same title.
          const tabs = p.locator('.tabs-container .tab', { hasText: `Mandate ${MANDATE}` });
          for (let i = 0; i < 2; i++) {
            await runCommandAndPick(p, 'Holon: Edit Mandate', MANDATE);
            await p.locator('.quick-input-widget').waitFor({ state: 'hidden' });
            await webview(p, 'mandate-form');
            assert.equal(await tabs.count(), 1, 'one tab for the mandate');
          }
          await host(bridge, '/command', { id: 'workbench.action.closeAllEditors' });
        },
      );

      await step('select the mandate through the command palette', async () => {
        // Creating the first mandate selected it; the human picks it again from the palette.
        await runCommandAndPick(p, 'Holon: Select Mandate', MANDATE);
        await statusBar
          .locator('.statusbar-item', { hasText: `${MANDATE} · 20.00 EUR` })
          .first()
          .waitFor();
        await screenshot(p, '02-mandate-selected');
        await statusBar.screenshot({ path: path.join(RESULTS, '02-statusbar.png') });
      });

      await step('add the demo agents through the command palette', async () => {
        await runCommand(p, 'Holon: Add Agent');
        await pick(p, 'Demo catalog');
        await until(
          async () => JSON.stringify(await cli(bridge, ['agents', 'list'])).includes(PIPELINE),
          'the demo agents in the catalog',
          15_000,
          250,
        );
      });

      await step('VS Code starts the server; the market tools are live', async () => {
        const { tools } = await host<{ tools: string[] }>(bridge, '/startServer');
        assert.equal(tools.length, 6, tools.join(', '));
      });

      await step('a call the mandate refuses is shown in the Holon view with its reasons, not only to the agent', async () => {
        const out = await host<ToolOutput>(bridge, '/invoke', {
          tool: 'call_agent',
          input: { agent: 'fastcheap/table-extract-us', input: { file: FACTURE } },
        });
        assert.equal(out.structured?.['status'], 'denied', out.text);
        await runCommand(p, 'Holon: Show Panel');
        const view = await webview(p, 'budget');
        const card = view.locator('.refusal-card').first();
        await card.waitFor();
        assert.match(await card.innerText(), /call_agent fastcheap\/table-extract-us/);
        assert.match(await card.innerText(), /processes data in US; the mandate allows only EU/);
        // Nothing waits for the human, and the view says that too.
        await view.locator('[data-testid="nothing-pending"]').waitFor();
        await screenshot(p, '03-denied-in-view');
      });

      const seen = new Set<string>();
      const pipelineCall = (files = INVOICES): Promise<ToolOutput> => {
        const call = host<ToolOutput>(bridge, '/invoke', { tool: 'call_agent', input: { agent: PIPELINE, input: { files } } });
        call.catch(() => {}); // awaited later; a failure meanwhile must not be unhandled
        return call;
      };
      const showView = async (): Promise<FrameLocator> => {
        await runCommand(p, 'Holon: Show Panel');
        return webview(p, 'budget');
      };

      const firstReceipt = await step(
        'a call above the threshold waits in the Holon view, focused when shown and readable in Light Modern; Approve in the webview runs it',
        async () => {
          await clearNotifications();
          const call = pipelineCall();
          let view = await showView();
          const id = await pendingInView(view, PIPELINE, seen);
          seen.add(id);
          await view.locator(`[data-testid="approval-amount-${id}"]`).waitFor();
          await statusBar.locator('.statusbar-item', { hasText: MANDATE }).first().waitFor();
          // The status bar counts down the time left to decide: it reads one value, then a smaller one.
          const badge = statusBar.locator('.statusbar-item', { hasText: /1 ·\s*\d+:\d{2}/ }).first();
          await badge.waitFor();
          const left = async (): Promise<number> => {
            const [, m, sec] = /1 ·\s*(\d+):(\d{2})/.exec(await badge.innerText()) ?? [];
            return Number(m) * 60 + Number(sec);
          };
          const first = await left();
          await until(async () => (await left()) < first, 'the status bar to count down', 15_000, 250);
          // Something waits now: the palette offers Approve… (it did not while nothing waited).
          assert.equal(await paletteOffers(p, 'Holon: Approve…'), true);
          // From the editor, the keyboard reaches the view through Holon: Show Panel: the focus lands on what waits,
          // and its Approve is two Tabs away (past the folded input).
          await host(bridge, '/command', { id: 'workbench.action.focusFirstEditorGroup' });
          await runCommand(p, 'Holon: Show Panel');
          view = await webview(p, 'budget');
          await view.locator(`[data-testid="approval-${id}"]:focus`).waitFor();
          const tabs = await tabsTo(p, view, `[data-testid="approve-${id}"]`);
          process.stderr.write(
            `[editor] keyboard: after Holon: Show Panel the focus is in the view, on the waiting approval; ${tabs} Tab press(es) reach its Approve\n`,
          );
          assert.ok(tabs !== undefined && tabs <= 2, `Approve is ${tabs ?? 'more than 20'} Tab presses away`);
          // In Light Modern, the amounts are as readable as the text around them (4.5:1 at least).
          for (const testId of [`approval-amount-${id}`, `approval-threshold-${id}`, 'budget-remaining']) {
            const { ratio, fg, bg } = await contrastOf(view.locator(`[data-testid="${testId}"]`).first());
            process.stderr.write(`[editor] contrast of ${testId}: ${ratio.toFixed(2)} (${fg} on ${bg})\n`);
            assert.ok(ratio >= 4.5, `${testId} is ${fg} on ${bg}: contrast ${ratio.toFixed(2)}, under 4.5`);
          }
          // Holon's notification offers it too.
          await host(bridge, '/command', { id: 'notifications.showList' });
          const notice = p
            .locator('.notifications-center .notification-list-item', { hasText: 'asks you to approve' })
            .filter({ hasText: PIPELINE });
          await notice.first().waitFor();
          await screenshot(p, '03-holon-view-pending-approval');
          await statusBar.screenshot({ path: path.join(RESULTS, '03-statusbar-waiting.png') });
          await host(bridge, '/command', { id: 'notifications.hideList' });
          await view.locator(`[data-testid="approve-${id}"]`).click();
          const out = await call;
          assert.equal(out.structured?.['status'], 'succeeded', out.text);
          const a = await approvalOf(bridge, id);
          assert.deepEqual([a.status, a.channel], ['used', 'panel']);
          await view.locator(`[data-testid="approval-${id}"]`).waitFor({ state: 'detached' });
          // Decided in the view, Holon's notification stays (VS Code cannot close one from code); its buttons then
          // say so and decide nothing (notices.test.ts).
          await host(bridge, '/command', { id: 'notifications.showList' });
          // The server withdrew its elicitation, but VS Code 1.139 leaves its notification up: answering it
          // now (Reject) must change nothing — the first decision won.
          const stale = p.locator('.notifications-center .notification-list-item', { hasText: `Approval ${id}` }).first();
          await stale.locator('a.monaco-button', { hasText: 'Respond' }).click();
          await pick(p, 'Reject');
          await p.locator('.quick-input-widget').waitFor({ state: 'hidden' });
          await screenshot(p, '03-stale-elicitation-answered');
          const after = await approvalOf(bridge, id);
          assert.deepEqual([after.status, after.channel], ['used', 'panel']);
          await host(bridge, '/command', { id: 'notifications.hideList' });
          // What it cost, at the currency's precision; the exact amount on hover.
          const spent = view.locator('[data-testid="budget-spent"] .amount');
          await until(async () => (await spent.getAttribute('title')) !== '0.00 EUR', 'the spend in the view', 15_000, 250);
          assert.match(await spent.innerText(), /^\d+\.\d{2} EUR$/);
          assert.match((await spent.getAttribute('title')) ?? '', /^\d+\.\d{3,6} EUR$/, 'the exact amount has more digits than cents');
          return String(out.structured?.['receipt']);
        },
      );

      await step('the receipts panel shows its tree with the 4 delegated calls', async () => {
        await runCommand(p, 'Holon: Show Receipts');
        const panel = await webview(p, 'receipt-tree');
        await panel.locator(`[data-testid="receipt-row-${firstReceipt}"]`).waitFor();
        await until(
          async () => (await panel.locator('[data-testid="receipt-node"]').count()) === 5,
          'the receipt tree: the call and its 4 delegated calls',
          15_000,
        );
        await screenshot(p, '04-receipts-tree');
      });

      await step(
        "spend at a glance: today's bar and the pipeline's bar in the Holon view; Enter on a bar opens the receipts behind it",
        async () => {
          const view = await showView();
          const chart = view.locator('[data-testid="spend-chart"]');
          await chart.waitFor();
          const days = view.locator('[data-testid="spend-chart"] .chart-bar');
          assert.equal(await days.count(), 30);
          const today = view.locator('[data-testid="spend-chart"] button.chart-bar').last();
          assert.match((await today.getAttribute('aria-label')) ?? '', /^\d{4}-\d{2}-\d{2}: \d+\.\d{2} EUR\. Show these spends$/);
          await view.locator('[data-testid="spend-limit"]').waitFor({ state: 'attached' });
          const payee = view.locator(`[data-testid="spend-payee-agent:${PIPELINE}"]`);
          await payee.waitFor();
          await screenshot(p, '04-spend-chart');
          // The keyboard opens it: focus the bar, Enter.
          await payee.focus();
          await p.keyboard.press('Enter');
          const panel = await webview(p, 'spends-narrow');
          assert.equal(
            await panel.locator('[data-testid="spends-narrow-label"]').innerText(),
            `Spends paid to ${PIPELINE} in the last 30 days`,
          );
          const rows = panel.locator('[data-testid^="spend-"][data-kind]');
          await until(async () => (await rows.count()) > 0, 'the spends behind the bar', 15_000, 250);
          for (const to of await panel.locator('[data-testid="spend-to"]').allInnerTexts()) assert.equal(to, PIPELINE);
          await screenshot(p, '04-receipts-behind-a-bar');
          await panel.locator('[data-testid="spends-show-all"]').click();
          await panel.locator('[data-testid="spends-narrow"]').waitFor({ state: 'detached' });
        },
      );

      await step("the walkthrough's six steps are done: fund, mandate, connect, first call, approve, receipt; the passkey's is not yet", async () => {
        await runCommand(p, 'Holon: Get Started');
        await until(
          async () =>
            JSON.stringify(await walkthroughState(p)) === JSON.stringify(WALKTHROUGH_STEPS.map((id) => [id, id === 'passkey' ? 'false' : 'true'])),
          'every walkthrough step checked',
          30_000,
          250,
        );
        await screenshot(p, '04-walkthrough-done');
      });

      await step('the Holon view and the receipts panel in the light, dark and high-contrast themes', async () => {
        for (const [theme, body] of [
          ['Dark Modern', 'vscode-dark'],
          ['Default High Contrast', 'vscode-high-contrast'],
          ['Default High Contrast Light', 'vscode-high-contrast-light'],
          ['Light Modern', 'vscode-light'],
        ] as const) {
          await host(bridge, '/setting', { section: 'workbench', key: 'colorTheme', value: theme });
          await runCommand(p, 'Holon: Show Receipts');
          const panel = await webview(p, 'receipt-tree');
          await until(
            async () => (await panel.locator('body').getAttribute('class'))?.split(' ').includes(body),
            `the receipts panel in ${theme}`,
            30_000,
            250,
          );
          await screenshot(p, `05-theme-${body}-receipts`);
          const view = await showView();
          await until(
            async () => (await view.locator('body').getAttribute('class'))?.split(' ').includes(body),
            `the Holon view in ${theme}`,
            30_000,
            250,
          );
          await view.locator('[data-testid="spend-chart"]').waitFor();
          // Every bar is still drawn in the theme's colours, and an amount stays readable (4.5:1 at least).
          const { ratio, fg, bg } = await contrastOf(view.locator('[data-testid="budget-remaining"]').first());
          assert.ok(ratio >= 4.5, `in ${theme}, the remaining budget is ${fg} on ${bg}: contrast ${ratio.toFixed(2)}`);
          await screenshot(p, `05-theme-${body}-view`);
        }
      });

      await step('a second call is rejected in the Holon view', async () => {
        await clearNotifications();
        const call = pipelineCall();
        const view = await showView();
        const id = await pendingInView(view, PIPELINE, seen);
        seen.add(id);
        await view.locator(`[data-testid="reject-${id}"]`).click();
        const out = await call;
        assert.equal(out.structured?.['status'], 'rejected', out.text);
        const a = await approvalOf(bridge, id);
        assert.deepEqual([a.status, a.channel], ['rejected', 'panel']);
      });

      await step("a third call is approved through VS Code's elicitation notification", async () => {
        // VS Code holds back a toast while the focus is where it would appear (the receipts panel is there).
        await host(bridge, '/command', { id: 'workbench.action.closeAllEditors' });
        const view = await showView();
        await clearNotifications();
        const call = pipelineCall();
        const id = await pendingInView(view, PIPELINE, seen);
        seen.add(id);
        // The notification as the human finds it in the notification center (the bell), where it stays
        // until answered; toasts come and go.
        await statusBar.locator('[id="status.notifications"] a, [id="status.notifications"]').first().click();
        const note = p.locator('.notifications-center .notification-list-item', { hasText: `Approval ${id}` }).first();
        await note.waitFor();
        await screenshot(p, '05-elicitation-notification');
        await note.locator('a.monaco-button', { hasText: 'Respond' }).click();
        await p.locator('.quick-input-list .monaco-list-row', { hasText: 'Reject' }).first().waitFor();
        await screenshot(p, '05-elicitation-respond');
        await pick(p, 'Approve');
        const out = await call;
        assert.equal(out.structured?.['status'], 'succeeded', out.text);
        const a = await approvalOf(bridge, id);
        assert.deepEqual([a.status, a.channel], ['used', 'elicitation']);
      });

      await step(
        'a call from a separate holon mcp client on the same state is approved with Holon: Approve…, whose dialog says what the card says',
        async () => {
          await clearNotifications();
          const env = Object.fromEntries(
            Object.entries(process.env).filter((e): e is [string, string] => e[0] !== 'HOLON_STATE' && e[1] !== undefined),
          );
          const transport = new StdioClientTransport({
            command: process.execPath,
            args: [bridge.holonJs, 'mcp', '--mandate', MANDATE, '--state', bridge.stateDir, ...storeArgs(bridge), '--approval-wait', '120'],
            env,
            stderr: 'pipe',
          });
          const client = new Client({ name: 'holon-editor-test-client', version: '0.1.0' });
          defer(() => client.close());
          await client.connect(transport);
          const call = client.callTool(
            { name: 'call_agent', arguments: { agent: PIPELINE, input: { files: INVOICES.slice(0, 2) } } },
            { timeout: 180_000, resetTimeoutOnProgress: true, onprogress: () => {} },
          );
          call.catch(() => {});
          const view = await showView();
          const id = await pendingInView(view, PIPELINE, seen);
          seen.add(id);
          await screenshot(p, '06-other-client-pending');
          // The card's words: who asked (the grantee's name, and the machine) and when, in local time.
          const askedBy = (await view.locator(`[data-testid="approval-asked-by-${id}"]`).innerText()).trim();
          const requested = (await view.locator(`[data-testid="approval-requested-${id}"]`).innerText()).trim();
          assert.ok(askedBy.startsWith(GRANTEE), askedBy);
          await runCommand(p, 'Holon: Approve…');
          // By keyboard, as a human at the palette would: a row's long detail opens a hover that can sit over
          // the row where the pointer is.
          await p.locator('.quick-input-list .monaco-list-row', { hasText: id }).first().waitFor();
          await p.locator('.quick-input-widget .quick-input-box input').first().fill(id);
          await p.locator('.quick-input-list .monaco-list-row.focused', { hasText: id }).first().waitFor();
          await p.keyboard.press('Enter');
          const dialog = p.locator('.monaco-dialog-box');
          await dialog.waitFor();
          const said = await dialog.innerText();
          await screenshot(p, '06-approve-dialog');
          assert.ok(said.includes(`Asked by: ${askedBy}`), `the dialog names who asked as the card does (${askedBy}):\n${said}`);
          assert.ok(said.includes(`Requested: ${requested}`), `the dialog's time is the card's (${requested}):\n${said}`);
          assert.ok(
            !said.includes(`Asked by ${MANDATE}`) && !/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(said),
            `no mandate id for a name, no UTC timestamp:\n${said}`,
          );
          await dialog.locator('a.monaco-button', { hasText: 'Approve' }).click();
          const out = (await call) as { structuredContent?: Record<string, unknown> };
          assert.equal(out.structuredContent?.['status'], 'succeeded', JSON.stringify(out).slice(0, 2000));
          const a = await approvalOf(bridge, id);
          assert.deepEqual([a.status, a.channel], ['used', 'panel']);
          const receipt = String(out.structuredContent?.['receipt']);
          await runCommand(p, 'Holon: Show Receipts');
          const panel = await webview(p, 'receipt-tree');
          await panel.locator(`[data-testid="receipt-row-${receipt}"]`).waitFor();
          await screenshot(p, '07-receipts-other-client');
        },
      );

      await step(
        'a payment under terms, above the threshold, is approved in the Holon view; the seller takes it, and it is spent once it lands on the chain',
        async () => {
          await clearNotifications();
          // The human imports their wallet through the palette: it becomes this state's one wallet.
          const key = generatePrivateKey();
          const address = privateKeyToAccount(key).address;
          await runCommand(p, 'Holon: Import Wallet');
          await answerInput(p, /private key/, key);
          await p.locator('.quick-input-widget').waitFor({ state: 'hidden' });
          await host(bridge, '/command', { id: 'holon.showPanel' });
          const view = await webview(p, 'budget');
          await until(
            async () => (await view.locator('[data-testid="wallet-address"]').textContent())?.trim() === address,
            'the wallet in the Holon view',
            30_000,
            250,
          );
          // `holon wallet` in the editor's terminal (the same state) names the same wallet: one state, one wallet.
          assert.deepEqual(await cli(bridge, ['wallet']), { address, balances: null });
          // Its key is in the state folder (readable by the user only), never in the ledger.
          const walletFile = path.join(bridge.stateDir, 'keys', 'wallet.key');
          assert.equal(fs.statSync(walletFile).mode & 0o077, 0, "the key file is the user's alone");
          const journal = path.join(bridge.stateDir, 'journal.jsonl');
          if (fs.existsSync(journal))
            assert.equal(fs.readFileSync(journal, 'utf8').includes(key.slice(2)), false, 'the key is not in the journal');
          const seller = await startSeller('honest', { amount: '1000000' });
          try {
            // The seller settles on the local chain: the wallet holds the token there (1 USDC for the payment,
            // 2.5 more and some ETH that the view shows it keeps).
            const chain = await localChain();
            await chain.fund(address, { usdc: 3_500_000n, eth: 10n ** 16n });
            await cli(bridge, ['fx', 'USDC', 'EUR', '0.92']);
            await cli(bridge, [
              'mandate',
              'create',
              BUYER,
              '--toolsets',
              'terms',
              '--threshold',
              '0.50',
              '--total',
              '5',
              '--payees',
              `${TEST_NETWORK}:${SELLER}`,
            ]);
            // The seller runs on this machine: reaching it takes the human's explicit setting.
            await host(bridge, '/setting', { key: 'terms.allowPrivateSellers', value: true });
            // Holon signs only on the chain the human configured (user settings, the RPC URL last: it is the one
            // that turns the chain on): the server started for the mandate below reads its payments back there,
            // and the view reads what the wallet holds there (viem's client, which the extension loads only then).
            await host(bridge, '/setting', { key: 'chain.id', value: chain.chainId });
            await host(bridge, '/setting', { key: 'chain.token', value: chain.token });
            await host(bridge, '/setting', { key: 'chain.rpcUrl', value: chain.rpcUrl });
            // Choosing a mandate from the palette is covered above; here the command is run with the id.
            await host(bridge, '/command', { id: 'holon.selectMandate', args: [BUYER] });
            await host(bridge, '/startServer', { tools: ['atr_confirm', 'atr_transact'] });
            const call = host<ToolOutput>(bridge, '/invoke', {
              tool: 'atr_transact',
              input: { pairing: 'x402/exact/eip155', document: seller.document },
            });
            call.catch(() => {});
            const id = await until(
              async () => {
                const cards = view.locator('[data-kind="payment"]');
                return (await cards.count()) > 0
                  ? ((await cards.first().getAttribute('data-testid')) ?? '').slice('approval-'.length) || undefined
                  : undefined;
              },
              'the payment approval in the Holon view',
              60_000,
              250,
            );
            // The card names the address that will sign: the wallet the view shows, the terminal's too.
            assert.match(await view.locator(`[data-testid="approval-${id}"] dl`).innerText(), new RegExp(`Signed by\\s+${address}`));
            await screenshot(p, '08-payment-approval');
            await view.locator(`[data-testid="approve-${id}"]`).click();
            const out = await call;
            const signed = out.structured?.['signed'];
            assert.ok(signed, out.text);
            assert.equal(out.structured?.['atrHash'], seller.hash);
            const a = await approvalOf(bridge, id);
            assert.deepEqual([a.status, a.channel], ['used', 'panel']);
            const res = await fetch(`${seller.url}/resource`, {
              headers: { 'payment-signature': encodePaymentSignatureHeader(signed as never) },
            });
            assert.equal(res.status, 200, seller.refused.join());
            assert.equal(
              (seller.accepted[0] as { payload: { authorization: { from: string } } }).payload.authorization.from,
              address,
              'signed by the wallet the human imported',
            );
            // Held until the server reads the payment landed on the chain; then spent: 1.00 USDC at 0.92.
            type Budget = { spent: { amount: string }; held: { amount: string } };
            await until(
              async () => {
                const b = (await cli<Budget[]>(bridge, ['budget', BUYER]))[0];
                return b?.spent.amount === '0.92' && Number(b.held.amount) === 0;
              },
              'the payment to be read landed and counted as spent',
              60_000,
              250,
            );
            // The payment moved the wallet's money: the view reads it again, on the chain.
            const holds = view.locator('[data-testid="wallet-holdings"]');
            await until(
              async () => /holds 2\.5 USDC and 0\.01 ETH on eip155:31337/.test((await holds.count()) > 0 ? await holds.innerText() : ''),
              "the wallet's balances in the Holon view",
              30_000,
              250,
            );
            await holds.scrollIntoViewIfNeeded();
            await screenshot(p, '08b-wallet-holdings');
            await host(bridge, '/setting', { key: 'chain.rpcUrl', value: '' });
          } finally {
            await seller.close();
          }
        },
      );

      await step(
        "every spend of the account is in the receipts panel, demo/buyer's payment too, narrowed by mandate; demo/sandbox's view says what the other mandate spent",
        async () => {
          await runCommand(p, 'Holon: Show Receipts');
          const panel = await webview(p, 'spends');
          const payment = panel
            .locator('[data-kind="payment"]')
            .filter({ has: panel.locator('[data-testid="spend-mandate"]', { hasText: BUYER }) });
          await payment.first().waitFor();
          assert.equal(await payment.locator('[data-testid="spend-amount"]').first().innerText(), '0.92 EUR');
          assert.ok((await panel.locator('[data-kind="call"]').count()) >= 3, 'the calls of demo/sandbox are spends of the same account');
          await screenshot(p, '09-receipts-every-spend');
          // Narrowed to demo/buyer: its payment, and no call of demo/sandbox.
          await panel.locator('[data-testid="receipts-mandate"]').click();
          await panel.locator('[data-testid="receipts-mandate"] li', { hasText: BUYER }).first().click();
          await until(async () => (await panel.locator('[data-kind="call"]').count()) === 0, 'the spends of demo/buyer alone', 15_000, 250);
          assert.equal(await payment.count(), 1);
          await screenshot(p, '09-receipts-demo-buyer');
          await host(bridge, '/command', { id: 'workbench.action.closeAllEditors' });
          // demo/sandbox spent nothing meanwhile, yet its Remaining fell: its view says the account's other mandate spent it.
          await host(bridge, '/command', { id: 'holon.selectMandate', args: [MANDATE] });
          await host(bridge, '/command', { id: 'holon.showPanel' });
          const view = await webview(p, 'budget');
          await view.locator('[data-testid="budget-limited-by-account"]').waitFor();
          assert.equal(await view.locator('[data-testid="account-others-spent"]').innerText(), '0.92 EUR');
          assert.match(await view.locator('[data-testid="budget-limited-by-account"]').innerText(), /its other mandates spent 0\.92 EUR/);
          await screenshot(p, '09-account-beside-mandate');
        },
      );

      await step(
        'an HR proposal that removes capabilities shows in the diff panel, removals first and in red; Merge changes the mandate and the next call sees it',
        async () => {
          await clearNotifications();
          // The human sets up an office of three colleagues (the demo's) on this state.
          const office = await openStore(bridge.stateDir, { clock: systemClock, logger: silentLogger, watch: false, store: bridge.store });
          try {
            await seedOffice(office, systemClock);
          } finally {
            office.close();
          }
          const agentClient = async (mandate: string): Promise<Client> => {
            const env = Object.fromEntries(
              Object.entries(process.env).filter((e): e is [string, string] => e[0] !== 'HOLON_STATE' && e[1] !== undefined),
            );
            const c = new Client({ name: 'holon-editor-office-client', version: '0.1.0' });
            await c.connect(
              new StdioClientTransport({
                command: process.execPath,
                args: [bridge.holonJs, 'mcp', '--mandate', mandate, '--state', bridge.stateDir, ...storeArgs(bridge)],
                env,
                stderr: 'pipe',
              }),
            );
            return c;
          };
          const lead = await agentClient(DEMO_OFFICE.lead);
          const ada = await agentClient(DEMO_OFFICE.ada);
          try {
            const proposed = (await lead.callTool({
              name: 'hr_propose_change',
              arguments: { slug: 'ada', reason: 'Ada moves to the docs team', remove_capabilities: ['forge.write', 'artifact.publish'] },
            })) as { structuredContent?: { approval?: string; title?: string } };
            const approval = String(proposed.structuredContent?.approval);
            assert.equal(proposed.structuredContent?.title, 'Change ada ⚠ removes 2');
            await host(bridge, '/command', { id: 'holon.showPanel' });
            const view = await webview(p, 'budget');
            await view.locator(`[data-testid="approval-removes-${approval}"]`).waitFor();
            assert.equal((await view.locator(`[data-testid="approval-removes-${approval}"]`).textContent())?.trim(), 'Removes 2');
            await view.locator(`[data-testid="diff-${approval}"]`).click();
            const panel = await webview(p, 'proposal-title');
            const block = panel.locator('[data-testid="proposal-removals-block"]');
            await block.waitFor();
            assert.deepEqual(await panel.locator('[data-testid="proposal-removals"] li').allTextContents(), [
              'loses: artifact.publish',
              'loses: forge.write',
            ]);
            // The removals come before the reason and the diff, and they are red.
            const order = await panel
              .locator('section')
              .evaluateAll((sections) =>
                sections.map(
                  (el) => el.getAttribute('data-testid') ?? el.querySelector('[data-testid]')?.getAttribute('data-testid') ?? '',
                ),
              );
            assert.equal(order[0], 'proposal-removals-block', order.join());
            const [r, g, b] = (
              (
                await block.evaluate(
                  (el) =>
                    (el.ownerDocument.defaultView as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(el)
                      .color,
                )
              ).match(/\d+/g) ?? []
            ).map(Number) as [number, number, number];
            assert.ok(r > g && r > b, `removals are shown in red (rgb ${r}, ${g}, ${b})`);
            assert.ok(
              (await panel.locator('[data-testid="proposal-diff"] td.del').count()) >= 2,
              'the removed lines are marked in the side-by-side diff',
            );
            await screenshot(p, '09-proposal-diff');
            assert.equal(
              (await ada.callTool({ name: 'artifact_list', arguments: {} })).isError,
              undefined,
              'nothing changed before the merge',
            );
            await panel.locator('[data-testid="proposal-merge"]').click();
            await until(
              async () => (await panel.locator('[data-testid="proposal-status"]').textContent())?.startsWith('Merged') || undefined,
              'the panel to say merged',
              30_000,
              250,
            );
            const shown = await cli<{ capabilities: { name: string }[] }>(bridge, ['mandate', 'show', DEMO_OFFICE.ada]);
            assert.deepEqual(
              shown.capabilities.map((c) => c.name).filter((n) => n === 'forge.write' || n === 'artifact.publish'),
              [],
            );
            const refused = (await ada.callTool({ name: 'artifact_list', arguments: {} })) as {
              isError?: boolean;
              content: { text: string }[];
            };
            assert.equal(refused.content[0]?.text, 'Not permitted: needs capability artifact.publish — use approval_request');
            await screenshot(p, '10-proposal-merged');
          } finally {
            await lead.close();
            await ada.close();
          }
        },
      );

      await step(
        'editing a mandate in the form signs again what merchants will see of it: a merchant refuses the old one, and a purchase after the edit carries the new terms',
        async () => {
          const shopper = 'shop/shopper';
          const shop = await startUcpMerchant({ ap2: { id: 'hardware', human: () => loadPublished(bridge.stateDir) } });
          let buyer: Client | undefined;
          try {
            await cli(bridge, ['fund', 'shop', '50', '--currency', 'USD']);
            await cli(bridge, [
              'mandate',
              'create',
              shopper,
              '--currency',
              'USD',
              '--toolsets',
              'commerce',
              '--threshold',
              '30.00',
              '--total',
              '50',
              '--grant',
              '{"commerce.buy": {"merchants": ["hardware"]}}',
            ]);
            const old = loadOpenMandates(bridge.stateDir, shopper);
            assert.deepEqual(old?.terms.cap, { amount: 3000, currency: 'USD' }, 'holon mandate create signed it');
            await runCommandAndPick(p, 'Holon: Edit Mandate', shopper);
            const form = await webview(p, 'mandate-form');
            assert.match(
              await form.locator('[data-testid="mandate-consent"]').innerText(),
              /Merchants will see this[\s\S]*up to 30\.00 USD a purchase/i,
            );
            await form.locator('[data-testid="field-threshold"] input').fill('1.00');
            await form.locator('[data-testid="mandate-save"]').click();
            await form.locator('[data-testid="mandate-saved"]:not([hidden])').waitFor();
            await form.locator('[data-testid="mandate-consent-terms"]', { hasText: 'up to 1.00 USD a purchase' }).waitFor();
            await screenshot(p, '11-mandate-consent-signed');
            const signed = loadOpenMandates(bridge.stateDir, shopper);
            assert.ok(old && signed && signed.payment !== old.payment, 'the form signed a new open mandate');
            assert.deepEqual(signed.terms.cap, { amount: 100, currency: 'USD' });
            assert.equal((await form.locator('[data-testid="mandate-consent-key"]').innerText()).trim(), signed.key);
            await host(bridge, '/command', { id: 'workbench.action.closeAllEditors' });

            // A gate bypassed, presenting the old open mandate for 1.08 USD (within the old cap, outside the new one): refused.
            const direct = new UcpCheckout({ id: 'hardware', protocol: 'ucp', url: shop.url }, fetch as never);
            const cart = await direct.create([{ product: 'sticker-pack', quantity: 2 }]);
            const key = loadAgentKey(bridge.stateDir);
            assert.ok(key && cart.ap2 && cart.total);
            const { presentation } = await signClosedMandates(
              key,
              old,
              {
                checkout: cart.ap2,
                payee: { id: 'hardware', name: 'hardware', website: cart.ap2.website },
                amount: { amount: 108, currency: 'USD' },
                instrument: { id: 'pur_bypassed', type: 'holon_mandate', description: 'bypassed' },
                audience: cart.ap2.website,
                now: Date.now(),
              },
              cart.id,
            );
            const refused = await direct.complete(cart.id, 'bypassed', { token: 'pur_bypassed' }, presentation).then(
              () => undefined,
              (e: unknown) => e as { details?: { code?: string } },
            );
            assert.equal(refused?.details?.code, 'mandate_scope_mismatch');
            assert.equal(shop.orders.length, 0);

            // Through Holon, within the new terms (0.54 USD): the merchant verifies and places the order.
            const env = Object.fromEntries(
              Object.entries(process.env).filter((e): e is [string, string] => e[0] !== 'HOLON_STATE' && e[1] !== undefined),
            );
            buyer = new Client({ name: 'holon-editor-buyer', version: '0.1.0' });
            await buyer.connect(
              new StdioClientTransport({
                command: process.execPath,
                args: [
                  bridge.holonJs,
                  'mcp',
                  '--mandate',
                  shopper,
                  '--state',
                  bridge.stateDir,
                  ...storeArgs(bridge),
                  '--merchant',
                  `hardware=ucp:${shop.url}`,
                ],
                env,
                stderr: 'pipe',
              }),
            );
            const bought = (await buyer.callTool({
              name: 'buy',
              arguments: { merchant: 'hardware', lines: [{ product: 'sticker-pack', quantity: 1 }], replay_key: 'after-edit' },
            })) as { isError?: boolean; structuredContent?: { consent?: { holds: boolean } } };
            assert.notEqual(bought.isError, true, JSON.stringify(bought.structuredContent));
            assert.equal(bought.structuredContent?.consent?.holds, true);
            assert.equal(shop.orders.length, 1);
            const body = shop.completionBodies.at(-1) as { ap2?: { open_payment_mandate?: string } };
            assert.equal(body.ap2?.open_payment_mandate, signed.payment, 'the purchase carried the open mandate the form signed');
          } finally {
            await buyer?.close().catch(() => {});
            await shop.close();
          }
        },
      );

      // Last: once a passkey guards the state, every decision above would be asked on its page.
      await step(
        'Holon: Add Passkey registers a passkey on its page in the browser; then Approve in the view is confirmed there, and Cancel in the notification leaves it pending',
        async () => {
          await clearNotifications();
          await host(bridge, '/command', { id: 'workbench.action.closeAllEditors' });
          const context = p.context();
          /**
           * The page Holon opened, as the human's browser shows it. code-server shows a localhost URL under the
           * workbench's own origin (/proxy/PORT/), here 127.0.0.1, where WebAuthn refuses the relying party
           * `localhost`: the page is taken at the direct address it forwards to, http://localhost:PORT/c/TOKEN/.
           */
          const nextPage = async (open: () => Promise<unknown>): Promise<{ page: Page; url: string }> => {
            const popup = context.waitForEvent('page');
            await open();
            const page = await popup;
            await page.waitForURL(/\/c\/[\w-]+\/?$/);
            const m = /^https?:\/\/[^/]+(?:\/proxy\/(\d+))?(\/c\/[\w-]+\/)$/.exec(page.url());
            assert.ok(m, `the passkey's page opened at ${page.url()}`);
            const url = m[1] ? `http://localhost:${m[1]}${m[2]}` : page.url();
            process.stderr.write(`[editor] the passkey's page opened at ${page.url()}; taken at ${url}\n`);
            return { page, url };
          };
          const register = await nextPage(async () => {
            await runCommand(p, 'Holon: Add Passkey');
            await answerInput(p, /A name for the passkey/, 'editor test key');
          });
          const authenticator = await attachAuthenticator(register.page);
          const registered = await pressOnPage(register.page, register.url, 'register');
          assert.equal(registered.state, 'done', registered.status);
          const credential = await exportCredential(authenticator);
          await register.page.close();
          await until(
            async () =>
              (await cli<{ guarded: boolean; passkeys: { label: string }[] }>(bridge, ['passkey', 'list'])).passkeys.some(
                (k) => k.label === 'editor test key',
              ),
            'the passkey in the state',
            30_000,
            250,
          );
          await host(bridge, '/command', { id: 'notifications.showList' });
          await p.locator('.notifications-center .notification-list-item', { hasText: 'only your passkey decides' }).first().waitFor();
          await screenshot(p, '12-passkey-added');

          // A call above the threshold: Approve in the view opens the page, and the passkey confirms there.
          await clearNotifications();
          let view = await showView();
          const call = pipelineCall();
          const id = await pendingInView(view, PIPELINE, seen);
          seen.add(id);
          const decide = await nextPage(() => view.locator(`[data-testid="approve-${id}"]`).click());
          await attachAuthenticator(decide.page, credential);
          assert.match(await (await decide.page.request.get(new URL('ceremony', decide.url).toString())).text(), /APPROVE/);
          const confirmed = await pressOnPage(decide.page, decide.url, 'confirm');
          assert.equal(confirmed.state, 'done', confirmed.status);
          await screenshot(decide.page, '12-passkey-confirmed');
          await decide.page.close();
          const out = await call;
          assert.equal(out.structured?.['status'], 'succeeded', out.text);
          assert.deepEqual((({ status, channel }) => [status, channel])(await approvalOf(bridge, id)), ['used', 'panel']);
          await view.locator(`[data-testid="approval-${id}"]`).waitFor({ state: 'detached' });
          const journal = path.join(bridge.stateDir, 'journal.jsonl');
          if (fs.existsSync(journal)) {
            const events = fs
              .readFileSync(journal, 'utf8')
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l) as { type: string; data: { id?: string } });
            const at = events.findIndex((e) => e.type === 'approval.decided' && e.data.id === id);
            assert.ok(at > 0, 'the decision is in the journal');
            assert.equal(events[at - 1]?.type, 'human.asserted', "the passkey's assertion comes right before the decision");
          }

          // Another: Approve opens the page, and Cancel in Holon's notification decides nothing.
          await clearNotifications();
          view = await showView();
          void pipelineCall();
          const other = await pendingInView(view, PIPELINE, seen);
          seen.add(other);
          // The server asked VS Code to open its own passkey page too (URL-mode elicitation); that notice is put
          // away, so that the center's list, which draws only what fits, shows the ones this step reads.
          await clearNotifications();
          const cancelled = await nextPage(() => view.locator(`[data-testid="approve-${other}"]`).click());
          await host(bridge, '/command', { id: 'notifications.showList' });
          const notice = p
            .locator('.notifications-center .notification-list-item', { hasText: 'confirm with your passkey on the page' })
            .first();
          await notice.waitFor();
          await screenshot(p, '12-passkey-notification');
          await notice.locator('a.monaco-button', { hasText: 'Cancel' }).click();
          // A center left with nothing in it closes itself: the warning is then a toast, so it is looked for in either.
          await p.locator('.notification-list-item', { hasText: 'not decided' }).first().waitFor();
          assert.equal((await approvalOf(bridge, other)).status, 'pending');
          // The page is closed: it answers nothing now.
          assert.equal((await cancelled.page.reload().catch(() => null))?.ok() ?? false, false, 'the cancelled page is no longer served');
          await cancelled.page.close();
          await view.locator(`[data-testid="approval-${other}"]`).waitFor();
        },
      );

      // Everything above went to the ledger the user's settings chose: the journal, or the team store (with no journal beside it).
      assert.equal(
        fs.existsSync(path.join(bridge.stateDir, 'journal.jsonl')),
        bridge.store === undefined,
        'the ledger is where the settings say',
      );
      process.stderr.write(
        `[editor] browser test passed in ${since(started)}${bridge.store ? ' on a team store' : ''}: ${timings.join('; ')}\n`,
      );
    });
  },
);
