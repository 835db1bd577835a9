/**
 * Every `holon` command's happy path, as a user types it: text and `--json` (parsed), `--help`, and
 * where the state folder comes from.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import {
  approveAtTerminal,
  EXAMPLES,
  ensureBuilt,
  HANG_MS,
  holon,
  INVOICE_FILES,
  json,
  lastJson,
  mcpSession,
  ok,
  openLedger,
  pool,
  requestApproval,
  SEED_COMMANDS,
  seededState,
  stateMade,
  structured,
  tempDir,
  units,
} from './cliHarness.ts';
import { systemClock } from '../../src/core/kernel/deps.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';

type MoneyJson = { amount: string; currency: string };

before(ensureBuilt);

describe('holon commands', { concurrency: 3 }, () => {
  describe('setting up from nothing', { concurrency: true }, () => {
    test('fund, fx, mandate create and agents add build a state; --json answers parse', async () => {
      const { dir: root, cleanup } = tempDir('holon-cli-');
      const state = path.join(root, 'state');
      try {
        const funded = await json<{ account: string; funded: MoneyJson; total_funded: MoneyJson }>(state, ['fund', 'demo', '5']);
        assert.deepEqual(funded, { account: 'demo', funded: { amount: '5.00', currency: 'EUR' }, total_funded: { amount: '5.00', currency: 'EUR' } });
        assert.ok(stateMade(state), 'the first fund creates the state');
        assert.equal((await ok(state, ['fund', 'demo', '2.5'])).trim(), 'Funded demo with 2.50 EUR (total funded 7.50 EUR).');
        const usd = await json<{ total_funded: MoneyJson }>(state, ['fund', 'demo', '1.000001', '--currency', 'USD']);
        assert.deepEqual(usd.total_funded, { amount: '1.000001', currency: 'USD' });

        assert.deepEqual(await json(state, ['fx', 'USD', 'EUR', '0.92']), { from: 'USD', to: 'EUR', rate: '0.92' });
        assert.equal((await ok(state, ['fx'])).trim(), '1 USD = 0.92 EUR');
        assert.deepEqual(await json(state, ['fx']), [{ pair: 'USD/EUR', rate: '0.92' }]);
        assert.equal((await ok(state, ['fx', 'USD', 'EUR', '0.93'])).trim(), '1 USD = 0.93 EUR', 'a rate can be changed');
        assert.deepEqual(await json(state, ['fx']), [{ pair: 'USD/EUR', rate: '0.93' }]);

        const seedMandate = SEED_COMMANDS[2] ?? [];
        const m = await json<Record<string, unknown>>(state, seedMandate);
        assert.equal(m['id'], 'demo/sandbox');
        assert.equal(m['status'], 'active');
        assert.equal(m['currency'], 'EUR');
        assert.deepEqual(m['budget'], { total: '5', per_day: '4', per_call: '3.50' });
        assert.equal(m['approval_threshold'], '0.50');
        assert.deepEqual(m['capabilities'], [{ name: 'market.call', params: { capabilities: ['extraction.*', 'pipeline.*'] } }]);
        assert.deepEqual(m['data'], { regions: ['EU'], retention_days: 30, training: false });

        const added = await json<{ agent: string; version: string }[]>(state, ['agents', 'add', path.join(EXAMPLES, 'catalog.json')]);
        assert.deepEqual(
          added.map((a) => a.agent).sort(),
          ['acme/table-extract', 'fastcheap/table-extract-us', 'holon-labs/invoice-pipeline', 'lena/table-extract-fr', 'quickscan/totals'],
        );
        const text = await ok(state, ['agents', 'add', path.join(EXAMPLES, 'catalog.json')]);
        assert.ok(text.includes('acme/table-extract 1.4.0'), 'adding the same catalog again is allowed: it replaces the entries');

        const budget = await json<{ mandate: string; total: MoneyJson; remaining: MoneyJson; account: { funded: MoneyJson } }[]>(state, ['budget']);
        assert.equal(budget.length, 1);
        assert.equal(budget[0]?.mandate, 'demo/sandbox');
        assert.deepEqual(budget[0]?.remaining, { amount: '5.00', currency: 'EUR' });
        assert.deepEqual(budget[0]?.account.funded, { amount: '7.50', currency: 'EUR' });
        assert.equal((await json<{ ok: boolean }>(state, ['verify'])).ok, true);
      } finally {
        cleanup();
      }
    });

    test('the state folder is --state, else $HOLON_STATE, else ./.holon', async () => {
      const { dir: root, cleanup } = tempDir('holon-cli-');
      try {
        const fromEnv = path.join(root, 'from-env');
        const r1 = await holon(['fund', 'demo', '3'], { env: { HOLON_STATE: fromEnv } });
        assert.equal(r1.code, 0, r1.stderr);
        assert.ok(stateMade(fromEnv));
        const r2 = await holon(['fx', 'USD', 'EUR', '0.9'], { cwd: root });
        assert.equal(r2.code, 0, r2.stderr);
        assert.ok(stateMade(path.join(root, '.holon')), 'default ./.holon under the current folder');
        const r3 = await holon(['fx', '--json'], { env: { HOLON_STATE: fromEnv }, cwd: root });
        assert.deepEqual(JSON.parse(r3.stdout), [], '$HOLON_STATE wins over ./.holon');
        const r4 = await holon(['fx', '--json', '--state', path.join(root, '.holon')], { env: { HOLON_STATE: fromEnv } });
        assert.deepEqual(JSON.parse(r4.stdout), [{ pair: 'USD/EUR', rate: '0.90' }], '--state wins over $HOLON_STATE');
      } finally {
        cleanup();
      }
    });
  });

  describe('mandates', { concurrency: true }, () => {
    test('mandate list, show, create and edit', async () => {
      const { dir: state, cleanup } = await seededState();
      try {
        assert.ok((await ok(state, ['mandate', 'list'])).startsWith('demo/sandbox (active)'));
        const listed = await json<{ id: string }[]>(state, ['mandate', 'list']);
        assert.deepEqual(listed.map((m) => m.id), ['demo/sandbox']);

        const shown = await ok(state, ['mandate', 'show', 'demo/sandbox']);
        for (const fact of ['5.00 EUR', '4.00 EUR', '3.50 EUR', '0.50 EUR', 'EU', '30']) assert.ok(shown.includes(fact), fact);
        const show = await json<{ id: string; budget_view: { remaining: MoneyJson; threshold: MoneyJson } }>(state, ['mandate', 'show', 'demo/sandbox']);
        assert.equal(show.id, 'demo/sandbox');
        assert.deepEqual(show.budget_view.remaining, { amount: '5.00', currency: 'EUR' });
        assert.deepEqual(show.budget_view.threshold, { amount: '0.50', currency: 'EUR' });

        const created = await json<Record<string, unknown>>(state, ['mandate', 'create', 'demo/second', '--total', '1', '--threshold', '0.10', '--grantee', 'Build bot', '--toolsets', 'market']);
        assert.deepEqual(created['budget'], { total: '1', per_day: null, per_call: null });
        assert.equal((created['grantee'] as { name: string }).name, 'Build bot');
        assert.deepEqual(created['capabilities'], [{ name: 'market.call', params: { capabilities: ['*'] } }], 'default scope');
        assert.deepEqual(created['data'], { regions: null, retention_days: null, training: false }, 'training is forbidden by default');

        const edited = await json<Record<string, unknown>>(state, [
          'mandate', 'edit', 'demo/second', '--threshold', '0.20', '--per-call', '0.50', '--status', 'suspended', '--expires', '2030-01-01T00:00:00Z', '--regions', 'EU,CH',
        ]);
        assert.deepEqual(edited['budget'], { total: '1', per_day: null, per_call: '0.50' }, 'fields not given stay');
        assert.equal(edited['approval_threshold'], '0.20');
        assert.equal(edited['status'], 'suspended');
        assert.equal(edited['expires_at'], '2030-01-01T00:00:00Z');
        assert.deepEqual((edited['data'] as { regions: string[] }).regions, ['EU', 'CH']);
        const text = await ok(state, ['mandate', 'show', 'demo/second']);
        for (const fact of ['demo/second (suspended)', 'Build bot', '2030-01-01T00:00:00Z']) assert.ok(text.includes(fact), fact);
        assert.equal((await json<{ status: string }>(state, ['mandate', 'edit', 'demo/second', '--status', 'active'])).status, 'active');
        assert.deepEqual((await json<{ id: string }[]>(state, ['mandate', 'list'])).map((m) => m.id).sort(), ['demo/sandbox', 'demo/second']);
      } finally {
        cleanup();
      }
    });
  });

  describe('mandate edit is a patch', { concurrency: true }, () => {
    test('editing the total keeps the other grants and the grantee\'s role and manager', async () => {
      const { dir: state, cleanup } = await seededState();
      try {
        // A personnel file richer than the flags can write (as a merged HR proposal leaves it).
        const store = await openLedger(state);
        try {
          await createMandate(store, systemClock, 'demo/ada', {
            grantee: { name: 'Ada', role: 'release engineer', manager: 'human:lead@example.com' },
            capabilities: [{ name: 'market.call', params: { capabilities: ['extraction.*'] } }, { name: 'hr.propose' }, { name: 'mail.send', params: { to: ['bob'] } }],
          });
        } finally {
          store.close();
        }
        type M = { budget: { total: string }; grantee: Record<string, unknown>; capabilities: { name: string; params?: unknown }[] };
        const total = await json<M>(state, ['mandate', 'edit', 'demo/ada', '--total', '9']);
        assert.equal(total.budget.total, '9');
        assert.deepEqual(total.capabilities.map((c) => c.name), ['market.call', 'hr.propose', 'mail.send']);
        assert.deepEqual(total.grantee, { slug: 'ada', name: 'Ada', role: 'release engineer', manager: 'human:lead@example.com' });
        const scoped = await json<M>(state, ['mandate', 'edit', 'demo/ada', '--capabilities', 'pipeline.*', '--grantee', 'Ada L.']);
        assert.deepEqual(scoped.capabilities, [{ name: 'market.call', params: { capabilities: ['pipeline.*'] } }, { name: 'hr.propose' }, { name: 'mail.send', params: { to: ['bob'] } }]);
        assert.deepEqual(scoped.grantee, { slug: 'ada', name: 'Ada L.', role: 'release engineer', manager: 'human:lead@example.com' });
        const none = await holon(['mandate', 'edit', 'demo/ada', '--state', state]);
        assert.equal(none.code, 2, 'an edit that names nothing is refused');
      } finally {
        cleanup();
      }
    });

    test('--grant adds or replaces office grants by name (names, or personnel.yaml JSON), --revoke takes them away; bad ones change nothing', async () => {
      const { dir: state, cleanup } = await seededState();
      try {
        type M = { toolsets: string[]; grantee: Record<string, unknown>; capabilities: { name: string; params?: unknown }[] };
        const made = await json<M>(state, ['mandate', 'create', 'demo/cleo', '--toolsets', 'office', '--grant', 'mail.read,office.read', '--department', 'Docs']);
        assert.deepEqual(made.capabilities, [{ name: 'mail.read' }, { name: 'office.read' }]);
        assert.equal(made.grantee['department'], 'Docs');
        const edited = await json<M>(state, ['mandate', 'edit', 'demo/cleo', '--grant', '{"mail.send": {"to": ["lead"]}, "forge.write": ["site"]}', '--revoke', 'office.read']);
        assert.deepEqual(edited.capabilities, [{ name: 'mail.read' }, { name: 'mail.send', params: { to: ['lead'] } }, { name: 'forge.write', params: { repos: ['site'] } }]);
        for (const bad of [['--grant', '{not json'], ['--grant', 'Not A Name'], ['--grant', '']]) {
          const r = await holon(['mandate', 'edit', 'demo/cleo', ...bad, '--state', state]);
          assert.equal(r.code, 2, bad.join(' '));
        }
        assert.deepEqual((await json<M>(state, ['mandate', 'show', 'demo/cleo'])).capabilities, edited.capabilities, 'nothing changed');
      } finally {
        cleanup();
      }
    });
    test('--terms required makes the pay grant pay only on terms, keeping its payees; optional undoes it; never a pay grant from nothing', async () => {
      const { dir: state, cleanup } = await seededState();
      try {
        type M = { capabilities: { name: string; params?: unknown }[] };
        const payee = 'eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
        const pay = (m: M): unknown => m.capabilities.find((c) => c.name === 'pay')?.params;
        const made = await json<M>(state, ['mandate', 'create', 'demo/strict', '--payees', payee, '--terms', 'required']);
        assert.deepEqual(pay(made), { payees: [payee], require_terms: true });
        assert.deepEqual(pay(await json<M>(state, ['mandate', 'edit', 'demo/strict', '--terms', 'optional'])), { payees: [payee] });
        assert.deepEqual(pay(await json<M>(state, ['mandate', 'edit', 'demo/strict', '--terms', 'required'])), { payees: [payee], require_terms: true });
        const before = await json<M>(state, ['mandate', 'show', 'demo/strict']);
        for (const bad of [
          ['mandate', 'edit', 'demo/strict', '--terms', 'sometimes'],
          ['mandate', 'edit', 'demo/sandbox', '--terms', 'required'],
          ['mandate', 'create', 'demo/loose', '--terms', 'required'],
        ]) {
          const r = await holon([...bad, '--state', state]);
          assert.equal(r.code, 2, bad.join(' '));
        }
        assert.deepEqual(await json<M>(state, ['mandate', 'show', 'demo/strict']), before, 'nothing changed');
        assert.equal((await holon(['mandate', 'show', 'demo/loose', '--state', state])).code !== 0, true, 'no mandate made');
      } finally {
        cleanup();
      }
    });
  });

  describe('agents', { concurrency: true }, () => {
    test('agents list and search, with --capability and --mandate', async () => {
      const { dir: state, cleanup } = await seededState();
      try {
        await ok(state, ['mandate', 'create', 'demo/wide', '--capabilities', '*', '--training', 'yes']);
        type Search = { mandate: string; agents: { agent: string; version: string; decision: string; worst_case: MoneyJson | null; ranking: unknown }[]; excluded: { agent: string; reasons: string[]; denials: { code: string }[] }[]; total: { agents: number; excluded: number } };

        const list = await json<Search>(state, ['agents', 'list', '--mandate', 'demo/sandbox']);
        assert.equal(list.mandate, 'demo/sandbox');
        assert.deepEqual(list.agents.map((a) => a.agent).sort(), ['acme/table-extract', 'holon-labs/invoice-pipeline', 'lena/table-extract-fr', 'quickscan/totals']);
        assert.deepEqual(list.excluded.map((a) => a.agent), ['fastcheap/table-extract-us']);
        assert.deepEqual(list.excluded[0]?.denials.map((d) => d.code), ['data_regions', 'data_training']);
        assert.deepEqual(list.total, { agents: 4, excluded: 1 });
        assert.ok((await ok(state, ['agents', 'list', '--mandate', 'demo/sandbox'])).split('\n').some((l) => l.startsWith('fastcheap/table-extract-us: ')));

        const tables = await json<Search>(state, ['agents', 'search', '--capability', 'extraction.table', '--mandate', 'demo/sandbox']);
        assert.deepEqual(tables.agents.map((a) => a.agent), ['acme/table-extract', 'lena/table-extract-fr'], 'ranked by expected cost per success');
        assert.deepEqual(tables.excluded.map((a) => a.agent), ['fastcheap/table-extract-us']);
        const wide = await json<Search>(state, ['agents', 'search', '--capability', 'extraction.table', '--mandate', 'demo/wide']);
        assert.deepEqual(wide.agents.map((a) => a.agent), ['fastcheap/table-extract-us', 'acme/table-extract', 'lena/table-extract-fr'], 'another mandate decides otherwise');
        assert.deepEqual(wide.excluded, []);

        const pipelines = await json<Search>(state, ['agents', 'search', '--capability', 'pipeline.*', '--mandate', 'demo/sandbox']);
        assert.deepEqual(pipelines.agents, [
          { agent: 'holon-labs/invoice-pipeline', version: '2.1.0', worst_case: { amount: '3.10', currency: 'EUR' }, decision: 'approval_required', ranking: pipelines.agents[0]?.ranking },
        ]);
        const text = await ok(state, ['agents', 'search', '--capability', 'pipeline.*', '--mandate', 'demo/sandbox']);
        const row = text.split('\n').find((l) => l.startsWith('holon-labs/invoice-pipeline'));
        for (const fact of ['2.1.0', '3.10 EUR', 'approval_required']) assert.ok(row?.includes(fact), fact);

        const byQuery = await json<Search>(state, ['agents', 'search', 'lena', '--mandate', 'demo/sandbox']);
        assert.deepEqual(byQuery.agents.map((a) => a.agent), ['lena/table-extract-fr']);
        const usd = await json<Search>(state, ['agents', 'search', '--capability', 'extraction.totals', '--mandate', 'demo/sandbox']);
        assert.deepEqual(usd.agents[0]?.worst_case, { amount: '0.0092', currency: 'EUR' }, 'a USD price converted with the rate set');
      } finally {
        cleanup();
      }
    });

    test('without a mandate, agents list shows the catalog itself', async () => {
      const { dir: root, cleanup } = tempDir('holon-cli-');
      const state = path.join(root, 'state');
      try {
        await ok(state, ['agents', 'add', path.join(EXAMPLES, 'catalog.json')]);
        const all = await json<{ id: string; price: { per_call: string } }[]>(state, ['agents', 'list']);
        assert.equal(all.length, 5);
        const totals = await json<{ id: string }[]>(state, ['agents', 'search', '--capability', 'extraction.*']);
        assert.deepEqual(totals.map((a) => a.id).sort(), ['acme/table-extract', 'fastcheap/table-extract-us', 'lena/table-extract-fr', 'quickscan/totals']);
        assert.match(await ok(state, ['agents', 'list']), /^quickscan\/totals 0\.3\.0 extraction\.totals 0\.01 USD$/m);
      } finally {
        cleanup();
      }
    });
  });

  describe('approvals, reject, approve, receipts and budget', { concurrency: true }, () => {
    test('a small call and two approvals: list, reject one, approve one, read the receipts and the budget', { timeout: HANG_MS }, async () => {
      const { dir: state, cleanup } = await seededState();
      const session = await mcpSession(state, 'demo/sandbox', ['--approval-wait', '0', '--no-elicitation']);
      try {
        const small = structured<{ status: string; receipt: string; cost: MoneyJson }>(
          await session.client.callTool({ name: 'call_agent', arguments: { capability: 'extraction.table', input: { file: 'holon://files/examples/facture.pdf' } } }),
        );
        assert.equal(small.status, 'succeeded');
        const keep = await requestApproval(session);
        const drop = await requestApproval(session);
        await session.close();

        assert.equal(await ok(state, ['approvals']).then((t) => t.split('\n').filter((l) => l.includes(' pending ')).length), 2);
        const pending = await json<{ id: string; status: string; kind: string; subject: { agent: string } }[]>(state, ['approvals']);
        assert.deepEqual(pending.map((a) => a.id).sort(), [keep, drop].sort());
        assert.ok(pending.every((a) => a.status === 'pending' && a.kind === 'agent_call' && a.subject.agent === 'holon-labs/invoice-pipeline'));

        assert.deepEqual(await json(state, ['reject', drop]), { approval: drop, status: 'rejected' });
        assert.deepEqual((await json<{ id: string }[]>(state, ['approvals'])).map((a) => a.id), [keep]);
        const all = await json<{ id: string; status: string; channel?: string }[]>(state, ['approvals', '--all']);
        assert.deepEqual(all.find((a) => a.id === drop), { ...all.find((a) => a.id === drop), status: 'rejected', channel: 'cli' });

        // Approve at a terminal; nobody waits any more, so the agent re-submits the call with the approval.
        const approved = await approveAtTerminal(state, keep, 'y', ['--json']);
        assert.equal(approved.code, 0, approved.output);
        assert.deepEqual(lastJson(approved.output), { approval: keep, status: 'approved', waiting_server: false });
        const agent = await mcpSession(state, 'demo/sandbox', ['--approval-wait', '0', '--no-elicitation']);
        try {
          const again = structured<{ status: string; delegated_calls: number }>(
            await agent.client.callTool({ name: 'call_agent', arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICE_FILES }, approval: keep } }),
          );
          assert.deepEqual([again.status, again.delegated_calls], ['succeeded', 4]);
        } finally {
          await agent.close();
        }
        assert.equal((await json<{ id: string; status: string }[]>(state, ['approvals', '--all'])).find((a) => a.id === keep)?.status, 'used');
        assert.deepEqual(await json(state, ['approvals']), []);

        type Tree = { receipt: string; status: string; agent: string; approval: string | null; total_cost: MoneyJson; children: Tree[] };
        const roots = await json<Tree[]>(state, ['receipts']);
        const big = roots.find((r) => r.approval === keep && r.status === 'succeeded');
        assert.ok(big, JSON.stringify(roots.map((r) => [r.status, r.approval])));
        assert.equal(big.children.length, 4);
        assert.ok(roots.some((r) => r.receipt === small.receipt && r.status === 'succeeded'));
        assert.ok(roots.some((r) => r.approval === drop && r.status === 'rejected'), 'a rejected call keeps its receipt');
        assert.equal((await json<Tree[]>(state, ['receipts', '--limit', '1'])).length, 1);
        assert.equal((await json<Tree[]>(state, ['receipts', '--mandate', 'demo/sandbox'])).length, roots.length);

        const one = await json<Tree>(state, ['receipts', big.receipt]);
        assert.equal(one.receipt, big.receipt);
        assert.equal(one.children.length, 4);
        assert.ok(one.children.every((c) => c.status === 'succeeded' && c.children.length === 0));
        // In text: the total, then the call and its 4 delegated calls, one line each, indented under it.
        const tree = await ok(state, ['receipts', big.receipt]);
        const lines = tree.trimEnd().split('\n');
        assert.ok(lines[0]?.includes(`${one.total_cost.amount} EUR`), lines[0]);
        assert.ok(lines[1]?.startsWith(`${big.receipt} holon-labs/invoice-pipeline 2.1.0 succeeded `), lines[1]);
        assert.equal(lines.filter((l) => /^ {2}└─ rcpt_\S+ acme\/table-extract 1\.4\.0 succeeded /.test(l)).length, 4, tree);
        assert.ok((await ok(state, ['receipts', small.receipt])).includes(`${small.cost.amount} EUR`));

        const [b] = await json<{ mandate: string; spent: MoneyJson; held: MoneyJson; remaining: MoneyJson }[]>(state, ['budget', 'demo/sandbox']);
        const spent = units(small.cost.amount) + units(one.total_cost.amount);
        assert.equal(units(b?.spent.amount ?? ''), spent, 'spent is exactly what the receipts cost');
        assert.equal(units(b?.held.amount ?? ''), 0n);
        assert.equal(units(b?.remaining.amount ?? ''), 5_000_000n - spent);
        assert.ok((await ok(state, ['budget'])).startsWith('demo/sandbox (active)'));
        assert.equal((await json<{ ok: boolean }>(state, ['verify'])).ok, true);
      } finally {
        await session.close();
        cleanup();
      }
    });
  });

  describe('--json and --help', { concurrency: true }, () => {
    test('--json on every read prints JSON', async () => {
      const { dir: state, cleanup } = await seededState();
      try {
        const reads = [
          ['mandate', 'list'],
          ['mandate', 'show', 'demo/sandbox'],
          ['agents', 'list'],
          ['agents', 'search'],
          ['agents', 'search', 'table', '--capability', 'extraction.*', '--mandate', 'demo/sandbox'],
          ['approvals'],
          ['approvals', '--all'],
          ['receipts'],
          ['budget'],
          ['budget', 'demo/sandbox'],
          ['fx'],
          ['verify'],
        ];
        await pool(reads, 3, async (args) => {
          const parsed = await json(state, args);
          assert.ok(parsed !== null && typeof parsed === 'object', `holon ${args.join(' ')} --json`);
        });
        const v = await json<{ ok: boolean; events: number }>(state, ['verify']);
        assert.equal(v.ok, true);
      } finally {
        cleanup();
      }
    });

    const COMMANDS = ['fund', 'mandate', 'agents', 'approvals', 'approve', 'reject', 'windows', 'receipts', 'budget', 'holds', 'fx', 'wallet', 'keys', 'verify', 'mcp', 'serve', 'token', 'demo', 'intents', 'audit', 'limits', 'memory', 'store', 'migrate', 'team', 'passkey'];

    test('holon --help lists every command; holon COMMAND --help shows its usage and options', async () => {
      const { dir: root, cleanup } = tempDir('holon-cli-');
      try {
        for (const flag of ['--help', '-h', 'help']) {
          const r = await holon([flag]);
          assert.equal(r.code, 0, flag);
          assert.equal(r.stderr, '');
          for (const c of COMMANDS) assert.match(r.stdout, new RegExp(`^ {2}${c} +\\S`, 'm'), `${flag} lists ${c}`);
        }
        const v = await holon(['--version']);
        assert.equal(v.code, 0);
        assert.match(v.stdout, /^\d+\.\d+\.\d+\n$/);

        const state = path.join(root, 'state');
        await pool(COMMANDS, 3, async (c) => {
          const r = await holon([c, '--help', '--state', state]);
          assert.equal(r.code, 0, `${c} --help: ${r.stderr}`);
          assert.equal(r.stderr, '');
          assert.match(r.stdout, new RegExp(`^holon ${c}\\b`), c);
          assert.match(r.stdout, /\nOptions:\n/);
          for (const o of ['--state VALUE', '--json', '--help, -h']) assert.ok(r.stdout.includes(o), `${c} --help mentions ${o}`);
        });
        assert.equal((await holon(['fund', '-h'])).stdout, (await holon(['fund', '--help'])).stdout);
        assert.match((await holon(['mandate', '--help'])).stdout, /--threshold VALUE/);
        assert.match((await holon(['approve', '--help'])).stdout, /--no-run/);
        assert.match((await holon(['mcp', '--help'])).stdout, /--mandate VALUE/);
        assert.equal(fs.existsSync(state), false, '--help writes nothing');
      } finally {
        cleanup();
      }
    });

    test(
      'holon --help gives each command a whole sentence',
      async () => {
        const r = await holon(['--help']);
        const rows = r.stdout.split('\n').filter((l) => /^ {2}[a-z]+ {2,}/.test(l));
        assert.equal(rows.length, COMMANDS.length);
        for (const row of rows) assert.equal((row.match(/\(/g) ?? []).length, (row.match(/\)/g) ?? []).length, `unbalanced: ${row}`);
      },
    );
  });
});
