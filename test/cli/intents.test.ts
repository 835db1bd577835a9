/**
 * `holon intents`, `holon audit` and `holon limits` as a user types them, against intents an agent made
 * through the built `holon mcp`: a parked one found in the list and released with `holon approve` at a
 * real terminal, the audit trail that links, and the limits the human sets reaching the running server.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { systemClock } from '../../src/core/kernel/deps.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { fund } from '../../src/core/money/spend.ts';
import type { McpSession } from './cliHarness.ts';
import { approveAtTerminal, ensureBuilt, holonIn, ledgerBytes, json, mcpSession, ok, openLedger, seededState, structured } from './cliHarness.ts';

const PAYER = 'demo/payer';
type Row = { intent: string; mandate: string; idempotency_key: string; status: string; pending: { approval: string; challenge: string } | null };

let state: { dir: string; cleanup: () => void };
let session: McpSession;

before(async () => {
  await ensureBuilt();
  state = await seededState();
  const store = await openLedger(state.dir);
  try {
    await fund(store, 'demo2', '1');
    await createMandate(store, systemClock, PAYER, {
      toolsets: ['money', 'records'],
      approval_threshold: '0.50',
      budget: { total: '5.00', per_day: '4.00', per_call: '3.50' },
      capabilities: [{ name: 'pay', params: { payees: ['acct:demo2'] } }],
    });
  } finally {
    store.close();
  }
  session = await mcpSession(state.dir, PAYER);
});

after(async () => {
  await session?.close();
  state?.cleanup();
});

const pay = (amount: string, key: string) =>
  session.client.callTool({ name: 'pay', arguments: { intent: { payee: 'acct:demo2', amount, currency: 'EUR', purpose: `test ${key}`, idempotency_key: key } } });

test('holon --help lists intents, audit and limits, and each explains itself', async () => {
  const help = await ok(state.dir, ['--help']);
  for (const c of ['intents', 'audit', 'limits']) {
    assert.match(help, new RegExp(`^ {2}${c} +\\S`, 'm'));
    assert.match(await ok(state.dir, [c, '--help']), new RegExp(`^holon ${c}\\b[^]*\\nOptions:\\n`));
  }
});

test('holon intents lists what the agent did; a parked intent says how to release it, and holon approve settles it', async () => {
  assert.equal(structured<{ intent: { status: string } }>(await pay('0.20', 'cli-1')).intent.status, 'settled');
  const parked = structured<{ code: string; data: { approval: string; challenge: string } }>(await pay('1.00', 'cli-2'));
  assert.equal(parked.code, 'approval.pending');

  const rows = await json<Row[]>(state.dir, ['intents']);
  assert.deepEqual(rows.map((r) => [r.idempotency_key, r.status]), [['cli-2', 'pending'], ['cli-1', 'settled']]);
  const text = await ok(state.dir, ['intents', '--status', 'pending']);
  assert.match(text, new RegExp(`cli-2 pending .*1\\.00 EUR → acct:demo2`));
  assert.match(text, new RegExp(`holon approve ${parked.data.approval}`));
  assert.deepEqual((await json<Row[]>(state.dir, ['intents', '--status', 'pending', '--mandate', PAYER]))[0]?.pending?.challenge, parked.data.challenge);

  const approved = await approveAtTerminal(state.dir, parked.data.approval, 'y');
  assert.equal(approved.code, 0, approved.output);
  assert.match(approved.output, /Release payment/);
  assert.deepEqual((await json<Row[]>(state.dir, ['intents', '--status', 'settled'])).map((r) => r.idempotency_key), ['cli-2', 'cli-1']);
  const replay = structured<{ replayed: boolean; receipt: { approval: string } }>(await pay('1.00', 'cli-2'));
  assert.deepEqual([replay.replayed, replay.receipt.approval], [true, parked.data.approval]);
});

test('holon audit shows every intent event and checks that they link', async () => {
  const audit = await json<{ entries: { idempotency_key: string; type: string }[]; chains_ok: boolean }>(state.dir, ['audit', '--mandate', PAYER]);
  assert.equal(audit.chains_ok, true);
  assert.deepEqual(
    audit.entries.map((e) => `${e.idempotency_key} ${e.type}`),
    ['cli-1 intent.submitted', 'cli-1 intent.authorized', 'cli-1 intent.settled', 'cli-2 intent.submitted', 'cli-2 intent.parked', 'cli-2 intent.settled'],
  );
  assert.match(await ok(state.dir, ['audit']), /Every intent's events link\./);
});

test('holon limits: bad flags change nothing; a rate limit the human sets reaches the running server', async () => {
  const before = await ledgerBytes(state.dir);
  for (const bad of [['--rate', 'fast'], ['--quota', '0/day'], ['--rate', '5/hour']]) {
    const r = await holonIn(state.dir, ['limits', PAYER, ...bad]);
    assert.equal(r.code, 2, r.stderr);
  }
  assert.equal((await holonIn(state.dir, ['limits', 'demo/nobody', '--rate', '5/min'])).code, 1);
  assert.deepEqual((await ledgerBytes(state.dir)), before);

  assert.deepEqual(await json(state.dir, ['limits', PAYER, '--rate', '1/min', '--quota', '1000/day']), { mandate: PAYER, rate: { count: 1, per: 'minute' }, quota: { count: 1000, per: 'day' } });
  assert.match(await ok(state.dir, ['limits', PAYER]), /rate 1\/min, quota 1000\/day/);
  // The server reads the human's limits from the journal: one call a minute goes through, so the next
  // one is refused, unless a minute began between them. Ten calls could only each fall in a minute of
  // their own over nine minutes or more, on any machine; without the limit all ten would go through.
  const codes: (string | undefined)[] = [];
  while (codes.length < 10 && !codes.includes('rate_limited')) codes.push(structured<{ code?: string }>(await session.client.callTool({ name: 'get_usage', arguments: {} })).code);
  assert.ok(codes.includes('rate_limited'), JSON.stringify(codes));
  await ok(state.dir, ['limits', PAYER, '--rate', 'none']);
});
