import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Approval } from '../../core/approvals/model.ts';
import { CAP } from '../../core/capabilities.ts';
import { copyExampleFiles } from '../../core/demoFiles.ts';
import { silentLogger, systemClock } from '../../core/deps.ts';
import { HolonError } from '../../core/errors.ts';
import { setFx } from '../../core/money/fx.ts';
import { openState } from '../../core/holon.ts';
import { JOURNAL_FILE } from '../../core/store/file/journal.ts';
import { createMandate } from '../../core/mandates.ts';
import { addAgent, readCatalog } from '../../core/market/catalog.ts';
import { DEMO_OFFICE, seedOffice } from '../../core/office/demoOffice.ts';
import { fund } from '../../core/money/spend.ts';
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
/** The mandate that pays another Holon account, buys from the local merchants and remembers (seed 003). */
const SHOPPER = 'demo/shopper';
/** The second Holon account the shopper pays: a design studio. */
const STUDIO = 'studio';

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

/** A bundled example (dist/examples/…) started as its own process, and the JSON it prints when it is ready. */
interface Example<T> {
  ready: T;
  /** Stops it and waits for it to exit. */
  stop(): Promise<void>;
}

async function startExample<T>(holonBin: string, file: string): Promise<Example<T>> {
  const child = spawn(process.execPath, [path.join(path.dirname(holonBin), 'examples', file)], { stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await exited;
  };
  try {
    let text = '';
    const ready = await new Promise<T>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        try {
          resolve(JSON.parse(text) as T);
        } catch {
          // Not all of it yet.
        }
      });
      child.once('error', reject);
      child.once('exit', () => reject(new Error(`the example ${file} stopped`)));
    });
    return { ready, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}

