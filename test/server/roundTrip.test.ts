/**
 * Every id a tool returns goes back, exactly as it came, into every tool that takes it, and that tool
 * finds it. The ids are derived from tools/list: every field of an output schema whose name says it is
 * an id (`id`, `*_id`, `*Id`, `*_ids`, a cursor) or names a kind of thing some tool is asked for by name
 * (an approval, a receipt, a settlement…). Its takers are derived too: every tool with an argument of that
 * name and type. Where a taker cannot be derived from a name (a settlement's `id` is what get_receipt
 * takes as `receipt`) or a name misleads (a pull request's `number` is not a mail thread's), the tables
 * below say so, each with its reason; a new id field that no table covers and no argument takes fails
 * here until someone decides where it goes.
 *
 * One mandate offers every toolset, on a state with the demo catalog and office, the two local merchants,
 * a local chain with the wallet funded, and a seller that advertises its terms.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Client, CallToolResult, Tool } from '@modelcontextprotocol/client';
import { generatePrivateKey } from 'viem/accounts';
import { CAP } from '../../src/core/kernel/capabilities.ts';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { patchMandate } from '../../src/core/accounts/mandates.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { fund } from '../../src/core/money/spend.ts';
import { DEMO_OFFICE, seedOffice } from '../../src/core/office/demoOffice.ts';
import { walletFromKey } from '../../src/core/local/wallet.ts';
import { publicFetch } from '../../src/server/net/publicFetch.ts';
import { startAcpMerchant } from '../../examples/merchants/acpMerchant.ts';
import type { Product, Shop } from '../../examples/merchants/shop.ts';
import { startUcpMerchant } from '../../examples/merchants/ucpMerchant.ts';
import { localChain } from '../../examples/chain/chain.ts';
import type { Seller } from '../../examples/sellers/x402Seller.ts';
import { startSeller } from '../../examples/sellers/x402Seller.ts';
import { chainOf, SELLER_PAYEE } from '../chain/support.ts';
import { connect, demoRuntime, INVOICES, TestClock } from '../helpers.ts';
import { ECHO_AGENT, addEchoAgent, callTool } from './support.ts';
import { merchantsOf } from './shops.ts';

/** Names that say a field is an id whatever it names. */
const ID_NAME = /^id$|_ids?$|[a-z]Ids?$|(^|_)cursor$/;

/**
 * Names of things a tool is asked for by name, though the name does not say "id": each is, wherever an
 * output carries it as a string or a number, the id of one such thing.
 */
const ID_KEYS = ['agent', 'approval', 'receipt', 'settlement', 'intent', 'number', 'key', 'slug', 'repo', 'merchant', 'idempotency_key'];

/**
 * Every string or number argument that is not an id, and why; every other such argument must be an id
 * (ID_NAME or ID_KEYS), so a new argument is decided here, never taken for one or the other by default.
 */
const NOT_ID_ARGS: Record<string, string> = {
  query: 'free text to search',
  capability: 'a capability pattern the agent chooses',
  account: "the payer's CAIP-10 account, the agent's own",
  atr: "the terms' bytes, a value passed back whole",
  mac: 'a MAC passed back beside a hold',
  charged: "the seller's cumulative charge, an amount",
  body: 'text the agent writes',
  to: 'a colleague to write to (a slug, but mail_send starts a thread rather than finding one)',
  subject: 'text the agent writes',
  title: 'text the agent writes',
  reason: 'text the agent writes',
  hours: 'a duration',
  summary: 'text the agent writes',
  filename: 'a file name the agent chooses',
  content: 'text the agent writes',
  content_base64: 'bytes the agent writes',
  head: "a branch of the agent's own",
  base: 'a branch name',
  name: 'text the agent writes',
  role: 'text the agent writes',
  department: 'text the agent writes',
  manager: 'a manager the agent proposes',
  charter: 'text the agent writes',
  budget_usd_per_day: 'an amount',
  model: 'a model name the agent proposes',
  valid_from: 'an instant',
  valid_to: 'an instant',
  prefix: 'a key prefix the agent chooses',
  valid_as_of: 'an instant',
  system_as_of: 'an instant',
  snapshot: "memory_recall's snapshot.token (taken as such below)",
  artifact: 'a whole signed artifact, passed back whole',
  replay_key: "buy's replay key: the agent's own, which it keeps (foreignText.test.ts replays one)",
  reference: 'a URL or account the agent names, or a whole card',
  limit: 'a count',
  capabilities: 'capabilities the agent proposes',
  add_capabilities: 'capabilities the agent proposes',
  remove_capabilities: 'capabilities the agent proposes',
  expires_in_seconds: 'a duration',
};

