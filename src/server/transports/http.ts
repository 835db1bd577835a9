/**
 * MCP over Streamable HTTP (`holon serve`), in one of two forms:
 * - stateful (the default): sessions, so elicitation and progress reach the client over SSE, each session
 *   serving the one mandate of the run token it was opened with;
 * - stateless (`--stateless`, seed 004's agent endpoint): every POST is served by a server and transport of
 *   its own, made for it and closed after it, answering in JSON; no session, so no elicitation (the human
 *   answers in the Holon view or at a terminal), and GET and DELETE, which only a session has a use for,
 *   are 405 as the SDK's stateless servers answer them.
 * Both answer at `/mcp` and at seed 004's `/mcp/agent`.
 *
 * Every request, in this order: the Host header must name this server and an Origin, when sent, must be
 * one of its own (a web page cannot reach it by DNS rebinding); then the bearer must be a live run token
 * (checked again on every request, so a token ended or expired is refused at once, mid-session or
 * mid-request too); only then is the body read (at most 16 MiB) and a session looked up — a session
 * answers only the token that opened it. The token itself is never logged or kept: only its id.
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { liveRunToken, tokenFor } from '../../core/accounts/runTokens.ts';
import type { RunToken } from '../../core/accounts/runTokens.ts';
import { createHolonServer } from '../server.ts';
import type { ServerDeps } from '../serverDeps.ts';

/** The path of the MCP endpoint, as `holon serve` prints it. */
export const MCP_PATH = '/mcp';

/** The same endpoint where seed 004 puts an office agent's: `<office.url>/mcp/agent`. */
export const MCP_AGENT_PATH = '/mcp/agent';

const MCP_PATHS: readonly string[] = [MCP_PATH, MCP_AGENT_PATH];

/** The largest request body read, in bytes (as the stdio transport's line limit). */
/** Room for the largest artifact an office agent may publish (10 MB decoded, about 13.4 MB as base64). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** How often sessions are checked against their tokens' expiry, in milliseconds. */
const SWEEP_MS = 5_000;

/**
 * Sessions one token may hold open at once. A client that reconnects without ending its old session
 * leaves one behind each time; past this, the least recently used is closed instead of growing forever.
 */
const MAX_SESSIONS_PER_TOKEN = 16;

/** How `startHttpServer` listens. */
export interface HttpServerOptions {
  /** The address to bind (default 127.0.0.1). Anything but loopback is the caller's explicit choice. */
  host?: string;
  /** The port (0, the default, picks a free one). */
  port?: number;
  /**
   * Host header values accepted besides the defaults (127.0.0.1, localhost and [::1] with the bound port,
   * and the bound address itself), e.g. "myhost.lan:7374".
   */
  allowedHosts?: string[];
  /** Origins accepted besides the defaults (http:// with each default host), e.g. "http://myhost.lan:7374". */
  allowedOrigins?: string[];
  /** Serve every POST on its own, in JSON, with no session (and so never ask by elicitation). */
  stateless?: boolean;
}

/** A running HTTP server. */
export interface HttpServerHandle {
  /** The endpoint's URL, e.g. http://127.0.0.1:7374/mcp. */
  url: string;
  /** How many sessions are open (for an operator, and for tests that wait for one to close). */
  sessionCount(): number;
  /** Closes every session and stops listening. */
  close(): Promise<void>;
}

interface Session {
  id: string;
  tokenId: string;
  mandate: string;
  server: Server;
  transport: StreamableHTTPServerTransport;
  /** Order of last use, to close the least recently used one first. */
  used: number;
}

/** A stateless request being served: its own server, answering the token that sent it. */
interface Request {
  tokenId: string;
  server: Server;
  res: http.ServerResponse;
}

