/**
 * The money and records toolsets (seed 003) through a real SDK Client: pay, simulate, resolve, verify and
 * disclose, and the six read-back tools, on their success paths and on each problem code they return;
 * a parked intent found again and released by the human; an idempotent retry after a rail failure that
 * pays once; a disclosure with one byte changed; an unconvertible prior spend; metering.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { canonicalize } from 'json-canonicalize';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { verifySignature } from '../../src/core/store/keys.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import * as M from '../../src/core/kernel/amount.ts';
import type { TransferRail } from '../../src/core/money/pay.ts';
import { jobChainStatement } from '../../src/core/money/intents.ts';
import { setCallLimits } from '../../src/core/money/metering.ts';
import type { JobEvent } from '../../src/core/money/slice.ts';
import { jobEventHash } from '../../src/core/money/slice.ts';
import { fund, spendEvent } from '../../src/core/money/spend.ts';
import type { FetchLike } from '../../src/server/net/publicFetch.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import { createHolonServer } from '../../src/server/server.ts';
import type { MoneyServerDeps } from '../../src/server/tools/money.ts';
import type { TestClock } from '../helpers.ts';
import { demoRuntime } from '../helpers.ts';
import { assertRefusalsOnly, callTool, typesAfter } from './support.ts';

const PAYER = 'demo/payer';
const OPEN = 'demo/open';
const NOPAY = 'demo/nopay';
const AGENT_URL = 'https://agent.example/';
const CARD = {
  name: 'Invoice Reader',
  description: 'Reads invoices.',
  version: '2.1.0',
  supportedInterfaces: [{ url: 'https://agent.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Example Co', url: 'https://example.com' },
  capabilities: { streaming: true, extensions: [{ uri: 'https://github.com/google-a2a/a2a-x402/v0.1' }] },
  skills: [{ id: 'read', name: 'Read', description: 'Reads', tags: [] }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['application/json'],
};

const cardFetch: FetchLike = async (input) => {
  const url = String(input);
  if (url === 'https://agent.example/.well-known/agent-card.json') return new Response(JSON.stringify(CARD), { status: 200 });
  return new Response('not here', { status: 404 });
};

let env: Awaited<ReturnType<typeof demoRuntime>>;
let runtime: Runtime;
let clock: TestClock;

/** A client for `mandate`, on these deps (a test's own rail, say). */
async function clientFor(mandate: string, deps: MoneyServerDeps = runtime.deps): Promise<Client> {
  const server = createHolonServer(deps, mandate);
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const [c, s] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(s), client.connect(c)]);
  return client;
}

let payer: Client;
const clients: Client[] = [];

before(async () => {
  env = await demoRuntime({ fetch: cardFetch });
  runtime = env.runtime;
  clock = env.clock;
  await fund(runtime.store, 'demo2', '1');
  const base = { toolsets: ['money', 'records'], approval_threshold: '0.50', budget: { total: '5.00', per_day: '4.00', per_call: '3.50' } };
  await createMandate(runtime.store, clock, PAYER, { ...base, capabilities: [{ name: 'pay', params: { payees: ['acct:demo2'] } }] });
  await createMandate(runtime.store, clock, OPEN, { ...base, capabilities: [{ name: 'pay', params: { payees: ['*'] } }] });
  await createMandate(runtime.store, clock, NOPAY, { ...base, capabilities: [] });
  payer = await clientFor(PAYER);
  clients.push(payer);
});

after(async () => {
  for (const c of clients) await c.close();
  await env.cleanup();
});

type Problem = { code: string; message: string; action: string; data: { type: string; status: number; action: string; nextStep: string; retryable: boolean; reasons: string[] } & Record<string, unknown> };

const ok = <T>(r: CallToolResult): T => {
  assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent ?? r.content));
  return r.structuredContent as T;
};

/** The RFC 9457 problem of a failed call: on structuredContent, and the same JSON in its text. */
function problem(r: CallToolResult, code: string): Problem {
  assert.equal(r.isError, true, `expected a problem, got ${JSON.stringify(r.structuredContent)}`);
  const p = r.structuredContent as Problem;
  assert.equal(p.code, code, JSON.stringify(p));
  assert.deepEqual(JSON.parse((r.content[0] as { text: string }).text), p);
  for (const k of ['type', 'status', 'action', 'nextStep', 'retryable', 'reasons']) assert.ok(k in p.data, `data.${k}`);
  assert.equal(p.data.action, p.action);
  return p;
}