/** Takers a name does not give, each by a pattern on "<tool> <path>". */
const EXTRA_TAKERS: { field: RegExp; takers: string[]; why: string }[] = [
  { field: / (.*\/)?settlement\/id$/, takers: ['get_receipt.receipt', 'atr_settlement.settlement'], why: 'a settlement is read back by its id, under either name' },
  { field: / (.*\/)?receipt\/settlement$/, takers: ['get_receipt.receipt'], why: "a receipt's settlement is a settlement id" },
  { field: /^memory_recall \/snapshot\/token$/, takers: ['memory_recall.cursor', 'memory_assemble.snapshot'], why: 'the snapshot token reopens the sealed snapshot' },
  { field: /^memory_recall \/next_cursor$/, takers: ['memory_recall.cursor'], why: 'its own next page' },
  { field: /^get_audit \/next_cursor$/, takers: ['get_audit.cursor'], why: 'its own next page' },
  { field: /^list_intents \/next_cursor$/, takers: ['list_intents.cursor'], why: 'its own next page' },
];

/** Takers a name gives that do not take this field, and why. */
const NOT_TAKERS: { field: RegExp; taker: RegExp; why: string }[] = [
  { field: /^forge_(open_pr|list_prs) /, taker: /^mail_/, why: "a pull request's number is not a mail thread's; no office tool takes a pull request number (seed 004)" },
  { field: /^mail_send \/number$/, taker: /^mail_/, why: "the thread is in the recipient's inbox, not the sender's: the recipient reads it by this number (office.test.ts)" },
  { field: / /, taker: /^hr_propose_hire\.slug$/, why: 'a hire proposes a new slug; an existing one is refused as taken' },
  {
    field: /^(?!call_agent |check_approval )/,
    taker: /^call_agent\.approval$/,
    why: "call_agent takes only an agent call's approval; an office request, a proposal or a parked payment goes on once the human decides (check_approval finds each)",
  },
];

/** Ids that no tool takes, and why (each is still derived, so a taker added later is not missed). */
const NO_TAKER: { field: RegExp; why: string }[] = [
  { field: /^(quote|buy) \/id$/, why: "the merchant's cart or order id: buy takes lines and a replay key, never a cart (seed 003)" },
  { field: /^artifact_(publish|list) (\/artifacts\/\*)?\/id$/, why: 'no office tool takes an artifact id (seed 004); artifact_list shows it' },
  { field: /^(whoami \/run\/id|artifact_list \/artifacts\/\*\/run_id)$/, why: 'the office run, which no tool takes' },
  { field: /^memory_(remember|recall|assemble) .*\/id$/, why: 'a record version: memory is read by key and time, never by version (seed 003)' },
  { field: /^resolve \/id$/, why: "an identity: pay takes it inside its intent as payee, not as an argument (money.test.ts pays one)" },
  { field: / (.*\/)?(intent\/intent|receipt\/intent|\/intent|entries\/\*\/intent|intents\/\*\/intent)$/, why: 'an intent is found by its idempotency key (seed 003); the intent id is shown by get_job and list_intents' },
  { field: / (.*\/)?receipt\/id$/, why: 'a payment receipt is read with its intent (get_job), by the idempotency key' },
  { field: / (.*\/)?for\/id$/, why: 'what a settlement pays for, read with it' },
];

