/**
 * The office (seed 004) through the built CLI and real SDK clients: `holon mcp` over stdio for bob, whose
 * capability window a human opens from another process and which closes by itself; `holon serve` over
 * HTTP for lead and ada, whose replies wake each other until the loop guard stops it. Everything is read
 * back from the journal file, as another process would.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { systemClock } from '../../src/core/kernel/deps.ts';
import { DEMO_OFFICE, seedOffice } from '../../src/core/office/demoOffice.ts';
import type { Event, Served } from './cliHarness.ts';
import { ensureBuilt, HANG_MS, json, mcpSession, ok, openLedger, PatientClient, readEvents, seededState, serveIn, tempDir, until } from './cliHarness.ts';
import { pidAlive } from '../../src/core/store/file/lock.ts';

before(ensureBuilt);

const OFFICE_TOOLS = [
  'whoami', 'mail_inbox', 'mail_read', 'mail_reply', 'mail_close', 'mail_send', 'colleagues_list', 'office_overview', 'approval_request',
  'artifact_publish', 'artifact_list', 'forge_list_prs', 'forge_open_pr', 'hr_agent_personnel', 'hr_propose_hire', 'hr_propose_change',
];

const NO_OFFICE_READ = 'Not permitted: needs capability office.read — use approval_request';

/** The demo world made by the CLI, plus the demo's office, seeded by this (another) process; and a git workspace. */
async function officeState(): Promise<{ state: string; workspace: string; cleanup: () => void }> {
  const { dir: state, cleanup: dropState } = await seededState();
  const { dir: workspace, cleanup: dropWorkspace } = tempDir('holon-cli-office-ws-');
  const git = (args: string[]): void => {
    execFileSync('git', args, { cwd: workspace, env: { ...process.env, GIT_AUTHOR_NAME: 'Human', GIT_AUTHOR_EMAIL: 'human@example.com', GIT_COMMITTER_NAME: 'Human', GIT_COMMITTER_EMAIL: 'human@example.com' } });
  };
  git(['init', '--quiet', '--initial-branch=main']);
  fs.writeFileSync(path.join(workspace, 'README.md'), '# site\n');
  git(['add', 'README.md']);
  git(['commit', '--quiet', '-m', 'start']);
  const store = await openLedger(state);
  try {
    await seedOffice(store, systemClock, path.basename(workspace));
  } finally {
    store.close();
  }
  return {
    state,
    workspace,
    cleanup: () => {
      dropState();
      dropWorkspace();
    },
  };
}

const text = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const out = <T>(r: CallToolResult): T => {
  assert.notEqual(r.isError, true, text(r));
  return r.structuredContent as T;
};

/** Polls `fn` (async) until it returns something truthy, pausing between tries; a deadline that only stops a hang, never a timing assertion. */
async function eventually<T>(fn: () => Promise<T | undefined | false>, what: string, pauseMs = 100, timeoutMs = HANG_MS / 2): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}

/** The ledger entries of office tool calls (allowed or refused) by one actor. */
const officeCalls = (events: Event[], actor: string): Event[] =>
  events.filter((e) => (e.type === 'tool.called' || e.type === 'tool.denied') && e.data['toolset'] === 'office' && e.data['actor'] === actor);