const intent = (over: Record<string, unknown> = {}): { intent: Record<string, unknown> } => ({
  intent: { payee: 'acct:demo2', amount: '0.20', currency: 'EUR', purpose: 'a test payment', idempotency_key: 'k-1', ...over },
});

/** What an account holds and has spent, in EUR. */
function account(id: string): { funded: string; spent: string; held: string } {
  const a = runtime.store.state.accounts[id];
  const f = (d: Record<string, bigint> | undefined): string => M.formatUnits(d?.['EUR'] ?? 0n);
  return { funded: f(a?.funded), spent: f(a?.spent), held: f(a?.held) };
}

type Receipt = { id: string; intent: string; amount: { amount: string; currency: string }; charged: { amount: string; currency: string }; approval: string | null };
type PayOut = { intent: { intent: string; status: string; attempts: number }; receipt: Receipt; replayed: boolean };
type IntentRow = { intent: string; idempotency_key: string; status: string; pending: { approval: string; challenge: string; expires_at: string } | null; receipt: Receipt | null; reasons: string[]; attempts: number };

describe('the toolsets as a client sees them', () => {
  test('a mandate offering money and records lists their eleven tools and the commerce two, and none that approves, settles or grants', async () => {
    const { tools } = await payer.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['resolve', 'pay', 'simulate', 'verify', 'disclose', 'get_job', 'get_job_events', 'get_audit', 'list_intents', 'get_mandate', 'get_usage', 'quote', 'buy'],
    );
    // Without the commerce tier (seed 003): listed, and not_found when called.
    assert.equal(problem(await callTool(payer, 'quote', { lines: [{ product: 'p', quantity: 1 }] }), 'not_found').action, 'never-retry');
    for (const t of tools) assert.equal(t.outputSchema?.type, 'object', t.name);
    const readOnly = tools.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name);
    assert.ok(!readOnly.includes('pay') && !readOnly.includes('disclose'), 'what spends or signs is never read-only');
  });
});