/** Ids this world leaves empty, and where they are round-tripped instead. */
const NOT_REACHED: { field: RegExp; why: string }[] = [
  { field: /^atr_channel_within /, why: 'a channel needs a channel seller (termsChannel.test.ts); no test yet reads its settlement back by id' },
  { field: /^get_job \/settlement\/id$|^list_intents \/intents\/\*\/settlement\/id$|^get_audit \/entries\/\*\/settlement\/id$|^pay \/intent\/settlement\/id$/, why: "an intent's settlement is an x402 payment's: test/chain/found.test.ts finds it by id" },
  { field: / (.*\/)?receipt\/settlement$/, why: 'a payment between accounts has no settlement' },
  { field: /settlement\/for\/idempotency_key$/, why: "a settlement for an intent is an x402 intent's: test/chain/found.test.ts" },
  { field: /settlement\/flag\/approval$/, why: 'a settlement the payee says landed and the chain does not show: test/chain/landing.test.ts flags one' },
  { field: /^pay \/intent\/pending\/approval$/, why: 'pay answers a parked intent with the approval.pending problem; get_job and list_intents carry the approval (taken here)' },
  { field: /^buy \/settlement\/id$/, why: 'a purchase settled on a chain (test/chain/ap2.test.ts); no test yet reads it back by id' },
  { field: /excluded\/\*\/agent$|denials\/\*\/agent$/, why: 'every agent in this catalog is within the mandate: search.test.ts and callAgent.test.ts read refusals' },
];

type Field = { tool: string; path: string; key: string; type: 'string' | 'integer' };
type Arg = { tool: string; arg: string; types: string[] };

/** Every property of a schema with its JSON Pointer ("*" for any index) and scalar type. */
function fieldsOf(schema: unknown, at = ''): { path: string; key: string; types: string[] }[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as Record<string, unknown>;
  const out: { path: string; key: string; types: string[] }[] = [];
  for (const [k, v] of Object.entries((s['properties'] as Record<string, unknown> | undefined) ?? {})) {
    out.push({ path: `${at}/${k}`, key: k, types: typesOf(v) }, ...fieldsOf(v, `${at}/${k}`));
  }
  for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(s[k])) for (const b of s[k] as unknown[]) out.push(...fieldsOf(b, at));
  if (s['items']) out.push(...fieldsOf(s['items'], `${at}/*`));
  return out;
}

/** A schema's scalar types, `string[]` for an array of strings; an enum counts as none (it is a choice, not a name). */
function typesOf(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as Record<string, unknown>;
  if ('enum' in s || 'const' in s) return [];
  if (Array.isArray(s['anyOf'])) return (s['anyOf'] as unknown[]).flatMap(typesOf);
  if (s['type'] === 'array') return typesOf(s['items']).map((t) => `${t}[]`);
  return typeof s['type'] === 'string' && ['string', 'integer', 'number'].includes(s['type']) ? [s['type']] : [];
}

const isIdName = (key: string): boolean => ID_NAME.test(key) || ID_KEYS.includes(key);
/** An argument that takes an id, or a list of them (`keys`). */
const isIdArg = (arg: string): boolean => isIdName(arg) || (arg.endsWith('s') && isIdName(arg.slice(0, -1)));

/** The id fields of every tool's output. */
function idFields(tools: Tool[]): Field[] {
  return tools.flatMap((t) =>
    fieldsOf(t.outputSchema)
      .filter((f) => isIdName(f.key))
      .flatMap((f) => {
        const type = f.types.find((x): x is 'string' | 'integer' => x === 'string' || x === 'integer');
        return type ? [{ tool: t.name, path: f.path, key: f.key, type }] : [];
      }),
  );
}

/** Every argument that takes an id: an id's name, and a string or a number (or a list of strings). */
function idArgs(tools: Tool[]): Arg[] {
  return tools.flatMap((t) =>
    Object.entries(t.inputSchema.properties ?? {}).flatMap(([arg, s]) => {
      const types = typesOf(s);
      return types.length > 0 && isIdArg(arg) ? [{ tool: t.name, arg, types }] : [];
    }),
  );
}

