/**
 * MCP 2026-07-28 against `holon mcp` and `holon serve`, with the SDK's own client pinned to that revision
 * (no initialize, no session, every request carrying its version): a whole session, and a call over the
 * threshold that the human decides in the form the call's answer asks for, resumed by the client's retry.
 * The human answers after they have read the approval in the journal, as a person does, never at once.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ensureBuilt, HANG_MS, HOLON_BIN, holonIn, INVOICE_FILES, openLedger, readEvents, seededState, serveIn, structured, until } from './cliHarness.ts';

before(ensureBuilt);

const MANDATE = 'demo/sandbox';
const PIPELINE = { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICE_FILES } };

type Answer = (req: ElicitRequest) => Promise<ElicitResult>;

/** A client pinned to 2026-07-28 that answers the forms it is asked with `answer`. */
function pinnedClient(answer?: Answer): Client {
  const client = new Client(
    { name: 'holon-2026-test', version: '1.0.0' },
    { capabilities: answer ? { elicitation: { form: {} } } : {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  if (answer) client.setRequestHandler('elicitation/create', (req) => answer(req));
  return client;
}

/** The human: reads the pending approval in the journal (as the panel shows it), then answers the form. */
function human(state: string, decision: 'Approve' | 'Reject', asked: ElicitRequest[]): Answer {
  return async (req) => {
    asked.push(req);
    const ledger = await openLedger(state);
    try {
      await until(() => (ledger.refresh(), Object.values(ledger.state.approvals).some((a) => a.status === 'pending')), 'the approval in the journal');
    } finally {
      await ledger.close();
    }
    return { action: 'accept', content: { decision } };
  };
}

/** The session every revision runs: list, read, a call under the threshold. */
async function smallSession(client: Client): Promise<void> {
  const names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes('call_agent') && names.includes('get_budget'), names.join(', '));
  assert.equal(structured<{ mandate: string }>(await client.callTool({ name: 'get_budget', arguments: {} })).mandate, MANDATE);
  const small = structured<{ status: string }>(
    await client.callTool({ name: 'call_agent', arguments: { capability: 'extraction.table', input: { file: 'holon://files/examples/facture.pdf' } } }),
  );
  assert.equal(small.status, 'succeeded');
}

/** The big call, decided by the human in the form its answer asked for, resumed and run. */
async function decidedCall(client: Client, state: string, asked: ElicitRequest[]): Promise<void> {
  const big = structured<{ status: string; approval: string }>(
    await client.callTool({ name: 'call_agent', arguments: PIPELINE }, { timeout: HANG_MS, resetTimeoutOnProgress: true }),
  );
  assert.equal(big.status, 'succeeded', JSON.stringify(big));
  assert.equal(asked.length, 1, 'the human was asked once');
  assert.equal(asked[0]?.params.mode ?? 'form', 'form');
  const decided = (await readEvents(state)).filter((e) => e.type === 'approval.decided');
  assert.deepEqual(
    decided.map((e) => [e.data['id'], e.data['decision'], e.data['channel']]),
    [[big.approval, 'approved', 'elicitation']],
    'one decision, by the form, on the approval the call used',
  );
}

/** One JSON-RPC answer, whether sent as JSON or as one event of a stream. */
async function answerOf(res: Response): Promise<{ result?: Record<string, unknown>; error?: { code: number } }> {
  const text = await res.text();
  const data = (res.headers.get('content-type') ?? '').includes('text/event-stream') ? (/^data: (.*)$/m.exec(text)?.[1] ?? '') : text;
  return JSON.parse(data) as { result?: Record<string, unknown>; error?: { code: number } };
}

/** What no SDK shows: the cache hints on a list, and the standard headers every 2026-07-28 request must carry. */
async function rawRequests(url: string, token: string): Promise<void> {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const post = (headers: Record<string, string>): Promise<Response> =>
    fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }),
    });
  const listed = await post({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
  assert.equal(listed.status, 200);
  const { result } = await answerOf(listed);
  assert.equal(result?.['ttlMs'], 60 * 60 * 1000, 'the tool list may be kept an hour');
  assert.equal(result?.['cacheScope'], 'private', 'by this client only');
  const headerless = await post({ 'mcp-protocol-version': '2026-07-28' });
  assert.equal(headerless.status, 400, 'a request without its Mcp-Method header is refused');
  assert.equal((await answerOf(headerless)).error?.code, -32020);
}

describe('MCP 2026-07-28', { timeout: HANG_MS }, () => {
  test('over stdio: a whole session, and a call over the threshold asked in its answer and resumed', async () => {
    const { dir: state, cleanup } = await seededState();
    const asked: ElicitRequest[] = [];
    const client = pinnedClient(human(state, 'Approve', asked));
    try {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [HOLON_BIN, 'mcp', '--mandate', MANDATE, '--state', state, '--approval-wait', '0'],
        env: getDefaultEnvironment(),
        stderr: 'pipe',
      });
      await client.connect(transport);
      assert.equal(client.getProtocolEra(), 'modern');
      await smallSession(client);
      // Change notifications come only on a stream the client opens; a list that never changes offers none.
      const listening = await client.listen({ toolsListChanged: true });
      assert.equal(listening.honoredFilter.toolsListChanged ?? false, false, JSON.stringify(listening.honoredFilter));
      await listening.close();
      await decidedCall(client, state, asked);
    } finally {
      await client.close();
      cleanup();
    }
  });

  test('over HTTP: the same, with no session; a rejection in the form refuses the call', async () => {
    const { dir: state, cleanup } = await seededState();
    // Over HTTP the human asks for forms with --elicitation (the token's holder may be the agent itself).
    const served = await serveIn(state, ['--approval-wait', '0', '--elicitation']);
    const made = JSON.parse((await holonIn(state, ['token', 'create', '--mandate', MANDATE, '--ttl', '2h', '--json'])).stdout) as { token: string };
    const connect = async (answer: Answer): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> => {
      const transport = new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { Authorization: `Bearer ${made.token}` } } });
      const client = pinnedClient(answer);
      await client.connect(transport);
      return { client, transport };
    };
    const asked: ElicitRequest[] = [];
    const { client, transport } = await connect(human(state, 'Approve', asked));
    try {
      assert.equal(client.getProtocolEra(), 'modern');
      assert.equal(transport.sessionId, undefined, 'no session at 2026-07-28');
      await smallSession(client);
      await rawRequests(served.url, made.token);
      await decidedCall(client, state, asked);

      const refusedBy: ElicitRequest[] = [];
      const other = await connect(human(state, 'Reject', refusedBy));
      const refused = structured<{ status: string }>(await other.client.callTool({ name: 'call_agent', arguments: PIPELINE }, { timeout: HANG_MS }));
      assert.notEqual(refused.status, 'succeeded');
      const statuses = (await readEvents(state)).filter((e) => e.type === 'approval.decided').map((e) => e.data['decision']);
      assert.deepEqual(statuses, ['approved', 'rejected']);
      await other.client.close();
    } finally {
      await client.close();
      served.child.kill();
      await served.exited;
      cleanup();
    }
  });

  test('a client that cannot ask gets the pending approval; a forged request state is refused and decides nothing', async () => {
    const { dir: state, cleanup } = await seededState();
    const client = pinnedClient();
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [HOLON_BIN, 'mcp', '--mandate', MANDATE, '--state', state, '--approval-wait', '0'],
          env: getDefaultEnvironment(),
          stderr: 'pipe',
        }),
      );
      const pending = structured<{ status: string; approval: string }>(await client.callTool({ name: 'call_agent', arguments: PIPELINE }));
      assert.equal(pending.status, 'pending_approval');

      const before = (await readEvents(state)).length;
      const forged = client.callTool({
        name: 'call_agent',
        arguments: PIPELINE,
        // A retry the server never asked for, naming the pending approval: not sealed by this server.
        requestState: Buffer.from(JSON.stringify({ approval: pending.approval, by: 'form', tool: 'call_agent', mandate: MANDATE })).toString('base64url'),
        inputResponses: { approval: { action: 'accept', content: { decision: 'Approve' } } },
      } as never);
      await assert.rejects(forged, (err: unknown) => err instanceof ProtocolError && err.code === -32602);
      const after = await readEvents(state);
      assert.equal(after.length, before, 'nothing was written');
      assert.ok(!after.some((e) => e.type === 'approval.decided'));
    } finally {
      await client.close();
      cleanup();
    }
  });
});