describe('pay and simulate', () => {
  test('simulate answers without acting, then pay with the same key settles once; the same request again replays', async () => {
    const seq = runtime.store.seq;
    const sim = ok<{ decision: string; authorizes: boolean; in_mandate_currency: { amount: string } }>(await callTool(payer, 'simulate', intent()));
    assert.deepEqual([sim.decision, sim.authorizes, sim.in_mandate_currency.amount], ['allow', false, '0.20']);
    assert.deepEqual(await typesAfter(runtime, seq), ['usage.metered'], 'simulate settles nothing and leaves no audit entry');

    const before = { payee: account('demo2'), payer: account('demo') };
    const paid = ok<PayOut>(await callTool(payer, 'pay', intent()));
    assert.equal(paid.intent.status, 'settled');
    assert.equal(paid.replayed, false);
    assert.deepEqual([paid.receipt.amount, paid.receipt.charged], [{ amount: '0.20', currency: 'EUR' }, { amount: '0.20', currency: 'EUR' }]);
    assert.equal(account('demo2').funded, M.formatUnits(M.parseUnits(before.payee.funded) + M.parseUnits('0.20')));
    assert.equal(account('demo').spent, M.formatUnits(M.parseUnits(before.payer.spent) + M.parseUnits('0.20')));

    const again = ok<PayOut>(await callTool(payer, 'pay', intent({ amount: '0.2' })));
    assert.equal(again.replayed, true, '"0.2" and "0.20" are the same amount');
    assert.equal(again.receipt.id, paid.receipt.id);
    assert.equal(account('demo2').funded, M.formatUnits(M.parseUnits(before.payee.funded) + M.parseUnits('0.20')), 'paid once');
  });

  test('the same key with another body is a conflict that moves nothing', async () => {
    const before = account('demo2');
    const p = problem(await callTool(payer, 'pay', intent({ amount: '0.30' })), 'conflict');
    assert.equal(p.action, 'never-retry');
    assert.equal(p.data.status, 409);
    assert.deepEqual(account('demo2'), before);
  });

  test('bad intents are refused as validation problems and append nothing but their refusals, without the values', async () => {
    for (const over of [{ payee: 'demo2' }, { payee: 'acct:Demo2' }, { amount: '0' }, { amount: '-1' }, { amount: '1.1234567' }, { currency: 'eur' }, { idempotency_key: '' }, { idempotency_key: 'has space' }, { purpose: '' }]) {
      const seq = runtime.store.seq;
      const bad = intent({ idempotency_key: 'k-bad', ...over });
      const p = problem(await callTool(payer, 'pay', bad), 'validation');
      assert.equal(p.action, 'never-retry', JSON.stringify(over));
      await assertRefusalsOnly(runtime, seq, ['invalid_arguments'], JSON.stringify(over));
      problem(await callTool(payer, 'simulate', bad), 'validation');
      const events = await assertRefusalsOnly(runtime, seq, ['invalid_arguments', 'invalid_arguments'], JSON.stringify(over));
      const [field] = Object.keys(over);
      assert.deepEqual(events.map((e) => (e.data as { summary: unknown }).summary), [{ invalid_arguments: [`intent.${field}`] }, { invalid_arguments: [`intent.${field}`] }]);
    }
  });

  test('a payee outside the pay scope is denied with reasons, recorded, and the same key returns the same denial', async () => {
    await fund(runtime.store, 'other', '1');
    const sim = ok<{ decision: string; reasons: string[] }>(await callTool(payer, 'simulate', intent({ payee: 'acct:other', idempotency_key: 'k-deny' })));
    assert.equal(sim.decision, 'deny');
    assert.match(sim.reasons.join(), /pay does not cover acct:other/);
    const p = problem(await callTool(payer, 'pay', intent({ payee: 'acct:other', idempotency_key: 'k-deny' })), 'intent.denied');
    assert.deepEqual([p.action, p.data.status, p.data.retryable], ['escalate-to-human', 403, false]);
    assert.match(p.data.reasons.join(), /pay does not cover acct:other/);
    const seq = runtime.store.seq;
    problem(await callTool(payer, 'pay', intent({ payee: 'acct:other', idempotency_key: 'k-deny' })), 'intent.denied');
    assert.ok(!(await typesAfter(runtime, seq)).some((t) => t.startsWith('intent.')), 'a replayed denial decides nothing again');
    const job = ok<IntentRow>(await callTool(payer, 'get_job', { idempotency_key: 'k-deny' }));
    assert.equal(job.status, 'denied');
  });

  test('no rail pays a chain account, the paying account itself or an unknown account; a currency without a rate is unknown', async () => {
    const open = await clientFor(OPEN);
    clients.push(open);
    const chain = problem(await callTool(open, 'pay', intent({ payee: 'eip155:8453:0x1111111111111111111111111111111111111111', idempotency_key: 'k-chain' })), 'intent.denied');
    assert.match(chain.data.reasons.join(), /x402/);
    problem(await callTool(open, 'pay', intent({ payee: 'acct:demo', idempotency_key: 'k-self' })), 'intent.denied');
    problem(await callTool(open, 'pay', intent({ payee: 'acct:nobody', idempotency_key: 'k-nobody' })), 'intent.denied');
    const unknown = problem(await callTool(open, 'pay', intent({ currency: 'JPY', idempotency_key: 'k-jpy' })), 'amount.unknown');
    assert.equal(unknown.action, 'escalate-to-human');
    // A human-set rate converts: 0.50 USD is 0.46 EUR at 0.92.
    const usd = ok<PayOut>(await callTool(open, 'pay', intent({ amount: '0.50', currency: 'USD', idempotency_key: 'k-usd' })));
    assert.deepEqual([usd.receipt.amount, usd.receipt.charged], [{ amount: '0.50', currency: 'USD' }, { amount: '0.46', currency: 'EUR' }]);
  });

  test('over a cap with room left: cost.above_cap with the most that passes, and simulate says the same; where less cannot help, intent.denied', async () => {
    type Sim = { decision: string; problem: { code: string; action: string; remaining?: { amount: string; currency: string } } | null };
    // The most a payment could be now is the per-call limit (today's and the total's room are larger), in the mandate's currency.
    const most = { amount: '3.50', currency: 'EUR' };
    const sim = ok<Sim>(await callTool(payer, 'simulate', intent({ amount: '3.60', idempotency_key: 'k-big' })));
    assert.deepEqual([sim.decision, sim.problem], ['deny', { code: 'cost.above_cap', action: 'retry-after-renegotiation', remaining: most }]);
    const p = problem(await callTool(payer, 'pay', intent({ amount: '3.60', idempotency_key: 'k-big' })), 'cost.above_cap');
    assert.deepEqual([p.action, p.data.status, p.data.retryable, p.data['remaining']], ['retry-after-renegotiation', 422, false, most]);
    assert.match(p.data.reasons.join(), /per-call limit/);
    assert.match(p.data.nextStep, /new idempotency key/);
    // 4.00 USD is 3.68 EUR at the human's rate: what remains is said in EUR.
    const usd = problem(await callTool(payer, 'pay', intent({ amount: '4.00', currency: 'USD', idempotency_key: 'k-big-usd' })), 'cost.above_cap');
    assert.deepEqual(usd.data['remaining'], most);
    // A payee the mandate does not allow: no amount helps.
    const scope = problem(await callTool(payer, 'pay', intent({ payee: 'acct:other', amount: '3.60', idempotency_key: 'k-big-other' })), 'intent.denied');
    assert.deepEqual([scope.action, scope.data['remaining']], ['escalate-to-human', undefined]);
    const simScope = ok<Sim>(await callTool(payer, 'simulate', intent({ payee: 'acct:other', amount: '3.60', idempotency_key: 'k-big-other' })));
    assert.deepEqual(simScope.problem, { code: 'intent.denied', action: 'escalate-to-human' });
    assert.equal(ok<Sim>(await callTool(payer, 'simulate', intent({ amount: '1.00', idempotency_key: 'k-sim' }))).problem?.code, 'approval.pending');
    assert.equal(ok<Sim>(await callTool(payer, 'simulate', intent({ amount: '0.10', idempotency_key: 'k-sim' }))).problem, null);
  });

  test('without the pay capability: intent.denied before anything is counted', async () => {
    const nopay = await clientFor(NOPAY);
    clients.push(nopay);
    const refused = problem(await callTool(nopay, 'pay', intent({ idempotency_key: 'k-nopay' })), 'intent.denied');
    assert.match(refused.message, /does not grant pay/);
    const sim = ok<{ decision: string; reasons: string[] }>(await callTool(nopay, 'simulate', intent()));
    assert.equal(sim.decision, 'deny');
  });
});

