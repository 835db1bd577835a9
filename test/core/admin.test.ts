import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { addAgent, readCatalog } from '../../src/core/market/catalog.ts';
import { createMandate, patchMandate } from '../../src/core/accounts/mandates.ts';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { fund } from '../../src/core/money/spend.ts';
import { setFx } from '../../src/core/money/fx.ts';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import type { HolonErrorReason } from '../../src/core/kernel/errors.ts';
import { openState } from '../../src/core/holon.ts';
import type { EventStore } from '../../src/core/store/store.ts';
import { JOURNAL_FILE } from '../../src/core/store/file/journal.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { EXAMPLES, tempDir, TestClock } from '../helpers.ts';
import { ENDPOINT, manifest, rejectsWith, stateText } from './fixtures.ts';

const clock = new TestClock();
const cleanups: (() => void)[] = [];
after(() => {
  for (const c of cleanups) c();
});

function fresh(): { dir: string; j: EventStore<HolonState> } {
  const t = tempDir('holon-admin-');
  cleanups.push(t.cleanup);
  const dir = path.join(t.dir, 'state');
  const j = openState(dir, { clock, logger: silentLogger, durable: false, watch: false });
  cleanups.unshift(() => j.close());
  return { dir, j };
}

/** `fn` is refused with `reason`; the journal file (bytes) and the folded state are exactly as before. */
async function refused(dir: string, j: EventStore<HolonState>, fn: () => Promise<unknown>, reason: HolonErrorReason, re?: RegExp): Promise<void> {
  const file = path.join(dir, JOURNAL_FILE);
  const bytes = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
  const seq = j.seq;
  const state = stateText(j.state);
  await rejectsWith(fn, reason, re);
  assert.equal(j.seq, seq);
  assert.equal(stateText(j.state), state);
  assert.deepEqual(fs.existsSync(file) ? fs.readFileSync(file) : undefined, bytes, 'the journal is byte for byte as it was');
}

