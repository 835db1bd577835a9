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
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tokenFor } from '../../core/accounts/runTokens.ts';
import type { RunToken } from '../../core/accounts/runTokens.ts';
import type { ServerDeps } from '../serverDeps.ts';
import type { AllowedNames } from './httpReply.ts';
import { allowedNames, bearerOf, jsonBody, refusedByName, reply, rpcError, unauthorized, urlHost } from './httpReply.ts';
import { HttpSessions } from './httpSessions.ts';
import { requestOf } from './webFetch.ts';

/** The path of the MCP endpoint, as `holon serve` prints it. */
export const MCP_PATH = '/mcp';

/** The same endpoint where seed 004 puts an office agent's: `<office.url>/mcp/agent`. */
export const MCP_AGENT_PATH = '/mcp/agent';

const MCP_PATHS: readonly string[] = [MCP_PATH, MCP_AGENT_PATH];

/**
 * The largest request body read, in bytes (as the stdio transport's line limit): room for the largest
 * artifact an office agent may publish (10 MB decoded, about 13.4 MB as base64).
 */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** How often sessions are checked against their tokens' expiry, in milliseconds. */
const SWEEP_MS = 5_000;

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

/**
 * The run token a request carries, once its Host and Origin are this server's own; undefined when it was
 * refused (the answer is sent).
 */
function admit(
  deps: ServerDeps,
  sessions: HttpSessions,
  allowed: AllowedNames,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): RunToken | undefined {
  if (refusedByName(req, res, allowed, deps.logger)) return undefined;
  // Another process (`holon token end`) may have just appended: read the journal before deciding.
  deps.store.refresh();
  const presented = bearerOf(req.headers.authorization);
  const token = presented === undefined ? undefined : tokenFor(deps.store.state, presented, deps.clock.now());
  if (!token) {
    sessions.closeDead();
    unauthorized(res, presented !== undefined);
  }
  return token;
}

/** Refuses (404, 405) a request for another path, or with a method this form of the endpoint does not take. True when it refused. */
function refusedByRoute(req: http.IncomingMessage, res: http.ServerResponse, stateless: boolean): boolean {
  if (!MCP_PATHS.includes(new URL(req.url ?? '/', 'http://localhost').pathname)) {
    reply(res, 404, { error: 'not_found', message: `the MCP endpoint is ${MCP_PATH} (or ${MCP_AGENT_PATH})` });
    return true;
  }
  const method = req.method ?? '';
  if (stateless && method !== 'POST') {
    rpcError(res, 405, -32000, 'Method not allowed.', { allow: 'POST' });
    return true;
  }
  if (method !== 'GET' && method !== 'POST' && method !== 'DELETE') {
    reply(res, 405, { error: 'method_not_allowed' }, { allow: 'GET, POST, DELETE' });
    return true;
  }
  return false;
}

/** Listens, and resolves once the port is bound (or rejects with why it could not be). */
async function listen(httpServer: http.Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  return (httpServer.address() as AddressInfo).port;
}

/**
 * Closes what belongs to an ended token as soon as the journal says so, and every few seconds for the
 * tokens that expire (nothing is appended then). Returns the function that stops both.
 */
function watchTokens(deps: ServerDeps, sessions: HttpSessions): () => void {
  const unsubscribe = deps.store.subscribe((events) => {
    if (events.some((e) => e.type === 'token.ended')) sessions.closeDead();
  });
  const sweep = setInterval(() => {
    try {
      deps.store.refresh();
      sessions.closeDead();
    } catch (err) {
      deps.logger.error(`http: ${(err as Error).message}`);
    }
  }, SWEEP_MS);
  sweep.unref();
  return () => {
    clearInterval(sweep);
    unsubscribe();
  };
}

/**
 * Serves the Holon MCP server over Streamable HTTP. Each session is opened with a run token and serves
 * that token's mandate; it is closed when the token ends or expires (seen on the next request, when the
 * journal says so, or by a sweep every few seconds).
 */
export async function startHttpServer(deps: ServerDeps, options: HttpServerOptions = {}): Promise<HttpServerHandle> {
  const bindHost = options.host ?? '127.0.0.1';
  const stateless = options.stateless === true;
  const sessions = new HttpSessions(deps);
  // Known once the port is: until then no request is served.
  let allowed: AllowedNames = { hosts: new Set(), origins: new Set() };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const token = admit(deps, sessions, allowed, req, res);
    if (!token || refusedByRoute(req, res, stateless)) return;
    const read = await jsonBody(req, res, MAX_BODY_BYTES);
    if (read === 'refused') return;
    // One Fetch request for whichever entry serves it: the body is read already, and passed beside it.
    const request = requestOf(req, res, true);
    if (await HttpSessions.isModern(request, read.body)) return sessions.serveModern(token, request, res, read.body);
    if (stateless) return sessions.serveStateless(token, request, res, read.body);
    return sessions.serveInSession(token, request, res, read.body);
  };

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      deps.logger.error(`http: ${(err as Error).message}`);
      reply(res, 500, { error: 'internal_error' });
    });
  });
  const port = await listen(httpServer, options.port ?? 0, bindHost);
  allowed = allowedNames(bindHost, port, {
    ...(options.allowedHosts ? { hosts: options.allowedHosts } : {}),
    ...(options.allowedOrigins ? { origins: options.allowedOrigins } : {}),
  });
  const stopWatching = watchTokens(deps, sessions);

  return {
    url: `http://${urlHost(bindHost)}:${port}${MCP_PATH}`,
    sessionCount: () => sessions.size,
    async close() {
      stopWatching();
      await sessions.closeAll();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}
