/**
 * `holon serve` and `holon token`, run as a user types them: a token minted once, a client config that
 * holds no secret, a real SDK client over HTTP with the token from its environment, and `token end`
 * refusing that client's next request, in the server process that did not end it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { Client, StreamableHTTPClientTransport, SdkHttpError } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { startAcpMerchant } from '../../examples/merchants/acpMerchant.ts';
import { startUcpMerchant } from '../../examples/merchants/ucpMerchant.ts';
import { systemClock } from '../../src/core/kernel/deps.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import type { Served } from './cliHarness.ts';
import { ensureBuilt, HANG_MS, holonIn, ledgerBytes, json, openLedger, readEvents, seededState, serveIn, structured } from './cliHarness.ts';

before(ensureBuilt);

interface McpConfig {
  mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }>;
}

/** Connects as Claude Code does with the config: ${VAR} in a header taken from the client's environment. */
async function connectWithConfig(config: McpConfig, env: Record<string, string>): Promise<Client> {
  const entry = config.mcpServers['holon'];
  assert.ok(entry);
  const headers = Object.fromEntries(Object.entries(entry.headers).map(([k, v]) => [k, v.replace(/\$\{(\w+)\}/g, (_m, name: string) => env[name] ?? '')]));
  const client = new Client({ name: 'cli-http-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers } }));
  return client;
}

test('token create writes a config without the token; serve accepts it; token end refuses the next request', { timeout: HANG_MS }, async () => {
  const { dir, root, cleanup } = await seededState();
  let served: Served | undefined;
  try {
    served = await serveIn(dir);
    assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    // Refusals first: each leaves the journal and the config file as they were.
    const config = path.join(root, '.mcp.json');
    const bytes = await ledgerBytes(dir);
    for (const args of [['--ttl', '8d'], ['--ttl', '0m'], ['--ttl', 'soon'], ['--mandate', 'demo/nope']]) {
      const opts = { '--mandate': 'demo/sandbox', '--ttl': '2h' } as Record<string, string>;
      opts[args[0] ?? ''] = args[1] ?? '';
      const r = await holonIn(dir, ['token', 'create', ...Object.entries(opts).flat(), '--config', config]);
      assert.notEqual(r.code, 0, args.join(' '));
      assert.ok(!fs.existsSync(config), `no config written for ${args.join(' ')}`);
    }
    assert.ok((await ledgerBytes(dir)).equals(bytes), 'a refused token changes nothing');

    fs.writeFileSync(config, JSON.stringify({ mcpServers: { other: { type: 'stdio', command: 'x' } } }));
    const r = await holonIn(dir, ['token', 'create', '--mandate', 'demo/sandbox', '--ttl', '2h', '--label', 'cli test', '--config', config, '--url', served.url, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const made = JSON.parse(r.stdout) as { id: string; token: string; expires_at: string; mandate: string };
    assert.equal(made.mandate, 'demo/sandbox');
    assert.match(made.token, /^[A-Za-z0-9_-]{43}$/);
    assert.match(r.stderr, /export HOLON_RUN_TOKEN=/);
    assert.ok(!r.stderr.includes(made.token), 'the token is printed once, on stdout');

    const text = fs.readFileSync(config, 'utf8');
    assert.ok(!text.includes(made.token), 'the config holds no token');
    const written = JSON.parse(text) as McpConfig;
    assert.deepEqual(written.mcpServers['holon'], { type: 'http', url: served.url, headers: { Authorization: 'Bearer ${HOLON_RUN_TOKEN}' } });
    assert.ok(written.mcpServers['other'], 'other servers in the file are kept');

    const listed = await json<{ id: string; status: string }[]>(dir, ['token', 'list']);
    assert.deepEqual(listed.map((t) => [t.id, t.status]), [[made.id, 'live']]);
    const hash = (await readEvents(dir)).find((e) => e.type === 'token.created')?.data['sha256'];
    assert.equal(typeof hash, 'string');
    assert.ok(!JSON.stringify(listed).includes(hash as string), 'the list never shows the hash');

    const client = await connectWithConfig(written, { HOLON_RUN_TOKEN: made.token });
    const budget = structured<{ mandate: string }>(await client.callTool({ name: 'get_budget', arguments: {} }));
    assert.equal(budget.mandate, 'demo/sandbox');

    const ended = await holonIn(dir, ['token', 'end', made.id]);
    assert.equal(ended.code, 0, ended.stderr);
    let status = 0;
    try {
      await client.callTool({ name: 'get_budget', arguments: {} });
    } catch (err) {
      assert.ok(err instanceof SdkHttpError, String(err));
      status = err.status ?? 0;
    }
    assert.equal(status, 401, 'the server refuses a token another process ended');
    assert.deepEqual((await json<{ status: string }[]>(dir, ['token', 'list'])).map((t) => t.status), ['ended']);
    await client.close();

    assert.ok(!served.log().includes(made.token), 'the server never logs the token');
    assert.ok(served.log().includes(made.id));
    served.child.kill('SIGTERM');
    assert.equal(await served.exited, 0, 'SIGTERM stops it cleanly');
    served = undefined;
  } finally {
    if (served && served.child.exitCode === null) served.child.kill('SIGKILL');
    cleanup();
  }
});

test('a config written without --url points at the default port; bad serve flags are refused', async () => {
  const { dir, root, cleanup } = await seededState();
  try {
    const config = path.join(root, 'mcp.json');
    const r = await holonIn(dir, ['token', 'create', '--mandate', 'demo/sandbox', '--ttl', '30m', '--config', config]);
    assert.equal(r.code, 0, r.stderr);
    const token = r.stdout.trim();
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    const written = JSON.parse(fs.readFileSync(config, 'utf8')) as McpConfig;
    assert.equal(written.mcpServers['holon']?.url, 'http://127.0.0.1:7374/mcp');
    assert.ok(!fs.readFileSync(config, 'utf8').includes(token));

    const publicHost = await holonIn(dir, ['serve', '--host', '0.0.0.0', '--port', '0']);
    assert.equal(publicHost.code, 2);
    assert.match(publicHost.stderr, /--public/);
    assert.equal((await holonIn(dir, ['serve', '--port', '70000'])).code, 2);
    const formless = await holonIn(dir, ['serve', '--port', '0', '--stateless', '--elicitation']);
    assert.equal(formless.code, 2);
    assert.match(formless.stderr, /--elicitation needs a session/);
    assert.equal((await holonIn(dir, ['token', 'list', '--ttl', '2h'])).code, 2, 'create-only flags are refused elsewhere');
    assert.equal((await holonIn(dir, ['token', 'end', 'tok_nope'])).code, 1);
  } finally {
    cleanup();
  }
});

test('holon serve --merchant: an HTTP client quotes at the local merchants; a bad --merchant is refused before anything starts', { timeout: HANG_MS }, async () => {
  const { dir, cleanup } = await seededState();
  const acp = await startAcpMerchant();
  const ucp = await startUcpMerchant();
  let served: Served | undefined;
  try {
    const setup = await openLedger(dir);
    try {
      await createMandate(setup, systemClock, 'demo/shopper', { toolsets: ['commerce'], approval_threshold: '30.00', budget: { total: '60.00', per_day: null, per_call: null }, capabilities: [{ name: 'commerce.buy' }] });
    } finally {
      setup.close();
    }
    const bad = await holonIn(dir, ['serve', '--port', '0', '--merchant', 'ftp:ftp://example.com']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--merchant/);

    served = await serveIn(dir, ['--merchant', `stationery=acp:${acp.url},hardware=ucp:${ucp.url}`]);
    const made = await json<{ token: string }>(dir, ['token', 'create', '--mandate', 'demo/shopper', '--ttl', '1h']);
    const client = new Client({ name: 'http-shopper', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { Authorization: `Bearer ${made.token}` } } }));
    try {
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['quote', 'buy']);
      // The merchants' own prices, tax included (ACP 20 % VAT, UCP 8 %).
      for (const [merchant, product, total] of [['stationery', 'desk-lamp', '50.40'], ['hardware', 'sticker-pack', '0.54']] as const) {
        const r = (await client.callTool({ name: 'quote', arguments: { merchant, lines: [{ product, quantity: 1 }] } })) as CallToolResult;
        assert.notEqual(r.isError, true, `${JSON.stringify(r.structuredContent)}\n${served.log()}`);
        const cart = structured<{ status: string; total: { amount: string } }>(r);
        assert.deepEqual([cart.status, cart.total.amount], ['ready', total], merchant);
      }
    } finally {
      await client.close();
    }
  } finally {
    if (served && served.child.exitCode === null) served.child.kill('SIGTERM');
    if (served) await served.exited;
    await acp.close();
    await ucp.close();
    cleanup();
  }
});

test('holon serve --stateless: seed 004\'s endpoint at /mcp/agent, JSON answers, no session', { timeout: HANG_MS }, async () => {
  const { dir, cleanup } = await seededState();
  let served: Served | undefined;
  try {
    served = await serveIn(dir, ['--stateless']);
    assert.match(served.log(), /\(stateless, JSON responses\)/);
    const made = await json<{ token: string }>(dir, ['token', 'create', '--mandate', 'demo/sandbox', '--ttl', '1h']);
    const url = new URL(served.url.replace(/\/mcp$/, '/mcp/agent'));
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${made.token}` } } });
    const client = new Client({ name: 'stateless-agent', version: '1.0.0' });
    await client.connect(transport);
    try {
      assert.equal(transport.sessionId, undefined);
      assert.equal(structured<{ mandate: string }>(await client.callTool({ name: 'get_budget', arguments: {} })).mandate, 'demo/sandbox');
    } finally {
      await client.close();
    }
    const get = await fetch(url, { headers: { authorization: `Bearer ${made.token}`, accept: 'text/event-stream' } });
    assert.equal(get.status, 405);
  } finally {
    if (served && served.child.exitCode === null) served.child.kill('SIGTERM');
    if (served) await served.exited;
    cleanup();
  }
});
