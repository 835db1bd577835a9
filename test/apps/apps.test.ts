/**
 * The MCP Apps as a person sees them: a real `holon mcp` (the built binary, over stdio) serves each view,
 * the ext-apps package's host side (AppBridge, test/apps/host.ts) shows it in a sandboxed frame in
 * Debian's Chromium, and the view's own tool calls go back to the same server. Checked on the page: the
 * comparison's excluded agents, the card of a call that waits for the human (and that it updates when
 * the human decides elsewhere, and has nothing to click), a refused call's card in words, the receipt
 * tree's four delegated calls, the spend chart's bars against the daily limit (also for a host that does
 * not announce apps, as the ext-apps example host does not), the host's theme, where a call's payment
 * landed on a real local chain, and the server's name. Screenshots in test-results/apps/.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import * as esbuild from 'esbuild';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { systemClock } from '../../src/core/kernel/deps.ts';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { addAgent } from '../../src/core/market/catalog.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { createWallet } from '../../src/core/local/wallet.ts';
import { localChain } from '../../examples/chain/chain.ts';
import type { Seller } from '../../examples/sellers/x402Seller.ts';
import { startSeller } from '../../examples/sellers/x402Seller.ts';
import { allowPaying, chainFlags, onChain, x402Endpoint } from '../chain/support.ts';
import { manifest } from '../core/fixtures.ts';
import { FACTURE, HOLON_BIN, INVOICES, MANDATE, openAgain, PatientClient, ROOT, servedState, until } from '../helpers.ts';
import { launchChromium } from '../editor/harness.ts';

// What the host page (host.ts) and the browser give the functions page.evaluate runs there (this file is
// type-checked as Node code, without the DOM's types).
declare const window: { holonShow(show: unknown): Promise<void>; holonContext(context: unknown): void; holonCalls: string[] };
declare function getComputedStyle(element: unknown): { backgroundColor: string; colorScheme: string };

const RESULTS = path.join(ROOT, 'test-results', 'apps');
const PIPELINE = 'holon-labs/invoice-pipeline';
const LIGHT = { theme: 'light', styles: { variables: { '--color-background-primary': 'rgb(255, 255, 255)', '--color-text-primary': 'rgb(20, 20, 20)' } } };
const DARK = { theme: 'dark', styles: { variables: { '--color-background-primary': 'rgb(10, 20, 30)', '--color-text-primary': 'rgb(250, 240, 230)' } } };

let state: { dir: string; cleanup: () => void };
let client: PatientClient;
/** A host that renders apps without announcing it in its capabilities, as the ext-apps example host does. */
let plain: PatientClient;
/** The client whose server the view's own tool calls reach: the one that made the call it shows. */
let viewClient: PatientClient;
let tools: Tool[];
let seller: Seller | undefined;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];

/** The frame the host shows the view in. */
const app = (): FrameLocator => page.frameLocator('#app');

/** A `holon mcp` for the demo's mandate on the test's state, as a host starts it. */
function holonMcp(flags: string[] = []): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [HOLON_BIN, 'mcp', '--mandate', MANDATE, '--state', state.dir, '--approval-wait', '0', ...flags],
    stderr: 'pipe',
  });
}

before(async () => {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'apps', 'holon.html'))) execFileSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' });
  state = await servedState();
  // A host that renders apps says so, as VS Code does (capabilities.extensions).
  client = new PatientClient({ name: 'apps-host', version: '1.0.0' }, { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } } });
  await client.connect(holonMcp());
  viewClient = client;
  tools = (await client.listTools()).tools;
  plain = new PatientClient({ name: 'MCP Apps Host', version: '1.0.0' });
  await plain.connect(holonMcp());

  const host = await esbuild.build({ entryPoints: [path.join(__dirname, 'host.ts')], bundle: true, write: false, format: 'iife', platform: 'browser', target: 'es2022', logLevel: 'warning' });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 700, height: 960 } });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  await page.exposeFunction('holonCallTool', (params: { name: string; arguments?: Record<string, unknown> }) => viewClient.callTool(params));
  await page.setContent('<!DOCTYPE html><html><head><title>MCP Apps host</title></head><body></body></html>');
  await page.addScriptTag({ content: host.outputFiles[0]?.text ?? '' });
});

after(async () => {
  await browser?.close();
  await client?.close();
  await plain?.close();
  await seller?.close();
  state?.cleanup();
});

