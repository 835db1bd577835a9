/**
 * MCP Apps on the server: the views as `ui://` resources, linked from the tools' `_meta`, and the spend
 * chart's figures in the result's `_meta` — for every client alike, since a host may render apps without
 * announcing it. (The views themselves, rendered by the
 * ext-apps host in a real browser, are test/apps.)
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, before, test } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { APP_VIEWS, appUri, SPEND_META_KEY } from '../../src/server/apps.ts';
import { createHolonServer } from '../../src/server/server.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import { demoRuntime, FACTURE, MANDATE } from '../helpers.ts';
import { callAgent, callTool } from './support.ts';

const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } };

let env: Awaited<ReturnType<typeof demoRuntime>>;

before(async () => {
  env = await demoRuntime();
  // The page the resources serve is the built one (dist/apps/holon.html).
  assert.ok(fs.existsSync('dist/apps/holon.html'), 'build first: node esbuild.mjs');
});
after(() => env.cleanup());

async function client(runtime: Runtime, apps: boolean, mandate = MANDATE): Promise<Client> {
  const server = createHolonServer(runtime.deps, mandate);
  const c = new Client({ name: apps ? 'apps-host' : 'plain-client', version: '1.0.0' }, { capabilities: apps ? APPS : {} });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), c.connect(a)]);
  return c;
}

test('the market links four views, each served as one self-contained page under a strict CSP that loads nothing', async () => {
  const c = await client(env.runtime, true);
  try {
    const { tools } = await c.listTools();
    const links = Object.fromEntries(tools.flatMap((t) => (t._meta ? [[t.name, t._meta]] : [])));
    assert.deepEqual(Object.keys(links).sort(), ['call_agent', 'get_budget', 'get_receipt', 'search_agents']);
    assert.deepEqual(links['get_receipt'], { ui: { resourceUri: 'ui://holon/receipt' }, 'ui/resourceUri': 'ui://holon/receipt' });
    const { resources } = await c.listResources();
    assert.deepEqual(resources.map((r) => r.uri).sort(), APP_VIEWS.map(appUri).sort());
    for (const r of resources) assert.equal(r.mimeType, RESOURCE_MIME_TYPE);
    for (const view of APP_VIEWS) {
      const read = await c.readResource({ uri: appUri(view) });
      const content = read.contents[0] as { uri: string; mimeType: string; text: string; _meta?: { ui?: { csp?: Record<string, string[]> } } };
      assert.equal(content.mimeType, RESOURCE_MIME_TYPE);
      assert.match(content.text, new RegExp(`<html lang="en" data-view="${view}">`));
      const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(content.text)?.[1] ?? '';
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/, 'only the page’s own script, by its hash');
      assert.match(csp, /connect-src 'none'/);
      assert.doesNotMatch(content.text, /<script[^>]+src=|<link[^>]+href=|@import/i, 'nothing loaded from elsewhere');
      assert.deepEqual(content._meta?.ui?.csp, { connectDomains: [], resourceDomains: [], frameDomains: [] });
    }
    await assert.rejects(c.readResource({ uri: 'ui://holon/nope' }), /not found/);
    await assert.rejects(c.readResource({ uri: 'file:///etc/passwd' }), /not found/);
  } finally {
    await c.close();
  }
});

test('the spend chart rides in _meta whether or not the client announced apps: both get the same result', async () => {
  const r = await callAgent(await client(env.runtime, false), { agent: 'acme/table-extract', input: { file: FACTURE } });
  assert.equal(r.status, 'succeeded');
  const apps = await client(env.runtime, true);
  const plain = await client(env.runtime, false);
  try {
    const withApps = await callTool(apps, 'get_budget');
    const without = await callTool(plain, 'get_budget');
    assert.deepEqual(withApps, without);
    const chart = withApps._meta?.[SPEND_META_KEY] as { days: { day: string; spent: { amount: string } }[]; payees: { id: string }[]; per_day: unknown };
    assert.equal(chart.days.length, 30);
    assert.equal(chart.days.at(-1)?.spent.amount, '0.0238');
    assert.deepEqual(chart.payees.map((p) => p.id), ['acme/table-extract']);
    assert.deepEqual(chart.per_day, { amount: '4.00', currency: 'EUR' });
    // The other tools' results are the same for both.
    for (const [name, args] of [
      ['search_agents', { capability: 'extraction.*' }],
      ['get_receipt', { receipt: r.receipt }],
    ] as const) {
      const a: CallToolResult = await callTool(apps, name, args);
      const b: CallToolResult = await callTool(plain, name, args);
      assert.deepEqual(a, b);
      assert.equal(a._meta?.['holon/spend'], undefined, 'only the spend view has figures of its own');
    }
  } finally {
    await apps.close();
    await plain.close();
  }
});

test('a mandate with records only links the spend view alone, and get_mandate carries the chart', async () => {
  await createMandate(env.runtime.store, env.clock, 'demo/records', {
    approval_threshold: '0.50',
    budget: { total: '1.00', per_day: null, per_call: null },
    toolsets: ['records'],
  });
  const c = await client(env.runtime, true, 'demo/records');
  try {
    const { resources } = await c.listResources();
    assert.deepEqual(resources.map((r) => r.uri), ['ui://holon/spend']);
    const ok = await callTool(c, 'get_mandate');
    assert.ok(ok._meta?.[SPEND_META_KEY]);
  } finally {
    await c.close();
  }
});