describe('a parked intent, released by the human', () => {
  test('confirm parks it with the money held; list_intents finds it; the approval settles it in its own transaction', async () => {
    const before = { payee: account('demo2'), payer: account('demo') };
    const p = problem(await callTool(payer, 'pay', intent({ amount: '1.00', idempotency_key: 'k-park' })), 'approval.pending');
    assert.deepEqual([p.action, p.data.status], ['escalate-to-human', 202]);
    const id = p.data['intent'] as string;
    const challenge = p.data['challenge'] as string;
    const approval = p.data['approval'] as string;
    assert.match(id, /^int_/);
    assert.match(challenge, /^[0-9a-f]{64}$/);
    assert.equal(runtime.store.state.approvals[approval]?.binding, challenge, 'the challenge is what the approval binds to');
    assert.equal(account('demo').held, M.formatUnits(M.parseUnits(before.payer.held) + M.parseUnits('1.00')), 'the money is held');

    // The intent id is said once; the same request again says it waits, without it.
    const again = problem(await callTool(payer, 'pay', intent({ amount: '1.00', idempotency_key: 'k-park' })), 'approval.pending');
    assert.equal(again.data['intent'], undefined);
    assert.equal(again.data['challenge'], challenge);

    const pending = ok<{ intents: IntentRow[] }>(await callTool(payer, 'list_intents', { status: 'pending' }));
    assert.deepEqual(pending.intents.map((r) => [r.intent, r.pending?.challenge]), [[id, challenge]]);

    await decideApproval(runtime.store, clock, approval, 'approved', 'panel');
    assert.equal(account('demo2').funded, M.formatUnits(M.parseUnits(before.payee.funded) + M.parseUnits('1.00')));
    assert.equal(account('demo').held, before.payer.held, 'the hold became the spend');
    assert.equal(runtime.store.state.approvals[approval]?.status, 'used');

    const settled = ok<PayOut>(await callTool(payer, 'pay', intent({ amount: '1.00', idempotency_key: 'k-park' })));
    assert.deepEqual([settled.intent.status, settled.replayed, settled.receipt.approval], ['settled', true, approval]);
    assert.deepEqual((ok<{ intents: IntentRow[] }>(await callTool(payer, 'list_intents', { status: 'pending' }))).intents, []);
  });

  test('a rejection releases the hold; the same key then answers approval.rejected', async () => {
    const before = account('demo');
    const p = problem(await callTool(payer, 'pay', intent({ amount: '0.80', idempotency_key: 'k-reject' })), 'approval.pending');
    await decideApproval(runtime.store, clock, p.data['approval'] as string, 'rejected', 'cli');
    assert.deepEqual(account('demo'), before);
    const r = problem(await callTool(payer, 'pay', intent({ amount: '0.80', idempotency_key: 'k-reject' })), 'approval.rejected');
    assert.equal(r.action, 'never-retry');
    assert.equal(ok<IntentRow>(await callTool(payer, 'get_job', { idempotency_key: 'k-reject' })).status, 'rejected');
  });
});