/** A host as it appears in a URL or a Host header: IPv6 in brackets. */
function hostPart(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

function reply(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** A JSON-RPC error with no id, as the SDK's transport answers protocol-level failures. */
function rpcError(res: http.ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  reply(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

/** The answer to a request without a live run token; `invalid` when one was presented. */
function unauthorized(res: http.ServerResponse, invalid: boolean): void {
  reply(
    res,
    401,
    { error: 'unauthorized', message: 'a live run token is required (Authorization: Bearer <token>; holon token create makes one)' },
    { 'www-authenticate': invalid ? 'Bearer realm="holon", error="invalid_token"' : 'Bearer realm="holon"' },
  );
}

/** The bearer token of an Authorization header, or undefined. */
function bearerOf(header: string | undefined): string | undefined {
  const m = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header ?? '');
  return m?.[1];
}

/** The body, or 'too_large' as soon as it passes `max` bytes (a declared Content-Length is believed first). */
async function readBody(req: http.IncomingMessage, max: number): Promise<Buffer | 'too_large'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return 'too_large';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > max) return 'too_large';
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/**
 * Serves the Holon MCP server over Streamable HTTP. Each session is opened with a run token and serves
 * that token's mandate; it is closed when the token ends or expires (seen on the next request, when the
 * journal says so, or by a sweep every few seconds).
 */
export async function startHttpServer(deps: ServerDeps, options: HttpServerOptions = {}): Promise<HttpServerHandle> {
  const { logger } = deps;
  const bindHost = options.host ?? '127.0.0.1';
  const sessions = new Map<string, Session>();
  const requests = new Set<Request>();
  // No session to answer a form on: a stateless server never asks by elicitation, whatever it was given.
  const statelessDeps: ServerDeps = { ...deps, approvals: { ...deps.approvals, elicitation: false } };
  let uses = 0;
  let allowedHosts = new Set<string>();
  let allowedOrigins = new Set<string>();

  const closeSession = (s: Session, why: string): void => {
    if (!sessions.delete(s.id)) return;
    logger.info(`http: session ${s.id} of token ${s.tokenId} closed (${why})`);
    void s.server.close().catch((err: unknown) => logger.warn(`http: closing session ${s.id}: ${String(err)}`));
  };

  /** Closes the sessions, and ends the stateless requests, whose token is no longer live. */
  const closeDead = (): void => {
    const now = deps.clock.now();
    for (const s of [...sessions.values()])
      if (!liveRunToken(deps.store.state, s.tokenId, now)) closeSession(s, 'its token ended or expired');
    for (const r of [...requests]) {
      if (liveRunToken(deps.store.state, r.tokenId, now)) continue;
      requests.delete(r);
      logger.info(`http: a request of token ${r.tokenId} ended (its token ended or expired)`);
      // The call it was serving stops with its server; the client is told why, as its next request would be.
      unauthorized(r.res, true);
      void r.server.close().catch((err: unknown) => logger.warn(`http: closing a request's server: ${String(err)}`));
    }
  };

  /**
   * Serves one POST with a server and transport of its own, in JSON, and closes both when its answer is
   * sent (or its client goes): nothing outlives the request.
   */
  const serveStateless = async (token: RunToken, req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> => {
    const server = createHolonServer(statelessDeps, token.mandate);
    // No sessionIdGenerator: the SDK's stateless mode (no Mcp-Session-Id is issued or asked for).
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    const r: Request = { tokenId: token.id, server, res };
    requests.add(r);
    res.on('close', () => {
      requests.delete(r);
      void server.close().catch((err: unknown) => logger.warn(`http: closing a request's server: ${String(err)}`));
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const openSession = async (token: RunToken): Promise<StreamableHTTPServerTransport> => {
    const server = createHolonServer(deps, token.mandate);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const mine = [...sessions.values()].filter((s) => s.tokenId === token.id).sort((a, b) => a.used - b.used);
        for (const old of mine.slice(0, Math.max(0, mine.length - MAX_SESSIONS_PER_TOKEN + 1)))
          closeSession(old, `token ${token.id} opened more than ${MAX_SESSIONS_PER_TOKEN} sessions`);
        sessions.set(id, { id, tokenId: token.id, mandate: token.mandate, server, transport, used: ++uses });
        logger.info(`http: session ${id} opened with token ${token.id} for ${token.mandate}`);
      },
    });
    // Set before connect: the server chains its own close handler after this one.
    transport.onclose = () => {
      const id = transport.sessionId;
      const s = id === undefined ? undefined : sessions.get(id);
      if (s && s.transport === transport) {
        sessions.delete(s.id);
        logger.info(`http: session ${s.id} of token ${s.tokenId} ended by the client`);
      }
    };
    await server.connect(transport);
    return transport;
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    // DNS rebinding: a page that rebinds its own name to this address still sends its own Host and Origin.
    const host = req.headers.host?.toLowerCase();
    if (host === undefined || !allowedHosts.has(host)) {
      logger.warn(`http: refused a request for host ${JSON.stringify(req.headers.host ?? '')}`);
      return reply(res, 403, { error: 'forbidden', message: 'this Host is not allowed' });
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase())) {
      logger.warn(`http: refused a request from origin ${JSON.stringify(origin)}`);
      return reply(res, 403, { error: 'forbidden', message: 'this Origin is not allowed' });
    }

    // Another process (`holon token end`) may have just appended: read the journal before deciding.
    deps.store.refresh();
    const presented = bearerOf(req.headers.authorization);
    const token = presented === undefined ? undefined : tokenFor(deps.store.state, presented, deps.clock.now());
    if (!token) {
      closeDead();
      return unauthorized(res, presented !== undefined);
    }

    if (!MCP_PATHS.includes(new URL(req.url ?? '/', 'http://localhost').pathname))
      return reply(res, 404, { error: 'not_found', message: `the MCP endpoint is ${MCP_PATH} (or ${MCP_AGENT_PATH})` });
    const method = req.method ?? '';
    if (options.stateless && method !== 'POST') return rpcError(res, 405, -32000, 'Method not allowed.', { allow: 'POST' });
    if (method !== 'GET' && method !== 'POST' && method !== 'DELETE')
      return reply(res, 405, { error: 'method_not_allowed' }, { allow: 'GET, POST, DELETE' });

    let body: unknown;
    if (method === 'POST') {
      const raw = await readBody(req, MAX_BODY_BYTES);
      if (raw === 'too_large') return rpcError(res, 413, -32000, `request body over ${MAX_BODY_BYTES} bytes`, { connection: 'close' });
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return rpcError(res, 400, -32700, 'Parse error: Invalid JSON');
      }
    }

    if (options.stateless) return serveStateless(token, req, res, body);

    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const s = sessions.get(sessionId);
      // Another token's session is answered as if it did not exist: a token learns nothing of another's.
      if (!s || s.tokenId !== token.id || s.mandate !== token.mandate) return rpcError(res, 404, -32001, 'Session not found');
      s.used = ++uses;
      await s.transport.handleRequest(req, res, body);
      return;
    }
    if (method !== 'POST' || !isInitializeRequest(body))
      return rpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    const transport = await openSession(token);
    await transport.handleRequest(req, res, body);
    // An initialize the transport refused leaves no session behind.
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await transport.close();
  };

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      logger.error(`http: ${(err as Error).message}`);
      reply(res, 500, { error: 'internal_error' });
    });
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, bindHost, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const port = (httpServer.address() as AddressInfo).port;
  const names = ['127.0.0.1', 'localhost', '[::1]', ...(WILDCARD.has(bindHost) ? [] : [hostPart(bindHost)])];
  allowedHosts = new Set([...names.map((n) => `${n}:${port}`), ...(options.allowedHosts ?? [])].map((h) => h.toLowerCase()));
  allowedOrigins = new Set([...names.map((n) => `http://${n}:${port}`), ...(options.allowedOrigins ?? [])].map((o) => o.toLowerCase()));

  const unsubscribe = deps.store.subscribe((events) => {
    if (events.some((e) => e.type === 'token.ended')) closeDead();
  });
  const sweep = setInterval(() => {
    try {
      deps.store.refresh();
      closeDead();
    } catch (err) {
      logger.error(`http: ${(err as Error).message}`);
    }
  }, SWEEP_MS);
  sweep.unref();

  const urlHost = bindHost === '0.0.0.0' ? '127.0.0.1' : WILDCARD.has(bindHost) ? '[::1]' : hostPart(bindHost);
  return {
    url: `http://${urlHost}:${port}${MCP_PATH}`,
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(sweep);
      unsubscribe();
      const open = [...sessions.values()];
      for (const s of open) closeSession(s, 'the server stopped');
      const serving = [...requests];
      requests.clear();
      await Promise.all([...open, ...serving].map((s) => s.server.close().catch(() => {})));
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}
