/**
 * Names an agent (or a counterparty) chooses that every JavaScript object already carries — constructor,
 * __proto__, toString… — are only names. Every tool that looks one up answers it as it answers any other
 * name it does not know, in its own toolset's words, and changes nothing a refusal must not change: no
 * proposal, no approval, no mandate, no journal that no longer verifies. Never a JSON-RPC error.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { createMandate, patchMandate } from '../../src/core/accounts/mandates.ts';
import { DEMO_OFFICE, seedOffice } from '../../src/core/office/demoOffice.ts';
import { canonicalHash } from '../../src/core/kernel/util.ts';
import { verifyJournal } from '../../src/core/verify.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import { openRuntime } from '../../src/server/runtime.ts';
import { knownAsset, TEST_NETWORK } from '../../src/core/rails/assets.ts';
import { connect, seedDemo, tempDir, TestClock } from '../helpers.ts';
import { callTool, textOf } from './support.ts';
import { PROBLEM_TYPE_BASE } from '../../src/server/render/problems.ts';
import { ProtocolErrorCode } from '@modelcontextprotocol/client';

const NAMES = ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];
/** A name no object carries, to compare with: what it gets, each of the names above must get. */
const PLAIN = 'widget';
/** The names a plain object inherits, which are no capability's name; "prototype" is not one of them. */
const INHERITED = NAMES.filter((n) => n in {});

const SHOPPER = 'demo/shopper';
const LOOKS_LIKE_A_CRASH = /TypeError|is not a function|Cannot read|Cannot convert|could not be cloned|native code|\[object Object\]/;

let runtime: Runtime;
let dir: string;
let workspace: string;
let repo: string;
let cleanup: () => void;
let clock: TestClock;
let merchant: http.Server;
/** What the fake merchant says its checkout's status is. */
let merchantStatus = 'ready_for_payment';
const clients = new Map<string, Client>();

before(async () => {
  const ws = tempDir('holon-protonames-ws-');
  workspace = ws.dir;
  repo = path.basename(workspace);
  const git = (args: string[]): void => {
    execFileSync('git', args, { cwd: workspace, env: { ...process.env, GIT_AUTHOR_NAME: 'Human', GIT_AUTHOR_EMAIL: 'human@example.com', GIT_COMMITTER_NAME: 'Human', GIT_COMMITTER_EMAIL: 'human@example.com' } });
  };
  git(['init', '--quiet', '--initial-branch=main']);
  fs.writeFileSync(path.join(workspace, 'README.md'), '# site\n');
  git(['add', 'README.md']);
  git(['commit', '--quiet', '-m', 'start']);

  // An ACP merchant whose every answer is one checkout, in whatever status the test tells it to say.
  merchant = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const session = { id: 'cs_1', status: merchantStatus, currency: 'eur', line_items: [{ id: 'li_1', item: { id: 'pen', quantity: 1 }, base_amount: 100, total: 100 }], totals: [{ type: 'total', amount: 100 }] };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(session));
    });
  });
  await new Promise<void>((r) => merchant.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;

  const state = tempDir();
  dir = state.dir;
  clock = new TestClock(Date.parse('2026-12-01T09:00:00Z'));
  runtime = openRuntime(dir, { clock, logger: silentLogger, durable: false, approvals: { waitMs: 0, elicitation: false, elicitationWaitMs: 0 }, workspace, merchants: [{ id: 'odd', protocol: 'acp', url }] });
  cleanup = () => {
    state.cleanup();
    ws.cleanup();
  };
  await seedDemo(runtime.store, clock, { funds: '100', stateDir: dir });
  await seedOffice(runtime.store, clock, repo);
  await createMandate(runtime.store, clock, SHOPPER, {
    toolsets: ['commerce', 'money', 'records', 'memory'],
    budget: { total: '50.00', per_day: null, per_call: null },
    capabilities: [{ name: 'commerce.buy' }, { name: 'pay', params: { payees: ['*'] } }],
  });
  clients.set('lead', await connect(runtime, { mandate: DEMO_OFFICE.lead }));
  clients.set('market', await connect(runtime));
  clients.set('shopper', await connect(runtime, { mandate: SHOPPER }));
});

after(async () => {
  for (const c of clients.values()) await c.close();
  await runtime.close();
  await new Promise<void>((r) => merchant.close(() => r()));
  cleanup();
});

/**
 * A tool call as a client sends it (the arguments through JSON, as over stdio or HTTP, so a
 * "__proto__" key arrives as a key), failing the test on a JSON-RPC error or a crash in the text.
 */