const demoCmd: Command = {
  name: 'demo',
  usage: 'demo [--state DIR]',
  summary:
    "Plays a typical session on a fresh state: funds demo with 5 EUR, creates demo/sandbox, and drives the MCP server with a real client, approving the big call from the CLI; then buys under terms, leaves an office of three colleagues (demo/lead, demo/ada, demo/bob) to try, and a shopper (demo/shopper) that pays, buys from the local merchants and remembers, with one payment left for you to approve.",
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
    // A team member's shell may name the team's store: the demo's money never goes there.
    const at = `--state ${shq(stateDir)}${ctx.store !== undefined ? " --store ''" : ''}`;
    if (ctx.store !== undefined) out("   The demo keeps its own journal there, never the team store (--store, HOLON_STORE); the commands it suggests say --store '' to read it.");

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
      const parked = await shopper(out, holonBin, stateDir, at);
      section(out, 'Done');
      out(`   ${children} delegated calls under ${String(big['receipt'])}; every event is in ${path.join(stateDir, JOURNAL_FILE)}.`);
      out(`   Try: holon receipts ${at}   ·   holon verify ${at}`);
      out(`   Terms: node ${shq(path.join(path.dirname(holonBin), 'examples', 'sellers', 'seller.mjs'))} starts a seller; then`);
      out(`          holon mcp --mandate ${BUYER} ${at} --allow-private-sellers`);
      out(`   Office: holon mcp --mandate ${DEMO_OFFICE.lead} ${at} --workspace .   (or demo/ada, demo/bob)`);
      out(`           holon approve ${windowApproval} ${at}   opens bob's office.read for an hour`);
      out(`   Money: node ${shq(path.join(path.dirname(holonBin), 'examples', 'merchants', 'merchants.mjs'))} starts the merchants and prints their --merchant flag; then`);
      out(`          holon mcp --mandate ${SHOPPER} ${at} --merchant stationery=acp:URL,hardware=ucp:URL`);
      out(`          holon approve ${parked.approval} ${at}   releases the studio's final payment (until ${parked.expires_at})`);
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
  const seller = await startExample<{ resource: string; atrHash: string; document: unknown }>(holonBin, 'sellers/seller.mjs');
  try {
    const offer = seller.ready;
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
    await seller.stop();
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

/** What section 9 leaves for the human: the parked payment's approval, and until when it can be given. */
interface ParkedPayment {
  approval: string;
  expires_at: string;
}

type MoneyOut = { amount: string; currency: string };
const fmtMoney = (m: MoneyOut | null | undefined): string => (m ? `${m.amount} ${m.currency}` : 'unknown');

/**
 * Section 9 (seed 003): a mandate with the money, commerce, memory and records toolsets talks to its own
 * `holon mcp`, with the two local merchants as its own process: it reads its authority, simulates then
 * pays the studio (one key), parks a payment above the threshold and finds it again, buys at the ACP
 * merchant's price, and remembers what it paid. The parked payment is left for the human.
 */
async function shopper(out: (t: string) => void, holonBin: string, stateDir: string, at: string): Promise<ParkedPayment> {
  section(out, `9. Money, commerce, memory and records (holon mcp --mandate ${SHOPPER})`);
  const store = openState(stateDir, { clock: systemClock, logger: silentLogger });
  try {
    // Room for what the shopper does here and for what you try with it afterwards.
    await fund(store, 'demo', '5', 'EUR');
    await fund(store, STUDIO, '1', 'EUR');
    await createMandate(store, systemClock, SHOPPER, {
      toolsets: ['money', 'commerce', 'memory', 'records'],
      approval_threshold: '1.50',
      budget: { total: '8.00', per_day: null, per_call: '2.50' },
      capabilities: [
        { name: CAP.pay, params: { payees: [`acct:${STUDIO}`] } },
        { name: CAP.commerceBuy, params: { merchants: ['stationery', 'hardware'] } },
      ],
      grantee: { slug: 'shopper', name: 'Purchasing agent', role: 'purchasing agent', manager: 'demo' },
    });
  } finally {
    store.close();
  }
  out('$ holon fund demo 5                      → 5.00 EUR more on demo, for the shopper');
  out(`$ holon fund ${STUDIO} 1                    → ${STUDIO} holds 1.00 EUR: a second Holon account, a design studio`);
  out(`$ holon mandate create ${SHOPPER} --toolsets money,commerce,memory,records --threshold 1.50 --total 8 --per-call 2.50 \\\n    --payees acct:${STUDIO} --grant '{"commerce.buy":{"merchants":["stationery","hardware"]}}'`);
  const merchants = await startExample<{ flag: string; acp: { url: string }; ucp: { url: string } }>(holonBin, 'merchants/merchants.mjs');
  try {
    const { flag, acp, ucp } = merchants.ready;
    out(`$ node dist/examples/merchants/merchants.mjs → an ACP stationery shop on ${acp.url} (EUR), a UCP hardware business on ${ucp.url} (USD)`);
    const transport = new StdioClientTransport({ command: process.execPath, args: [holonBin, 'mcp', '--mandate', SHOPPER, '--state', stateDir, ...flag.split(' ')], stderr: 'pipe' });
    let log = '';
    transport.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    const agent = new Client({ name: 'holon-demo-shopper', version: HOLON_VERSION });
    try {
      await agent.connect(transport);
      const call = async <T = Record<string, unknown>>(name: string, args: Record<string, unknown>, expectError = false): Promise<T> => {
        out(`→ ${name} ${JSON.stringify(args)}`);
        const r = await agent.callTool({ name, arguments: args });
        if ((r.isError === true) !== expectError) throw new Error(`${name} ${expectError ? 'succeeded' : 'failed'}: ${textOf(r)}`);
        return (r.structuredContent ?? {}) as T;
      };

      const authority = await call<{ approval_threshold: MoneyOut; caps: { cap: string; limit: MoneyOut; remaining?: MoneyOut }[]; capabilities: { name: string }[] }>('get_mandate', {});
      const caps = authority.caps.map((c) => `${c.cap} ${fmtMoney(c.limit)}${c.cap === 'per_call' ? '' : c.remaining ? ` (${fmtMoney(c.remaining)} left)` : ' (left unknown)'}`).join(', ');
      out(indent(`${caps}; above ${fmtMoney(authority.approval_threshold)} a human approves; may ${authority.capabilities.map((c) => c.name).join(', ')}`));

      const sketch = { payee: `acct:${STUDIO}`, amount: '0.40', currency: 'EUR', purpose: 'Logo sketches, first round', idempotency_key: 'studio-sketches-1' };
      const sim = await call<{ decision: string; authorizes: boolean }>('simulate', { intent: sketch });
      out(indent(`${sim.decision} (authorizes: ${String(sim.authorizes)}): an answer, not a grant — nothing settled, the key still unused`));
      const paid = await call<{ intent: { status: string }; receipt: { id: string; rail: string; charged: MoneyOut } }>('pay', { intent: sketch });
      out(indent(`${paid.intent.status} with the same key: ${paid.receipt.id}, ${fmtMoney(paid.receipt.charged)} on the ${paid.receipt.rail} rail to acct:${STUDIO}`));

      const final = { payee: `acct:${STUDIO}`, amount: '1.80', currency: 'EUR', purpose: 'Logo, final files', idempotency_key: 'studio-final-1' };
      const parked = await call<{ code: string; action: string; data: { intent?: string; approval: string; expires_at: string } }>('pay', { intent: final }, true);
      if (parked.code !== 'approval.pending') throw new Error(`the payment above the threshold answered ${parked.code}`);
      out(indent(`${parked.code} (${parked.action}): intent ${parked.data.intent ?? '?'} parked, its money held; approval ${parked.data.approval} is the human's`));
      const pending = await call<{ intents: { intent: string; idempotency_key: string; amount: MoneyOut; pending: { approval: string } | null }[] }>('list_intents', { status: 'pending' });
      for (const i of pending.intents) out(indent(`${i.intent} ${i.idempotency_key} ${fmtMoney(i.amount)} waits for ${i.pending?.approval ?? '?'}`));

      const lines = [{ product: 'ink-refill', quantity: 2 }];
      const cart = await call<{ status: string; lines: { title: string | null; quantity: number; unit_price: MoneyOut }[]; total: MoneyOut | null }>('quote', { merchant: 'stationery', lines });
      out(indent(`${cart.status}: ${cart.lines.map((l) => `${l.quantity} × ${l.title ?? '?'} at ${fmtMoney(l.unit_price)}`).join(', ')}; total ${fmtMoney(cart.total)}, the merchant's (VAT included)`));
      const order = await call<{ id: string; total: MoneyOut; charged: MoneyOut }>('buy', { merchant: 'stationery', lines, replay_key: 'ink-refills-1' });
      out(indent(`order ${order.id} completed at ${fmtMoney(order.total)}; the mandate paid ${fmtMoney(order.charged)}`));

      const noted = await call<{ id: string; system_seq: number }>('memory_remember', { key: 'suppliers/stationery', content: `Ink refills at the stationery shop: ${fmtMoney(order.total)} for 2, VAT included (order ${order.id}).` });
      out(indent(`${noted.id} recorded at journal #${noted.system_seq}`));
      const recalled = await call<{ snapshot: { system_seq: number }; records: { key: string; content: string }[] }>('memory_recall', { prefix: 'suppliers/' });
      out(indent(`snapshot at #${recalled.snapshot.system_seq}: ${recalled.records.map((r) => `${r.key} — ${r.content}`).join('; ')}`));
      out(`   the studio's final payment waits for you: holon approve ${parked.data.approval} ${at}`);
      return { approval: parked.data.approval, expires_at: parked.data.expires_at };
    } catch (err) {
      if (log) process.stderr.write(`${SHOPPER} server log:\n${log}\n`);
      throw err;
    } finally {
      await agent.close();
    }
  } finally {
    await merchants.stop();
  }
}

export const commands: Command[] = [demoCmd];
