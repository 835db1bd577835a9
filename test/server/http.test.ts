/**
 * `holon serve`'s transport: a real SDK client over Streamable HTTP with a run token. Refused without a
 * live token (none, wrong, expired, ended — mid-session too), for another token's session, for a
 * foreign Host or Origin, and past the body limit; elicitation reaches the client; the token is never
 * written to the state nor logged.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport, SdkHttpError } from '@modelcontextprotocol/client';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import type { Logger } from '../../src/core/kernel/deps.ts';
import { createRunToken, endRunToken } from '../../src/core/accounts/runTokens.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import type { ApprovalSettings } from '../../src/server/serverDeps.ts';
import type { HttpServerHandle } from '../../src/server/transports/http.ts';
import { MAX_BODY_BYTES, startHttpServer } from '../../src/server/transports/http.ts';
import type { TestClock } from '../helpers.ts';
import { demoRuntime, INVOICES, MANDATE, until } from '../helpers.ts';
import { callAgent, callTool, structured } from './support.ts';

const HOUR = 3_600_000;

/** A logger that keeps every line, to show what an operator would read. */
function recordingLogger(): Logger & { text: () => string } {
  const lines: string[] = [];
  return { info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m), text: () => lines.join('\n') };
}

interface World {
  runtime: Runtime;
  clock: TestClock;
  dir: string;
  server: HttpServerHandle;
  log: ReturnType<typeof recordingLogger>;
  token: { id: string; token: string; expires_at: string };
  port: number;
}

async function withServer(fn: (w: World) => Promise<void>, options: { stateless?: boolean; approvals?: Partial<ApprovalSettings> } = {}): Promise<void> {
  const { runtime, clock, dir, cleanup } = await demoRuntime(options.approvals ? { approvals: options.approvals } : {});
  const log = recordingLogger();
  const server = await startHttpServer({ ...runtime.deps, logger: log }, { port: 0, stateless: options.stateless === true });
  try {
    const token = await createRunToken(runtime.store, clock, { mandate: MANDATE, ttlMs: HOUR, label: 'test agent' });
    await fn({ runtime, clock, dir, server, log, token, port: Number(new URL(server.url).port) });
  } finally {
    await server.close();
    await cleanup();
  }
}

async function httpClient(url: string, token: string, elicit?: (req: ElicitRequest) => ElicitResult): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'http-agent', version: '1.0.0' }, { capabilities: elicit ? { elicitation: { form: {} } } : {} });
  if (elicit) client.setRequestHandler('elicitation/create', (req) => elicit(req));
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return { client, transport };
}

/** The HTTP status a rejected SDK call carries. */
async function refusedWith(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof SdkHttpError, `expected an HTTP error, got ${String(err)}`);
    return err.status ?? 0;
  }
  assert.fail('expected the request to be refused');
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

/** One raw HTTP request, with whatever Host and Origin a browser or an attacker would send. */
function raw(port: number, options: { headers?: Record<string, string>; body?: string | Buffer; method?: string; path?: string } = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: options.path ?? '/mcp',
        method: options.method ?? 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...options.headers },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    // A server that answers before reading a large body may reset the rest: the answer is what counts.
    req.on('error', reject);
    req.end(options.body ?? INITIALIZE);
  });
}

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

test('a client with a run token lists the mandate\'s tools and searches the market', async () => {
  await withServer(async ({ server, token }) => {
    const { client } = await httpClient(server.url, token.token);
    const tools = await client.listTools();
    const names = tools.tools.map((t) => t.name);
    for (const name of ['search_agents', 'get_agent', 'call_agent', 'check_approval', 'get_budget', 'get_receipt']) assert.ok(names.includes(name), name);
    const found = structured<{ agents: { agent: string }[] }>(await callTool(client, 'search_agents', { capability: 'extraction.table' }));
    assert.ok(found.agents.length > 0, 'the demo catalog answers');
    assert.equal(server.sessionCount(), 1);
    await client.close();
  });
});

