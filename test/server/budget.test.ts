/**
 * get_budget and get_receipt, and the promise that concurrent calls can never together spend more than
 * the budget: through one server, and through two servers on the same state folder.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import * as M from '../../src/core/kernel/amount.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import { openRuntime } from '../../src/server/runtime.ts';
import { connect, demoRuntime, FACTURE, INVOICES, MANDATE, openAgain, until } from '../helpers.ts';
import type { CallResult, Money } from './support.ts';
import { addEchoAgent, assertNothingAppended, assertRefusalsOnly, callAgent, callTool, ECHO_AGENT, money, plus, problemOf, structured, textOf } from './support.ts';

interface Budget {
  mandate: string;
  status: string;
  grantee: { slug: string; name: string; role: string; manager: string | null };
  toolsets: string[];
  capabilities: { name: string; params?: Record<string, unknown> }[];
  data_rules: { regions: string[] | null; retention_days: number | null; training: boolean };
  expires_at: string | null;
  currency: string;
  limits: { total: Money; per_day: Money | null; per_call: Money | null; approval_threshold: Money };
  spent: Money;
  held: Money;
  remaining: Money;
  spent_today: Money;
  remaining_today: Money | null;
  wallet: unknown;
}

interface Node {
  receipt: string;
  parent: string | null;
  agent: string | null;
  version: string | null;
  capability: string | null;
  status: string;
  cost: Money | null;
  total_cost: Money | null;
  approval: string | null;
  children: Node[];
}

const eur = (amount: string): Money => ({ amount, currency: 'EUR' });

let env: Awaited<ReturnType<typeof demoRuntime>>;
let client: Client;

before(async () => {
  env = await demoRuntime({ approvals: { waitMs: 0, elicitation: true } });
  await addEchoAgent(env.runtime, env.clock);
  client = await connect(env.runtime, { elicit: () => ({ action: 'accept', content: { decision: 'Approve' } }) });
});

after(async () => {
  await client.close();
  await env.cleanup();
});

async function budget(c: Client = client): Promise<Budget> {
  return structured<Budget>(await callTool(c, 'get_budget'));
}

test('get_budget shows the one mandate: grantee, scope, limits, data rules and an untouched budget', async () => {
  const seq = env.runtime.store.seq;
  const b = await budget();
  assert.deepEqual(b, {
    mandate: MANDATE,
    status: 'active',
    // The grantee's words as written (named as the grantee's in _meta: in an office, a colleague may have written them).
    grantee: { slug: 'sandbox', name: 'Agent on demo/sandbox', role: 'coding agent', manager: null },
    toolsets: ['market'],
    capabilities: [{ name: 'market.call', params: { capabilities: ['extraction.*', 'pipeline.*'] } }],
    data_rules: { regions: ['EU'], retention_days: 30, training: false },
    expires_at: null,
    currency: 'EUR',
    limits: { total: eur('5.00'), per_day: eur('4.00'), per_call: eur('3.50'), approval_threshold: eur('0.50') },
    spent: eur('0.00'),
    held: eur('0.00'),
    remaining: eur('5.00'),
    spent_today: eur('0.00'),
    remaining_today: eur('4.00'),
    // No wallet and no chain configured: nothing to say what it holds.
    wallet: null,
  });
  const r = await callTool(client, 'get_budget');
  for (const fact of ['demo/sandbox', '0.00 EUR', '5.00 EUR', '0.50 EUR']) assert.ok(textOf(r).includes(fact), fact);
  await assertNothingAppended(env.runtime, seq);
});

test('get_budget shows what a running call holds, and releases it when the call settles', async () => {
  const gate = path.join(env.dir, 'release-echo');
  const call = callAgent(client, { agent: ECHO_AGENT, input: { text: gate, mode: 'hold' } });
  await until(() => money(env.runtime).held !== '0.00', 'the call to hold its worst case');
  const running = await budget();
  assert.deepEqual(running.held, eur('0.001'));
  assert.deepEqual(running.remaining, eur('4.999'));
  assert.deepEqual(running.remaining_today, eur('3.999'));
  fs.writeFileSync(gate, '');
  const r = await call;
  assert.equal(r.status, 'succeeded');
  const settled = await budget();
  assert.deepEqual(settled.held, eur('0.00'));
  assert.deepEqual(settled.spent, eur('0.001'));
});

test('get_receipt shows the approved pipeline as a tree with its 4 delegated calls and the real total', async () => {
  const before = money(env.runtime);
  const r = await callAgent(client, { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICES } });
  assert.equal(r.status, 'succeeded');
  const seq = env.runtime.store.seq;
  const answer = await callTool(client, 'get_receipt', { receipt: r.receipt });
  const { tree, total_cost } = structured<{ tree: Node; total_cost: Money }>(answer);
  assert.deepEqual(total_cost, eur('0.1906'));
  assert.equal(tree.receipt, r.receipt);
  assert.equal(tree.parent, null);
  assert.equal(tree.agent, 'holon-labs/invoice-pipeline');
  assert.equal(tree.status, 'succeeded');
  assert.deepEqual(tree.cost, eur('0.0954'), "the pipeline's own cost: 0.036 + 4 × 0.01485");
  assert.deepEqual(tree.total_cost, eur('0.1906'));
  assert.equal(tree.approval, r.approval);
  assert.equal(tree.children.length, 4);
  for (const child of tree.children) {
    assert.equal(child.parent, r.receipt);
    assert.equal(child.agent, 'acme/table-extract');
    assert.equal(child.capability, 'extraction.table');
    assert.equal(child.status, 'succeeded');
    assert.deepEqual(child.cost, eur('0.0238'));
    assert.deepEqual(child.children, []);
  }
  const lines = textOf(answer).split('\n');
  assert.equal(lines[0], 'Total 0.1906 EUR');
  assert.equal(lines.filter((l) => l.includes('└─ ') && l.includes('acme/table-extract')).length, 4);
  await assertNothingAppended(env.runtime, seq);

  // A delegated call is a receipt of this mandate too.
  const child = structured<{ tree: Node }>(await callTool(client, 'get_receipt', { receipt: tree.children[0]?.receipt ?? '' }));
  assert.equal(child.tree.parent, r.receipt);

  const b = await budget();
  assert.deepEqual(b.spent, eur(plus(before.spent, '0.1906')));
  assert.deepEqual(b.held, eur('0.00'), 'the parent and its children released every hold');
  assert.deepEqual(b.spent_today, b.spent);
});

test('get_receipt of another mandate\'s receipt, or of no receipt, is not_found', async () => {
  await createMandate(env.runtime.store, env.clock, 'demo/other', {
    capabilities: [{ name: 'market.call', params: { capabilities: ['extraction.*'] } }],
    data: { regions: ['EU'], retention_days: 30, training: false },
  });
  const other = await connect(env.runtime, { mandate: 'demo/other' });
  try {
    const theirs = await callAgent(other, { agent: 'acme/table-extract', input: { file: FACTURE } });
    assert.equal(theirs.status, 'succeeded');
    const visible = await callTool(other, 'get_receipt', { receipt: theirs.receipt });
    assert.notEqual(visible.isError, true);

    const seq = env.runtime.store.seq;
    for (const receipt of [theirs.receipt, 'rcpt_nothing']) {
      const p = problemOf(await callTool(client, 'get_receipt', { receipt }));
      assert.equal(p.reason, 'not_found');
      assert.equal(p['receipt'], receipt);
    }
    await assertRefusalsOnly(env.runtime, seq, ['call_failed', 'call_failed']);

    // Each server shows only its own mandate's money: the other call was not charged to demo/sandbox.
    const mine = await budget();
    const theirsBudget = await budget(other);
    assert.equal(theirsBudget.mandate, 'demo/other');
    assert.deepEqual(theirsBudget.spent, eur('0.0238'));
    assert.notDeepEqual(mine.spent, eur('0.00'));
    assert.equal(mine.mandate, MANDATE);
  } finally {
    await other.close();
  }
});

/** Spent and held of the mandate never exceed its total, checked after every batch of journal events. */
function watchInvariant(runtime: Runtime, total: string): { worst: () => bigint } {
  const limit = M.parseUnits(total);
  let worst = 0n;
  runtime.store.subscribe(() => {
    const sp = runtime.store.state.spend[MANDATE];
    if (!sp) return;
    const used = sp.spent + sp.held;
    if (used > worst) worst = used;
    assert.ok(used <= limit, `spent + held ${M.formatUnits(used)} is above the total ${total}`);
  });
  return { worst: () => worst };
}

