/**
 * The README's first session, played on the state `holon demo --state DIR` leaves: a real MCP client on
 * the built `holon mcp`, and the human's `holon approvals` and `holon approve` at a terminal. Every figure
 * is read from the README, so the test fails when the demo and the README drift apart. The demo adds
 * agents after its own session has played (the seller it pays on a chain), which is why only a session
 * played after the whole demo shows whether the README still holds.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import type { ApprovalJson } from './cliHarness.ts';
import {
  approvals,
  approveAtTerminal,
  ensureBuilt,
  HANG_MS,
  holonIn,
  INVOICE_FILES,
  mcpSession,
  ROOT,
  structured,
  tempDir,
  textOf,
} from './cliHarness.ts';

before(ensureBuilt);

type MoneyJson = { amount: string; currency: string };
type Denial = { code: string; params: Record<string, unknown> };
type Call = {
  status: string;
  agent: string;
  receipt: string;
  worst_case: MoneyJson | null;
  cost: MoneyJson | null;
  delegated_calls: number;
  approval: string | null;
  denials: Denial[];
  output: unknown;
};
type Node = {
  agent: string;
  status: string;
  cost: MoneyJson | null;
  total_cost: MoneyJson | null;
  approval: string | null;
  children: Node[];
};

/** What the README says the session does, in its own figures. */
interface ReadmeSession {
  search: { args: Record<string, unknown>; allowed: string[]; excluded: string[] };
  small: { args: Record<string, unknown>; agent: string; cost: string; worst: string };
  big: { agent: string; first: string; last: string; worst: string; delegated: number; threshold: string; perCall: string };
  approved: { cost: string; delegated: number; sum: string };
  tree: { own: string; children: number; agent: string; cost: string };
}

/** A capture of `re` in `text`, or a failure that names what the README no longer says. */
function said(text: string, re: RegExp, what: string): string[] {
  const m = re.exec(text);
  assert.ok(m, `the README's session no longer says ${what}: ${text}`);
  return m.slice(1).map((g) => g ?? '');
}

const ids = (text: string): string[] => [...text.matchAll(/`([a-z0-9-]+\/[a-z0-9-]+)`/g)].map((m) => m[1] ?? '');

/** The session's five steps, read from README.md (the list after "The demo's first session"). */
function readmeSession(): ReadmeSession {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf("The demo's first session");
  assert.ok(at >= 0, "the README has the demo's first session");
  const list = readme.slice(at).split('\n\n')[1] ?? '';
  const steps = list.split(/\n(?=\d\. )/).map((s) => s.replace(/^\d\. /, '').replace(/\s+/g, ' '));
  assert.equal(steps.length, 5, list);
  const [search = '', small = '', big = '', approve = '', tree = ''] = steps;
  const EUR = '(\\d+\\.\\d+) EUR';
  const [allowed = '', excluded = ''] = search.split('It excludes');
  const [agent = '', cost = '', worst = ''] = said(
    small,
    new RegExp(`runs at once: \`([^\`]+)\`, ${EUR} of a worst case of ${EUR}`),
    'the small call',
  );
  const [bigWorst = '', bigDelegated = '', threshold = '', perCall = ''] = said(
    big,
    new RegExp(`worst case is ${EUR} with (\\d+) delegated calls: above the threshold of ${EUR}, within the per-call limit of ${EUR}`),
    "the big call's worst case",
  );
  const [total = '', delegated = '', sum = ''] = said(
    approve,
    new RegExp(`the call runs: ${EUR} in all, with (\\d+) delegated calls, and the invoices add up to ${EUR}`),
    'what the approved call costs',
  );
  const [own = '', children = '', childAgent = '', childCost = ''] = said(
    tree,
    new RegExp(`own ${EUR}, and under it (\\d+) \`([^\`]+)\` calls at ${EUR} each`),
    'the receipt tree',
  );
  const args = (step: string, tool: string): Record<string, unknown> =>
    JSON.parse(said(step, new RegExp(`\`${tool} (\\{.*?\\})\``), `${tool}'s arguments`)[0] ?? '') as Record<string, unknown>;
  const [bigAgent = ''] = said(big, /"agent":"([^"]+)"/, "the big call's agent");
  const [first = '', last = ''] = said(big, /on `([^`]+)` … `([^`]+)`/, "the big call's files");
  return {
    search: { args: args(search, 'search_agents'), allowed: ids(allowed), excluded: ids(excluded) },
    small: { args: args(small, 'call_agent'), agent, cost, worst },
    big: { agent: bigAgent, first, last, worst: bigWorst, delegated: Number(bigDelegated), threshold, perCall },
    approved: { cost: total, delegated: Number(delegated), sum },
    tree: { own, children: Number(children), agent: childAgent, cost: childCost },
  };
}

const eur = (amount: string): MoneyJson => ({ amount, currency: 'EUR' });