test('no bearer, a wrong one, an expired one, an ended one: 401 with WWW-Authenticate: Bearer', async () => {
  await withServer(async ({ runtime, clock, server, token, port }) => {
    const none = await raw(port, { headers: { host: `127.0.0.1:${port}` } });
    assert.equal(none.status, 401);
    assert.match(none.headers['www-authenticate'] ?? '', /^Bearer\b/);
    assert.equal((JSON.parse(none.body) as { error: string }).error, 'unauthorized');

    const wrong = await raw(port, { headers: bearer('x'.repeat(43)) });
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers['www-authenticate'] ?? '', /^Bearer\b.*invalid_token/);
    assert.equal(await refusedWith(httpClient(server.url, 'not-a-token')), 401);

    // The same request with the live token is served: the refusals above are the token's doing.
    assert.equal((await raw(port, { headers: bearer(token.token) })).status, 200);

    const short = await createRunToken(runtime.store, clock, { mandate: MANDATE, ttlMs: 60_000 });
    assert.equal((await raw(port, { headers: bearer(short.token) })).status, 200);
    clock.advance(60_000);
    assert.equal((await raw(port, { headers: bearer(short.token) })).status, 401, 'expired at its expires_at');
    assert.equal(await refusedWith(httpClient(server.url, short.token)), 401);

    await endRunToken(runtime.store, clock, token.id);
    assert.equal((await raw(port, { headers: bearer(token.token) })).status, 401, 'ended');
  });
});

test('a token ended mid-session: its session closes and the next request is refused', async () => {
  await withServer(async ({ runtime, clock, server, token, log }) => {
    const { client } = await httpClient(server.url, token.token);
    await callTool(client, 'get_budget');
    assert.equal(server.sessionCount(), 1);
    await endRunToken(runtime.store, clock, token.id);
    await until(() => server.sessionCount() === 0, 'the session of the ended token to close');
    assert.equal(await refusedWith(callTool(client, 'get_budget')), 401);
    assert.match(log.text(), new RegExp(`session .* of token ${token.id} closed`));
    await client.close();
  });
});

test('a token that expires mid-session is refused on its next request', async () => {
  await withServer(async ({ clock, server, token }) => {
    const { client } = await httpClient(server.url, token.token);
    await callTool(client, 'get_budget');
    clock.advance(HOUR);
    assert.equal(await refusedWith(callTool(client, 'get_budget')), 401);
    assert.equal(server.sessionCount(), 0, 'the refusal closed the expired session');
    await client.close();
  });
});

test('another live token cannot use a session it did not open', async () => {
  await withServer(async ({ runtime, clock, server, token, port }) => {
    const other = await createRunToken(runtime.store, clock, { mandate: MANDATE, ttlMs: HOUR });
    const { client, transport } = await httpClient(server.url, token.token);
    const sid = transport.sessionId;
    assert.ok(sid);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const theirs = await raw(port, { headers: { ...bearer(other.token), 'mcp-session-id': sid }, body: list });
    assert.equal(theirs.status, 404);
    const mine = await raw(port, { headers: { ...bearer(token.token), 'mcp-session-id': sid }, body: list });
    assert.equal(mine.status, 200, 'the session itself is alive');
    assert.match(mine.body, /search_agents/);
    await client.close();
  });
});

test('a foreign Host or Origin is refused with 403, before the token is looked at', async () => {
  await withServer(async ({ token, port }) => {
    // DNS rebinding: the attacker's page reaches 127.0.0.1 under its own name and origin.
    const host = await raw(port, { headers: { ...bearer(token.token), host: `evil.example:${port}` } });
    assert.equal(host.status, 403);
    assert.equal((await raw(port, { headers: { host: `evil.example:${port}` } })).status, 403, 'no token: still 403, not 401');
    const origin = await raw(port, { headers: { ...bearer(token.token), origin: `http://evil.example:${port}` } });
    assert.equal(origin.status, 403);
    assert.equal((await raw(port, { headers: { ...bearer(token.token), origin: 'null' } })).status, 403);
    // The loopback names and this server's own origin are served.
    for (const h of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) assert.equal((await raw(port, { headers: { ...bearer(token.token), host: h } })).status, 200, h);
    assert.equal((await raw(port, { headers: { ...bearer(token.token), origin: `http://localhost:${port}` } })).status, 200);
  });
});

