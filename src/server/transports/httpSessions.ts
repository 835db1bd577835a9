/**
 * What `holon serve` keeps open for its clients: the sessions of the stateful form, each serving the one
 * mandate of the run token that opened it, and the requests in flight of the stateless form and of MCP
 * 2026-07-28 (stateless by design), each with a server of its own. Whatever belongs to a token that ended
 * or expired is closed here.
 */
import { randomUUID } from 'node:crypto';
import type * as http from 'node:http';
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { McpHttpHandler, Server } from '@modelcontextprotocol/server';
import { liveRunToken } from '../../core/accounts/runTokens.ts';
import type { RunToken } from '../../core/accounts/runTokens.ts';
import { createHolonServer } from '../server.ts';
import type { ServerDeps } from '../serverDeps.ts';
import { rpcError, unauthorized } from './httpReply.ts';
import { sendResponse } from './webFetch.ts';

/**
 * Sessions one token may hold open at once. A client that reconnects without ending its old session
 * leaves one behind each time; past this, the least recently used is closed instead of growing forever.
 */
const MAX_SESSIONS_PER_TOKEN = 16;

interface Session {
  id: string;
  tokenId: string;
  mandate: string;
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  /** Order of last use, to close the least recently used one first. */
  used: number;
}

/** A stateless request being served, answering the token that sent it; `end` stops its server. */
interface Request {
  tokenId: string;
  res: http.ServerResponse;
  end(): Promise<void>;
}