async function call(who: 'lead' | 'market' | 'shopper', tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const client = clients.get(who) as Client;
  let r: CallToolResult;
  try {
    r = await callTool(client, tool, JSON.parse(JSON.stringify(args)) as Record<string, unknown>);
  } catch (err) {
    return assert.fail(`${tool} ${JSON.stringify(args)} answered a JSON-RPC error instead of a result: ${(err as Error).message}`);
  }
  assert.doesNotMatch(textOf(r), LOOKS_LIKE_A_CRASH, `${tool} ${JSON.stringify(args)}`);
  return r;
}

/** An office refusal: the toolset's own text, `<reason>: <message>` or `Not permitted: …`. */
function officeRefusal(r: CallToolResult, what: string): string {
  assert.equal(r.isError, true, `${what}: expected a refusal, got ${textOf(r)}`);
  const text = textOf(r);
  assert.match(text, /^(invalid_input|not_found): |^Not permitted: /, what);
  return text;
}

/** A seed-003 refusal (commerce, money, records, memory): the problem, as structured content. */
function problemCode(r: CallToolResult, what: string): string {
  assert.equal(r.isError, true, `${what}: expected a problem, got ${textOf(r)}`);
  const p = r.structuredContent as { code?: string; data?: { type?: string } } | undefined;
  assert.ok(p?.code, `${what}: a problem with a code`);
  assert.equal(p.data?.type, `${PROBLEM_TYPE_BASE}${p.code}.md`, what);
  return p.code;
}

/** A market refusal (seed 000): the problem's reason, on the text's last line. */
function marketReason(r: CallToolResult, what: string): string {
  assert.equal(r.isError, true, `${what}: expected a refusal, got ${textOf(r)}`);
  const lines = textOf(r).trim().split('\n');
  return (JSON.parse(lines[lines.length - 1] ?? '') as { error: { reason: string } }).error.reason;
}

/** What an office refusal must leave as it was. */
function officeState(): string {
  const s = runtime.store.state;
  return canonicalHash({ mandates: s.mandates, proposals: Object.keys(s.office.proposals), approvals: Object.keys(s.approvals), windows: s.office.windows, threads: Object.keys(s.office.threads) });
}

const proposals = (): number => Object.keys(runtime.store.state.office.proposals).length;
const approvals = (): number => Object.keys(runtime.store.state.approvals).length;

