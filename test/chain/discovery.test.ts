/**
 * Services found where sellers list them: the example facilitator on the local chain lists what sellers
 * offer (x402's bazaar `GET /discovery/resources`, paged), `holon agents add <its URL>` (the built CLI)
 * imports every resource the wallet can pay and call and says which it skipped and why, and a real MCP
 * client's `search_agents` ranks them beside the demo agents, excluding the one whose payee the mandate's
 * `pay` grant leaves out. A listing that does not read, or a URL that answers none, is refused with its
 * words and adds nothing.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Facilitator } from '../../examples/chain/facilitator.ts';
import { startFacilitator } from '../../examples/chain/facilitator.ts';
import type { LocalChain } from '../../examples/chain/chain.ts';
import { localChain } from '../../examples/chain/chain.ts';
import { TEST_NETWORK, TEST_USDC } from '../../src/core/rails/assets.ts';
import type { McpSession } from '../cli/cliHarness.ts';
import { ensureBuilt, holonIn, json, ledgerBytes, mcpSession, ok, seededState, structured, units } from '../cli/cliHarness.ts';

const SCOUT = 'demo/scout';
const payee = (): string => privateKeyToAccount(generatePrivateKey()).address;
/** Two sellers the mandate may pay, and one it may not. */
const [ALLOWED_A, ALLOWED_B, NOT_ALLOWED] = [payee(), payee(), payee()];

type Money = { amount: string; currency: string };
interface Search {
  agents: { agent: string; expected_cost_per_success: Money | null; worst_case: Money | null }[];
  excluded: { agent: string; denials: { code: string; params: Record<string, unknown> }[] }[];
}
interface Added {
  added: { agent: string; version: string }[];
  skipped: { resource: string | null; code: string; reason: string }[];
  truncated: boolean;
}

/** A seller's 402 for a GET resource priced in atomic USDC, with the bazaar info its server declares. */
function offerOf(url: string, amount: string, payTo: string, asset: string = TEST_USDC): PaymentRequired {
  const bazaar = declareDiscoveryExtension({
    input: { city: 'Paris' },
    inputSchema: { properties: { city: { type: 'string' } }, required: ['city'] },
    output: { example: { temperature: 12 } },
  }).bazaar as unknown as { info: { input: Record<string, unknown> } };
  // What the official server extension fills in from the route.
  bazaar.info.input['method'] = 'GET';
  const accepted: PaymentRequirements = { scheme: 'exact', network: TEST_NETWORK, asset, amount, payTo, maxTimeoutSeconds: 60, extra: {} };
  return {
    x402Version: 2,
    resource: { url, description: `Weather at ${url}`, mimeType: 'application/json' },
    accepts: [accepted],
    extensions: { bazaar },
  };
}

let chain: LocalChain;
let facilitator: Facilitator;
let state: { dir: string; cleanup: () => void };
let session: McpSession | undefined;
const urls: Record<string, string> = {};

before(async () => {
  await ensureBuilt();
  chain = await localChain();
  // A second facilitator on the chain, serving pages of two so the import must page. It settles nothing here.
  facilitator = await startFacilitator({ rpcUrl: chain.rpcUrl, key: generatePrivateKey(), maxPage: 2 });
  const sellers: [string, string, string, string?][] = [
    ['cheap', '800', ALLOWED_A],
    ['dear', '2000', ALLOWED_B],
    ['elsewhere', '500', NOT_ALLOWED],
    ['odd-token', '100', ALLOWED_A, '0x2222222222222222222222222222222222222222'],
  ];
  for (const [name, amount, to, asset] of sellers) {
    urls[name] = `http://127.0.0.1:4021/${name}`;
    assert.equal(facilitator.list(offerOf(urls[name], amount, to, asset)), true, `${name} is listed`);
  }
  state = await seededState();
  await ok(state.dir, ['fx', 'USDC', 'EUR', '0.9']);
  await ok(state.dir, [
    'mandate',
    'create',
    SCOUT,
    '--threshold',
    '0.50',
    '--total',
    '5',
    '--per-call',
    '1',
    '--capabilities',
    'extraction.*,weather.*',
    '--payees',
    `${TEST_NETWORK}:${ALLOWED_A},${TEST_NETWORK}:${ALLOWED_B}`,
    '--training',
    'yes',
  ]);
});

after(async () => {
  await session?.close();
  await facilitator?.close();
  state?.cleanup();
});

