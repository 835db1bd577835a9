import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Approval } from '../../core/approvals/model.ts';
import { copyExampleFiles } from '../../core/demoFiles.ts';
import { silentLogger, systemClock } from '../../core/deps.ts';
import { HolonError } from '../../core/errors.ts';
import { setFx } from '../../core/fx.ts';
import { openState } from '../../core/holon.ts';
import { JOURNAL_FILE } from '../../core/journal.ts';
import { createMandate } from '../../core/mandates.ts';
import { addAgent, readCatalog } from '../../core/market/catalog.ts';
import { DEMO_OFFICE, seedOffice } from '../../core/office/demoOffice.ts';
import { fund } from '../../core/spend.ts';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { createWallet } from '../../core/wallet.ts';
import { HOLON_VERSION } from '../../core/version.ts';
import type { Command } from '../args.ts';

const MARKER = '.holon-demo';
const MANDATE = 'demo/sandbox';
/** The mandate that buys from sellers under terms (seed 002), with the demo's wallet. */
const BUYER = 'demo/buyer';
/** The example seller's payee on the local test chain (examples/sellers/x402Seller.ts). */
const EXAMPLE_PAYEE = 'eip155:31337:0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** The demo catalog, beside the bundle (dist/../examples) or the sources (src/cli/commands/../../../examples). */
function examplesDir(): string {
  const candidates = [path.resolve(__dirname, '..', 'examples'), path.resolve(__dirname, '..', '..', '..', 'examples')];
  const found = candidates.find((d) => fs.existsSync(path.join(d, 'catalog.json')));
  if (!found) throw new HolonError('not_found', `the demo catalog (examples/catalog.json) was not found near ${__dirname}`);
  return found;
}

/** A fresh state folder: a new temporary one, or DIR if it is empty or holds an earlier demo's state. */
function freshState(dir: string | undefined): string {
  if (!dir) return fs.mkdtempSync(path.join(os.tmpdir(), 'holon-demo-'));
  const abs = path.resolve(dir);
  if (fs.existsSync(abs) && fs.readdirSync(abs).length > 0) {
    if (!fs.existsSync(path.join(abs, MARKER))) throw new HolonError('conflict', `${abs} is not empty and holds no earlier demo; choose an empty folder`);
    fs.rmSync(abs, { recursive: true, force: true });
  }
  fs.mkdirSync(abs, { recursive: true });
  return abs;
}

const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

function section(out: (t: string) => void, title: string): void {
  out(`\n── ${title} ${'─'.repeat(Math.max(0, 72 - title.length))}`);
}

function indent(text: string, pad = '   '): string {
  return text
    .split('\n')
    .map((l) => pad + l)
    .join('\n');
}

/** The human, in another terminal: `holon approve ID`, given a real TTY by `script`, answering "y". */
function approveFromTerminal(holonBin: string, stateDir: string, id: string): Promise<string> {
  if (spawnSync('script', ['--version'], { stdio: 'ignore' }).status !== 0) {
    throw new HolonError('not_found', 'the demo needs `script` (util-linux) to give `holon approve` a terminal');
  }
  const command = [process.execPath, holonBin, 'approve', id, '--state', stateDir].map(shq).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'dumb' } });
    let output = '';
    let answered = false;
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (!answered && /\[y\/N\]/.test(output)) {
        answered = true;
        child.stdin.write('y\n');
      }
    });
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      child.stdin.end();
      const clean = output.replace(/\r/g, '').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').trimEnd();
      if (code === 0) resolve(clean);
      else reject(new Error(`holon approve exited ${code}:\n${clean}`));
    });
  });
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}