function tally(results: CallResult[]): { succeeded: CallResult[]; denied: CallResult[] } {
  const succeeded = results.filter((r) => r.status === 'succeeded');
  const denied = results.filter((r) => r.status === 'denied');
  assert.equal(succeeded.length + denied.length, results.length, JSON.stringify(results.map((r) => r.status)));
  for (const d of denied) {
    const over = d.denials.find((x) => x.code === 'over_budget');
    assert.ok(over, `a denial names the remaining budget: ${JSON.stringify(d.denials)}`);
    assert.deepEqual((over.params as { amount: unknown }).amount, { amount: '0.035', currency: 'EUR' });
    assert.ok(M.parseUnits((over.params as { remaining: { amount: string } }).remaining.amount) < M.parseUnits('0.035'));
    assert.equal(d.cost, null);
  }
  return { succeeded, denied };
}

test('20 concurrent calls through one server never together exceed a 0.10 EUR budget', async () => {
  const small = await demoRuntime({ total: '0.10' });
  try {
    const c = await connect(small.runtime);
    const invariant = watchInvariant(small.runtime, '0.10');
    const results = await Promise.all(Array.from({ length: 20 }, () => callAgent(c, { agent: 'lena/table-extract-fr', input: { file: FACTURE } })));
    const { succeeded, denied } = tally(results);
    // lena's worst case is its flat price, 0.035 EUR: two fit in 0.10, a third never does.
    assert.equal(succeeded.length, 2);
    assert.equal(denied.length, 18);
    for (const s of succeeded) assert.deepEqual(s.cost, eur('0.035'));
    const m = money(small.runtime);
    assert.deepEqual([m.spent, m.held, m.remaining], ['0.07', '0.00', '0.03']);
    assert.ok(invariant.worst() <= M.parseUnits('0.10'));
    assert.equal(new Set(results.map((r) => r.receipt)).size, 20, 'every call has its own receipt');
    await c.close();
  } finally {
    await small.cleanup();
  }
});

test('concurrent calls through two servers on the same state folder never together exceed the budget', async () => {
  const small = await demoRuntime({ total: '0.10' });
  const second = openRuntime(small.dir, { clock: small.clock, logger: silentLogger, durable: false, approvals: small.runtime.deps.approvals, store: await openAgain(small.dir, small.clock, { watch: true }) });
  try {
    const a = await connect(small.runtime);
    const b = await connect(second);
    const job = { agent: 'lena/table-extract-fr', input: { file: FACTURE } };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => callAgent(i % 2 === 0 ? a : b, job)));
    const { succeeded } = tally(results);
    assert.equal(succeeded.length, 2);
    // Each folds the other's events as it learns of them (a file read, a database notification).
    await until(() => second.store.refresh() && small.runtime.store.refresh() && second.store.seq === small.runtime.store.seq, 'both processes to have seen every event');
    for (const rt of [small.runtime, second]) {
      const m = money(rt);
      assert.deepEqual([m.spent, m.held], ['0.07', '0.00'], 'both processes fold the same totals');
    }
    await a.close();
    await b.close();
  } finally {
    await second.close();
    await small.cleanup();
  }
});
