/**
 * The network policy of every link a seller or an agent chooses: a `fetch` that reaches public addresses
 * only. A link that names an address is checked before anything connects; a host is resolved once, and
 * the socket connects only when every address it resolved to is public — to one of those addresses, so a
 * second resolution cannot steer it elsewhere. Kept-alive sockets are pooled by that address. An
 * idempotent request whose reused socket the server had closed goes once more, on a new connection to the
 * same address. No redirect is followed, nothing is decompressed, and the body is cut off past a limit.
 */
import * as dns from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import ipaddr from 'ipaddr.js';

/**
 * Blocks of the IANA IPv4 and IPv6 special-purpose address registries that are not globally reachable
 * (or deprecated), with multicast and reserved space. Globally reachable entries inside a larger
 * refused block (a few anycast /32s in 192.0.0.0/24, say) are refused with it: refusing too much costs a
 * seller a link; allowing too much lets a link reach inside the human's network.
 */
const NOT_PUBLIC_V4 = [
  '0.0.0.0/8', // "this network"
  '10.0.0.0/8', // private use
  '100.64.0.0/10', // shared address space
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link local
  '172.16.0.0/12', // private use
  '192.0.0.0/24', // IETF protocol assignments (DS-Lite, NAT64 discovery, dummy…)
  '192.0.2.0/24', // documentation (TEST-NET-1)
  '192.88.99.0/24', // 6to4 relay anycast (deprecated)
  '192.168.0.0/16', // private use
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation (TEST-NET-2)
  '203.0.113.0/24', // documentation (TEST-NET-3)
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved
  '255.255.255.255/32', // limited broadcast
].map((cidr) => ipaddr.IPv4.parseCIDR(cidr));

/** IPv6 outside 2000::/3 is not global unicast; inside it, these blocks are not public either. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NOT_PUBLIC_V6 = [
  '2001::/23', // IETF protocol assignments: Teredo, benchmarking, documentation, ORCHID…
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4
  '3fff::/20', // documentation
].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));
/** NAT64 prefixes: the address is judged by the IPv4 address in its last 32 bits. */
const NAT64 = [ipaddr.IPv6.parseCIDR('64:ff9b::/96'), ipaddr.IPv6.parseCIDR('64:ff9b:1::/48')];

/** Whether `address` (IPv4 or IPv6, as text) is a public address; anything that does not parse is not. */
export function isPublicAddress(address: string): boolean {
  const text = address.replace(/^\[|\]$/g, '');
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // Only the four-part dotted form is an IPv4 address here ("1.2.3" and "0x7f.1" are not).
    if (text.includes(':')) parsed = ipaddr.IPv6.parse(text);
    else if (ipaddr.IPv4.isValidFourPartDecimal(text)) parsed = ipaddr.IPv4.parse(text);
    else return false;
  } catch {
    return false;
  }
  return isPublic(parsed);
}

function isPublic(a: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (a.kind() === 'ipv4') return !NOT_PUBLIC_V4.some((range) => a.match(range));
  const v6 = a as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return isPublic(v6.toIPv4Address());
  if (NAT64.some((range) => v6.match(range))) {
    // The local-use NAT64 prefix is never public, whatever it carries.
    if (!v6.match(NAT64[0] as [ipaddr.IPv6, number])) return false;
    const bytes = v6.toByteArray();
    return isPublic(ipaddr.fromByteArray(bytes.slice(12)));
  }
  return v6.match(GLOBAL_UNICAST_V6) && !NOT_PUBLIC_V6.some((range) => v6.match(range));
}

/** Why a public fetch refused a link, with the one generic detail a caller may show. */
export class RefusedLink extends Error {
  constructor(readonly why: 'scheme' | 'address' | 'resolve' | 'too_large' | 'timeout' | 'network') {
    super('the link could not be fetched from a public address within the limits');
  }
}

/** A host's addresses, as `dns.lookup` with `all: true` gives them. */
export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

/** Options of a public fetch. */
export interface PublicFetchOptions {
  /** The most bytes a body may have (default 1 MiB). */
  maxBytes?: number;
  /** How long one fetch may take in all (default 15 s). */
  timeoutMs?: number;
  /** How a host is resolved (tests pass their own). */
  resolve?: Resolver;
  /**
   * Also reach private addresses (loopback, private use…): only by the human's explicit setting, for a
   * seller on their own machine or network.
   */
  allowPrivate?: boolean;
}