test('a body over the limit (16 MiB) is refused with 413 and nothing is appended', async () => {
  await withServer(async ({ runtime, token, port }) => {
    const before = runtime.store.seq;
    const big = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20);
    const r = await raw(port, { headers: bearer(token.token), body: big });
    assert.equal(r.status, 413);
    assert.equal(runtime.store.seq, before);
  });
});

test('elicitation over HTTP: a call above the threshold is approved in the client\'s form and runs', async () => {
  await withServer(async ({ runtime, server, token }) => {
    const asked: ElicitRequest[] = [];
    const { client } = await httpClient(server.url, token.token, (req) => {
      asked.push(req);
      return { action: 'accept', content: { decision: 'Approve' } };
    });
    const r = await callAgent(client, { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICES } });
    assert.equal(r.status, 'succeeded', JSON.stringify(r));
    assert.equal(asked.length, 1);
    const approval = runtime.store.state.approvals[r.approval ?? ''];
    assert.equal(approval?.channel, 'elicitation');
    assert.equal(approval?.status, 'used');
    await client.close();
  });
});

test('the token is written nowhere in the state and never logged; its id is', async () => {
  await withServer(async ({ server, token, dir, log, port }) => {
    const { client } = await httpClient(server.url, token.token);
    await callTool(client, 'get_budget');
    await raw(port, { headers: { ...bearer(token.token), host: `evil.example:${port}` } });
    await client.close();
    const journal = fs.readFileSync(path.join(dir, 'journal.jsonl'), 'utf8');
    assert.ok(journal.includes(token.id), 'the journal records the token by id');
    assert.ok(!journal.includes(token.token));
    const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    for (const f of files) assert.ok(!fs.readFileSync(path.join(f.parentPath, f.name), 'latin1').includes(token.token), `${f.name} holds the token`);
    assert.ok(log.text().includes(token.id), 'the operator reads the token id');
    assert.ok(!log.text().includes(token.token));
  });
});

// --- Stateless (seed 004's form: JSON responses, no session), and /mcp/agent --------------------------------

/** A POST as a raw client sends it, through fetch. */
function post(url: string, token: string, message: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify(message),
  });
}

const agentUrl = (url: string): string => url.replace(/\/mcp$/, '/mcp/agent');

test('stateless: an SDK client calls tools at /mcp and at /mcp/agent, and no session is ever opened', async () => {
  await withServer(
    async ({ server, token, log }) => {
      for (const url of [server.url, agentUrl(server.url)]) {
        const { client, transport } = await httpClient(url, token.token);
        assert.equal(transport.sessionId, undefined, `${url}: no session id was issued`);
        const names = (await client.listTools()).tools.map((t) => t.name);
        assert.ok(names.includes('call_agent'), url);
        const found = structured<{ agents: { agent: string }[] }>(await callTool(client, 'search_agents', { capability: 'extraction.table' }));
        assert.ok(found.agents.length > 0, url);
        assert.equal(structured<{ mandate: string }>(await callTool(client, 'get_budget')).mandate, MANDATE);
        assert.equal(server.sessionCount(), 0);
        await client.close();
      }
      assert.doesNotMatch(log.text(), /session .* opened/);
    },
    { stateless: true },
  );
});

