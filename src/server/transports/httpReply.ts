/**
 * The parts of `holon serve` that read a request and answer it before any MCP server sees it: the names a
 * Host and an Origin may carry, the bearer, the body with its limit, and the JSON answers of a refusal.
 */
import type * as http from 'node:http';
import type { Logger } from '../../core/kernel/deps.ts';

/** A host as it appears in a URL or a Host header: IPv6 in brackets. */
export function hostPart(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** The addresses that mean "every interface": no client can name them in a Host header. */
export const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

/** The Host and Origin values a server bound to `bindHost:port` answers, lower-cased. */
export interface AllowedNames {
  hosts: Set<string>;
  origins: Set<string>;
}

/**
 * The defaults (127.0.0.1, localhost and [::1] with the bound port, and the bound address itself unless it
 * is a wildcard), with what the human added.
 */
export function allowedNames(bindHost: string, port: number, extra: { hosts?: string[]; origins?: string[] }): AllowedNames {
  const names = ['127.0.0.1', 'localhost', '[::1]', ...(WILDCARD.has(bindHost) ? [] : [hostPart(bindHost)])];
  return {
    hosts: new Set([...names.map((n) => `${n}:${port}`), ...(extra.hosts ?? [])].map((h) => h.toLowerCase())),
    origins: new Set([...names.map((n) => `http://${n}:${port}`), ...(extra.origins ?? [])].map((o) => o.toLowerCase())),
  };
}

/** The address a client on this machine uses for a server bound to `bindHost`. */
export function urlHost(bindHost: string): string {
  return bindHost === '0.0.0.0' ? '127.0.0.1' : WILDCARD.has(bindHost) ? '[::1]' : hostPart(bindHost);
}

export function reply(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** A JSON-RPC error with no id, as the SDK's transport answers protocol-level failures. */
export function rpcError(
  res: http.ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  reply(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

/** The answer to a request without a live run token; `invalid` when one was presented. */
export function unauthorized(res: http.ServerResponse, invalid: boolean): void {
  reply(
    res,
    401,
    { error: 'unauthorized', message: 'a live run token is required (Authorization: Bearer <token>; holon token create makes one)' },
    { 'www-authenticate': invalid ? 'Bearer realm="holon", error="invalid_token"' : 'Bearer realm="holon"' },
  );
}

/**
 * Refuses (403) a request whose Host is not this server's, or whose Origin, when sent, is not one of its
 * own: a page that rebinds its own name to this address still sends its own Host and Origin. True when it
 * refused.
 */
export function refusedByName(req: http.IncomingMessage, res: http.ServerResponse, allowed: AllowedNames, logger: Logger): boolean {
  const host = req.headers.host?.toLowerCase();
  if (host === undefined || !allowed.hosts.has(host)) {
    logger.warn(`http: refused a request for host ${JSON.stringify(req.headers.host ?? '')}`);
    reply(res, 403, { error: 'forbidden', message: 'this Host is not allowed' });
    return true;
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !allowed.origins.has(origin.toLowerCase())) {
    logger.warn(`http: refused a request from origin ${JSON.stringify(origin)}`);
    reply(res, 403, { error: 'forbidden', message: 'this Origin is not allowed' });
    return true;
  }
  return false;
}

/** The bearer token of an Authorization header, or undefined. */
export function bearerOf(header: string | undefined): string | undefined {
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
 * A POST's body as JSON, or the refusal already sent (413 past `max` bytes, 400 for what is not JSON);
 * `{ body: undefined }` for any other method, which carries none.
 */
export async function jsonBody(req: http.IncomingMessage, res: http.ServerResponse, max: number): Promise<{ body: unknown } | 'refused'> {
  if (req.method !== 'POST') return { body: undefined };
  const raw = await readBody(req, max);
  if (raw === 'too_large') {
    rpcError(res, 413, -32000, `request body over ${max} bytes`, { connection: 'close' });
    return 'refused';
  }
  try {
    return { body: JSON.parse(raw.toString('utf8')) };
  } catch {
    rpcError(res, 400, -32700, 'Parse error: Invalid JSON');
    return 'refused';
  }
}