/** The tools that take `f`, as "tool.arg" (by name and type, then the tables), and those NOT_TAKERS struck out. */
function takersOf(f: Field, args: Arg[]): { takers: string[]; struck: string[] } {
  const name = `${f.tool} ${f.path}`;
  const byName = args
    .filter((a) => (a.arg === f.key && a.types.includes(f.type)) || (a.arg === `${f.key}s` && a.types.includes(`${f.type}[]`)))
    .map((a) => `${a.tool}.${a.arg}`);
  const extra = EXTRA_TAKERS.filter((e) => e.field.test(name)).flatMap((e) => e.takers);
  const all = [...new Set([...byName, ...extra])];
  const struck = (t: string): boolean => NOT_TAKERS.some((n) => n.field.test(name) && n.taker.test(t));
  return { takers: all.filter((t) => !struck(t)), struck: all.filter(struck) };
}

const fieldName = (f: Field): string => `${f.tool} ${f.path}`;

/** Every value at `pointer` ("*" for any index) in `value`. */
function valuesAt(value: unknown, pointer: string): unknown[] {
  let vs = [value];
  for (const key of pointer.split('/').slice(1)) {
    vs = vs.flatMap((v) => {
      if (v === null || typeof v !== 'object') return [];
      if (key === '*') return Array.isArray(v) ? v : [];
      return [(v as Record<string, unknown>)[key]];
    });
  }
  return vs.filter((v) => v !== undefined && v !== null);
}

// The world.
const wallet = walletFromKey(generatePrivateKey());
const AGENT = DEMO_OFFICE.lead;
const CHEAP: Product[] = [{ id: 'paper-clip', title: 'Paper clip', price: 10, stock: 100 }];
const ALL_TOOLSETS = ['market', 'terms', 'office', 'memory', 'commerce', 'money', 'records'];

let env: Awaited<ReturnType<typeof demoRuntime>>;
let client: Client;
let tools: Tool[];
let workspace: string;
let repo: string;
let acp: Shop;
let ucp: Shop;
let seller: Seller;

const gitIn = (args: string[]): string =>
  execFileSync('git', args, { cwd: workspace, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'Human', GIT_AUTHOR_EMAIL: 'h@example.com', GIT_COMMITTER_NAME: 'Human', GIT_COMMITTER_EMAIL: 'h@example.com' } }).trim();

before(async () => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'holon-roundtrip-ws-'));
  repo = path.basename(workspace);
  gitIn(['init', '--quiet', '--initial-branch=main']);
  fs.writeFileSync(path.join(workspace, 'README.md'), '# site\n');
  gitIn(['add', 'README.md']);
  gitIn(['commit', '--quiet', '-m', 'start']);
  gitIn(['checkout', '--quiet', '-b', 'lead/fix']);
  fs.writeFileSync(path.join(workspace, 'README.md'), '# site, fixed\n');
  gitIn(['commit', '--quiet', '-am', 'fix']);
  gitIn(['checkout', '--quiet', 'main']);
  acp = await startAcpMerchant({ catalog: CHEAP });
  ucp = await startUcpMerchant({ catalog: CHEAP });
  seller = await startSeller('honest', { amount: '250000' });
  const chain = await localChain();
  env = await demoRuntime({
    clock: new TestClock(Date.now()),
    approvals: { waitMs: 0, elicitation: false, elicitationWaitMs: 0 },
    fetch: publicFetch({ allowPrivate: true, maxBytes: 64 * 1024 }),
    wallet,
    chain: chainOf(chain),
    workspace,
    merchants: merchantsOf(acp, ucp),
    funds: '100',
  });
  const { store } = env.runtime;
  await chain.fund(wallet.address, { usdc: 3_000_000n });
  await setFx(store, 'USDC', 'EUR', '0.92');
  await fund(store, 'demo2', '1');
  await addEchoAgent(env.runtime, env.clock);
  await seedOffice(store, env.clock, repo);
  const lead = store.state.mandates[AGENT];
  assert.ok(lead);
  await patchMandate(store, env.clock, AGENT, {
    toolsets: ALL_TOOLSETS,
    approval_threshold: '0.50',
    budget: { total: '50.00', per_day: null, per_call: '40.00' },
    capabilities: [
      ...lead.capabilities,
      { name: CAP.forgeWrite, params: { repos: [repo] } },
      { name: CAP.marketCall, params: { capabilities: ['extraction.*', 'pipeline.*'] } },
      { name: CAP.pay, params: { payees: ['acct:demo2', SELLER_PAYEE] } },
      { name: CAP.commerceBuy },
    ],
    data: { regions: ['EU'], retention_days: 30, training: false },
  });
  client = await connect(env.runtime, { mandate: AGENT });
  tools = (await client.listTools()).tools;
});