const demoCmd: Command = {
  name: 'demo',
  usage: 'demo [--state DIR]',
  summary: "Plays a typical session on a fresh state: funds demo with 5 EUR, creates demo/sandbox, and drives the MCP server with a real client, approving the big call from the CLI; then buys under terms, and leaves an office of three colleagues (demo/lead, demo/ada, demo/bob) to try.",
  options: {},
  positionals: [0, 0],
  async run(ctx) {
    const started = Date.now();
    const out = ctx.out;
    const holonBin = path.resolve(process.argv[1] ?? '');
    if (!holonBin.endsWith('.js')) throw new HolonError('invalid_input', 'run the demo from the built CLI: node dist/holon.js demo');
    const stateDir = freshState(typeof ctx.opts['state'] === 'string' ? ctx.stateDir : undefined);
    fs.writeFileSync(path.join(stateDir, MARKER), 'state made by `holon demo`; the next demo may replace it\n');
    const examples = examplesDir();
    out(`Holon demo — state in ${stateDir}`);

    section(out, 'The human sets up (CLI)');
    const store = openState(stateDir, { clock: systemClock, logger: silentLogger });
    try {
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
      out(`$ holon mandate create ${MANDATE} --threshold 0.50 --total 5 --per-day 4 --per-call 3.50 \\\n    --capabilities 'extraction.*,pipeline.*' --regions EU --retention 30 --training no`);
      const entries = await readCatalog(path.join(examples, 'catalog.json'));
      for (const e of entries) await addAgent(store, systemClock, e.manifest, e.endpoint, 'demo-catalog');
      out(`$ holon agents add examples/catalog.json  → ${entries.length} agents (real local MCP servers)`);
      const files = copyExampleFiles(examples, stateDir);
      out(`   invoices copied to ${path.relative(stateDir, files)}/ → holon://files/examples/…`);
      await setFx(store, 'USDC', 'EUR', '0.92');
      out('$ holon fx USDC EUR 0.92                 → 1 USDC = 0.92 EUR');
      const address = createWallet(stateDir);
      out(`$ holon wallet create                    → ${address} (a demo wallet: the local seller's chain moves nothing)`);
      await createMandate(store, systemClock, BUYER, {
        toolsets: ['terms'],
        approval_threshold: '0.50',
        budget: { total: '2.00', per_day: null, per_call: null },
        capabilities: [{ name: 'pay', params: { payees: [EXAMPLE_PAYEE] } }],
        grantee: { slug: 'buyer', name: 'Buying agent', role: 'buyer', manager: 'demo' },
      });
      out(`$ holon mandate create ${BUYER} --toolsets terms --threshold 0.50 --total 2 (pay: the example seller)`);
      await store.checkpoint();
    } finally {
      store.close();
    }

    section(out, `The agent connects: holon mcp --mandate ${MANDATE} (stdio)`);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [holonBin, 'mcp', '--mandate', MANDATE, '--state', stateDir, '--approval-wait', '120'],
      stderr: 'pipe',
    });
    let serverLog = '';
    transport.stderr?.on('data', (d: Buffer) => (serverLog += d.toString()));
    const client = new Client({ name: 'holon-demo-agent', version: HOLON_VERSION });
    const watcher = openState(stateDir, { clock: systemClock, logger: silentLogger });
    try {
      await client.connect(transport);
      const tools = await client.listTools();
      out(`   tools: ${tools.tools.map((t) => t.name).join(', ')}`);
      const call = async (name: string, args: Record<string, unknown>, label: string, options: Parameters<Client['callTool']>[2] = {}): Promise<Record<string, unknown>> => {
        section(out, label);
        out(`→ ${name} ${JSON.stringify(args)}`);
        const r = await client.callTool({ name, arguments: args }, undefined, options);
        out(indent(textOf(r)));
        return (r.structuredContent ?? {}) as Record<string, unknown>;
      };

      await call('search_agents', { capability: 'extraction.*' }, '1. Search');
      await call('get_agent', { agent: 'acme/table-extract' }, '2. Inspect the best-ranked agent');
      const small = await call('call_agent', { capability: 'extraction.table', input: { file: 'holon://files/examples/facture.pdf' } }, '3. A call under the threshold runs at once');
      if (small['status'] !== 'succeeded') throw new Error(`the small call ended ${String(small['status'])}`);

      // The human watches for the approval in another process and answers it from their own terminal.
      const approved = new Promise<string>((resolve, reject) => {
        const check = (): void => {
          const a = Object.values(watcher.state.approvals).find((x: Approval) => x.status === 'pending' && x.subject.kind === 'agent_call' && x.subject.agent === 'holon-labs/invoice-pipeline');
          if (!a) return;
          unsubscribe();
          out(`\n   [the human's terminal — another process]\n   $ holon approve ${a.id}`);
          approveFromTerminal(holonBin, stateDir, a.id).then((text) => {
            out(indent(text, '   │ '));
            resolve(a.id);
          }, reject);
        };
        const unsubscribe = watcher.subscribe(check);
        check();
      });
      approved.catch(() => {});
      const files = ['invoice-01.pdf', 'invoice-02.pdf', 'invoice-03.pdf', 'invoice-04.pdf'].map((f) => `holon://files/examples/${f}`);
      let waited = false;
      const big = await call('call_agent', { agent: 'holon-labs/invoice-pipeline', input: { files } }, '4. A call over the threshold waits for the human', {
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
      await buyUnderTerms(out, holonBin, stateDir);
      const windowApproval = await office(out, holonBin, stateDir);
      section(out, 'Done');
      out(`   ${children} delegated calls under ${String(big['receipt'])}; every event is in ${path.join(stateDir, JOURNAL_FILE)}.`);
      out(`   Try: holon receipts --state ${shq(stateDir)}   ·   holon verify --state ${shq(stateDir)}`);
      out(`   Terms: node ${shq(path.join(path.dirname(holonBin), 'examples', 'sellers', 'seller.mjs'))} starts a seller; then`);
      out(`          holon mcp --mandate ${BUYER} --state ${shq(stateDir)} --allow-private-sellers`);
      out(`   Office: holon mcp --mandate ${DEMO_OFFICE.lead} --state ${shq(stateDir)} --workspace .   (or demo/ada, demo/bob)`);
      out(`           holon approve ${windowApproval} --state ${shq(stateDir)}   opens bob's office.read for an hour`);
      out(`   ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return 0;
    } catch (err) {
      if (serverLog) process.stderr.write(`server log:\n${serverLog}\n`);
      throw err;
    } finally {
      watcher.close();
      await client.close();
    }
  },
};

/**
 * Section 7: an agent buys from a seller that advertises its terms: the example seller runs as its own
 * process; a second server, for the buyer mandate, confirms H and pays with the demo's wallet; the
 * seller checks the payment on its own and serves.
 */
async function buyUnderTerms(out: (t: string) => void, holonBin: string, stateDir: string): Promise<void> {
  section(out, `7. Terms: confirm the seller's ATR hash, then pay (holon mcp --mandate ${BUYER})`);
  const seller = spawn(process.execPath, [path.join(path.dirname(holonBin), 'examples', 'sellers', 'seller.mjs')], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    let text = '';
    const offer = await new Promise<{ resource: string; atrHash: string; document: unknown }>((resolve, reject) => {
      seller.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        try {
          resolve(JSON.parse(text) as { resource: string; atrHash: string; document: unknown });
        } catch {
          // Not all of it yet.
        }
      });
      seller.once('exit', () => reject(new Error('the example seller stopped')));
    });
    out(`   a seller at ${offer.resource} answers 402, advertising H = ${offer.atrHash}`);
    const transport = new StdioClientTransport({ command: process.execPath, args: [holonBin, 'mcp', '--mandate', BUYER, '--state', stateDir, '--allow-private-sellers'], stderr: 'pipe' });
    transport.stderr?.on('data', () => {});
    const buyer = new Client({ name: 'holon-demo-buyer', version: HOLON_VERSION });
    await buyer.connect(transport);
    try {
      out(`→ atr_transact {"pairing":"x402/exact/eip155","document":…}`);
      const r = await buyer.callTool({ name: 'atr_transact', arguments: { pairing: 'x402/exact/eip155', document: offer.document } });
      const paid = (r.structuredContent ?? {}) as { atrHash?: string; atr?: { utf8: string | null }; signed?: unknown; decline?: { code: string } };
      if (r.isError || !paid.signed) throw new Error(`atr_transact declined: ${paid.decline?.code ?? 'unknown'}`);
      out(indent(`H confirmed: ${paid.atrHash ?? ''}\nterms: ${(paid.atr?.utf8 ?? '').trim()}\nsigned by the wallet, its nonce H`));
      const res = await fetch(offer.resource, { headers: { 'payment-signature': encodePaymentSignatureHeader(paid.signed as never) } });
      out(`   the seller checks the payment itself and answers ${res.status}: ${(await res.text()).slice(0, 80)}`);
    } finally {
      await buyer.close();
    }
  } finally {
    seller.kill();
  }
}

/**
 * Section 8: the office (seed 004). The human adds three colleagues — mandates with the office toolset —
 * and each talks to its own `holon mcp` server: lead mails ada, ada reads it with the office's header,
 * bob is refused a tool he lacks and asks a human for it. Returns bob's pending approval, for the human.
 */
async function office(out: (t: string) => void, holonBin: string, stateDir: string): Promise<string> {
  section(out, '8. The office: the mandates are colleagues (holon mcp --mandate demo/lead …)');
  const store = openState(stateDir, { clock: systemClock, logger: silentLogger });
  try {
    await seedOffice(store, systemClock);
    await store.checkpoint();
  } finally {
    store.close();
  }
  out(`   the human adds ${DEMO_OFFICE.lead} (coordinator), ${DEMO_OFFICE.ada} (engineer; may mail lead) and ${DEMO_OFFICE.bob} (writer; reads mail, may ask)`);
  const connect = async (mandate: string): Promise<Client> => {
    // These calls publish nothing; the state folder as workspace keeps the servers off the user's own folder.
    const transport = new StdioClientTransport({ command: process.execPath, args: [holonBin, 'mcp', '--mandate', mandate, '--state', stateDir, '--workspace', stateDir], stderr: 'pipe' });
    transport.stderr?.on('data', () => {});
    const c = new Client({ name: `holon-demo-${mandate.split('/')[1] ?? 'agent'}`, version: HOLON_VERSION });
    await c.connect(transport);
    return c;
  };
  const [lead, ada, bob] = await Promise.all([connect(DEMO_OFFICE.lead), connect(DEMO_OFFICE.ada), connect(DEMO_OFFICE.bob)]);
  try {
    const call = async (who: Client, mandate: string, name: string, args: Record<string, unknown>): Promise<{ text: string; structured: Record<string, unknown>; isError: boolean }> => {
      out(`[${mandate}] → ${name} ${JSON.stringify(args)}`);
      const r = await who.callTool({ name, arguments: args });
      return { text: textOf(r), structured: (r.structuredContent ?? {}) as Record<string, unknown>, isError: r.isError === true };
    };
    const sent = await call(lead, DEMO_OFFICE.lead, 'mail_send', { to: 'ada', subject: 'Footer links', body: 'The footer links on the site are broken; can you fix them?' });
    if (sent.isError) throw new Error(`mail_send failed: ${sent.text}`);
    out(indent(`ada#${String(sent.structured['number'])} is new in ada's inbox`));
    const read = await call(ada, DEMO_OFFICE.ada, 'mail_read', { number: sent.structured['number'] });
    if (read.isError) throw new Error(`mail_read failed: ${read.text}`);
    out(indent(`${String(read.structured['header'])}\n${String(read.structured['body'])}`));
    const refused = await call(bob, DEMO_OFFICE.bob, 'colleagues_list', {});
    if (!refused.isError) throw new Error('colleagues_list was not refused to bob');
    out(indent(refused.text));
    const asked = await call(bob, DEMO_OFFICE.bob, 'approval_request', { title: 'See who is in the office', reason: 'to know whom to ask about the footer copy', kind: 'capability.window', capability: 'office.read', hours: 1 });
    if (asked.isError) throw new Error(`approval_request failed: ${asked.text}`);
    const id = String(asked.structured['approval']);
    out(indent(`${id} pending: bob carries on; a human decides it in the Holon view or with holon approve`));
    out('   each call above, allowed or refused, is ledgered with a safe summary: a body\'s length, never the body');
    return id;
  } finally {
    await Promise.allSettled([lead.close(), ada.close(), bob.close()]);
  }
}

export const commands: Command[] = [demoCmd];
