/**
 * Node's HTTP server in front of the MCP SDK's HTTP entries, which take a Fetch `Request` and answer a
 * `Response` (the SDK's own runtime-neutral form). Holon's HTTP servers check the Host, the Origin, the
 * bearer and the body's size before any of that (http.ts), so all this does is carry a request across
 * and stream its answer back, Server-Sent Events included, until either side goes.
 */
import type * as http from 'node:http';
import { Readable } from 'node:stream';

/**
 * `req` as a Fetch request, aborted when its client goes. Its body is `req`'s own stream unless the caller
 * has read it already (then it passes the parsed body to the SDK beside it).
 */
export function requestOf(req: http.IncomingMessage, res: http.ServerResponse, bodyRead: boolean): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  const method = req.method ?? 'GET';
  const withBody = !bodyRead && method !== 'GET' && method !== 'HEAD';
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method,
    headers,
    signal: gone.signal,
    ...(withBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

/** Writes `response` to `res`, streaming its body as it comes; stops reading it when the client goes. */
export async function sendResponse(res: http.ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  // An event stream may stay quiet for a while: its headers go now, not with its first event.
  res.flushHeaders();
  const reader = response.body.getReader();
  const gone = (): void => void reader.cancel().catch(() => {});
  res.once('close', gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await new Promise<void>((resolve) => (res.once('drain', resolve), res.once('close', resolve)));
    }
  } catch {
    // The stream failed or was cancelled because the client went: there is nobody left to answer.
  } finally {
    res.off('close', gone);
    res.end();
  }
}