after(async () => {
  await client.close();
  await env.cleanup();
  await acp.close();
  await ucp.close();
  await seller.close();
  fs.rmSync(workspace, { recursive: true, force: true });
});

test('every tool of every toolset is offered, so every id is derived from the whole list', () => {
  const snapshot = JSON.parse(fs.readFileSync(path.join(__dirname, '__snapshots__', 'tools.json'), 'utf8')) as { name: string }[];
  assert.deepEqual(tools.map((t) => t.name).sort(), snapshot.map((t) => t.name).sort());
});

test('every argument that names a thing is an id or is said not to be one', () => {
  const undecided = tools.flatMap((t) =>
    Object.entries(t.inputSchema.properties ?? {})
      .filter(([arg, s]) => typesOf(s).length > 0 && !isIdArg(arg) && !(arg in NOT_ID_ARGS))
      .map(([arg]) => `${t.name}.${arg}`),
  );
  assert.deepEqual(undecided, [], 'decide: an id (ID_KEYS) or not (NOT_ID_ARGS)');
  const stale = Object.keys(NOT_ID_ARGS).filter((arg) => !tools.some((t) => arg in (t.inputSchema.properties ?? {})));
  assert.deepEqual(stale, [], 'no tool takes these any more');
});

test('every id a tool returns has a taker, or the table says why none takes it', () => {
  const args = idArgs(tools);
  const orphans = idFields(tools)
    .filter((f) => {
      const { takers, struck } = takersOf(f, args);
      return takers.length === 0 && struck.length === 0 && !NO_TAKER.some((n) => n.field.test(fieldName(f)));
    })
    .map(fieldName);
  assert.deepEqual(orphans, [], 'an id no tool takes: give it a taker, or say in NO_TAKER why none does');
  for (const e of EXTRA_TAKERS)
    for (const t of e.takers) {
      const [tool, arg] = t.split('.') as [string, string];
      assert.ok(tools.find((x) => x.name === tool)?.inputSchema.properties?.[arg], `${t} is an argument`);
    }
});

/** The call_agent arguments each approval was asked for: the same call with its approval id is what finds it. */
const callsWaiting = new Map<string, Record<string, unknown>>();

/** What a taker needs besides the id, made from the id itself where the call must match it. */
async function argsFor(taker: string, value: unknown): Promise<Record<string, unknown>> {
  const [tool, arg] = taker.split('.') as [string, string];
  const one = { [arg]: arg.endsWith('s') && arg !== 'settlement' ? [value] : value };
  switch (tool) {
    case 'call_agent': {
      if (arg === 'approval') {
        const asked = callsWaiting.get(String(value));
        assert.ok(asked, `approval ${String(value)} is an agent call's`);
        return { ...asked, ...one };
      }
      const example = env.runtime.store.state.agents[String(value)]?.manifest.examples[0]?.input;
      return { ...one, input: value === ECHO_AGENT ? { text: 'again' } : (example ?? { files: [INVOICES[0]] }) };
    }
    case 'mail_reply':
      return { ...one, body: 'Noted.' };
    case 'forge_open_pr':
      return { ...one, head: 'lead/fix', title: 'Fix the title', body: '' };
    case 'hr_propose_change':
      return { ...one, reason: 'a round trip', model: 'round-trip-model' };
    case 'memory_remember':
      return { ...one, content: 'again' };
    case 'memory_assemble':
      return { ...one, budget: { unit: 'bytes', limit: 4096 } };
    case 'quote':
    case 'buy':
      return { ...one, lines: [{ product: 'paper-clip', quantity: 1 }], ...(tool === 'buy' ? { replay_key: `rt-${String(value)}` } : {}) };
    default:
      return one;
  }
}

/**
 * What a taker's answer names of the thing it was asked for, where it names it: the same field, or where
 * its answer keeps it (a receipt's tree, a settlement, the records of a key).
 */
