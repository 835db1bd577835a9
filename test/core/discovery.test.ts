/**
 * A discovery listing becomes catalog entries only as far as it can be paid and called: each item that
 * reads is one agent with the price of an offer the wallet can pay (exact amounts, in the asset table's
 * decimals), the payee of that offer, and the method, input and schemas its bazaar info declares; each
 * item that does not is skipped with its reason, and the others still come in.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import type { PaymentRequirements } from '@x402/core/types';
import type { DiscoveryResource } from '@x402/extensions/bazaar';
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { readAgentSource } from '../../src/core/market/agentSources.ts';
import { asListing, DEFAULT_CAPABILITY, listingEntries } from '../../src/core/market/discovery.ts';
import { TEST_NETWORK, TEST_USDC } from '../../src/core/rails/assets.ts';
import { tempDir } from '../helpers.ts';

const PAY_TO = '0x1111111111111111111111111111111111111111';

function offer(over: Partial<PaymentRequirements> = {}): PaymentRequirements {
  return {
    scheme: 'exact',
    network: TEST_NETWORK,
    asset: TEST_USDC,
    amount: '1000',
    payTo: PAY_TO,
    maxTimeoutSeconds: 60,
    extra: {},
    ...over,
  };
}

/** The bazaar extension a seller declares, with the method the official server extension fills in. */
function bazaar(config: Parameters<typeof declareDiscoveryExtension>[0], method?: string): Record<string, unknown> {
  const ext = declareDiscoveryExtension(config).bazaar as unknown as { info: { input: Record<string, unknown> } };
  if (method) ext.info.input['method'] = method;
  return ext as unknown as Record<string, unknown>;
}

function item(resource: string, over: Partial<DiscoveryResource> = {}, ext: Record<string, unknown> | null = weather()): DiscoveryResource {
  return {
    resource,
    type: 'http',
    x402Version: 2,
    accepts: [offer()],
    lastUpdated: '2026-01-01T00:00:00Z',
    description: 'Forecasts',
    ...(ext ? { extensions: { bazaar: ext } } : {}),
    ...over,
  };
}

const weather = (): Record<string, unknown> =>
  bazaar(
    {
      input: { city: 'Paris' },
      inputSchema: { properties: { city: { type: 'string' } }, required: ['city'] },
      output: { example: { temp: 12 } },
    },
    'GET',
  );

