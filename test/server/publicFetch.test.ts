/**
 * The public-only fetch: every special-purpose block refused (plain, IPv4-mapped and NAT64 forms), a
 * host checked by every address it resolves to and connected to by the one checked, no redirect, no
 * decompression, a size limit.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { isPublicAddress, publicFetch, RefusedLink } from '../../src/server/net/publicFetch.ts';

/** Addresses inside each not-globally-reachable block of the IANA registries, with multicast and reserved space. */
const NOT_PUBLIC_V4 = [
  ['0.0.0.0/8', '0.0.0.0', '0.255.255.255'],
  ['10.0.0.0/8', '10.0.0.1', '10.255.255.254'],
  ['100.64.0.0/10', '100.64.0.1', '100.127.255.254'],
  ['127.0.0.0/8', '127.0.0.1', '127.255.255.254'],
  ['169.254.0.0/16', '169.254.169.254', '169.254.0.1'],
  ['172.16.0.0/12', '172.16.0.1', '172.31.255.254'],
  ['192.0.0.0/24', '192.0.0.8', '192.0.0.171'],
  ['192.0.2.0/24', '192.0.2.1', '192.0.2.255'],
  ['192.88.99.0/24', '192.88.99.1', '192.88.99.254'],
  ['192.168.0.0/16', '192.168.0.1', '192.168.255.254'],
  ['198.18.0.0/15', '198.18.0.1', '198.19.255.254'],
  ['198.51.100.0/24', '198.51.100.1', '198.51.100.254'],
  ['203.0.113.0/24', '203.0.113.1', '203.0.113.254'],
  ['224.0.0.0/4', '224.0.0.1', '239.255.255.255'],
  ['240.0.0.0/4', '240.0.0.1', '255.255.255.254'],
  ['255.255.255.255/32', '255.255.255.255', '255.255.255.255'],
] as const;
const NOT_PUBLIC_V6 = [
  ['::/128', '::'],
  ['::1/128', '::1'],
  ['100::/64 discard', '100::1'],
  ['2001::/32 Teredo', '2001::1'],
  ['2001:2::/48 benchmarking', '2001:2::1'],
  ['2001:10::/28 ORCHID', '2001:10::1'],
  ['2001:db8::/32 documentation', '2001:db8::1'],
  ['2002::/16 6to4', '2002:c000:204::1'],
  ['3fff::/20 documentation', '3fff::1'],
  ['5f00::/16 SRv6', '5f00::1'],
  ['fc00::/7 unique local', 'fd12:3456::1'],
  ['fe80::/10 link local', 'fe80::1'],
  ['ff00::/8 multicast', 'ff02::1'],
  ['reserved (outside 2000::/3)', '4000::1'],
  ['IPv4-compatible (deprecated)', '::127.0.0.1'],
  ['64:ff9b:1::/48 local-use NAT64', '64:ff9b:1::808:808'],
] as const;
const PUBLIC = ['8.8.8.8', '1.1.1.1', '192.31.196.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '[2606:4700:4700::1111]'];

describe('what counts as public', () => {
  for (const [block, ...addresses] of NOT_PUBLIC_V4) {
    test(`IPv4 ${block} is refused, as is, IPv4-mapped and behind NAT64`, () => {
      for (const a of addresses) {
        const [w, x, y, z] = a.split('.').map(Number) as [number, number, number, number];
        const hex = (((w << 8) | x) >>> 0).toString(16) + ':' + (((y << 8) | z) >>> 0).toString(16);
        for (const form of [a, `::ffff:${a}`, `::ffff:${hex}`, `64:ff9b::${a}`, `64:ff9b::${hex}`]) {
          assert.equal(isPublicAddress(form), false, form);
        }
      }
    });
  }
  for (const [block, address] of NOT_PUBLIC_V6) {
    test(`IPv6 ${block} is refused`, () => assert.equal(isPublicAddress(address), false, address));
  }
  test('global addresses pass, in every form; what does not parse does not', () => {
    for (const a of PUBLIC) assert.equal(isPublicAddress(a), true, a);
    for (const junk of ['', 'localhost', '256.1.1.1', '1.2.3', 'fe80::1%eth0x', '::ffff:999.1.1.1']) assert.equal(isPublicAddress(junk), false, junk);
  });
});

describe('the fetch', () => {
  let server: http.Server;
  let port = 0;
  const seen: { path: string; host: string }[] = [];
  let connections = 0;
  before(async () => {
    server = http.createServer((req, res) => {
      seen.push({ path: req.url ?? '', host: req.headers.host ?? '' });
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else if (req.url === '/gzip') {
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' }).end(gzipSync('hello'));
      } else if (req.url === '/endless') {
        res.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 120);
        const pump = (): void => {
          while (res.write(chunk)) {
            /* keep writing until the socket pushes back */
          }
          res.once('drain', pump);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      }
    });
    server.on('connection', () => (connections += 1));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const refused = async (p: Promise<unknown>, why: RefusedLink['why']): Promise<void> => {
    await assert.rejects(p, (err: unknown) => err instanceof RefusedLink && err.why === why && !/127\.0\.0\.1|169\.254/.test(err.message));
  };

  test('a link naming a private address is refused before anything connects', async () => {
    const before = connections;
    await refused(publicFetch()(`http://127.0.0.1:${port}/`), 'address');
    await refused(publicFetch()(`http://[::ffff:127.0.0.1]:${port}/`), 'address');
    await refused(publicFetch()(`http://169.254.169.254/latest/meta-data/`), 'address');
    assert.equal(connections, before, 'no connection was made');
  });

  test('a host is resolved once; one private address among its addresses refuses it', async () => {
    const before = connections;
    let lookups = 0;
    const to = (addresses: string[]) => async () => {
      lookups += 1;
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    await refused(publicFetch({ resolve: to(['127.0.0.1']) })(`http://seller.example:${port}/`), 'address');
    await refused(publicFetch({ resolve: to(['93.184.215.14', '10.0.0.7']) })(`http://seller.example:${port}/`), 'address');
    await refused(publicFetch({ resolve: to([]) })(`http://seller.example:${port}/`), 'address');
    await refused(publicFetch({ resolve: async () => Promise.reject(new Error('NXDOMAIN')) })('http://nowhere.example/'), 'resolve');
    assert.equal(lookups, 3);
    assert.equal(connections, before);
  });

  test('the socket connects to the address that was checked, not to a second resolution', async () => {
    // A resolver that would answer differently the second time (DNS rebinding) is asked once.
    let lookups = 0;
    const rebinding = async (): Promise<{ address: string; family: number }[]> => [{ address: lookups++ === 0 ? '127.0.0.1' : '10.9.9.9', family: 4 }];
    // Loopback is allowed here only by the explicit setting, to reach the test's own server.
    const res = await publicFetch({ resolve: rebinding, allowPrivate: true })(`http://seller.example:${port}/atr`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true });
    assert.equal(lookups, 1);
    assert.deepEqual(seen.at(-1), { path: '/atr', host: `seller.example:${port}` });
  });

  test('a redirect is returned, never followed; a compressed body is returned as sent', async () => {
    const f = publicFetch({ allowPrivate: true });
    const count = seen.length;
    const redirect = await f(`http://127.0.0.1:${port}/redirect`);
    assert.equal(redirect.status, 302);
    assert.equal(redirect.headers.get('location'), 'http://169.254.169.254/latest/meta-data/');
    assert.equal(seen.length, count + 1, 'one request: the redirect was not followed');
    const gz = await f(`http://127.0.0.1:${port}/gzip`);
    assert.deepEqual(Buffer.from(await gz.arrayBuffer()), gzipSync('hello'));
  });

  test('an endless body is cut off at the limit', async () => {
    await refused(publicFetch({ allowPrivate: true, maxBytes: 256 * 1024 })(`http://127.0.0.1:${port}/endless`), 'too_large');
  });

  test('only http and https', async () => {
    for (const link of ['file:///etc/passwd', 'ftp://example.com/', 'data:text/plain,hi', 'gopher://example.com/']) await refused(publicFetch()(link), 'scheme');
  });
});

describe('a kept-alive socket', () => {
  // A server that keeps every connection alive for as long as the client does, and resets one (TCP RST)
  // on its second request: what a seller's keep-alive socket that timed out looks like to the next request.
  let server: http.Server;
  let port = 0;
  const requests: { method: string; path: string; connection: number; reset: boolean }[] = [];
  let connections = 0;
  before(async () => {
    server = http.createServer({ keepAliveTimeout: 0 }, (req, res) => {
      const socket = req.socket as Socket & { holonId?: number; holonRequests?: number };
      socket.holonRequests = (socket.holonRequests ?? 0) + 1;
      const reset = socket.holonRequests >= 2 || req.url === '/always-reset';
      requests.push({ method: req.method ?? '', path: req.url ?? '', connection: socket.holonId ?? 0, reset });
      if (reset) return void socket.resetAndDestroy();
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(`answered on connection ${socket.holonId}`));
    });
    server.on('connection', (socket: Socket & { holonId?: number }) => {
      connections += 1;
      socket.holonId = connections;
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  /** A resolver that answers 127.0.0.1 the first `loopback` times, then 127.0.0.2, where nothing listens. */
  const moving = (loopback: number): { resolve: () => Promise<{ address: string; family: number }[]>; lookups: () => number } => {
    let lookups = 0;
    return {
      resolve: async () => [{ address: lookups++ < loopback ? '127.0.0.1' : '127.0.0.2', family: 4 }],
      lookups: () => lookups,
    };
  };

  test('a GET on a reused socket the server reset goes once more, on a new connection to the checked address', async () => {
    const dns = moving(2);
    // Loopback only by the explicit setting, to reach the test's own server.
    const f = publicFetch({ resolve: dns.resolve, allowPrivate: true });
    const from = requests.length;
    const first = await f(`http://seller.example:${port}/atr`);
    assert.equal(await first.text(), `answered on connection ${connections}`);
    const again = await f(`http://seller.example:${port}/atr`);
    assert.equal(again.status, 200);
    const mine = requests.slice(from);
    assert.deepEqual(
      mine.map((r) => [r.method, r.reset]),
      [['GET', false], ['GET', true], ['GET', false]],
      'the second fetch reached the reused socket, was reset, and went once more',
    );
    assert.equal(mine[1]?.connection, mine[0]?.connection, 'the reset request was on the kept-alive socket');
    assert.notEqual(mine[2]?.connection, mine[0]?.connection, 'the retry opened a new connection');
    assert.equal(await again.text(), `answered on connection ${mine[2]?.connection}`);
    // One resolution per fetch: the retry resolved nothing (a third lookup would have answered 127.0.0.2).
    assert.equal(dns.lookups(), 2);
  });

  test('a POST (a payment sent) is never sent twice', async () => {
    const dns = moving(2);
    const f = publicFetch({ resolve: dns.resolve, allowPrivate: true });
    const from = requests.length;
    assert.equal((await f(`http://seller.example:${port}/`)).status, 200);
    await assert.rejects(
      f(`http://seller.example:${port}/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"payment":1}' }),
      (err: unknown) => err instanceof RefusedLink && err.why === 'network',
    );
    assert.deepEqual(
      requests.slice(from).map((r) => [r.method, r.path, r.reset]),
      [['GET', '/', false], ['POST', '/pay', true]],
    );
    assert.equal(dns.lookups(), 2);
  });

  test('once more, never twice; and a reset on a new connection is not retried', async () => {
    const f = publicFetch({ allowPrivate: true });
    const from = requests.length;
    assert.equal((await f(`http://127.0.0.1:${port}/`)).status, 200);
    await assert.rejects(f(`http://127.0.0.1:${port}/always-reset`), (err: unknown) => err instanceof RefusedLink && err.why === 'network');
    assert.deepEqual(
      requests.slice(from).map((r) => [r.path, r.reset]),
      [['/', false], ['/always-reset', true], ['/always-reset', true]],
    );
    // A fresh fetch: its first request is on a new connection, so a reset there is the seller's answer.
    const g = publicFetch({ allowPrivate: true });
    const at = requests.length;
    await assert.rejects(g(`http://127.0.0.1:${port}/always-reset`), (err: unknown) => err instanceof RefusedLink && err.why === 'network');
    assert.equal(requests.length, at + 1);
  });

  test('a kept-alive socket serves only the address it connected to: a host that moved is connected to anew', async () => {
    // The first lookup answers 127.0.0.1, the second 127.0.0.2 (where nothing listens): the socket kept
    // alive to 127.0.0.1 must not carry the second request, which goes where the host resolved now.
    const dns = moving(1);
    const f = publicFetch({ resolve: dns.resolve, allowPrivate: true });
    const from = requests.length;
    assert.equal((await f(`http://seller.example:${port}/`)).status, 200);
    await assert.rejects(f(`http://seller.example:${port}/`), (err: unknown) => err instanceof RefusedLink && err.why === 'network');
    assert.equal(requests.length, from + 1, 'the second request never reached the server at 127.0.0.1');
    assert.equal(dns.lookups(), 2);
  });
});