function namedBy(taker: string, out: unknown): unknown[] | undefined {
  if (out === undefined || out === null) return undefined;
  const arg = taker.split('.')[1] as string;
  const at = (pointer: string): unknown[] => valuesAt(out, pointer);
  switch (taker) {
    case 'get_receipt.receipt':
      return [...at('/tree/receipt'), ...at('/settlement/id')];
    case 'atr_settlement.settlement':
      return at('/settlement/id');
    case 'memory_recall.keys':
      return at('/records/*/key');
    case 'memory_assemble.keys':
      return [...at('/artifact/records/*/key'), ...at('/omitted/*/key')];
    default: {
      const same = at(`/${arg}`);
      return same.length > 0 && same.every((v) => typeof v !== 'object') ? same : undefined;
    }
  }
}

/**
 * Asserts that a taker found what it was given: no refusal that it does not know it, nor that it is
 * malformed. A found thing may still refuse to be acted on (a closed thread, a call that waits for the
 * human): that is a conflict or a wait, never not-found.
 */
function assertFound(r: CallToolResult, what: string): void {
  const said = JSON.stringify(r.structuredContent ?? r.content);
  assert.doesNotMatch(said, /not[ _.-]?found|invalid|unknown[ _]|no such|malformed/i, what);
  if (r.isError === true) assert.match(said, /approval[._-]pending|pending_approval|\bconflict\b/, `${what}: only a conflict or a wait for the human may refuse it`);
}