describe('a parked intent nobody decides', () => {
  test('once its approval lapses it reads expired; the next pay gives its money back and answers approval.invalid', async () => {
    const before = account('demo');
    const p = problem(await callTool(payer, 'pay', intent({ amount: '0.70', idempotency_key: 'k-lapse' })), 'approval.pending');
    const start = clock.ms;
    clock.ms = Date.parse(runtime.store.state.approvals[p.data['approval'] as string]?.expires_at ?? '') + 1;
    try {
      assert.equal(ok<IntentRow>(await callTool(payer, 'get_job', { idempotency_key: 'k-lapse' })).status, 'expired');
      assert.deepEqual(ok<{ intents: IntentRow[] }>(await callTool(payer, 'list_intents', { status: 'expired' })).intents.map((r) => r.idempotency_key), ['k-lapse']);
      const r = problem(await callTool(payer, 'pay', intent({ amount: '0.70', idempotency_key: 'k-lapse' })), 'approval.invalid');
      assert.equal(r.action, 'never-retry');
      assert.deepEqual(account('demo'), before, 'the hold went back');
      await assert.rejects(decideApproval(runtime.store, clock, p.data['approval'] as string, 'approved', 'panel'), /expired/);
    } finally {
      clock.ms = start;
    }
  });
});

describe('an idempotent retry after a rail failure', () => {
  test('the rail fails once: nothing moves, the problem says retry as is, and the retry pays exactly once', async () => {
    let failures = 1;
    const flaky: TransferRail = {
      transfer: async (order) => {
        if (failures-- > 0) throw new Error('the rail is down');
        return { reference: `test:${order.intent}` };
      },
    };
    const client = await clientFor(PAYER, { ...runtime.deps, transferRail: flaky });
    clients.push(client);
    const before = { payee: account('demo2'), payer: account('demo') };
    const p = problem(await callTool(client, 'pay', intent({ amount: '0.30', idempotency_key: 'k-rail' })), 'rail.failed');
    assert.deepEqual([p.action, p.data.retryable, p.data.status], ['retry-as-is', true, 502]);
    assert.deepEqual({ payee: account('demo2'), payer: account('demo') }, before, 'nothing moved, nothing held');
    assert.equal(ok<IntentRow>(await callTool(client, 'get_job', { idempotency_key: 'k-rail' })).status, 'failed');

    const paid = ok<PayOut>(await callTool(client, 'pay', intent({ amount: '0.30', idempotency_key: 'k-rail' })));
    assert.deepEqual([paid.intent.status, paid.intent.attempts, paid.replayed], ['settled', 2, false]);
    const third = ok<PayOut>(await callTool(client, 'pay', intent({ amount: '0.30', idempotency_key: 'k-rail' })));
    assert.equal(third.replayed, true);
    assert.equal(account('demo2').funded, M.formatUnits(M.parseUnits(before.payee.funded) + M.parseUnits('0.30')), 'paid once');
    assert.equal(account('demo').spent, M.formatUnits(M.parseUnits(before.payer.spent) + M.parseUnits('0.30')));
  });
});

