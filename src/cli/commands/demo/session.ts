/**
 * The session of DESIGN.md §1 (seed 000): the human funds demo and creates demo/sandbox; an agent
 * searches, inspects and calls agents through its own `holon mcp`; the call above the threshold waits
 * until the human approves it from another terminal; then the receipt tree and what is left.
 */
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Approval } from '../../../core/approvals/model.ts';
import { copyExampleFiles } from '../../../core/local/demoFiles.ts';
import { setFx } from '../../../core/money/fx.ts';
import { JOURNAL_FILE } from '../../../core/store/file/journal.ts';
import { createMandate } from '../../../core/accounts/mandates.ts';
import { addAgent, readCatalog } from '../../../core/market/catalog.ts';
import { fund } from '../../../core/money/spend.ts';
import { silentLogger, systemClock } from '../../../core/kernel/deps.ts';
import { openState } from '../../../core/holon.ts';
import type { Demo, DemoStore, Scenario } from './play.ts';
import { atTerminal, indent, section, textOf, withAgent } from './play.ts';

const MANDATE = 'demo/sandbox';

/** The human, in another terminal: `holon approve ID`, given a real TTY by `script`, answering "y". */
async function approveFromTerminal(holonBin: string, stateDir: string, id: string): Promise<string> {
  const terminal = atTerminal(holonBin, ['approve', id, '--state', stateDir]);
  await terminal.shown(/\[y\/N\]/);
  terminal.type('y\n');
  return terminal.done;
}

async function setUp(store: DemoStore, { out, stateDir, examples }: Demo): Promise<void> {
  await fund(store, 'demo', '5', 'EUR');
  out('$ holon fund demo 5                      → demo holds 5.00 EUR');
  await setFx(store, 'USD', 'EUR', '0.92');
  out('$ holon fx USD EUR 0.92                  → 1 USD = 0.92 EUR');
  await createMandate(store, systemClock, MANDATE, {
    approval_threshold: '0.50',
    budget: { total: '5.00', per_day: '4.00', per_call: '3.50' },
    capabilities: [{ name: 'market.call', params: { capabilities: ['extraction.*', 'pipeline.*'] } }],
    data: { regions: ['EU'], retention_days: 30, training: false },
    grantee: { slug: 'sandbox', name: 'Coding agent (sandbox)', role: 'coding agent', manager: 'demo' },
  });
  out(
    `$ holon mandate create ${MANDATE} --threshold 0.50 --total 5 --per-day 4 --per-call 3.50 \\\n` +
      "    --capabilities 'extraction.*,pipeline.*' --regions EU --retention 30 --training no",
  );
  const entries = await readCatalog(path.join(examples, 'catalog.json'));
  for (const e of entries) await addAgent(store, systemClock, e.manifest, e.endpoint, 'demo-catalog');
  out(`$ holon agents add examples/catalog.json  → ${entries.length} agents (real local MCP servers)`);
  const files = copyExampleFiles(examples, stateDir);
  out(`   invoices copied to ${path.relative(stateDir, files)}/ → holon://files/examples/…`);
}

/**
 * Until the pipeline call's approval appears, then the human answers it from their own terminal (another
 * process): resolves with its id once `holon approve` has approved it.
 */
function approvedByTheHuman(demo: Demo, watcher: DemoStore): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const check = (): void => {
      const a = Object.values(watcher.state.approvals).find(
        (x: Approval) => x.status === 'pending' && x.subject.kind === 'agent_call' && x.subject.agent === 'holon-labs/invoice-pipeline',
      );
      if (!a) return;
      unsubscribe();
      demo.out(`\n   [the human's terminal — another process]\n   $ holon approve ${a.id}`);
      approveFromTerminal(demo.holonBin, demo.stateDir, a.id).then((text) => {
        demo.out(indent(text, '   │ '));
        resolve(a.id);
      }, reject);
    };
    const unsubscribe = watcher.subscribe(check);
    check();
  });
}

async function play(demo: Demo, client: Client): Promise<string[]> {
  const { out } = demo;
  const tools = await client.listTools();
  out(`   MCP ${client.getNegotiatedProtocolVersion() ?? 'unknown'} · tools: ${tools.tools.map((t) => t.name).join(', ')}`);
  type Structured = Record<string, unknown>;
  type Options = Parameters<Client['callTool']>[1];
  const call = async (name: string, args: Structured, label: string, options: Options = {}): Promise<Structured> => {
    section(out, label);
    out(`→ ${name} ${JSON.stringify(args)}`);
    const r = await client.callTool({ name, arguments: args }, options);
    out(indent(textOf(r)));
    return (r.structuredContent ?? {}) as Record<string, unknown>;
  };

  await call('search_agents', { capability: 'extraction.*' }, '1. Search');
  await call('get_agent', { agent: 'acme/table-extract' }, '2. Inspect the best-ranked agent');
  const facture = { file: 'holon://files/examples/facture.pdf' };
  const small = await call('call_agent', { capability: 'extraction.table', input: facture }, '3. A call under the threshold runs at once');
  if (small['status'] !== 'succeeded') throw new Error(`the small call ended ${String(small['status'])}`);

  // The human watches for the approval in another process and answers it from their own terminal.
  const watcher = openState(demo.stateDir, { clock: systemClock, logger: silentLogger });
  try {
    const approved = approvedByTheHuman(demo, watcher);
    approved.catch(() => {});
    const files = ['invoice-01.pdf', 'invoice-02.pdf', 'invoice-03.pdf', 'invoice-04.pdf'].map((f) => `holon://files/examples/${f}`);
    let waited = false;
    const pipeline = { agent: 'holon-labs/invoice-pipeline', input: { files } };
    const big = await call('call_agent', pipeline, '4. A call over the threshold waits for the human', {
      timeout: 180_000,
      resetTimeoutOnProgress: true,
      onprogress: (p) => {
        if (!waited) out(`   … ${p.message ?? 'waiting for the human'}`);
        waited = true;
      },
    });
    await approved;
    if (big['status'] !== 'succeeded') throw new Error(`the pipeline call ended ${String(big['status'])}`);

    const tree = await call('get_receipt', { receipt: big['receipt'] }, '5. The receipt tree');
    const children = ((tree['tree'] as { children?: unknown[] } | undefined)?.children ?? []).length;
    await call('get_budget', {}, '6. What is left');
    const journal = path.join(demo.stateDir, JOURNAL_FILE);
    return [
      `   ${children} delegated calls under ${String(big['receipt'])}; every event is in ${journal}.`,
      `   Try: holon receipts ${demo.at}   ·   holon verify ${demo.at}`,
    ];
  } finally {
    watcher.close();
  }
}

export const session: Scenario = {
  setUp,
  async play(demo) {
    section(demo.out, `The agent connects: holon mcp --mandate ${MANDATE} (stdio)`);
    const agent = { mandate: MANDATE, client: 'holon-demo-agent', args: ['--approval-wait', '120'] };
    return withAgent(demo, agent, (client) => play(demo, client), 'server log');
  },
};