/** Calls `tool` through `via`, reads the view its `_meta` links, and has the host show the result in it. */
async function show(tool: string, args: Record<string, unknown>, context: object = LIGHT, via: PatientClient = client): Promise<CallToolResult> {
  const listed = tools.find((t) => t.name === tool);
  const uri = (listed?._meta?.['ui'] as { resourceUri?: string } | undefined)?.resourceUri;
  assert.ok(uri, `${tool} links no view`);
  viewClient = via;
  const result = (await via.callTool({ name: tool, arguments: args })) as CallToolResult;
  const content = (await via.readResource({ uri })).contents[0] as { text?: string };
  assert.ok(content.text);
  await page.evaluate((s) => window.holonShow(s), { html: content.text, input: args, result, context });
  return result;
}

async function shot(name: string): Promise<void> {
  fs.mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS, `${name}.png`), fullPage: true });
}

describe('the MCP Apps, from a real holon mcp, in the ext-apps host', () => {
  test('search_agents: the ranked agents, and the excluded ones with why', async () => {
    const result = await show('search_agents', { capability: 'extraction.*' });
    const data = result.structuredContent as { agents: { agent: string }[]; excluded: { agent: string; reasons: string[] }[] };
    const rows = app().locator('[data-testid="agent-row"]');
    await rows.first().waitFor();
    assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-agent'))), data.agents.map((a) => a.agent));
    const excluded = app().locator('[data-testid="excluded-agent"]');
    assert.deepEqual(await excluded.evaluateAll((els) => els.map((e) => e.getAttribute('data-agent'))), data.excluded.map((x) => x.agent));
    assert.ok(data.excluded.some((x) => x.agent === 'fastcheap/table-extract-us'));
    const reasons = await app().locator('[data-agent="fastcheap/table-extract-us"] [data-testid="excluded-reason"]').allInnerTexts();
    assert.deepEqual(reasons, data.excluded.find((x) => x.agent === 'fastcheap/table-extract-us')?.reasons);
    // A publisher's name is shown as its text: the data envelope the model reads is not on the page.
    const names = await app().locator('[data-testid="agent-name"]').allInnerTexts();
    assert.ok(names.length > 0 && names.every((n) => n.length > 0 && !n.includes('<data')), names.join(' | '));
    await shot('agents-light');
  });

  let approval = '';
  test('call_agent over the threshold: the card says where to decide, offers nothing to click, and turns approved when the human decides elsewhere', async () => {
    const result = await show('call_agent', { agent: PIPELINE, input: { files: INVOICES } });
    const r = result.structuredContent as { status: string; approval: string };
    assert.equal(r.status, 'pending_approval');
    approval = r.approval;
    const decision = app().locator('[data-testid="approval-state"]');
    await until(async () => (await decision.getAttribute('data-state')) === 'pending', 'the card to say it waits');
    assert.equal(await app().locator('[data-testid="call-approval"]').innerText(), approval);
    const where = await app().locator('[data-testid="where-to-decide"]').innerText();
    assert.match(where, /Holon view/);
    assert.match(where, new RegExp(`holon approve ${approval}`));
    assert.match(await app().locator('[data-testid="no-approve-here"]').innerText(), /the model can call too/);
    assert.equal(await app().locator('button, vscode-button, [role="button"], a[href], input, select, textarea').count(), 0, 'nothing on the card decides');
    assert.match(await app().locator('[data-testid="call-worst-case"]').innerText(), /3\.10 EUR above 0\.50 EUR/);
    await shot('call-waiting-light');

    // The human approves in another process (the editor's view, say): the card learns it from check_approval.
    const store = await openAgain(state.dir, systemClock);
    try {
      await decideApproval(store, systemClock, approval, 'approved', 'panel');
    } finally {
      store.close();
    }
    await until(async () => (await decision.getAttribute('data-state')) === 'approved', 'the card to turn approved', 60_000);
    assert.match(await decision.innerText(), /Approved \(panel\)/);
    const calls = await page.evaluate(() => window.holonCalls);
    assert.ok(calls.length > 0 && calls.every((c) => c === 'check_approval'), `the card called ${calls.join(', ')}`);
  });

  test("call_agent refused: the card says in words that it did not run and nothing was spent, and lists the mandate's reasons", async () => {
    const result = await show('call_agent', { agent: 'fastcheap/table-extract-us', input: { file: FACTURE } });
    const r = result.structuredContent as { status: string; reasons: string[] };
    assert.equal(result.isError, true);
    assert.equal(r.status, 'denied');
    assert.ok(r.reasons.length > 0);
    const summary = app().locator('[data-testid="call-summary"]');
    await summary.waitFor();
    assert.equal(await summary.innerText(), 'denied Holon did not run this call, and nothing was spent.');
    assert.deepEqual(await app().locator('[data-testid="call-reasons"] li').allInnerTexts(), r.reasons);
    assert.doesNotMatch(await app().locator('body').innerText(), /unknown/);
    await shot('call-denied-light');
  });

  let receipt = '';
  test('call_agent with the approval: the card shows the run and its receipt tree', async () => {
    const result = await show('call_agent', { agent: PIPELINE, input: { files: INVOICES }, approval });
    const r = result.structuredContent as { status: string; receipt: string; delegated_calls: number };
    assert.equal(r.status, 'succeeded', JSON.stringify(result.content));
    receipt = r.receipt;
    assert.match(await app().locator('[data-testid="call-summary"]').innerText(), /4 delegated calls/);
    await until(async () => (await app().locator('[data-testid="receipt-node"][data-depth="1"]').count()) === 4, 'the tree the card fetched');
  });

  test('get_receipt: the tree with its four delegated calls, each cost against its worst case', async () => {
    const result = await show('get_receipt', { receipt });
    const data = result.structuredContent as { tree: { children: { receipt: string }[] }; total_cost: { amount: string } };
    const children = app().locator('[data-testid="receipt-node"][data-depth="1"]');
    await children.first().waitFor();
    assert.equal(await children.count(), 4);
    assert.deepEqual(await children.evaluateAll((els) => els.map((e) => e.getAttribute('data-receipt'))), data.tree.children.map((c) => c.receipt));
    for (const agent of await children.locator('[data-testid="node-agent"]').allInnerTexts()) assert.match(agent, /^acme\/table-extract /);
    assert.equal(await app().locator('[data-testid="receipt-summary"]').innerText(), `Total ${data.total_cost.amount} EUR, 4 delegated calls`);
    const root = app().locator('[data-testid="receipt-node"][data-depth="0"] > dl [data-testid="node-cost"]');
    assert.match(await root.innerText(), /of worst case 3\.10 EUR$/);
    await shot('receipt-light');
  });

  test('get_budget: a bar per day for 30 days against the daily limit, and the payees', async () => {
    const result = await show('get_budget', {});
    const chart = result._meta?.['holon/spend'] as { days: { permille: number }[]; per_day_permille: number; payees: { kind: string; id: string }[] };
    assert.ok(chart, 'the chart rides in _meta for a host that renders apps');
    await app().locator('[data-testid="day-chart"]').waitFor();
    const bars = app().locator('[data-testid="day-bar"]');
    assert.equal(await bars.count(), 30);
    assert.deepEqual(await bars.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-permille')))), chart.days.map((d) => d.permille));
    assert.ok((chart.days.at(-1)?.permille ?? 0) > 0, "today's bar has a height");
    const limit = app().locator('[data-testid="limit-line"]');
    assert.equal(Number(await limit.getAttribute('data-permille')), chart.per_day_permille);
    // The line sits at the limit: today's bar is below it (0.1906 EUR spent of 4.00 EUR a day).
    const box = async (l: ReturnType<FrameLocator['locator']>): Promise<{ y: number; height: number }> => {
      const b = await l.boundingBox();
      assert.ok(b);
      return b;
    };
    const today = await box(bars.last());
    const line = await box(limit);
    assert.ok(today.y > line.y, `today's bar (top ${today.y}) reaches above the daily limit (${line.y})`);
    assert.deepEqual(
      await app().locator('[data-testid="payee-bar"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-payee'))),
      chart.payees.map((p) => `${p.kind}:${p.id}`),
    );
    assert.ok(chart.payees.some((p) => p.id === PIPELINE));
    await shot('spend-light');
  });

  test('get_budget in a host that renders apps without announcing it: the chart is there all the same', async () => {
    const result = await show('get_budget', {}, LIGHT, plain);
    const chart = result._meta?.['holon/spend'] as { days: { permille: number }[] } | undefined;
    assert.ok(chart, 'the chart rides in _meta whatever the client announced');
    await app().locator('[data-testid="spend-spent"]').waitFor();
    assert.equal(await app().locator('[data-testid="day-chart"]').count(), 1, 'the chart, not an empty space under the limits');
    assert.deepEqual(
      await app().locator('[data-testid="day-bar"]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-permille')))),
      chart.days.map((d) => d.permille),
    );
    await shot('spend-unannounced-host');
  });

  test("each server is named by its mandate, in the name a host shows as well as in the title", () => {
    for (const c of [client, plain]) {
      assert.equal(c.getServerVersion()?.name, `holon · ${MANDATE}`);
      assert.equal(c.getServerVersion()?.title, `Holon · ${MANDATE}`);
    }
  });

  test("the views take the host's theme and colours, and change with them", async () => {
    await show('get_budget', {}, DARK);
    const background = (): Promise<string> => app().locator('body').evaluate((b) => getComputedStyle(b).backgroundColor);
    await until(async () => (await background()) === 'rgb(10, 20, 30)', "the host's dark background");
    assert.equal(await app().locator('html').evaluate((e) => getComputedStyle(e).colorScheme), 'dark');
    await shot('spend-dark');
    await page.evaluate((c) => window.holonContext(c), LIGHT);
    await until(async () => (await background()) === 'rgb(255, 255, 255)', "the host's light background");
  });

  test("get_receipt of a call paid on a real chain: where its payment landed — status, block and transaction, as the chain has them", async () => {
    // A seller paid over x402 on a local chain, in the catalog; the mandate may pay it; the wallet holds the token.
    const chain = await localChain();
    seller = await startSeller('honest', { amount: '250000' });
    const store = await openAgain(state.dir, systemClock);
    try {
      await setFx(store, 'USDC', 'EUR', '0.92');
      const listing = manifest('sellers/tables', ['extraction.table'], { price: { currency: 'USDC', per_call: '0.25' } });
      await addAgent(store, systemClock, listing, x402Endpoint(`${seller.url}/resource`), 'test');
      await allowPaying(store, systemClock, MANDATE);
    } finally {
      store.close();
    }
    await chain.fund(createWallet(state.dir), { usdc: 1_000_000n });
    const payer = new PatientClient({ name: 'MCP Apps Host', version: '1.0.0' });
    await payer.connect(holonMcp(['--allow-private-sellers', ...chainFlags(chain)]));
    try {
      const call = (await payer.callTool({ name: 'call_agent', arguments: { agent: 'sellers/tables', input: { file: FACTURE } } })) as CallToolResult;
      const r = call.structuredContent as { status: string; receipt: string };
      assert.equal(r.status, 'succeeded', JSON.stringify(call.content));
      type Paid = { id: string; status: string; summary: string; transaction: string | null; block: string | null };
      const paid = await until(async () => {
        const got = (await payer.callTool({ name: 'get_receipt', arguments: { receipt: r.receipt } })) as CallToolResult;
        const s = (got.structuredContent as { tree: { settlement?: Paid | null } }).tree.settlement;
        return s?.status === 'landed' ? s : undefined;
      }, 'the payment to land');
      assert.ok(paid.transaction && paid.block);
      // The chain's own word for where it landed, read by the test.
      assert.equal((await onChain(chain, paid.transaction)).block, BigInt(paid.block));

      await show('get_receipt', { receipt: r.receipt }, LIGHT, payer);
      const node = app().locator('[data-testid="receipt-node"][data-depth="0"]');
      await node.waitFor();
      const where = node.locator('> dl [data-testid="node-payment"]');
      assert.equal(await where.count(), 1, 'the receipt says where its payment landed');
      assert.equal(await where.innerText(), paid.summary);
      assert.match(paid.summary, new RegExp(`^landed in block ${paid.block} `));
      assert.equal(await where.locator('[data-status]').getAttribute('data-status'), 'landed');
      assert.equal(await app().locator('[data-testid="node-payment-transaction"]').innerText(), `${paid.transaction} · block ${paid.block}`);
      assert.match(await app().locator('[data-testid="node-payment-amount"]').innerText(), /^0\.25 USDC to /);
      await shot('receipt-paid-light');

      // The same payment found by its settlement id reads the same.
      await show('get_receipt', { receipt: paid.id }, LIGHT, payer);
      const summary = app().locator('[data-testid="payment-summary"]');
      await summary.waitFor();
      assert.equal(await summary.innerText(), paid.summary);
      assert.equal(await app().locator('[data-testid="payment-transaction"]').innerText(), `${paid.transaction} · block ${paid.block}`);
    } finally {
      await payer.close();
    }
  });

  test('nothing broke the page: no script error, no CSP violation', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