describe('office', () => {
  test('hr_propose_hire: a role that is no template is refused as invalid_input, whatever its name', async () => {
    const before = officeState();
    for (const role of [PLAIN, ...NAMES]) {
      const text = officeRefusal(await call('lead', 'hr_propose_hire', { slug: 'newbie', name: 'New Bie', role, reason: 'we need help' }), `role ${role}`);
      assert.ok(text.startsWith(`invalid_input: role "${role}" is not a role template (`), text);
    }
    assert.equal(officeState(), before, 'no proposal, no approval, no mandate');
  });

  test('a capability written {name: [...]} or "name" with a name every object carries is not a capability name', async () => {
    const before = officeState();
    for (const name of INHERITED) {
      for (const capability of [{ [name]: ['x'] }, { [name]: { values: ['x'] } }, name]) {
        const what = `${JSON.stringify(capability)}`;
        const asked = officeRefusal(await call('lead', 'approval_request', { title: 'Let me', reason: 'because', kind: 'capability.window', capability }), `approval_request ${what}`);
        assert.match(asked, /^invalid_input: /, what);
        const hire = officeRefusal(await call('lead', 'hr_propose_hire', { slug: 'newbie', name: 'New Bie', role: 'writer', reason: 'help', capabilities: [capability] }), `hr_propose_hire ${what}`);
        assert.match(hire, /^invalid_input: /, what);
        for (const field of ['add_capabilities', 'capabilities'] as const) {
          const change = officeRefusal(await call('lead', 'hr_propose_change', { slug: 'ada', reason: 'more', [field]: [capability], confirm_removals: true }), `hr_propose_change ${field} ${what}`);
          assert.match(change, /^invalid_input: /, what);
        }
      }
    }
    assert.equal(officeState(), before, 'no proposal, no approval, no mandate');
  });

  test('nor can a human grant one, in a new mandate or a change', async () => {
    const before = canonicalHash(runtime.store.state.mandates);
    for (const name of INHERITED) {
      const refused = (err: unknown): boolean => HolonError.is(err, 'invalid_input') && err.message.includes('names no capability');
      await assert.rejects(createMandate(runtime.store, clock, 'demo/odd', { toolsets: ['office'], capabilities: [{ name }] }), refused, name);
      await assert.rejects(patchMandate(runtime.store, clock, DEMO_OFFICE.ada, { grants: [{ name }] }), refused, name);
    }
    assert.equal(canonicalHash(runtime.store.state.mandates), before);
  });

  test('"prototype", which no object inherits, is a capability name like any other a human was never asked for', async () => {
    for (const name of [PLAIN, 'prototype']) {
      const approvalsBefore = approvals();
      const asked = await call('lead', 'approval_request', { title: `Let me ${name}`, reason: 'because', kind: 'capability.window', capability: { [name]: ['x'] } });
      assert.notEqual(asked.isError, true, textOf(asked));
      assert.equal(approvals(), approvalsBefore + 1, `one pending approval for ${name}`);
      const proposalsBefore = proposals();
      const hire = await call('lead', 'hr_propose_hire', { slug: `hire-${name}`, name: 'New Bie', role: 'writer', reason: 'help', capabilities: [{ [name]: ['x'] }] });
      assert.deepEqual((hire.structuredContent as { gains: string[] }).gains.filter((g) => g.includes(name)), [`gains: ${name} {"values":["x"]}`]);
      assert.equal(proposals(), proposalsBefore + 1);
    }
  });

  test('a budget.override in a currency named like an inherited member is refused', async () => {
    const before = officeState();
    for (const name of NAMES) {
      const text = officeRefusal(await call('lead', 'approval_request', { title: 'More', reason: 'because', kind: 'budget.override', capability: { 'budget.override': { [name]: 5 } } }), `override in ${name}`);
      assert.match(text, /^invalid_input: /);
    }
    assert.equal(officeState(), before);
  });

  test('colleagues, mail recipients, capabilities to remove and repositories by such a name are not found, or out of scope', async () => {
    const before = officeState();
    for (const name of NAMES) {
      officeRefusal(await call('lead', 'hr_agent_personnel', { slug: name }), `hr_agent_personnel ${name}`);
      officeRefusal(await call('lead', 'hr_propose_change', { slug: name, reason: 'r', status: 'suspended' }), `hr_propose_change slug ${name}`);
      const removed = officeRefusal(await call('lead', 'hr_propose_change', { slug: 'ada', reason: 'r', remove_capabilities: [name] }), `remove ${name}`);
      assert.equal(removed, `invalid_input: ada has no capability "${name}" to remove`);
      officeRefusal(await call('lead', 'mail_send', { to: name, subject: 'Hi', body: 'x' }), `mail_send to ${name}`);
      const pr = officeRefusal(await call('lead', 'forge_list_prs', { repo: name }), `forge_list_prs ${name}`);
      if (/^[A-Za-z0-9._-]+$/.test(name)) assert.equal(pr, `Not permitted: needs capability forge.read or forge.write (for ${name}) — use approval_request`);
    }
    assert.equal(officeState(), before);
  });

  test('artifact_publish: a file whose extension is such a name is a plain file, and the journal still verifies', async () => {
    const published: string[] = [];
    for (const name of [PLAIN, ...NAMES]) {
      const r = await call('lead', 'artifact_publish', { title: `Notes ${name}`, filename: `notes.${name}`, content: 'hello' });
      if (/^[A-Za-z0-9]+$/.test(name)) {
        assert.notEqual(r.isError, true, textOf(r));
        const out = r.structuredContent as { id: string; kind: string };
        assert.equal(out.kind, 'file', name);
        published.push(out.id);
      } else assert.equal(textOf(r), 'invalid_input: filename needs an extension (report.md, chart.png), and at most 200 characters', name);
    }
    assert.deepEqual(Object.values(runtime.store.state.office.artifacts).filter((a) => published.includes(a.id)).map((a) => a.kind), published.map(() => 'file'));
    const report = verifyJournal(dir);
    assert.equal(report.ok, true, JSON.stringify(report));
    // The state still takes a write.
    const me = await call('lead', 'whoami', {});
    assert.notEqual(me.isError, true, textOf(me));
  });
});

describe('market', () => {
  test('agents, capabilities, approvals and receipts by such a name are not found or denied, as any unknown one', async () => {
    const mandates = canonicalHash(runtime.store.state.mandates);
    for (const name of NAMES) {
      for (const agent of [`${name}/x`, `acme/${name}`]) assert.match(marketReason(await call('market', 'get_agent', { agent }), `get_agent ${agent}`), /^(not_found|invalid_input)$/);
      assert.equal(marketReason(await call('market', 'check_approval', { approval: name }), `check_approval ${name}`), 'not_found');
      assert.equal(marketReason(await call('market', 'get_receipt', { receipt: name }), `get_receipt ${name}`), 'not_found');
      const found = await call('market', 'search_agents', { capability: name });
      assert.notEqual(found.isError, true);
      assert.deepEqual((found.structuredContent as { agents: unknown[] }).agents, [], `search_agents ${name}`);
      const called = await call('market', 'call_agent', { capability: name, input: { text: 'x' } });
      assert.equal(called.isError, true);
      const result = called.structuredContent as { status: string; denials: { code: string }[] };
      assert.equal(result.status, 'denied', `call_agent ${name}`);
      assert.ok(result.denials.length > 0);
    }
    assert.equal(canonicalHash(runtime.store.state.mandates), mandates);
    assert.equal(Object.keys(runtime.store.state.holds).length, 0, 'nothing held');
  });

  test('a tool by such a name is an unknown tool, refused as any other (invalid params, never an internal error)', async () => {
    const client = clients.get('market') as Client;
    for (const name of [PLAIN, ...NAMES]) {
      await assert.rejects(client.callTool({ name, arguments: {} }), (err: { code?: number; message?: string }) => err.code === ProtocolErrorCode.InvalidParams && (err.message ?? '').endsWith(`Tool ${name} not found`), name);
    }
  });
});

