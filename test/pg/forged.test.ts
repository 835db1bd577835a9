/**
 * A hostile teammate on a real PostgreSQL: anyone with the member role's password (and so any agent on
 * that member's machine, which can also read its installation key) writes rows straight into the table,
 * correctly hash-linked, as the member role. None of them decides what only an approver or an owner may:
 * a request that arrives approved, a decision, a wider mandate are kept out of the fold by every process,
 * reported by `holon verify --store` with their seq and why, and the others read and write on past them.
 * A member who holds the append lock is named, within a bounded wait, instead of stopping every writer.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client as PgClient } from 'pg';
import type { Approval, ApprovalSubject } from '../../src/core/approvals/model.ts';
import { bindingOf } from '../../src/core/approvals/model.ts';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { silentLogger, systemClock } from '../../src/core/kernel/deps.ts';
import { openStore } from '../../src/core/holon.ts';
import { loadOrCreateSigner } from '../../src/core/store/keys.ts';
import { EVENT_COLUMNS, rowOfEvent } from '../../src/core/store/pg/rows.ts';
import { APPEND_LOCK } from '../../src/core/store/pg/schema.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import type { EventStore, JournalEvent, NewEvent, Signer } from '../../src/core/store/store.ts';
import { eventHash, seal } from '../../src/core/store/store.ts';
import { setTeamMember } from '../../src/core/accounts/team.ts';
import { canonicalHash } from '../../src/core/kernel/util.ts';
import type { McpSession } from '../cli/cliHarness.ts';
import { mcpSession, structured } from '../cli/cliHarness.ts';
import { INVOICES, MANDATE, seedDemo } from '../helpers.ts';
import { cliCluster } from './cliCluster.ts';
import { sqlAt } from './harness.ts';

const MEMBER = 'holon_member';
const PIPELINE = 'holon-labs/invoice-pipeline';
let dbs = 0;

const cluster = cliCluster('holon-forged-');
const { cleanups, holon, stateDir } = cluster;

/**
 * A team store set up by the lead (`holon store init`: the lead's installation is its root) with the
 * demo in it, and a developer's installation made a member of `demo`; both use the member role.
 */
async function teamStore(): Promise<{ url: string; lead: string; dev: string; devKey: Signer; leadStore: EventStore<HolonState> }> {
  const admin = await cluster.pg.createDatabase(`f${++dbs}`);
  const lead = stateDir();
  const dev = stateDir();
  const init = await holon(['store', 'init', '--url', admin, '--member', MEMBER, '--state', lead]);
  assert.equal(init.code, 0, init.stderr);
  const url = admin.replace('postgres://postgres@', `postgres://${MEMBER}@`);
  const leadStore = await openStore(lead, { clock: systemClock, logger: silentLogger, store: url });
  cleanups.push(() => leadStore.close());
  await seedDemo(leadStore, systemClock, { threshold: '0.50', stateDir: dev });
  const devKey = loadOrCreateSigner(dev);
  await setTeamMember(leadStore, loadOrCreateSigner(lead), { account: 'demo', key: devKey.publicKey, name: 'Dev', role: 'member' });
  return { url, lead, dev, devKey, leadStore };
}

async function memberConnection(url: string): Promise<PgClient> {
  const { Client } = await import('pg');
  const c = new Client({ connectionString: url });
  await c.connect();
  cleanups.push(() => c.end().catch(() => undefined));
  return c;
}

/**
 * Inserts `events` as the next rows, linked to the last one and (with `by`) sealed by that key, the way
 * a member can with its password and its installation's key file; returns them.
 */