test('stateless: every answer is JSON without Mcp-Session-Id; GET and DELETE are 405', async () => {
  await withServer(
    async ({ server, token }) => {
      for (const url of [server.url, agentUrl(server.url)]) {
        const init = await post(url, token.token, JSON.parse(INITIALIZE));
        assert.equal(init.status, 200, url);
        assert.match(init.headers.get('content-type') ?? '', /^application\/json/, url);
        assert.equal(init.headers.get('mcp-session-id'), null, url);
        assert.equal(((await init.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name.length > 0, true);

        // The next request needs no session: it is served on its own.
        const list = await post(url, token.token, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
        assert.equal(list.status, 200);
        assert.match(list.headers.get('content-type') ?? '', /^application\/json/);
        assert.equal(list.headers.get('mcp-session-id'), null);
        assert.ok(((await list.json()) as { result: { tools: { name: string }[] } }).result.tools.some((t) => t.name === 'get_budget'));

        for (const method of ['GET', 'DELETE']) {
          const r = await fetch(url, { method, headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token.token}` } });
          assert.equal(r.status, 405, `${method} ${url}`);
          assert.equal(r.headers.get('allow'), 'POST');
          assert.deepEqual(await r.json(), { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
        }
      }
      assert.equal((await post(server.url.replace(/\/mcp$/, '/other'), token.token, JSON.parse(INITIALIZE))).status, 404);
      assert.equal(server.sessionCount(), 0);
    },
    { stateless: true },
  );
});

test('stateless: Host, Origin, the run token and the body limit are checked on every request', async () => {
  await withServer(
    async ({ runtime, clock, token, port }) => {
      const before = runtime.store.seq;
      for (const path of ['/mcp', '/mcp/agent']) {
        assert.equal((await raw(port, { path, headers: bearer(token.token) })).status, 200, path);
        assert.equal((await raw(port, { path })).status, 401, `${path}: no token`);
        assert.equal((await raw(port, { path, headers: bearer('x'.repeat(43)) })).status, 401, `${path}: a wrong token`);
        assert.equal((await raw(port, { path, headers: { ...bearer(token.token), host: `evil.example:${port}` } })).status, 403);
        assert.equal((await raw(port, { path, headers: { ...bearer(token.token), origin: `http://evil.example:${port}` } })).status, 403);
        assert.equal((await raw(port, { path, headers: bearer(token.token), body: Buffer.alloc(MAX_BODY_BYTES + 1, 0x20) })).status, 413);
        // A GET without a token is refused for the token, before the method is looked at.
        assert.equal((await raw(port, { path, method: 'GET', body: '' })).status, 401);
      }
      assert.equal(runtime.store.seq, before, 'nothing refused was appended');

      const short = await createRunToken(runtime.store, clock, { mandate: MANDATE, ttlMs: 60_000 });
      assert.equal((await raw(port, { path: '/mcp/agent', headers: bearer(short.token) })).status, 200);
      clock.advance(60_000);
      assert.equal((await raw(port, { path: '/mcp/agent', headers: bearer(short.token) })).status, 401, 'expired');
      await endRunToken(runtime.store, clock, token.id);
      assert.equal((await raw(port, { path: '/mcp/agent', headers: bearer(token.token) })).status, 401, 'ended');
    },
    { stateless: true },
  );
});

test('stateless: a token ended while its request waits for a human ends that request with 401', async () => {
  await withServer(
    async ({ runtime, clock, server, token }) => {
      const call = post(agentUrl(server.url), token.token, {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'call_agent', arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICES } } },
      });
      const pending = await until(
        () => Object.values(runtime.store.state.approvals).find((a) => a.mandate === MANDATE && a.status === 'pending'),
        'the call to wait for an approval',
      );
      await endRunToken(runtime.store, clock, token.id);
      const r = await call;
      assert.equal(r.status, 401);
      assert.equal(((await r.json()) as { error: string }).error, 'unauthorized');
      assert.equal(runtime.store.state.approvals[pending.id]?.status, 'pending', 'nothing was decided for the human');
    },
    { stateless: true, approvals: { waitMs: HOUR } },
  );
});

test('stateless: a client that offers elicitation is never asked; the call waits in the view and returns pending', async () => {
  await withServer(
    async ({ server, token }) => {
      const asked: ElicitRequest[] = [];
      const { client } = await httpClient(agentUrl(server.url), token.token, (req) => {
        asked.push(req);
        return { action: 'accept', content: { decision: 'Approve' } };
      });
      const r = await callAgent(client, { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICES } });
      assert.equal(r.status, 'pending_approval', JSON.stringify(r));
      assert.equal(asked.length, 0, 'no form without a session');
      await client.close();
    },
    { stateless: true },
  );
});

test('stateful: /mcp/agent is the same endpoint as /mcp, with sessions', async () => {
  await withServer(async ({ server, token }) => {
    const { client, transport } = await httpClient(agentUrl(server.url), token.token);
    assert.ok(transport.sessionId, 'a session was opened');
    assert.equal(structured<{ mandate: string }>(await callTool(client, 'get_budget')).mandate, MANDATE);
    assert.equal(server.sessionCount(), 1);
    await client.close();
  });
});