describe('a listed resource as a catalog entry', () => {
  test('a GET resource: query input, its schema and example, the price in USDC from atomic units, the payee', () => {
    const { entries, skipped } = listingEntries([item('http://127.0.0.1:4021/weather', { tags: ['Weather', 'forecast'] })]);
    assert.deepEqual(skipped, []);
    const [e] = entries;
    assert.ok(e);
    assert.match(e.manifest.id, /^127\.0\.0\.1-4021\/weather-[0-9a-f]{8}$/);
    assert.deepEqual(e.manifest.price, { currency: 'USDC', per_call: '0.001' });
    assert.deepEqual(e.endpoint, {
      type: 'x402',
      url: 'http://127.0.0.1:4021/weather',
      payee: `${TEST_NETWORK}:${PAY_TO}`,
      method: 'GET',
      input: 'query',
    });
    assert.deepEqual(e.manifest.input_schema, { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
    assert.deepEqual(e.manifest.examples, [{ input: { city: 'Paris' }, output: { temp: 12 } }]);
    assert.deepEqual(e.manifest.capabilities, ['weather', 'forecast']);
    assert.equal(e.manifest.description, 'Forecasts');
    assert.equal(e.manifest.publisher, '127.0.0.1:4021');
    // Nothing declared about data is the worst: a mandate with data rules excludes it.
    assert.deepEqual(e.manifest.data_policy, { regions: ['unknown'], retention_days: 36_500, training: true });
  });

  test('a POST resource takes a JSON body; an MCP tool becomes an MCP endpoint with its tool and schema', () => {
    const post = item(
      'https://api.example.com/summarize',
      {},
      bazaar({ bodyType: 'json', input: { text: 'hi' }, inputSchema: { properties: { text: { type: 'string' } } } }, 'POST'),
    );
    const mcp = item(
      'https://tools.example.com/mcp',
      { type: 'mcp' },
      bazaar({
        toolName: 'forecast',
        description: 'A forecast',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        example: { city: 'Oslo' },
      }),
    );
    const { entries, skipped } = listingEntries([post, mcp]);
    assert.deepEqual(skipped, []);
    assert.deepEqual(entries[0]?.endpoint, {
      type: 'x402',
      url: 'https://api.example.com/summarize',
      payee: `${TEST_NETWORK}:${PAY_TO}`,
      method: 'POST',
      input: 'json',
    });
    assert.deepEqual(entries[0]?.manifest.input_schema, { type: 'object', properties: { text: { type: 'string' } } });
    assert.deepEqual(entries[1]?.endpoint, {
      type: 'http',
      url: 'https://tools.example.com/mcp',
      tool: 'forecast',
      payee: `${TEST_NETWORK}:${PAY_TO}`,
    });
    assert.match(entries[1]?.manifest.id ?? '', /^tools\.example\.com\/forecast-[0-9a-f]{8}$/);
    assert.deepEqual(entries[1]?.manifest.input_schema, { type: 'object', properties: { city: { type: 'string' } } });
  });

  test('the id is the same on every import, and differs between resources and between the tools of one server', () => {
    const a = listingEntries([item('https://x.example/a'), item('https://x.example/b')]).entries.map((e) => e.manifest.id);
    const b = listingEntries([item('https://x.example/a'), item('https://x.example/b')]).entries.map((e) => e.manifest.id);
    assert.deepEqual(a, b);
    assert.notEqual(a[0], a[1]);
    const tool = (name: string): DiscoveryResource =>
      item('https://x.example/mcp', { type: 'mcp' }, bazaar({ toolName: name, inputSchema: { type: 'object' } }));
    const [t1, t2] = listingEntries([tool('one'), tool('two')]).entries;
    assert.notEqual(t1?.manifest.id, t2?.manifest.id);
  });

  test('amounts stay exact: one atomic unit, a large price, and a price too large to hold', () => {
    const priced = (amount: string): DiscoveryResource => item(`https://x.example/${amount}`, { accepts: [offer({ amount })] });
    const { entries, skipped } = listingEntries([priced('1'), priced('123456789012345678901'), priced('1234567890123456789012')]);
    assert.deepEqual(
      entries.map((e) => e.manifest.price.per_call),
      ['0.000001', '123456789012345.678901'],
    );
    assert.deepEqual(
      skipped.map((s) => s.code),
      ['price_too_large'],
    );
  });

  test('the cheapest offer the wallet can pay is taken: not an unknown asset, not another chain; exact on a tie', () => {
    const r = listingEntries([
      item('https://x.example/w', {
        accepts: [
          offer({ asset: '0x2222222222222222222222222222222222222222', amount: '5' }),
          offer({ network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', amount: '6' }),
          offer({ scheme: 'upto', amount: '2500' }),
          offer({ amount: '3000', payTo: '0x3333333333333333333333333333333333333333' }),
        ],
      }),
      item('https://x.example/tie', {
        accepts: [offer({ scheme: 'upto', amount: '700' }), offer({ amount: '700', payTo: '0x4444444444444444444444444444444444444444' })],
      }),
    ]);
    assert.deepEqual(r.entries[0]?.manifest.price, { currency: 'USDC', per_call: '0.0025' });
    assert.equal(r.entries[0]?.endpoint.payee, `${TEST_NETWORK}:${PAY_TO}`);
    assert.equal(r.entries[1]?.endpoint.payee, `${TEST_NETWORK}:0x4444444444444444444444444444444444444444`);
  });

  test('with a chain configured, only offers on it count: a resource paid only elsewhere is skipped, saying where', () => {
    const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
    const onBase = offer({ network: 'eip155:8453', asset: BASE_USDC, amount: '10' });
    const listing = [
      item('https://x.example/both', { accepts: [onBase, offer({ amount: '4000' })] }),
      item('https://x.example/base-only', { accepts: [onBase] }),
    ];
    // Unconfigured, the cheaper Base offer prices the first, and the second comes in too.
    assert.deepEqual(
      listingEntries(listing).entries.map((e) => [e.endpoint.payee, e.manifest.price.per_call]),
      [
        [`eip155:8453:${PAY_TO}`, '0.00001'],
        [`eip155:8453:${PAY_TO}`, '0.00001'],
      ],
    );
    const r = listingEntries(listing, { chain: { network: TEST_NETWORK, token: TEST_USDC } });
    assert.deepEqual(
      r.entries.map((e) => [e.endpoint.payee, e.manifest.price.per_call]),
      [[`${TEST_NETWORK}:${PAY_TO}`, '0.004']],
    );
    assert.deepEqual(r.skipped, [
      {
        resource: 'https://x.example/base-only',
        code: 'other_chain',
        reason: `it is paid on eip155:8453, and the wallet pays on ${TEST_NETWORK} (in ${TEST_USDC}) only`,
      },
    ]);
  });

  test('what cannot be paid or called is skipped with its reason, and the rest still comes in', () => {
    const { entries, skipped } = listingEntries([
      'not an object',
      item('ftp://x.example/file'),
      item('https://x.example/v1', { x402Version: 1 }),
      item('https://x.example/unknown-asset', { accepts: [offer({ asset: '0x2222222222222222222222222222222222222222' })] }),
      item('https://x.example/solana', { accepts: [offer({ network: 'solana:mainnet', asset: TEST_USDC })] }),
      item('https://x.example/no-info', {}, null),
      item('https://x.example/head', {}, bazaar({ input: {} }, 'HEAD')),
      item('https://x.example/form', {}, bazaar({ bodyType: 'form-data', input: { a: '1' } }, 'POST')),
      item('https://x.example/ok'),
      item('https://x.example/ok'),
    ]);
    assert.deepEqual(
      entries.map((e) => e.resource),
      ['https://x.example/ok'],
    );
    assert.deepEqual(
      skipped.map((s) => [s.resource, s.code]),
      [
        [null, 'unreadable'],
        ['ftp://x.example/file', 'unreadable'],
        ['https://x.example/v1', 'x402_version'],
        ['https://x.example/unknown-asset', 'no_payable_offer'],
        ['https://x.example/solana', 'no_payable_offer'],
        ['https://x.example/no-info', 'no_call_info'],
        ['https://x.example/head', 'unsupported_call'],
        ['https://x.example/form', 'unsupported_call'],
        ['https://x.example/ok', 'duplicate'],
      ],
    );
    assert.match(skipped[4]?.reason ?? '', /exact on solana:mainnet; Holon pays exact or upto on an EVM network/);
  });

  test("the human's capability replaces the seller's tags; with neither, the default; a bad one is refused", () => {
    const tagged = item('https://x.example/w', { tags: ['weather'] });
    assert.deepEqual(listingEntries([tagged], { capability: 'weather.forecast' }).entries[0]?.manifest.capabilities, ['weather.forecast']);
    assert.deepEqual(listingEntries([item('https://x.example/w')]).entries[0]?.manifest.capabilities, [DEFAULT_CAPABILITY]);
    assert.throws(
      () => listingEntries([tagged], { capability: 'Weather Forecast' }),
      (e) => HolonError.is(e, 'invalid_input'),
    );
  });

  test('what is not a listing is refused whole', () => {
    for (const v of [null, [], { x402Version: 2 }, { items: 'no' }])
      assert.throws(
        () => asListing(v, 'here'),
        (e) => HolonError.is(e, 'invalid_input') && /here is not an x402 discovery listing/.test(e.message),
      );
  });
});

describe('a listing file as a source of agents', () => {
  test('a listing none of whose items can be an agent is an error that names each skipped item', async () => {
    const { dir, cleanup } = tempDir('holon-listing-');
    try {
      const file = path.join(dir, 'listing.json');
      fs.writeFileSync(
        file,
        JSON.stringify({
          x402Version: 2,
          items: [item('https://x.example/v1', { x402Version: 1 })],
          pagination: { limit: 1, offset: 0, total: 1 },
        }),
      );
      await assert.rejects(
        readAgentSource(file, { fetch: globalThis.fetch }),
        (e) =>
          HolonError.is(e, 'invalid_input') &&
          /none of its 1 resources can be an agent/.test(e.message) &&
          (e.details['skipped'] as { code: string }[])[0]?.code === 'x402_version',
      );
    } finally {
      cleanup();
    }
  });
});