async function forge(url: string, events: NewEvent[], by?: Signer): Promise<JournalEvent[]> {
  const c = await memberConnection(url);
  const [last] = (await c.query<{ seq: string; hash: string }>('SELECT seq, hash FROM holon_events ORDER BY seq DESC LIMIT 1')).rows;
  let seq = Number(last?.seq ?? 0);
  let prev = last?.hash ?? '';
  const time = new Date().toISOString();
  const rows: JournalEvent[] = events.map((n) => {
    seq += 1;
    const base = { seq, time, type: n.type, data: n.data, prev };
    prev = eventHash(base);
    return { ...base, hash: prev };
  });
  if (by) seal(rows, by);
  for (const r of rows) await c.query(`INSERT INTO holon_events (${EVENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, rowOfEvent(r));
  return rows;
}

/** `holon verify --store` as JSON: what it refused, as [from, to, code]. */
async function verify(url: string): Promise<{ code: number | null; refused: [number, number, string][]; text: string }> {
  const j = await holon(['verify', '--store', url, '--state', stateDir(), '--json']);
  const t = await holon(['verify', '--store', url, '--state', stateDir()]);
  const report = JSON.parse(j.stdout) as { refused: { from: number; to: number; code: string }[] };
  return { code: j.code, refused: report.refused.map((r) => [r.from, r.to, r.code]), text: t.stdout };
}

/** The developer's agent: an MCP server for demo/sandbox on the developer's installation. */
async function devAgent(url: string, dev: string): Promise<McpSession> {
  const s = await mcpSession(dev, MANDATE, ['--store', url, '--approval-wait', '0', '--no-elicitation'], { HOLON_STORE: '' });
  cleanups.push(() => s.close());
  return s;
}

/** The approval a call of the pipeline on these invoices would be bound to, as the gateway makes it. */
function pipelineApproval(s: HolonState, status: Approval['status']): Approval {
  const m = s.agents[PIPELINE]?.manifest;
  assert.ok(m);
  const input = { files: INVOICES };
  const subject: ApprovalSubject = { kind: 'agent_call', agent: m.id, version: m.version, capability: null, input_sha256: canonicalHash(input), input_preview: '', input_bytes: 0, delegated_calls: m.delegated_calls };
  const now = Date.now();
  return {
    id: `apr_forged${++dbs}`,
    kind: 'agent_call',
    mandate: MANDATE,
    ...bindingOf(MANDATE, subject),
    subject,
    amount: { amount: '100.00', currency: 'EUR' },
    threshold: { amount: '0.50', currency: 'EUR' },
    ref: null,
    requested_at: new Date(now).toISOString(),
    expires_at: new Date(now + 600_000).toISOString(),
    status,
    ...(status === 'approved' ? { decided_at: new Date(now).toISOString(), channel: 'panel' as const } : {}),
  };
}

const callPipeline = (s: McpSession, approval: string): Promise<unknown> => s.client.callTool({ name: 'call_agent', arguments: { agent: PIPELINE, input: { files: INVOICES }, approval } });

describe('rows a member writes by hand decide nothing', () => {
  test('a request inserted already approved does not let a call over the threshold run, sealed or not; verify names it', { timeout: 120_000 }, async () => {
    const { url, dev, devKey, leadStore } = await teamStore();
    const unsealed = pipelineApproval(leadStore.state, 'approved');
    const [a] = await forge(url, [{ type: 'approval.requested', data: { approval: unsealed } }]);
    // Alone at the end of the table, no seal covers it: a database never leaves half a transaction, so verify says so.
    const alone = await verify(url);
    assert.equal(alone.code, 1);
    assert.deepEqual(alone.refused, [[a!.seq, a!.seq, 'unsealed']]);
    const sealedByMember = pipelineApproval(leadStore.state, 'approved');
    const [b] = await forge(url, [{ type: 'approval.requested', data: { approval: sealedByMember } }], devKey);
    const agent = await devAgent(url, dev);
    for (const forged of [unsealed, sealedByMember]) {
      const r = structured<{ status: string; denials?: { code: string }[] }>(await callPipeline(agent, forged.id));
      assert.notEqual(r.status, 'succeeded', JSON.stringify(r));
      assert.deepEqual(r.denials?.map((d) => d.code), ['approval_not_found'], JSON.stringify(r));
    }
    const v = await verify(url);
    assert.equal(v.code, 1);
    assert.deepEqual(v.refused, [
      [a!.seq, a!.seq, 'unsealed'],
      [b!.seq, b!.seq, 'arrived_decided'],
    ]);
    assert.match(v.text, new RegExp(`event ${b!.seq} not folded \\(arrived_decided\\)`));
  });

  test("a decision inserted by a member's installation leaves the approval pending, and the call waits for the approver", { timeout: 120_000 }, async () => {
    const { url, lead, dev, devKey, leadStore } = await teamStore();
    const agent = await devAgent(url, dev);
    const asked = structured<{ status: string; approval: string }>(await agent.client.callTool({ name: 'call_agent', arguments: { agent: PIPELINE, input: { files: INVOICES } } }));
    assert.equal(asked.status, 'pending_approval');
    const [d] = await forge(url, [{ type: 'approval.decided', data: { id: asked.approval, decision: 'approved', channel: 'panel', by: devKey.publicKey } }], devKey);
    const again = structured<{ status: string }>(await callPipeline(agent, asked.approval));
    assert.equal(again.status, 'pending_approval', 'still waiting for an approver');
    assert.deepEqual((await verify(url)).refused, [[d!.seq, d!.seq, 'not_an_approver']]);
    // The lead's real decision, as the lead's panel makes it, lets it run.
    await decideApproval(leadStore, systemClock, asked.approval, 'approved', 'panel', loadOrCreateSigner(lead));
    const done = structured<{ status: string }>(await callPipeline(agent, asked.approval));
    assert.equal(done.status, 'succeeded');
  });

  test('a mandate widened by a row a member inserted stays as the owner set it', { timeout: 120_000 }, async () => {
    const { url, dev, devKey, leadStore } = await teamStore();
    const m = structuredClone(leadStore.state.mandates[MANDATE]);
    assert.ok(m);
    const wide = { ...m, approval_threshold: '500.00', budget: { total: '500.00', per_day: null, per_call: null } };
    const [x] = await forge(url, [{ type: 'mandate.updated', data: { mandate: wide } }], devKey);
    const [y] = await forge(url, [{ type: 'account.funded', data: { account: 'demo', amount: '500', currency: 'EUR' } }], devKey);
    const agent = await devAgent(url, dev);
    const r = structured<{ status: string }>(await agent.client.callTool({ name: 'call_agent', arguments: { agent: PIPELINE, input: { files: INVOICES } } }));
    assert.equal(r.status, 'pending_approval', 'the threshold is still 0.50');
    const budget = await holon(['budget', MANDATE, '--state', dev, '--store', url, '--json']);
    assert.equal(budget.code, 0, budget.stderr);
    assert.doesNotMatch(budget.stdout, /500/);
    // The human at the developer's terminal is told once, with what to run; not again by the next command.
    assert.match(budget.stderr, new RegExp(`rows that were not folded: event ${x!.seq} not folded \\(not_an_owner\\).*\\(and 1 more\\).*holon verify --store`));
    const again = await holon(['budget', MANDATE, '--state', dev, '--store', url, '--json']);
    assert.doesNotMatch(again.stderr, /not folded/);
    assert.deepEqual((await verify(url)).refused, [
      [x!.seq, x!.seq, 'not_an_owner'],
      [y!.seq, y!.seq, 'not_an_owner'],
    ]);
  });

  test('a row with a bad hash stops no one: every process reads and writes on past it, and verify names it', { timeout: 120_000 }, async () => {
    const { url, lead, dev, devKey } = await teamStore();
    const c = await memberConnection(url);
    const [last] = (await c.query<{ seq: string; hash: string }>('SELECT seq, hash FROM holon_events ORDER BY seq DESC LIMIT 1')).rows;
    const seq = Number(last?.seq) + 1;
    const bogus = { seq, time: new Date().toISOString(), type: 'account.funded', data: { account: 'demo', amount: '9', currency: 'EUR' }, prev: last?.hash ?? '', hash: 'f'.repeat(64) };
    seal([bogus], devKey);
    await c.query(`INSERT INTO holon_events (${EVENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, rowOfEvent(bogus));
    const funded = await holon(['fund', 'demo', '1', '--state', lead, '--store', url]);
    assert.equal(funded.code, 0, funded.stderr);
    const budget = await holon(['budget', MANDATE, '--state', dev, '--store', url, '--json']);
    assert.equal(budget.code, 0, budget.stderr);
    assert.deepEqual((await verify(url)).refused, [[seq, seq, 'altered']]);
  });
});