describe('a discovery listing imported and ranked', () => {
  let added: Added;

  test('holon agents add <facilitator URL> adds each resource the wallet can pay, and names what it skipped', async () => {
    added = await json<Added>(state.dir, ['agents', 'add', facilitator.url, '--capability', 'weather.forecast']);
    assert.equal(added.added.length, 3);
    assert.deepEqual(
      added.skipped.map((s) => [s.resource, s.code]),
      [[urls['odd-token'], 'no_payable_offer']],
    );
    assert.equal(added.truncated, false);
  });

  test('search_agents ranks them beside the demo agents, and excludes the one whose payee the pay grant leaves out', async () => {
    session = await mcpSession(state.dir, SCOUT);
    const idOf = (name: string): string => {
      const id = added.added.find((a) => a.agent.includes(`/${name}-`))?.agent;
      assert.ok(id, `an agent for ${name}`);
      return id;
    };
    const all = structured<Search>(await session.client.callTool({ name: 'search_agents', arguments: { limit: 50 } }));
    const ranked = all.agents.map((a) => a.agent);
    assert.ok(ranked.includes(idOf('cheap')) && ranked.includes(idOf('dear')));
    assert.ok(
      ranked.some((a) => a.startsWith('acme/')),
      'the demo agents are ranked too',
    );
    // Ranked by expected cost per success, in the mandate's currency, whoever listed them.
    const costs = all.agents.map((a) => units(a.expected_cost_per_success?.amount ?? 'unknown'));
    assert.deepEqual(
      [...costs].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)),
      costs,
    );
    const elsewhere = all.excluded.find((e) => e.agent === idOf('elsewhere'));
    assert.ok(elsewhere, 'the seller outside the pay grant is excluded');
    assert.deepEqual(
      elsewhere.denials.filter((d) => d.code === 'capability_scope').map((d) => d.params['target']),
      [`${TEST_NETWORK}:${NOT_ALLOWED}`],
    );

    const weather = structured<Search>(await session.client.callTool({ name: 'search_agents', arguments: { capability: 'weather.*' } }));
    assert.deepEqual(
      weather.agents.map((a) => [a.agent, a.worst_case]),
      [
        [idOf('cheap'), { amount: '0.00072', currency: 'EUR' }],
        [idOf('dear'), { amount: '0.0018', currency: 'EUR' }],
      ],
    );
  });
});

describe('a listing that does not read adds nothing', () => {
  let notAListing: http.Server;
  let notAListingUrl: string;

  before(async () => {
    notAListing = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello":"world"}'));
    await new Promise<void>((resolve) => notAListing.listen(0, '127.0.0.1', resolve));
    notAListingUrl = `http://127.0.0.1:${(notAListing.address() as AddressInfo).port}`;
  });
  after(async () => {
    notAListing.closeAllConnections();
    await new Promise<void>((resolve) => notAListing.close(() => resolve()));
  });

  test('each is refused with its words, and the journal is byte for byte as it was', async () => {
    const bad = path.join(state.dir, '..', 'bad');
    fs.mkdirSync(bad, { recursive: true });
    const notJson = path.join(bad, 'not-json.json');
    fs.writeFileSync(notJson, '{"items": [');
    const unreadable = path.join(bad, 'unreadable.json');
    fs.writeFileSync(unreadable, JSON.stringify({ x402Version: 2, items: [42, { resource: 'https://x.example/old', x402Version: 1 }] }));
    const cases: [string[], RegExp][] = [
      [['agents', 'add', notJson], /^holon: cannot read .*not-json\.json: /],
      [
        ['agents', 'add', unreadable],
        /^holon: nothing added from .*unreadable\.json: none of its 2 resources can be an agent \(\(no resource\): the item is not a JSON object; https:\/\/x\.example\/old: it is an x402 version 1 item/,
      ],
      [['agents', 'add', notAListingUrl], /^holon: http:\/\/127\.0\.0\.1:\d+ is not an x402 discovery listing: it has no "items" list/],
      [
        ['agents', 'add', `${facilitator.url}/nowhere/`],
        /^holon: http:\/\/127\.0\.0\.1:\d+\/nowhere\/ answers no discovery listing \(HTTP 404\)/,
      ],
      [['agents', 'add', facilitator.url, '--capability', 'Not A Capability'], /^holon: "Not A Capability" is not a capability/],
      // Configured for Base Sepolia: every resource of this listing is paid on the local chain, so none could be paid.
      [
        [
          'agents',
          'add',
          facilitator.url,
          '--rpc-url',
          'http://127.0.0.1:9',
          '--chain-id',
          '84532',
          '--token',
          '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
        ],
        /^holon: nothing added from .*: none of its 4 resources can be an agent \(.*: it is paid on eip155:31337, and the wallet pays on eip155:84532 /,
      ],
    ];
    for (const [args, words] of cases) {
      const before = await ledgerBytes(state.dir);
      const r = await holonIn(state.dir, args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, words);
      assert.deepEqual(await ledgerBytes(state.dir), before, `${args.join(' ')} changed the journal`);
    }
  });
});