test('each id, produced by the tool that returns it, is found unchanged by every tool that takes it', async () => {
  const results: { tool: string; out: unknown }[] = [];
  const call = async (tool: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> => {
    const r = await callTool(client, tool, args);
    assert.notEqual(r.isError, true, `${tool}: ${JSON.stringify(r.structuredContent ?? r.content)}`);
    results.push({ tool, out: r.structuredContent });
    const approval = (r.structuredContent as { approval?: unknown } | undefined)?.approval;
    if (tool === 'call_agent' && typeof approval === 'string') callsWaiting.set(approval, args);
    return r.structuredContent as Record<string, unknown>;
  };
  const refused = async (tool: string, args: Record<string, unknown>): Promise<void> => {
    const r = await callTool(client, tool, args);
    assert.equal(r.isError, true, `${tool} should wait for the human: ${JSON.stringify(r.structuredContent)}`);
  };

  // market: an agent found, a call that runs, and one that waits for the human.
  await call('search_agents', { query: 'echo' });
  await call('search_agents', { capability: 'pipeline.*' });
  await call('get_agent', { agent: ECHO_AGENT });
  await call('call_agent', { agent: ECHO_AGENT, input: { text: 'hi' } });
  const big = await call('call_agent', { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICES } });
  assert.equal(big['status'], 'pending_approval', JSON.stringify(big));
  await call('check_approval', { approval: big['approval'] });
  await call('get_budget');
  // terms: a payment signed on the chain, read back by its settlement id.
  const paid = await call('atr_transact', { pairing: 'x402/exact/eip155', document: seller.document });
  const settlement = (paid['settlement'] as { id: string }).id;
  await call('atr_settlement', { settlement });
  await call('get_receipt', { receipt: settlement });
  // money and records: a payment, one that waits, and what reads them back.
  await call('pay', { intent: { payee: 'acct:demo2', amount: '0.20', currency: 'EUR', purpose: 'a round trip', idempotency_key: 'rt-1' } });
  const bigger = { intent: { payee: 'acct:demo2', amount: '0.80', currency: 'EUR', purpose: 'a bigger one', idempotency_key: 'rt-2' } };
  await refused('pay', bigger);
  const parked = await call('get_job', { idempotency_key: 'rt-2' });
  await call('list_intents', { status: 'pending' });
  // The human approves the parked payment; the same intent then pays, its receipt naming the approval.
  await decideApproval(env.runtime.store, env.clock, (parked['pending'] as { approval: string }).approval, 'approved', 'panel');
  await call('pay', bigger);
  await call('get_job', { idempotency_key: 'rt-2' });
  await call('resolve', { reference: 'acct:demo2' });
  const job = await call('get_job', { idempotency_key: 'rt-1' });
  const paidIntent = (results.find((r) => r.tool === 'pay')?.out as { intent: { intent: string } }).intent.intent;
  assert.equal(job['intent'], paidIntent, 'the intent pay named, named again by its idempotency key');
  await call('get_job_events', { idempotency_key: 'rt-1' });
  await call('list_intents', { limit: 1 });
  await call('get_audit', { limit: 1 });
  await call('get_audit', {});
  const disclosed = await call('disclose', {});
  await call('verify', { disclosure: disclosed['disclosure'], signature: disclosed['signature'] });
  await call('get_mandate');
  // commerce: a quote and a purchase small enough to need no one.
  await call('quote', { merchant: 'stationery', lines: [{ product: 'paper-clip', quantity: 1 }] });
  await call('buy', { merchant: 'hardware', lines: [{ product: 'paper-clip', quantity: 1 }], replay_key: 'rt-buy' });
  // memory: records under two keys, a recall a page at a time, an assembled context.
  await call('memory_remember', { key: 'notes/a', content: 'first' });
  await call('memory_remember', { key: 'notes/b', content: 'second' });
  await call('memory_recall', { prefix: 'notes/', limit: 1 });
  await call('memory_assemble', { prefix: 'notes/', budget: { unit: 'bytes', limit: 8 } });
  await call('memory_assemble', { prefix: 'notes/', budget: { unit: 'bytes', limit: 4096 } });
  // office: mail, colleagues, approvals, an artifact, a pull request, proposals.
  await call('whoami');
  await call('mail_send', { to: 'ada', subject: 'Round trip', body: 'Hello.' });
  // A thread in this agent's own inbox, from a colleague.
  const ada = await connect(env.runtime, { mandate: DEMO_OFFICE.ada });
  try {
    assert.notEqual((await callTool(ada, 'mail_send', { to: 'lead', subject: 'Question', body: 'Which branch?' })).isError, true);
  } finally {
    await ada.close();
  }
  const inbox = await call('mail_inbox', {});
  const thread = (inbox['threads'] as { number: number }[])[0]?.number;
  await call('mail_read', { number: thread });
  await call('mail_reply', { number: thread, body: 'The main one.' });
  await call('mail_close', { number: thread });
  await call('colleagues_list');
  await call('office_overview');
  await call('approval_request', { title: 'Publish', reason: 'a report', kind: 'capability.window', capability: 'artifact.publish', hours: 2 });
  await call('artifact_publish', { title: 'Report', filename: 'report.md', content: '# Report\n' });
  await call('artifact_list', {});
  await call('forge_open_pr', { repo, head: 'lead/fix', title: 'Fix the title', body: '' });
  await call('forge_list_prs', { repo });
  await call('hr_agent_personnel', { slug: 'bob' });
  await call('hr_propose_hire', { slug: 'cy', name: 'Cy Writer', role: 'writer', reason: 'more writing', capabilities: ['mail.read'] });
  await call('hr_propose_change', { slug: 'bob', reason: 'more reading', add_capabilities: ['office.read'] });

  const args = idArgs(tools);
  const unreached: string[] = [];
  let passed = 0;
  for (const f of idFields(tools)) {
    const { takers } = takersOf(f, args);
    if (takers.length === 0) continue;
    const values = [...new Set(results.filter((r) => r.tool === f.tool).flatMap((r) => valuesAt(r.out, f.path)))];
    if (values.length === 0) {
      if (!NOT_REACHED.some((n) => n.field.test(fieldName(f)))) unreached.push(fieldName(f));
      continue;
    }
    for (const value of values)
      for (const taker of takers) {
        const what = `${fieldName(f)} = ${JSON.stringify(value)} → ${taker}`;
        const r = await callTool(client, taker.split('.')[0] as string, await argsFor(taker, value));
        assertFound(r, what);
        const named = namedBy(taker, r.structuredContent);
        if (named !== undefined) assert.ok(named.includes(value), `${what}: the taker names it as it was given, not ${JSON.stringify(named)}`);
        passed++;
      }
  }
  assert.deepEqual(unreached, [], 'ids this test produced no value for: produce one, or say in NOT_REACHED where they are round-tripped');
  assert.ok(passed > 0);
});