describe('records', () => {
  test("get_job_events: the intent's events, hash-linked, their head signed by the installation", async () => {
    const r = ok<{ intent: string; events: JobEvent[]; head: string; signature: { public_key: string; value: string } }>(await callTool(payer, 'get_job_events', { idempotency_key: 'k-park' }));
    assert.deepEqual(r.events.map((e) => e.type), ['intent.submitted', 'intent.parked', 'intent.settled']);
    let prev = '';
    for (const e of r.events) {
      assert.equal(e.prev, prev);
      assert.equal(e.hash, jobEventHash(r.intent, { n: e.n, type: e.type, at: e.at, data: e.data, prev: e.prev }));
      prev = e.hash;
    }
    assert.equal(r.head, prev);
    assert.ok(verifySignature(r.signature.public_key, jobChainStatement(r.intent, r.events), r.signature.value));
    const tampered = r.events.map((e, i) => (i === 0 ? { ...e, data: { ...e.data, purpose: 'something else' } } : e));
    assert.notEqual(jobEventHash(r.intent, tampered[0] as JobEvent), r.events[0]?.hash);
    assert.match(JSON.stringify(r.events[0]?.data), /"signature":\{"alg":"Ed25519"/, 'the submitted intent carries its signature');
  });

  test('get_job and get_job_events of an unknown key: not_found', async () => {
    for (const tool of ['get_job', 'get_job_events']) assert.equal(problem(await callTool(payer, tool, { idempotency_key: 'k-never' }), 'not_found').action, 'never-retry');
  });

  test('get_audit pages through every intent event in order; list_intents is newest first', async () => {
    const all: { seq: number; idempotency_key: string }[] = [];
    let cursor: string | null = null;
    do {
      const page: { entries: { seq: number; idempotency_key: string }[]; next_cursor: string | null } = ok(await callTool(payer, 'get_audit', { limit: 2, ...(cursor ? { cursor } : {}) }));
      all.push(...page.entries);
      cursor = page.next_cursor;
    } while (cursor);
    const whole = ok<{ entries: { seq: number }[]; next_cursor: null }>(await callTool(payer, 'get_audit', { limit: 200 }));
    assert.deepEqual(all.map((e) => e.seq), whole.entries.map((e) => e.seq));
    assert.deepEqual([...all.map((e) => e.seq)].sort((a, b) => a - b), all.map((e) => e.seq));
    assert.ok(all.some((e) => e.idempotency_key === 'k-1') && all.some((e) => e.idempotency_key === 'k-deny'));
    const listed = ok<{ intents: IntentRow[] }>(await callTool(payer, 'list_intents', {}));
    assert.deepEqual(listed.intents.map((r) => r.idempotency_key), ['k-rail', 'k-lapse', 'k-reject', 'k-park', 'k-big-other', 'k-big-usd', 'k-big', 'k-deny', 'k-1']);
    const seq = runtime.store.seq;
    problem(await callTool(payer, 'get_audit', { cursor: 'bm90LWEtY3Vyc29y' }), 'validation');
    await assertRefusalsOnly(runtime, seq, ['call_failed']);
    // Arguments that do not fit: the refusal is on the record, with which fields and never what was in them.
    const seq2 = runtime.store.seq;
    problem(await callTool(payer, 'list_intents', { status: 'SECRET-STATUS', limit: 201 }), 'validation');
    const events = await assertRefusalsOnly(runtime, seq2, ['invalid_arguments']);
    assert.deepEqual(events.map((e) => [e.type, (e.data as { tool: string }).tool, (e.data as { summary: unknown }).summary]), [['tool.denied', 'list_intents', { invalid_arguments: ['status', 'limit'] }]]);
    assert.ok(!JSON.stringify(events).includes('SECRET'));
  });

  test('get_mandate: caps, what each drew, the period; spent and remaining absent together with an unconvertible prior spend', async () => {
    type Authority = { spent?: { amount: string }; remaining?: { amount: string }; held: { amount: string }; caps: { cap: string; drawn?: { amount: string } }[]; period: { resets_at: string }; unconvertible: string[] };
    const m = ok<Authority>(await callTool(payer, 'get_mandate'));
    assert.equal(m.spent?.amount, '1.50');
    assert.equal(m.remaining?.amount, '3.04', 'what the account has left: demo also paid 0.46 EUR under demo/open');
    assert.deepEqual(m.caps.map((c) => [c.cap, c.drawn?.amount]), [['total', '1.50'], ['per_day', '1.50'], ['per_call', undefined]]);
    assert.equal(m.period.resets_at, '2026-11-30T00:00:00.000Z');

    // A spend this mandate made in GBP, which no rate converts to EUR.
    await runtime.store.transact(() => ({
      events: [
        spendEvent('hold.placed', { hold: 'legacy-gbp', mandate: PAYER, account: 'demo', currency: 'GBP', amount: '0.10', parent: null, payee: { kind: 'payee', id: 'acct:demo2' } }),
        spendEvent('hold.settled', { hold: 'legacy-gbp', cost: '0.10' }),
      ],
      result: undefined,
    }));
    const unknown = ok<Authority>(await callTool(payer, 'get_mandate'));
    assert.ok(!('spent' in unknown) && !('remaining' in unknown), 'absent, never zero');
    assert.deepEqual(unknown.unconvertible, ['GBP']);
    assert.ok(unknown.caps.every((c) => !('drawn' in c)));
    const refused = problem(await callTool(payer, 'pay', intent({ amount: '0.10', idempotency_key: 'k-unknown' })), 'amount.unknown');
    assert.match(refused.data.reasons.join(), /GBP/);
    assert.equal(ok<{ decision: string }>(await callTool(payer, 'simulate', intent({ amount: '0.10', idempotency_key: 'k-unknown' }))).decision, 'deny');

    await setFx(runtime.store, 'GBP', 'EUR', '1.20');
    const known = ok<Authority>(await callTool(payer, 'get_mandate'));
    assert.equal(known.spent?.amount, '1.62');
  });
});

describe('metering', () => {
  test('a rate limit refuses retry-as-is and clears; a quota refuses escalate-to-human; get_usage counts', async () => {
    const id = 'demo/metered';
    await createMandate(runtime.store, clock, id, { toolsets: ['money', 'records'], capabilities: [] });
    const c = await clientFor(id);
    clients.push(c);
    const start = clock.ms;
    clock.ms = Date.parse('2026-11-29T11:00:10Z');
    try {
      await metering(c, id);
    } finally {
      clock.ms = start;
    }
  });
});

async function metering(c: Client, id: string): Promise<void> {
  {
    await setCallLimits(runtime.store, id, { rate: { count: 2, per: 'minute' } });
    ok(await callTool(c, 'get_mandate'));
    ok(await callTool(c, 'get_usage'));
    const limited = problem(await callTool(c, 'get_mandate'), 'rate_limited');
    assert.deepEqual([limited.action, limited.data.status, limited.data.retryable, limited.data['retry_after_seconds']], ['retry-as-is', 429, true, 50]);
    clock.advance(60_000);
    const usage = ok<{ calls: number; by_tool: Record<string, number>; rate_limit: { limit: number; used: number } }>(await callTool(c, 'get_usage', { window: '1h' }));
    assert.deepEqual([usage.calls, usage.by_tool, usage.rate_limit.used], [3, { get_mandate: 1, get_usage: 2 }, 1]);

    // A refused call is not counted: three so far today.
    await setCallLimits(runtime.store, id, { rate: null, quota: { count: 3, per: 'day' } });
    const seq = runtime.store.seq;
    const quota = problem(await callTool(c, 'get_mandate'), 'quota_exceeded');
    assert.deepEqual([quota.action, quota.data.status, quota.data.retryable, quota.data['resets_at']], ['escalate-to-human', 429, false, '2026-11-30T00:00:00.000Z']);
    assert.deepEqual(await typesAfter(runtime, seq), ['tool.denied'], 'the refusal is on the record; nothing is counted');
    clock.ms = Date.parse('2026-11-30T00:00:01Z');
    ok(await callTool(c, 'get_mandate'));
  }
}

describe('identities: disclose, verify, resolve', () => {
  type Signed = { disclosure: Record<string, unknown> & { mandate: string; expires_at: string; public_key: string }; signature: { alg: string; public_key: string; value: string } };
  type Decision = { decision: string; reasons: string[]; signals: { signature_valid: boolean; own_installation: boolean } };

  test('disclose signs who this agent is and what its mandate allows; verify allows it as it is', async () => {
    const d = ok<Signed>(await callTool(payer, 'disclose', { expires_in_seconds: 600 }));
    assert.equal(d.disclosure.mandate, PAYER);
    assert.equal(d.disclosure.expires_at, '2026-11-29T10:10:00.000Z');
    assert.ok(verifySignature(d.signature.public_key, canonicalize(d.disclosure), d.signature.value));
    const verified = await callTool(payer, 'verify', { ...d, policy: { require_capabilities: ['pay'] } });
    const v = ok<Decision & { subject: { who: { slug: string }; mandate: string } }>(verified);
    assert.deepEqual([v.decision, v.reasons, v.signals.own_installation], ['allow', [], true]);
    // A valid signature says who signed, not that what they wrote is safe to follow: the claims are named as the counterparty's.
    assert.deepEqual([v.subject.who.slug, v.subject.mandate], ['payer', PAYER]);
    assert.deepEqual(verified._meta?.['holon/foreign'], [{ path: '/subject/who', from: 'counterparty' }, { path: '/subject/mandate', from: 'counterparty' }]);
    assert.equal(d.disclosure.mandate, PAYER, 'the disclosure itself is signed, and stays as it was signed');
  });

  test('one byte changed, in the body or the signature, fails verification; so do expiry and the policy', async () => {
    const d = ok<Signed>(await callTool(payer, 'disclose'));
    const flip = (s: string): string => s.slice(0, 10) + (s[10] === 'A' ? 'B' : 'A') + s.slice(11);
    const cases: Signed[] = [
      { ...d, disclosure: { ...d.disclosure, mandate: 'demo/payes' } },
      { ...d, disclosure: { ...d.disclosure, limits: { ...(d.disclosure['limits'] as object), total: '9.00' } } },
      { ...d, signature: { ...d.signature, value: flip(d.signature.value) } },
    ];
    for (const c of cases) {
      const v = ok<Decision>(await callTool(payer, 'verify', c));
      assert.equal(v.decision, 'deny');
      assert.equal(v.signals.signature_valid, false);
      assert.match(v.reasons.join(), /signature does not verify/);
    }
    const untrusted = ok<Decision>(await callTool(payer, 'verify', { ...d, policy: { trusted_keys: ['AAAA'], require_capabilities: ['market.call'] } }));
    assert.equal(untrusted.decision, 'deny');
    assert.equal(untrusted.reasons.length, 2);
    clock.advance(3601_000);
    try {
      assert.match(ok<Decision>(await callTool(payer, 'verify', d)).reasons.join(), /expired/);
    } finally {
      clock.advance(-3601_000);
    }
    const junk = ok<Decision>(await callTool(payer, 'verify', { disclosure: { hello: 'world' }, signature: {} }));
    assert.equal(junk.decision, 'deny');
  });

  type Identity = { id: string; kind: string; name: string | null; rails: string[]; trust: Record<string, unknown>; interfaces: { url: string }[] };

  test('resolve: a Holon account, a CAIP-10 account, an inline card, a card fetched from its well-known address, a disclosure', async () => {
    const acct = ok<Identity>(await callTool(payer, 'resolve', { reference: 'acct:demo2' }));
    assert.deepEqual([acct.kind, acct.rails, acct.trust['known_account']], ['holon_account', ['journal'], true]);
    const chain = ok<Identity>(await callTool(payer, 'resolve', { reference: 'eip155:8453:0x1111111111111111111111111111111111111111' }));
    assert.deepEqual([chain.kind, chain.rails, chain.trust['ownership_proven']], ['chain_account', ['x402'], false]);
    const inline = ok<Identity>(await callTool(payer, 'resolve', { reference: CARD }));
    // What a card says is the counterparty's: as claimed, named as the host's it was fetched from where it was.
    assert.deepEqual([inline.kind, inline.name, inline.rails, inline.trust['fetched_from']], ['a2a_agent', 'Invoice Reader', ['x402'], null]);
    const got = await callTool(payer, 'resolve', { reference: AGENT_URL });
    const fetched = ok<Identity>(got);
    assert.deepEqual(
      [fetched.id, fetched.name, fetched.trust['fetched_from'], fetched.trust['interfaces_on_card_origin'], fetched.trust['card_version']],
      ['https://agent.example/a2a', 'Invoice Reader', 'https://agent.example/.well-known/agent-card.json', true, '1.0'],
    );
    const named = (got._meta?.['holon/foreign'] ?? []) as { path: string; from: string }[];
    for (const p of ['/id', '/name', '/interfaces']) assert.ok(named.some((f) => f.path === p && f.from === 'agent.example'), `${p}: ${JSON.stringify(named)}`);
    const d = ok<Signed>(await callTool(payer, 'disclose'));
    const who = ok<Identity>(await callTool(payer, 'resolve', { reference: d }));
    assert.deepEqual([who.kind, who.rails, who.trust['own_installation'], who.trust['account']], ['disclosure', ['journal'], true, 'acct:demo']);
  });

  test('resolve refuses what it cannot read, appending nothing but the refusal; a missing card is not_found', async () => {
    for (const reference of ['not a reference', { hello: 'world' }, 'ftp://agent.example/']) {
      const seq = runtime.store.seq;
      problem(await callTool(payer, 'resolve', { reference }), 'validation');
      await assertRefusalsOnly(runtime, seq, ['call_failed']);
    }
    problem(await callTool(payer, 'resolve', { reference: 'https://missing.example/' }), 'not_found');
  });
});