describe('admin: what only the human does', () => {
  test('a refused first command leaves no trace at all in a new state folder', async () => {
    const { dir, j } = fresh();
    await refused(dir, j, () => fund(j, 'Demo', '5'), 'invalid_input');
    await refused(dir, j, () => createMandate(j, clock, 'demo', {}), 'invalid_input');
    assert.equal(fs.existsSync(dir), false, 'not even the folder');
    await fund(j, 'demo', '5');
    assert.ok(fs.existsSync(path.join(dir, JOURNAL_FILE)));
    assert.equal(fs.existsSync(path.join(dir, 'keys')), true, 'the first transaction is sealed with the installation key, made for it');
  });

  test('fund: account names, amounts and currencies are checked', async () => {
    const { dir, j } = fresh();
    const m = await fund(j, 'demo', '5.5', 'USD');
    assert.deepEqual(m, { units: 5_500_000n, currency: 'USD' });
    assert.equal(j.state.accounts['demo']?.funded['USD'], 5_500_000n);
    for (const [account, amount, cur] of [
      ['Demo', '1', 'EUR'],
      ['', '1', 'EUR'],
      ['../x', '1', 'EUR'],
      ['demo', '0', 'EUR'],
      ['demo', '-1', 'EUR'],
      ['demo', '1e3', 'EUR'],
      ['demo', '0.1234567', 'EUR'],
      ['demo', '', 'EUR'],
      ['demo', '1', 'eur'],
    ] as const) {
      await refused(dir, j, () => fund(j, account, amount, cur), 'invalid_input');
    }
  });

  test('mandates: defaults, bad ids and fields, duplicates, unknown ones', async () => {
    const { dir, j } = fresh();
    const m = await createMandate(j, clock, 'demo/sandbox', {});
    assert.deepEqual(
      { budget: m.budget, threshold: m.approval_threshold, currency: m.currency, toolsets: m.toolsets, capabilities: m.capabilities, data: m.data, status: m.status },
      {
        budget: { total: '5.00', per_day: null, per_call: null },
        threshold: '0.50',
        currency: 'EUR',
        toolsets: ['market'],
        capabilities: [{ name: 'market.call', params: { capabilities: ['*'] } }],
        data: { regions: null, retention_days: null, training: false },
        status: 'active',
      },
    );
    await refused(dir, j, () => createMandate(j, clock, 'demo/sandbox', {}), 'conflict', /already exists/);
    for (const id of ['demo', 'Demo/x', 'demo/x/y', '/x', 'demo/']) await refused(dir, j, () => createMandate(j, clock, id, {}), 'invalid_input');
    for (const input of [
      { budget: { total: '0' } },
      { budget: { total: '1e3' } },
      { budget: { total: 5 } },
      { budget: { per_call: '0' } },
      { approval_threshold: '0.5.0' },
      { currency: 'eur' },
      { toolsets: ['shell'] },
      { toolsets: [] },
      { status: 'deleted' },
      { expires_at: 'tomorrow' },
      { unknown_field: true },
    ]) {
      await refused(dir, j, () => createMandate(j, clock, 'demo/other', input), 'invalid_input');
    }
    await refused(dir, j, () => patchMandate(j, clock, 'demo/nope', {}), 'not_found');
    await refused(dir, j, () => patchMandate(j, clock, 'demo/sandbox', { budget: { total: '0' } }), 'invalid_input');
  });

  test('patchMandate changes only what is given', async () => {
    const { j } = fresh();
    await createMandate(j, clock, 'demo/sandbox', { budget: { total: '9', per_day: '2', per_call: '1' }, data: { regions: ['EU'], retention_days: 3, training: false } });
    clock.advance(1000);
    const m = await patchMandate(j, clock, 'demo/sandbox', { budget: { per_call: '1.5' }, data: { training: true } });
    assert.deepEqual(m.budget, { total: '9', per_day: '2', per_call: '1.5' });
    assert.deepEqual(m.data, { regions: ['EU'], retention_days: 3, training: true });
    assert.notEqual(m.updated_at, m.created_at);
    assert.deepEqual(j.state.mandates['demo/sandbox'], m);
  });

  test('a patch keeps every grant and grantee field it does not name', async () => {
    const { j } = fresh();
    await createMandate(j, clock, 'demo/ada', {
      grantee: { name: 'Ada', role: 'release engineer', manager: 'human:lead@example.com' },
      capabilities: [
        { name: 'market.call', params: { capabilities: ['extraction.*'] } },
        { name: 'hr.propose' },
        { name: 'mail.send', params: { to: ['bob'] } },
      ],
    });
    const total = await patchMandate(j, clock, 'demo/ada', { budget: { total: '9' } });
    assert.deepEqual(total.capabilities.map((c) => c.name), ['market.call', 'hr.propose', 'mail.send']);
    assert.deepEqual(total.grantee, { slug: 'ada', name: 'Ada', role: 'release engineer', manager: 'human:lead@example.com' });
    // Setting the hiring scope replaces that one grant; the others stay, in their place.
    const scope = await patchMandate(j, clock, 'demo/ada', { grants: [{ name: 'market.call', params: { capabilities: ['*'] } }], grantee: { name: 'Ada L.' } });
    assert.deepEqual(scope.capabilities, [
      { name: 'market.call', params: { capabilities: ['*'] } },
      { name: 'hr.propose' },
      { name: 'mail.send', params: { to: ['bob'] } },
    ]);
    assert.deepEqual(scope.grantee, { slug: 'ada', name: 'Ada L.', role: 'release engineer', manager: 'human:lead@example.com' });
    // A new grant is added; a revoked one leaves; the whole list is replaced only when asked.
    const more = await patchMandate(j, clock, 'demo/ada', { grants: [{ name: 'forge.read', params: { repos: ['site'] } }], revoke: ['mail.send'] });
    assert.deepEqual(more.capabilities.map((c) => c.name), ['market.call', 'hr.propose', 'forge.read']);
    const replaced = await patchMandate(j, clock, 'demo/ada', { capabilities: [{ name: 'market.call' }] });
    assert.deepEqual(replaced.capabilities, [{ name: 'market.call' }]);
  });

  test('a patch that is not one is refused and changes nothing', async () => {
    const { dir, j } = fresh();
    await createMandate(j, clock, 'demo/ada', {});
    await refused(dir, j, () => patchMandate(j, clock, 'demo/ada', { budget: { total: '1', extra: '2' } }), 'invalid_input');
    await refused(dir, j, () => patchMandate(j, clock, 'demo/ada', { grantee: { slug: 'eve' } }), 'invalid_input', undefined);
    await refused(dir, j, () => patchMandate(j, clock, 'demo/ada', { grants: [{ name: 'mail.send' }, { name: 'mail.send' }] }), 'invalid_input');
    await refused(dir, j, () => patchMandate(j, clock, 'constructor', { budget: { total: '1' } }), 'not_found');
  });

  test('a mandate that has spent cannot change currency', async () => {
    const { dir, j } = fresh();
    await createMandate(j, clock, 'demo/sandbox', {});
    await j.transact(() => ({
      events: [
        {
          type: 'call.started',
          data: {
            receipt: { id: 'rcpt_1', parent: null, mandate: 'demo/sandbox', agent: null, version: null, capability: null, status: 'running', worst_case: null, cost: null, reasons: [], error: null, approval: null, input_summary: '{}', output_summary: null, started_at: '', ended_at: null, duration_ms: null, children: [] },
            hold: '0.10',
            approval: null,
          },
        },
      ],
      result: undefined,
    }));
    await refused(dir, j, () => patchMandate(j, clock, 'demo/sandbox', { currency: 'USD' }), 'conflict');
    assert.equal(j.state.mandates['demo/sandbox']?.currency, 'EUR');
  });

  test('setFx: two different valid currencies and a positive rate', async () => {
    const { dir, j } = fresh();
    await setFx(j, 'USD', 'EUR', '0.920');
    assert.equal(j.state.fx['USD/EUR'], '0.92');
    await refused(dir, j, () => setFx(j, 'USD', 'USD', '1'), 'invalid_input');
    await refused(dir, j, () => setFx(j, 'usd', 'EUR', '1'), 'invalid_input');
    await refused(dir, j, () => setFx(j, 'USD', 'EUR', '0'), 'invalid_input');
    await refused(dir, j, () => setFx(j, 'USD', 'EUR', '-0.5'), 'invalid_input');
    await refused(dir, j, () => setFx(j, 'USD', 'EUR', '9.2e-1'), 'invalid_input');
  });

  test('addAgent: manifests and endpoints are checked before anything is appended', async () => {
    const { dir, j } = fresh();
    await addAgent(j, clock, manifest('x/good', ['a.b']), ENDPOINT, 'test');
    assert.equal(j.state.agents['x/good']?.source, 'test');
    const bad = [
      manifest('X/bad', ['a.b']),
      manifest('x/bad', []),
      manifest('x/bad', ['A B']),
      manifest('x/bad', ['a.b'], { version: 'one' }),
      manifest('x/bad', ['a.b'], { price: { currency: 'EUR', per_call: '0.1234567' } }),
      manifest('x/bad', ['a.b'], { price: { currency: 'EUR', per_call: '-1' } }),
      manifest('x/bad', ['a.b'], { delegated_calls: [{ capability: 'a.c', max_count: 0 }] }),
      manifest('x/bad', ['a.b'], { record: { runs: 1, success_rate: '1.5', mean_cost: '0.1' } }),
    ];
    for (const m of bad) await refused(dir, j, () => addAgent(j, clock, m, ENDPOINT, 'test'), 'invalid_input');
    for (const e of [{ type: 'ftp', url: 'x' }, { type: 'stdio', command: '', args: [], tool: 't' }, { type: 'http', url: 'not a url', tool: 't' }]) {
      await refused(dir, j, () => addAgent(j, clock, manifest('x/bad', ['a.b']), e, 'test'), 'invalid_input');
    }
    await refused(dir, j, () => decideApproval(j, clock, 'apr_none', 'approved', 'cli'), 'not_found');
  });

  test('readCatalog reads the demo catalog and resolves ./ paths against its folder; bad files are refused', async () => {
    const agents = await readCatalog(path.join(EXAMPLES, 'catalog.json'));
    assert.equal(agents.length, 5);
    const acme = agents.find((a) => a.manifest.id === 'acme/table-extract');
    assert.ok(acme && acme.endpoint.type === 'stdio');
    assert.equal(acme.endpoint.args[0], path.join(EXAMPLES, 'agents', 'acmeTableExtract.mjs'));
    assert.equal(acme.endpoint.cwd, EXAMPLES);
    const t = tempDir('holon-admin-');
    cleanups.push(t.cleanup);
    const file = path.join(t.dir, 'c.json');
    fs.writeFileSync(file, '{not json');
    await assert.rejects(readCatalog(file), (e: unknown) => e instanceof Error && 'reason' in e && e.reason === 'invalid_input');
    fs.writeFileSync(file, JSON.stringify({ agents: [{ manifest: { id: 'x' }, endpoint: ENDPOINT }] }));
    await assert.rejects(readCatalog(file), (e: unknown) => e instanceof Error && 'reason' in e && e.reason === 'invalid_input');
    await assert.rejects(readCatalog(path.join(t.dir, 'missing.json')), (e: unknown) => e instanceof Error && 'reason' in e && e.reason === 'invalid_input');
    // One agent on its own is a catalog too.
    fs.writeFileSync(file, JSON.stringify({ manifest: manifest('x/one', ['a.b']), endpoint: { ...ENDPOINT, args: ['./one.mjs'] } }));
    const one = await readCatalog(file);
    assert.equal(one.length, 1);
    assert.deepEqual(one[0]?.endpoint.type === 'stdio' && one[0].endpoint.args, [path.join(t.dir, 'one.mjs')]);
  });
});