describe('a member cannot stop the team', () => {
  test('a writer that cannot get the append lock says who holds it, and writes nothing; once it is let go, writing goes on', { timeout: 120_000 }, async () => {
    const { url, lead } = await teamStore();
    const c = await memberConnection(url);
    await c.query('SELECT pg_advisory_lock($1)', [APPEND_LOCK]);
    const before = await sqlAt<{ n: string }>(url, 'SELECT count(*) AS n FROM holon_events');
    const blocked = await holon(['fund', 'demo', '1', '--state', lead, '--store', url]);
    assert.equal(blocked.code, 1, blocked.stdout);
    const lines = blocked.stderr.trim().split('\n');
    assert.equal(lines.length, 1, blocked.stderr);
    assert.match(lines[0] ?? '', new RegExp(`append lock is held by session \\d+ \\(role ${MEMBER}`));
    assert.match(lines[0] ?? '', /wrote nothing/);
    assert.deepEqual(await sqlAt<{ n: string }>(url, 'SELECT count(*) AS n FROM holon_events'), before);
    await c.query('SELECT pg_advisory_unlock($1)', [APPEND_LOCK]);
    const after = await holon(['fund', 'demo', '1', '--state', lead, '--store', url]);
    assert.equal(after.code, 0, after.stderr);
  });
});