describe('commerce, money, records and memory', () => {
  test('merchants, payees, currencies and jobs by such a name are refused as problems; nothing moves', async () => {
    const accounts = canonicalHash(Object.keys(runtime.store.state.accounts));
    const purchases = Object.keys(runtime.store.state.purchases).length;
    for (const name of NAMES) {
      assert.equal(problemCode(await call('shopper', 'quote', { merchant: name, lines: [{ product: 'pen', quantity: 1 }] }), `quote ${name}`), 'not_found');
      assert.equal(problemCode(await call('shopper', 'buy', { merchant: name, lines: [{ product: 'pen', quantity: 1 }], replay_key: `k-${name.length}` }), `buy ${name}`), 'not_found');
      const intent = { payee: `acct:${name}`, amount: '0.10', currency: 'EUR', purpose: 'test', idempotency_key: `pay-${NAMES.indexOf(name)}` };
      assert.match(problemCode(await call('shopper', 'pay', { intent }), `pay ${name}`), /^(intent\.denied|validation)$/);
      assert.equal(problemCode(await call('shopper', 'pay', { intent: { ...intent, payee: 'acct:demo', currency: name, idempotency_key: `cur-${NAMES.indexOf(name)}` } }), `currency ${name}`), 'validation');
      assert.equal(problemCode(await call('shopper', 'get_job', { idempotency_key: name }), `get_job ${name}`), 'not_found');
    }
    assert.equal(canonicalHash(Object.keys(runtime.store.state.accounts)), accounts, 'no account appears');
    assert.equal(Object.keys(runtime.store.state.purchases).length, purchases, 'nothing bought');
    assert.equal(Object.keys(runtime.store.state.holds).length, 0, 'nothing held');
  });

  test('a merchant whose checkout status is such a name is a merchant with a status Holon does not know', async () => {
    try {
      for (const status of [PLAIN, ...NAMES]) {
        merchantStatus = status;
        const r = await call('shopper', 'quote', { merchant: 'odd', lines: [{ product: 'pen', quantity: 1 }] });
        assert.notEqual(r.isError, true, textOf(r));
        const cart = r.structuredContent as { status: string; merchant_status: string };
        // The merchant's own word for it reaches the agent as the merchant's, marked as data.
        assert.deepEqual([cart.status, cart.merchant_status], ['not_ready', status]);
      }
    } finally {
      merchantStatus = 'ready_for_payment';
    }
  });

  test('a memory key with such a name is a key: remembered and recalled like any other', async () => {
    for (const name of NAMES) {
      const r = await call('shopper', 'memory_remember', { key: name, content: `about ${name}` });
      assert.notEqual(r.isError, true, textOf(r));
    }
    const recalled = await call('shopper', 'memory_recall', { keys: NAMES });
    const records = (recalled.structuredContent as { records: { key: string; content: string }[] }).records;
    assert.deepEqual(records.map((x) => [x.key, x.content]), NAMES.map((n) => [n, `about ${n}`]));
    const mine = runtime.store.state.memory[SHOPPER];
    assert.ok(mine);
    assert.equal(Object.getPrototypeOf(mine), null, 'the keys did not become a prototype');
    assert.deepEqual(Object.keys(mine).sort(), [...NAMES].sort());
  });
});

describe('terms', () => {
  test('only the assets in Holon\'s own table are known, whatever a seller names', () => {
    for (const name of NAMES) {
      assert.equal(knownAsset(name, name), undefined, name);
      assert.equal(knownAsset(TEST_NETWORK, name), undefined, name);
    }
    assert.deepEqual(knownAsset(TEST_NETWORK, '0x5FbDB2315678afecb367f032d93F642f64180aa3'), { currency: 'USDC', decimals: 6, name: 'USD Coin', version: '2' });
  });
});