/** The open sessions and the stateless requests in flight of one HTTP server. */
export class HttpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly requests = new Set<Request>();
  /** MCP 2026-07-28's entry, by token: each request it serves gets a server of its own for the token's mandate. */
  private readonly modern = new Map<string, McpHttpHandler>();
  /** No session to answer a form on: a stateless server never asks by elicitation, whatever it was given. */
  private readonly statelessDeps: ServerDeps;
  private uses = 0;

  constructor(private readonly deps: ServerDeps) {
    this.statelessDeps = { ...deps, approvals: { ...deps.approvals, elicitation: false } };
  }

  /** How many sessions are open. */
  get size(): number {
    return this.sessions.size;
  }

  private closeSession(s: Session, why: string): void {
    if (!this.sessions.delete(s.id)) return;
    this.deps.logger.info(`http: session ${s.id} of token ${s.tokenId} closed (${why})`);
    void s.server.close().catch((err: unknown) => this.deps.logger.warn(`http: closing session ${s.id}: ${String(err)}`));
  }

  /** Closes the sessions, and ends the stateless requests, whose token is no longer live. */
  closeDead(): void {
    const { store, clock, logger } = this.deps;
    const now = clock.now();
    for (const s of [...this.sessions.values()])
      if (!liveRunToken(store.state, s.tokenId, now)) this.closeSession(s, 'its token ended or expired');
    for (const r of [...this.requests]) {
      if (liveRunToken(store.state, r.tokenId, now)) continue;
      this.requests.delete(r);
      logger.info(`http: a request of token ${r.tokenId} ended (its token ended or expired)`);
      // The call it was serving stops with its server; the client is told why, as its next request would be.
      unauthorized(r.res, true);
      void r.end().catch((err: unknown) => logger.warn(`http: closing a request's server: ${String(err)}`));
    }
    for (const [tokenId, handler] of [...this.modern]) {
      if (liveRunToken(store.state, tokenId, now)) continue;
      this.modern.delete(tokenId);
      void handler.close().catch(() => {});
    }
  }

  /** True when the request speaks MCP 2026-07-28 or later (its body carries the per-request envelope). */
  static async isModern(request: globalThis.Request, body: unknown): Promise<boolean> {
    return request.method === 'POST' && !(await isLegacyRequest(request, body));
  }

  /**
   * Serves a 2026-07-28 request: no session, a server of its own made for it (the SDK's per-request entry),
   * answering in JSON or as an event stream while a call reports progress. The human is asked in the
   * call's answer (inBand.ts), so the server keeps the user's setting for asking.
   */
  async serveModern(token: RunToken, request: globalThis.Request, res: http.ServerResponse, body: unknown): Promise<void> {
    let handler = this.modern.get(token.id);
    if (!handler) {
      const onerror = (err: Error): void => this.deps.logger.info(`http: ${err.message}`);
      handler = createMcpHandler(() => createHolonServer(this.deps, token.mandate), { legacy: 'reject', onerror });
      this.modern.set(token.id, handler);
    }
    const ended = new AbortController();
    const r: Request = { tokenId: token.id, res, end: async () => ended.abort() };
    this.requests.add(r);
    res.on('close', () => this.requests.delete(r));
    const response = await handler.fetch(request, { parsedBody: body });
    ended.signal.addEventListener('abort', () => void response.body?.cancel().catch(() => {}));
    await sendResponse(res, response);
  }

  /**
   * Serves one POST with a server and transport of its own, in JSON, and closes both when its answer is
   * sent (or its client goes): nothing outlives the request.
   */
  async serveStateless(token: RunToken, request: globalThis.Request, res: http.ServerResponse, body: unknown): Promise<void> {
    const server = createHolonServer(this.statelessDeps, token.mandate);
    // No sessionIdGenerator: the SDK's stateless mode (no Mcp-Session-Id is issued or asked for).
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    const r: Request = { tokenId: token.id, res, end: () => server.close() };
    this.requests.add(r);
    res.on('close', () => {
      this.requests.delete(r);
      void server.close().catch((err: unknown) => this.deps.logger.warn(`http: closing a request's server: ${String(err)}`));
    });
    await server.connect(transport);
    await sendResponse(res, await transport.handleRequest(request, { parsedBody: body }));
  }

  /**
   * Serves a request in the session it names, or opens one with an initialize. Another token's session is
   * answered as if it did not exist: a token learns nothing of another's.
   */
  async serveInSession(token: RunToken, request: globalThis.Request, res: http.ServerResponse, body: unknown): Promise<void> {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
      const s = this.sessions.get(sessionId);
      if (!s || s.tokenId !== token.id || s.mandate !== token.mandate) return rpcError(res, 404, -32001, 'Session not found');
      s.used = ++this.uses;
      await sendResponse(res, await s.transport.handleRequest(request, { parsedBody: body }));
      return;
    }
    if (request.method !== 'POST' || !isInitializeRequest(body))
      return rpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    const transport = await this.openSession(token);
    await sendResponse(res, await transport.handleRequest(request, { parsedBody: body }));
    // An initialize the transport refused leaves no session behind.
    if (transport.sessionId === undefined || !this.sessions.has(transport.sessionId)) await transport.close();
  }

  private async openSession(token: RunToken): Promise<WebStandardStreamableHTTPServerTransport> {
    const { logger } = this.deps;
    const server = createHolonServer(this.deps, token.mandate);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.makeRoomFor(token.id);
        this.sessions.set(id, { id, tokenId: token.id, mandate: token.mandate, server, transport, used: ++this.uses });
        logger.info(`http: session ${id} opened with token ${token.id} for ${token.mandate}`);
      },
    });
    // Set before connect: the server chains its own close handler after this one.
    transport.onclose = () => {
      const id = transport.sessionId;
      const s = id === undefined ? undefined : this.sessions.get(id);
      if (s && s.transport === transport) {
        this.sessions.delete(s.id);
        logger.info(`http: session ${s.id} of token ${s.tokenId} ended by the client`);
      }
    };
    await server.connect(transport);
    return transport;
  }

  /** Closes a token's least recently used sessions so that one more stays within its limit. */
  private makeRoomFor(tokenId: string): void {
    const mine = [...this.sessions.values()].filter((s) => s.tokenId === tokenId).sort((a, b) => a.used - b.used);
    for (const old of mine.slice(0, Math.max(0, mine.length - MAX_SESSIONS_PER_TOKEN + 1)))
      this.closeSession(old, `token ${tokenId} opened more than ${MAX_SESSIONS_PER_TOKEN} sessions`);
  }

  /** Closes every session and the server of every request in flight. */
  async closeAll(): Promise<void> {
    const open = [...this.sessions.values()];
    for (const s of open) this.closeSession(s, 'the server stopped');
    const serving = [...this.requests];
    this.requests.clear();
    const modern = [...this.modern.values()];
    this.modern.clear();
    await Promise.all([
      ...open.map((s) => s.server.close().catch(() => {})),
      ...serving.map((r) => r.end().catch(() => {})),
      ...modern.map((h) => h.close().catch(() => {})),
    ]);
  }
}