/** A WHATWG-shaped fetch; the only one the terms tools and HTTP agents use. */
export type FetchLike = (
  input: string | URL,
  init?: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<Response>;

/** How long an idle kept-alive socket waits for its next request (under the 5 s a Node server keeps one). */
const IDLE_SOCKET_MS = 4_000;

/**
 * The errors of a request whose kept-alive socket the server had already reset or closed: it never
 * reached the server's application (or was dropped unread), so an idempotent request may go again.
 */
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE']);

/** A request that failed on a reused socket before any byte of a response: it may be sent once more. */
class StaleSocket extends Error {}

/** A `fetch` that connects only to public addresses (see the module's comment). */
export function publicFetch(options: PublicFetchOptions = {}): FetchLike {
  const maxBytes = options.maxBytes ?? 1 << 20;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const resolve = options.resolve ?? systemResolver;
  const allowed = (address: string): boolean => options.allowPrivate === true || isPublicAddress(address);
  // This fetch's own pools: a socket is pooled under the address it connected to (the request names the
  // checked address, never the host), so a kept-alive socket is only ever reused for that same address —
  // never one another fetch, or a laxer policy, opened to whatever the host resolved to then.
  const pools = {
    'http:': new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
    'https:': new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  };

  return async (input, init = {}) => {
    const url = new URL(String(input));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefusedLink('scheme');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let address: string;
    if (ipaddr.isValid(host)) {
      if (!allowed(host)) throw new RefusedLink('address');
      address = host;
    } else {
      let all: { address: string; family: number }[];
      try {
        all = await resolve(host);
      } catch {
        throw new RefusedLink('resolve');
      }
      // Every address the host resolves to must be public: a mix lets the next lookup pick the private one.
      if (all.length === 0 || !all.every((a) => allowed(a.address))) throw new RefusedLink('address');
      address = (all[0] as { address: string }).address;
    }
    const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    const method = (init.method ?? 'GET').toUpperCase();
    const request = (agent: http.Agent | false): Promise<Response> =>
      send({
        url,
        host,
        address,
        method,
        init,
        agent,
        signal,
        maxBytes,
        retryable: (method === 'GET' || method === 'HEAD') && init.body === undefined,
      });
    try {
      return await request(pools[url.protocol]);
    } catch (err) {
      // A kept-alive socket the server had closed meanwhile: once more, on a new connection to the same
      // checked address (nothing is resolved again). A request with a body (a payment sent) never goes twice.
      if (!(err instanceof StaleSocket)) throw err;
      return request(false);
    }
  };
}

/** One request of a public fetch, to the checked `address`; `agent: false` opens a new connection. */
function send(r: {
  url: URL;
  host: string;
  address: string;
  method: string;
  init: Parameters<FetchLike>[1] & {};
  agent: http.Agent | false;
  signal: AbortSignal;
  maxBytes: number;
  retryable: boolean;
}): Promise<Response> {
  const { url, signal, maxBytes } = r;
  const tls = url.protocol === 'https:';
  return new Promise<Response>((resolvePromise, reject) => {
    let answered = false;
    // The socket connects to the address checked, never to a second resolution of the host; the Host
    // header and the TLS server name (certificate included) stay the link's.
    const req = (tls ? https : http).request(
      {
        protocol: url.protocol,
        host: r.address,
        port: url.port || (tls ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: r.method,
        headers: { ...r.init.headers, host: url.host, 'accept-encoding': 'identity' },
        agent: r.agent,
        signal,
        ...(tls && !ipaddr.isValid(r.host) ? { servername: r.host } : {}),
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            reject(new RefusedLink('too_large'));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (Array.isArray(v)) for (const x of v) headers.append(k, x);
            else if (v !== undefined) headers.set(k, v);
          }
          const status = res.statusCode ?? 0;
          const body = status === 204 || status === 304 || (status >= 100 && status < 200) ? null : Buffer.concat(chunks);
          try {
            resolvePromise(
              new Response(body, { status: status < 200 || status > 599 ? 502 : status, statusText: res.statusMessage ?? '', headers }),
            );
          } catch {
            reject(new RefusedLink('network'));
          }
        });
        res.on('error', () => reject(new RefusedLink('network')));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (signal.aborted) reject(new RefusedLink('timeout'));
      else if (r.retryable && !answered && req.reusedSocket && STALE_SOCKET.has(err.code ?? '')) reject(new StaleSocket());
      else reject(new RefusedLink('network'));
    });
    if (r.init.body !== undefined) req.write(r.init.body);
    req.end();
  });
}