async function httpClient(url: string, token: string, name: string): Promise<Client> {
  const client = new PatientClient({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

describe('the office through the built CLI', { concurrency: true }, () => {
  test('stdio: bob is refused office.read, asks for a window, a human opens it from another process, and it closes by itself', { timeout: HANG_MS }, async () => {
    const { state, workspace, cleanup } = await officeState();
    const bob = await mcpSession(state, DEMO_OFFICE.bob, ['--workspace', workspace]);
    try {
      // What bob's client saw of colleagues_list, to compare with what the journal holds.
      const seen = { allowed: 0, refused: 0 };
      const call = async (name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> => {
        const r = (await bob.client.callTool({ name, arguments: args })) as CallToolResult;
        if (name === 'colleagues_list') seen[r.isError ? 'refused' : 'allowed']++;
        return r;
      };
      const { tools } = await bob.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), OFFICE_TOOLS, 'every office tool is listed, whatever bob may call');

      const refused = await call('colleagues_list');
      assert.equal(refused.isError, true);
      assert.equal(text(refused), NO_OFFICE_READ);

      // 0.003 hours: a window of 10.8 s of real time (the server runs on the system clock). The server's tail
      // sees the decision in milliseconds, busy machine or not; what the test waits for is the window to close.
      const reason = 'REASON-TEXT-7f3: to know whom to ask about the footer copy';
      const asked = out<{ approval: string; kind: string; status: string }>(
        await call('approval_request', { title: 'See who is in the office', reason, kind: 'capability.window', capability: 'office.read', hours: 0.003 }),
      );
      assert.deepEqual([asked.kind, asked.status], ['capability.window', 'pending']);
      assert.equal(text(await call('colleagues_list')), NO_OFFICE_READ, 'nothing changes before a human decides');

      // The human decides in another process: this one, on the same state folder.
      const human = await openLedger(state);
      try {
        const decided = await decideApproval(human, systemClock, asked.approval, 'approved', 'cli');
        assert.equal(decided.status, 'approved');
      } finally {
        human.close();
      }

      // bob's server sees the decision by tailing the journal: the next call goes through.
      const listed = await eventually(async () => {
        const r = await call('colleagues_list');
        return r.isError ? undefined : (r.structuredContent as { colleagues: { slug: string }[] });
      }, 'bob\'s server to see the opened window');
      assert.deepEqual(listed.colleagues.map((c) => c.slug), ['ada', 'lead']);

      // And once the window has closed, bob is refused again.
      const after = await eventually(async () => {
        const r = await call('colleagues_list');
        return r.isError ? r : undefined;
      }, 'the window to close', 500);
      assert.equal(text(after), NO_OFFICE_READ);
      await bob.close();

      const events = await readEvents(state);
      const requested = events.filter((e) => e.type === 'approval.requested').map((e) => e.data['approval'] as { id: string; kind: string; mandate: string });
      assert.deepEqual(requested.map((a) => [a.id, a.kind, a.mandate]), [[asked.approval, 'capability_window', DEMO_OFFICE.bob]]);
      assert.deepEqual(events.filter((e) => e.type === 'approval.decided').map((e) => e.data), [{ id: asked.approval, decision: 'approved', channel: 'cli' }]);
      const opened = events.filter((e) => e.type === 'capability.window.opened').map((e) => e.data as { approval: string; mandate: string; capability: unknown; opens_at: string; closes_at: string });
      assert.equal(opened.length, 1);
      assert.deepEqual([opened[0]?.approval, opened[0]?.mandate, opened[0]?.capability], [asked.approval, DEMO_OFFICE.bob, { name: 'office.read' }]);
      assert.equal(Date.parse(opened[0]?.closes_at ?? '') - Date.parse(opened[0]?.opens_at ?? ''), 10_800, 'open for the hours asked');

      // Every call is on the record as bob's, via MCP, with a safe summary.
      const calls = officeCalls(events, 'bob');
      assert.ok(calls.every((e) => e.data['mandate'] === DEMO_OFFICE.bob));
      const request = calls.filter((e) => e.type === 'tool.called' && e.data['tool'] === 'approval_request');
      assert.deepEqual(request.map((e) => e.data['summary']), [{ title: 'See who is in the office', kind: 'capability.window', capability: 'office.read', hours: 0.003 }]);
      assert.ok(!JSON.stringify(calls).includes('REASON-TEXT'), 'the reason is not in any summary');
      const denied = calls.filter((e) => e.type === 'tool.denied');
      assert.ok(seen.refused >= 3 && seen.allowed >= 1);
      assert.equal(denied.length, seen.refused, 'every refusal is ledgered once');
      for (const d of denied) {
        assert.equal(d.data['tool'], 'colleagues_list');
        assert.equal(d.data['via'], 'mcp');
        assert.deepEqual(d.data['denials'], [{ code: 'capability_missing', params: { capability: 'office.read' } }]);
      }
      const listCalls = calls.filter((e) => e.type === 'tool.called' && e.data['tool'] === 'colleagues_list');
      assert.equal(listCalls.length, seen.refused + seen.allowed, 'every call, allowed or refused, is ledgered once');
      assert.ok(listCalls.every((e) => JSON.stringify(e.data['summary']) === '{}'));
      const windowEnd = Date.parse(opened[0]?.closes_at ?? '');
      const lastDenial = denied[denied.length - 1];
      assert.ok(lastDenial && Date.parse(lastDenial.time) >= windowEnd, 'the last refusal came once the window had closed');
    } finally {
      await bob.close();
      cleanup();
    }
  });

  test('HTTP: lead and ada reply to each other until the fourth hop no longer wakes; ada may not mail bob', { timeout: HANG_MS }, async () => {
    const { state, workspace, cleanup } = await officeState();
    let served: Served | undefined;
    const clients: Client[] = [];
    try {
      const leadToken = await json<{ token: string; mandate: string }>(state, ['token', 'create', '--mandate', DEMO_OFFICE.lead, '--ttl', '1h']);
      const adaToken = await json<{ token: string; mandate: string }>(state, ['token', 'create', '--mandate', DEMO_OFFICE.ada, '--ttl', '1h']);
      assert.deepEqual([leadToken.mandate, adaToken.mandate], [DEMO_OFFICE.lead, DEMO_OFFICE.ada]);
      served = await serveIn(state, ['--workspace', workspace]);
      const lead = await httpClient(served.url, leadToken.token, 'lead-agent');
      clients.push(lead);
      const ada = await httpClient(served.url, adaToken.token, 'ada-agent');
      clients.push(ada);
      const as = (c: Client) => async (name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> => (await c.callTool({ name, arguments: args })) as CallToolResult;
      const agents = { lead: as(lead), ada: as(ada) };

      assert.equal(out<{ slug: string }>(await agents.lead('whoami')).slug, 'lead', 'each token is its own mandate');
      assert.equal(out<{ slug: string }>(await agents.ada('whoami')).slug, 'ada');

      const first = out<{ to: string; number: number; state: string }>(await agents.ada('mail_send', { to: 'lead', subject: 'Footer links', body: 'BODY-MARK-start: the footer links are broken' }));
      assert.deepEqual([first.to, first.state], ['lead', 'new']);

      // They take turns: each replies on the newest new thread of its own inbox.
      const hops: { by: string; to: string | null; hops: number | null; woke: boolean | null }[] = [];
      for (let i = 0; i < 4; i++) {
        const by = i % 2 === 0 ? 'lead' : 'ada';
        const agent = agents[by as keyof typeof agents];
        const box = out<{ threads: { number: number; state: string }[] }>(await agent('mail_inbox', { state: 'new' }));
        assert.ok(box.threads.length > 0, `${by} has new mail`);
        const number = Math.max(...box.threads.map((t) => t.number));
        const r = out<{ number: number; state: string; delivered_to: string | null; woke: boolean | null; hops: number | null }>(await agent('mail_reply', { number, body: `BODY-MARK-${i}: reply ${i}` }));
        assert.equal(r.state, 'replied');
        hops.push({ by, to: r.delivered_to, hops: r.hops, woke: r.woke });
      }
      assert.deepEqual(hops, [
        { by: 'lead', to: 'ada', hops: 1, woke: true },
        { by: 'ada', to: 'lead', hops: 2, woke: true },
        { by: 'lead', to: 'ada', hops: 3, woke: true },
        { by: 'ada', to: 'lead', hops: 4, woke: false },
      ]);

      const refused = await agents.ada('mail_send', { to: 'bob', subject: 'Hi', body: 'BODY-MARK-bob' });
      assert.equal(refused.isError, true);
      assert.equal(text(refused), 'Not permitted: needs capability mail.send (for bob) — use approval_request');

      for (const c of clients.splice(0)) await c.close();
      served.child.kill('SIGTERM');
      assert.equal(await served.exited, 0, 'SIGTERM stops it cleanly');
      served = undefined;

      const events = await readEvents(state);
      const guard = events.filter((e) => e.type === 'mail.loop_guard');
      assert.equal(guard.length, 1);
      assert.equal(guard[0]?.data['hops'], 4);
      assert.equal(events.filter((e) => e.type === 'mail.replied').length, 4);
      assert.equal(events.filter((e) => e.type === 'mail.sent' && (e.data['thread'] as { to: string }).to === 'bob').length, 0, 'nothing reached bob');

      const calls = [...officeCalls(events, 'lead'), ...officeCalls(events, 'ada')];
      assert.ok(!JSON.stringify(calls).includes('BODY-MARK'), 'no body in any tool.called or tool.denied entry');
      const replies = calls.filter((e) => e.type === 'tool.called' && e.data['tool'] === 'mail_reply');
      assert.equal(replies.length, 4);
      assert.ok(replies.every((e) => typeof (e.data['summary'] as { body_length?: unknown }).body_length === 'number'));
      const denied = calls.filter((e) => e.type === 'tool.denied');
      assert.deepEqual(
        denied.map((e) => [e.data['actor'], e.data['tool'], e.data['via'], e.data['denials']]),
        [['ada', 'mail_send', 'mcp', [{ code: 'capability_scope', params: { capability: 'mail.send', target: 'bob', allowed: ['lead'] } }]]],
      );
      assert.ok(!served, 'stopped');
    } finally {
      await Promise.allSettled(clients.map((c) => c.close()));
      if (served && served.child.exitCode === null) served.child.kill('SIGKILL');
      cleanup();
    }
  });
});

test('one money format: whoami and the personnel file show a daily limit typed as "2" as "2.00"', { timeout: HANG_MS }, async () => {
  const { state, workspace, cleanup } = await officeState();
  try {
    // The human types the limits as people do.
    await ok(state, ['mandate', 'edit', DEMO_OFFICE.lead, '--per-day', '2', '--total', '5']);
    const lead = await mcpSession(state, DEMO_OFFICE.lead, ['--workspace', workspace]);
    try {
      const me = out<{ budget: { currency: string; per_day: string | null } }>((await lead.client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult);
      const file = out<{ budget: { currency: string; total: string; per_day: string | null; per_call: string | null } }>(
        (await lead.client.callTool({ name: 'hr_agent_personnel', arguments: { slug: 'lead' } })) as CallToolResult,
      );
      assert.equal(me.budget.per_day, '2.00');
      assert.deepEqual(file.budget, { currency: 'EUR', total: '5.00', per_day: me.budget.per_day, per_call: null });
    } finally {
      await lead.close();
    }
  } finally {
    cleanup();
  }
});

test('artifact_publish in a git workspace leaves the human\'s git status as it was, in a worktree too, through no link', { timeout: HANG_MS }, async () => {
  const { state, workspace, cleanup } = await officeState();
  const { dir: elsewhere, cleanup: dropElsewhere } = tempDir('holon-cli-office-wt-');
  const git = (cwd: string, args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' });
  const publish = async (ws: string, title: string): Promise<{ path: string; commit: string | null }> => {
    const ada = await mcpSession(state, DEMO_OFFICE.ada, ['--workspace', ws]);
    try {
      return out((await ada.client.callTool({ name: 'artifact_publish', arguments: { title, filename: 'report.md', content: `# ${title}\n` } })) as CallToolResult);
    } finally {
      await ada.close();
    }
  };
  try {
    const exclude = path.join(workspace, '.git', 'info', 'exclude');
    const excluded = (): number => (fs.existsSync(exclude) ? fs.readFileSync(exclude, 'utf8').split('\n').filter((l) => l === '/.holon/').length : 0);
    assert.equal(git(workspace, ['status', '--porcelain']), '', 'a clean tree to start with');
    assert.equal(excluded(), 0);

    // A worktree first: its .git is a file, and git finds the repository's exclude file with --git-path, as the office does.
    const tree = path.join(elsewhere, 'wt');
    git(workspace, ['worktree', 'add', '--quiet', '-b', 'side', tree]);
    await publish(tree, 'From the worktree');
    assert.equal(git(tree, ['status', '--porcelain']), '');
    assert.equal(excluded(), 1, 'the line went to the repository\'s own exclude file');

    for (const title of ['Q4 report', 'Q4 report, again']) {
      const a = await publish(workspace, title);
      assert.ok(fs.existsSync(path.join(workspace, a.path)), 'the file is in the working tree for the human');
      assert.ok(a.commit, 'and committed on the office\'s ref');
      assert.equal(git(workspace, ['status', '--porcelain']), '', `nothing new in git status after "${title}"`);
    }
    assert.equal(excluded(), 1, 'the folder is excluded once');
    assert.ok(!fs.existsSync(path.join(workspace, '.gitignore')) && !fs.existsSync(path.join(tree, '.gitignore')), '.gitignore is never touched');

    // An exclude file that is a link (an agent can write the workspace) is never written through.
    const outside = path.join(elsewhere, 'not-yours.txt');
    fs.writeFileSync(outside, 'a file of the human\'s\n');
    fs.rmSync(exclude);
    fs.symlinkSync(outside, exclude);
    const a = await publish(workspace, 'Through a link');
    assert.ok(fs.existsSync(path.join(workspace, a.path)), 'published all the same');
    assert.equal(fs.readFileSync(outside, 'utf8'), 'a file of the human\'s\n');
  } finally {
    dropElsewhere();
    cleanup();
  }
});

test('office_overview: a stdio server of a mandate is running while it runs, not after it exits, nor after kill -9', { timeout: HANG_MS }, async () => {
  const { state, workspace, cleanup } = await officeState();
  const lead = await mcpSession(state, DEMO_OFFICE.lead, ['--workspace', workspace]);
  try {
    const running = async (): Promise<Record<string, boolean>> => {
      const o = out<{ agents: { slug: string; running: boolean }[] }>((await lead.client.callTool({ name: 'office_overview', arguments: {} })) as CallToolResult);
      return Object.fromEntries(o.agents.map((a) => [a.slug, a.running]));
    };
    assert.deepEqual(await running(), { lead: true, ada: false, bob: false }, 'the caller\'s own server runs; nobody else\'s');

    const ada = await mcpSession(state, DEMO_OFFICE.ada, ['--workspace', workspace]);
    const bob = await mcpSession(state, DEMO_OFFICE.bob, ['--workspace', workspace]);
    assert.deepEqual(await running(), { lead: true, ada: true, bob: true });

    // bob's server exits as a client stops it: it says so on its way out.
    await bob.close();
    await until(() => bob.pid !== null && !pidAlive(bob.pid), 'bob\'s server to exit');
    assert.deepEqual(await running(), { lead: true, ada: true, bob: false });

    // ada's is killed and says nothing: its process is gone, and that is what counts.
    assert.ok(ada.pid !== null);
    process.kill(ada.pid, 'SIGKILL');
    await eventually(async () => (await running()).ada === false, 'ada to stop counting as running');
    assert.deepEqual(await running(), { lead: true, ada: false, bob: false });
    await ada.close().catch(() => {});

    // The next server started on this machine drops the dead one's record; a clean exit left none behind.
    const again = await mcpSession(state, DEMO_OFFICE.bob, ['--workspace', workspace]);
    await again.close();
    const events = await readEvents(state);
    const started = events.filter((e) => e.type === 'server.started').map((e) => e.data as { id: string; mandate: string; owner: { pid: number } });
    const stopped = events.filter((e) => e.type === 'server.stopped').map((e) => e.data as { id: string; reason?: string });
    assert.deepEqual(started.map((s) => s.mandate), [DEMO_OFFICE.lead, DEMO_OFFICE.ada, DEMO_OFFICE.bob, DEMO_OFFICE.bob]);
    const adaRecord = started[1]?.id;
    assert.deepEqual(stopped.filter((s) => s.id === adaRecord).map((s) => s.reason), ['gone'], 'the killed server\'s record was dropped as gone');
    assert.ok(stopped.some((s) => s.id === started[2]?.id && s.reason === undefined), 'bob\'s server recorded its own stop');
  } finally {
    await lead.close();
    cleanup();
  }
});
