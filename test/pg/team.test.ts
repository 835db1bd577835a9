/**
 * Who may decide, on a real PostgreSQL: two installations (two state folders, two keys) share one
 * database. The lead set it up and owns it; the developer is a member; the developer's agent asks, the
 * developer cannot decide, the lead can, and the decision reaches the developer's store.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { waitForDecision } from '../../src/core/approvals/flow.ts';
import { approvalEvent } from '../../src/core/approvals/slice.ts';
import { silentLogger, systemClock } from '../../src/core/kernel/deps.ts';
import { openStore } from '../../src/core/holon.ts';
import { lazySigner } from '../../src/core/store/keys.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import type { EventStore } from '../../src/core/store/store.ts';
import { setTeamMember } from '../../src/core/accounts/team.ts';
import { openRuntime } from '../../src/server/runtime.ts';
import { connect, HOLON_BIN, INVOICES, MANDATE, ROOT, seedDemo, tempDir } from '../helpers.ts';
import type { TestPostgres } from './harness.ts';
import { startPostgres } from './harness.ts';

let pg: TestPostgres;
const cleanups: (() => void | Promise<void>)[] = [];

before(async () => {
  if (!fs.existsSync(HOLON_BIN)) await promisify(execFile)(process.execPath, ['esbuild.mjs'], { cwd: ROOT });
  pg = await startPostgres();
});

after(async () => {
  for (const c of cleanups.reverse()) await c();
  pg.stop();
});

function stateDir(): string {
  const t = tempDir('holon-pg-team-');
  cleanups.push(t.cleanup);
  return t.dir;
}

async function open(dir: string, url: string): Promise<EventStore<HolonState>> {
  const store = await openStore(dir, { clock: systemClock, logger: silentLogger, store: url });
  cleanups.push(() => store.close());
  return store;
}

async function holon(args: string[]): Promise<{ code: number; out: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [HOLON_BIN, ...args], { env: { ...process.env, HOLON_STORE: '' } });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

async function until(cond: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('the lead decides what the developer\'s agent asks; the developer cannot', { timeout: 60_000 }, async () => {
  const url = await pg.createDatabase('team');
  const leadDir = stateDir();
  const devDir = stateDir();
  const lead = lazySigner(leadDir);
  const dev = lazySigner(devDir);

  // Each installation's key is registered with its machine by its first write, in the same transaction.
  const leadStore = await open(leadDir, url);
  // The files the agent names are in the developer's state folder.
  await seedDemo(leadStore, systemClock, { threshold: '0.50', stateDir: devDir });
  assert.ok(leadStore.state.team.installations[lead.publicKey]);
  const devStore = await open(devDir, url);
  await until(() => devStore.state.mandates[MANDATE] !== undefined, 'the demo to reach the developer');
  assert.equal(devStore.state.team.installations[dev.publicKey], undefined, 'opening the store, or reading it, writes nothing');

  assert.equal(leadStore.state.team.root, lead.publicKey, 'the first to write owns the store');
  await setTeamMember(leadStore, lead, { account: 'demo', key: dev.publicKey, name: 'Dev', role: 'member' });
  await until(() => devStore.state.team.accounts['demo']?.members[dev.publicKey] !== undefined, 'the developer to see it is a member');

  // The developer's agent, through a server on the developer's installation, asks for a call over the threshold.
  const runtime = openRuntime(devDir, { clock: systemClock, logger: silentLogger, store: devStore, approvals: { waitMs: 0, elicitation: false, elicitationWaitMs: 0 } });
  const client = await connect(runtime);
  cleanups.push(() => client.close());
  const asked = await client.callTool({ name: 'call_agent', arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICES } } });
  const id = (asked.structuredContent as { approval?: string } | undefined)?.approval ?? "";
  assert.ok(id.startsWith('apr_'), JSON.stringify(asked));

  await until(() => leadStore.state.approvals[id] !== undefined, 'the request to reach the lead');
  const devMachine = leadStore.state.team.installations[dev.publicKey]?.machine;
  assert.ok(devMachine, 'the request registered the developer\'s installation');
  const seen = leadStore.state.approvals[id];
  assert.deepEqual(seen?.origin, { machine: devMachine, key: dev.publicKey }, 'the lead sees which machine and installation asked');

  // The developer cannot decide it, through any channel: the refusal appends nothing.
  const seq = devStore.seq;
  await assert.rejects(decideApproval(devStore, systemClock, id, 'approved', 'cli', dev), (err: unknown) => (err as { details?: Record<string, unknown> }).details?.['reason'] === 'not_an_approver');
  await assert.rejects(devStore.transact(() => ({ events: [approvalEvent('approval.decided', { id, decision: 'approved', channel: 'cli' })], result: undefined })), (err: unknown) => (err as { details?: Record<string, unknown> }).details?.['reason'] === 'not_an_approver');
  assert.equal(devStore.seq, seq, 'the refusals appended nothing');
  assert.equal(leadStore.state.approvals[id]?.status, 'pending');

  // The lead decides; the developer's store sees it.
  const waiting = waitForDecision(devStore, id, 5000);
  await decideApproval(leadStore, systemClock, id, 'approved', 'panel', lead);
  assert.equal(await waiting, 'approved');
  assert.equal(devStore.state.approvals[id]?.decided_by, lead.publicKey);

  // The CLI shows the team and its machines; changing it needs a terminal.
  const listed = await holon(['team', 'list', '--json', '--state', devDir, '--store', url]);
  assert.equal(listed.code, 0, listed.out);
  const team = JSON.parse(listed.out) as { root: { key: string; machine: string | null }; accounts: { account: string; members: { key: string; role: string; machine: string | null }[] }[] };
  assert.deepEqual(team.root, { key: lead.publicKey, machine: devMachine });
  const members = team.accounts.find((a) => a.account === 'demo')?.members ?? [];
  assert.deepEqual(members.map((m) => [m.key, m.role, m.machine]), [[dev.publicKey, 'member', devMachine]]);
  const added = await holon(['team', 'add', dev.publicKey, '--account', 'demo', '--name', 'Dev', '--approver', '--state', devDir, '--store', url]);
  assert.notEqual(added.code, 0);
  assert.match(added.out, /needs a human at a terminal/);
  assert.equal(devStore.state.team.accounts['demo']?.members[dev.publicKey]?.role, 'member');
  await runtime.close();
});