/** The agent's output of a call: the JSON inside the text that marks it as another party's, or the object itself. */
function outputOf(call: Call): { total?: MoneyJson } | null {
  if (typeof call.output !== 'string') return call.output as { total?: MoneyJson } | null;
  return JSON.parse(call.output.slice(call.output.indexOf('{'), call.output.lastIndexOf('}') + 1)) as { total?: MoneyJson };
}

test("the README's first session holds on the state the demo leaves", { timeout: HANG_MS }, async () => {
  const readme = readmeSession();
  const { dir: root, cleanup } = tempDir('holon-cli-demo-session-');
  const state = path.join(root, 'demo-state');
  try {
    const demo = await holonIn(state, ['demo']);
    assert.equal(demo.code, 0, demo.stdout + demo.stderr);
    const session = await mcpSession(state, 'demo/sandbox');
    try {
      const { client } = session;
      const call = async (name: string, args: Record<string, unknown>): Promise<{ s: Record<string, unknown>; text: string }> => {
        const r = await client.callTool({ name, arguments: args });
        return { s: structured(r), text: textOf(r) };
      };

      // 1. Search: the demo's own seller is excluded, not ranked.
      const search = await call('search_agents', readme.search.args);
      const found = search.s as { agents: { agent: string }[]; excluded: { agent: string; denials: Denial[] }[] };
      assert.deepEqual(found.agents.map((a) => a.agent).sort(), [...readme.search.allowed].sort(), search.text);
      assert.deepEqual(found.excluded.map((a) => a.agent).sort(), [...readme.search.excluded].sort(), search.text);
      const seller = found.excluded.find((a) => a.agent === 'sellers/pages');
      assert.deepEqual(
        seller?.denials,
        [{ code: 'capability_missing', params: { capability: 'pay' } }],
        'demo/sandbox may not pay the seller',
      );

      // 2. The small call runs at once.
      const small = (await call('call_agent', readme.small.args)).s as Call;
      assert.deepEqual(
        [small.status, small.agent, small.cost, small.worst_case, small.approval],
        ['succeeded', readme.small.agent, eur(readme.small.cost), eur(readme.small.worst), null],
      );

      // The mandate's limits on the demo's state are the README's.
      const budget = (await call('get_budget', {})).s as { limits: { per_call: MoneyJson | null; approval_threshold: MoneyJson } };
      assert.deepEqual([budget.limits.approval_threshold, budget.limits.per_call], [eur(readme.big.threshold), eur(readme.big.perCall)]);

      // 3. The big call waits for the human: pending, not denied.
      assert.deepEqual(
        [INVOICE_FILES[0], INVOICE_FILES.at(-1)],
        [readme.big.first, readme.big.last].map((f) => `holon://files/examples/${f}`),
      );
      const bigArgs = { agent: readme.big.agent, input: { files: INVOICE_FILES } };
      const pending = await call('call_agent', bigArgs);
      const asked = pending.s as Call;
      assert.equal(asked.status, 'pending_approval', pending.text);
      assert.deepEqual(asked.worst_case, eur(readme.big.worst), pending.text);
      assert.deepEqual(asked.denials, [
        { code: 'over_threshold', params: { amount: eur(readme.big.worst), threshold: eur(readme.big.threshold) } },
      ]);
      const id = asked.approval ?? '';

      // 4. The human sees it at a terminal, with the same figures, and approves it there.
      type Listed = ApprovalJson & { amount: MoneyJson; threshold: MoneyJson; subject: { delegated_calls?: { max_count: number }[] } };
      const listed = (await approvals(state)).find((a) => a.id === id) as Listed | undefined;
      assert.deepEqual(
        [listed?.status, listed?.mandate, listed?.subject.agent, listed?.amount, listed?.threshold],
        ['pending', 'demo/sandbox', readme.big.agent, eur(readme.big.worst), eur(readme.big.threshold)],
      );
      assert.equal(
        (listed?.subject.delegated_calls ?? []).reduce((n, d) => n + d.max_count, 0),
        readme.big.delegated,
      );
      const approved = await approveAtTerminal(state, id, 'y');
      assert.equal(approved.code, 0, approved.output);

      const ran = await call('call_agent', { ...bigArgs, approval: id });
      const done = ran.s as Call;
      assert.deepEqual(
        [done.status, done.receipt, done.cost, done.delegated_calls, done.approval, outputOf(done)?.total],
        ['succeeded', asked.receipt, eur(readme.approved.cost), readme.approved.delegated, id, eur(readme.approved.sum)],
        ran.text,
      );

      // 5. The receipt tree.
      const tree = ((await call('get_receipt', { receipt: done.receipt })).s as { tree: Node }).tree;
      assert.deepEqual(
        [tree.agent, tree.status, tree.cost, tree.total_cost, tree.approval],
        [readme.big.agent, 'succeeded', eur(readme.tree.own), eur(readme.approved.cost), id],
      );
      assert.deepEqual(
        tree.children.map((c) => [c.agent, c.status, c.cost]),
        Array.from({ length: readme.tree.children }, () => [readme.tree.agent, 'succeeded', eur(readme.tree.cost)]),
      );
    } finally {
      await session.close();
    }
  } finally {
    cleanup();
  }
});
