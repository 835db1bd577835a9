/**
 * The worlds the bench measures: seeded state folders, journals with many prior calls written as the
 * gateway writes them, and MCP clients of Holon and of the echo baseline over both transports.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { Clock } from '../src/core/kernel/deps.ts';
import { silentLogger, systemClock } from '../src/core/kernel/deps.ts';
import { openState } from '../src/core/holon.ts';
import type { EventStore, JournalEvent, NewEvent } from '../src/core/store/store.ts';
import { eventHash, parseEventLine, seal } from '../src/core/store/store.ts';
import { JOURNAL_FILE } from '../src/core/store/file/journal.ts';
import { loadOrCreateSigner } from '../src/core/store/keys.ts';
import type { AgentEntry, Manifest, Receipt } from '../src/core/kernel/model.ts';
import type { ReceiptEvents } from '../src/core/market/receipts.ts';
import type { HolonState } from '../src/core/fold/state.ts';
import { newId } from '../src/core/kernel/ids.ts';
import type { Runtime } from '../src/server/runtime.ts';
import { openRuntime } from '../src/server/runtime.ts';
import { connect, FACTURE, HOLON_BIN, MANDATE, ROOT, seedDemo } from '../test/helpers.ts';
import { createEchoServer } from './echoServer.ts';

/** The cheap agent under the threshold (0.035 EUR flat, threshold 0.50 EUR). */
export const AGENT = 'lena/table-extract-fr';
/** What every call_agent in the bench asks. */
export const CALL_ARGS = { agent: AGENT, input: { file: FACTURE } };

/** One call_agent; anything but a success stops the bench. */
export async function callAgent(client: Client): Promise<void> {
  const r = await client.callTool({ name: 'call_agent', arguments: CALL_ARGS });
  const status = (r.structuredContent as { status?: string } | undefined)?.status;
  if (status !== 'succeeded') throw new Error(`call_agent did not succeed: ${JSON.stringify(r.content)}`);
}

/**
 * The floor of a durable append as the journal makes it: one descriptor kept open, a write, fdatasync.
 * What a paid call must at least pay for its hold to be on disk before the agent runs.
 */
export function durableAppender(file: string): { append: (text: string) => void; close: () => void } {
  const fd = fs.openSync(file, 'a');
  return {
    append: (text) => {
      fs.writeSync(fd, text);
      fs.fdatasyncSync(fd);
    },
    close: () => fs.closeSync(fd),
  };
}

/** Temporary folders under os.tmpdir(), all removed by `removeAll`. */
export class TempDirs {
  private readonly dirs: string[] = [];
  make(label: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `holon-bench-${label}-`));
    this.dirs.push(dir);
    return dir;
  }
  removeAll(): void {
    for (const d of this.dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  }
}

/**
 * The demo world (funds, rate, demo/sandbox, catalog, example files) with a budget large enough for
 * every call of the bench and of the generated history; no per-day or per-call limit gets in the way.
 */
export async function seedState(dir: string, clock: Clock = systemClock): Promise<void> {
  const store = openState(dir, { clock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
  try {
    await seedDemo(store, clock, { funds: '10000000', total: '10000000', perDay: null, perCall: null, stateDir: dir });
  } finally {
    store.close();
  }
}

/**
 * A real call's journal events, as the gateway wrote them: the template for generated calls. A call is
 * two transactions: the decision (the hold, the receipt started) and the settlement (the receipt
 * finished, the hold settled).
 */
export interface CallTemplate {
  /** The receipt id in the template, replaced by a new one in each generated call. */
  receipt: string;
  started: ReceiptEvents['call.started'];
  finished: ReceiptEvents['call.finished'];
  /** The events of each transaction, in order. */
  decision: NewEvent[];
  settlement: NewEvent[];
  /** Bytes each transaction appends (its lines, JSON plus newline). */
  decisionBytes: number;
  settlementBytes: number;
}

/** The last finished call in a state folder's journal, with every event that names its receipt. */
export function readCallTemplate(dir: string): CallTemplate {
  const events = fs
    .readFileSync(path.join(dir, JOURNAL_FILE), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((line) => ({ line, e: parseEventLine(line) }));
  const finished = [...events].reverse().find((x) => x.e?.type === 'call.finished')?.e;
  if (!finished) throw new Error(`no call in ${dir}`);
  const receipt = (finished.data as ReceiptEvents['call.finished']).receipt;
  const mine = events.filter((x) => x.e && x.line.includes(`"${receipt}"`));
  const started = mine.find((x) => x.e?.type === 'call.started')?.e;
  if (!started) throw new Error(`no start of ${receipt} in ${dir}`);
  const cut = mine.findIndex((x) => x.e?.type === 'call.finished');
  const plain = (x: (typeof mine)[number]): NewEvent => ({ type: x.e?.type ?? '', data: x.e?.data });
  const bytes = (xs: typeof mine): number => xs.reduce((n, x) => n + Buffer.byteLength(x.line) + 1, 0);
  return {
    receipt,
    started: started.data as ReceiptEvents['call.started'],
    finished: finished.data as ReceiptEvents['call.finished'],
    decision: mine.slice(0, cut).map(plain),
    settlement: mine.slice(cut).map(plain),
    decisionBytes: bytes(mine.slice(0, cut)),
    settlementBytes: bytes(mine.slice(cut)),
  };
}

/** The events of one more call like the template: same shape and sizes, a new receipt id and times. */
export function callEvents(tpl: CallTemplate, id: string, startedAt: string): { decision: NewEvent[]; settlement: NewEvent[] } {
  const renamed = (e: NewEvent): NewEvent => {
    const data = JSON.parse(JSON.stringify(e.data).split(`"${tpl.receipt}"`).join(`"${id}"`)) as Record<string, unknown>;
    if (e.type === 'call.started') (data['receipt'] as Receipt).started_at = startedAt;
    return { type: e.type, data };
  };
  return { decision: tpl.decision.map(renamed), settlement: tpl.settlement.map(renamed) };
}

/**
 * Appends prior calls to a seeded journal, each the hash-linked events of a real call cloned, in its two
 * transactions (the decision, then the settlement) each sealed with the installation key, exactly as
 * the gateway would have written them (minutes apart, in the past). Stops at `events` events or `calls` calls.
 */
export function appendPriorCalls(dir: string, tpl: CallTemplate, until: { events?: number; calls?: number }, startMs: number): PriorCalls {
  const file = path.join(dir, JOURNAL_FILE);
  const existing = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => parseEventLine(l));
  let seq = 0;
  let prev = '';
  for (const e of existing) {
    if (!e) throw new Error(`unreadable journal ${file}`);
    seq = e.seq;
    prev = e.hash;
  }
  const signer = loadOrCreateSigner(dir);
  const fd = fs.openSync(file, 'a');
  let chunk: string[] = [];
  let calls = 0;
  const flush = (): void => {
    if (chunk.length > 0) fs.writeSync(fd, chunk.join('\n') + '\n');
    chunk = [];
  };
  /** One transaction: its events linked after the last, the last one sealed. */
  const push = (events: NewEvent[], time: string): void => {
    const tx: JournalEvent[] = [];
    for (const n of events) {
      seq += 1;
      const base = { seq, time, type: n.type, data: n.data, prev };
      const e: JournalEvent = { ...base, hash: eventHash(base) };
      prev = e.hash;
      tx.push(e);
    }
    for (const e of seal(tx, signer)) chunk.push(JSON.stringify(e));
    if (chunk.length >= 5000) flush();
  };
  const perCall = tpl.decision.length + tpl.settlement.length;
  const more = (): boolean => (until.events !== undefined ? seq + perCall <= until.events : calls < (until.calls ?? 0));
  try {
    while (more()) {
      const t = startMs + calls * 60_000;
      const startedAt = new Date(t).toISOString();
      const endedAt = new Date(t + 1_000).toISOString();
      const { decision, settlement } = callEvents(tpl, newId('rcpt'), startedAt);
      push(decision, startedAt);
      push(settlement, endedAt);
      calls += 1;
    }
    flush();
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return { events: seq, calls, bytes: fs.statSync(file).size, head: prev };
}

/** What appendPriorCalls wrote: how many events and calls, and where the journal ends. */
export interface PriorCalls {
  events: number;
  calls: number;
  bytes: number;
  head: string;
}

/** A seeded state folder with prior calls, its history placed in the weeks before now. */
export async function historyState(dirs: TempDirs, label: string, tpl: CallTemplate, until: { events?: number; calls?: number }): Promise<PriorCalls & { dir: string }> {
  const dir = dirs.make(label);
  const start = Date.now() - 200 * 24 * 3600 * 1000;
  await seedState(dir, { now: () => start - 60_000 });
  return { dir, ...appendPriorCalls(dir, tpl, until, start) };
}

/** Holon in this process: a durable runtime on `dir` and a real SDK client over InMemoryTransport. */
export async function holonInMemory(dir: string, store?: EventStore<HolonState>): Promise<{ runtime: Runtime; client: Client; close: () => Promise<void> }> {
  const runtime = openRuntime(dir, { clock: systemClock, logger: silentLogger, ...(store ? { store } : {}) });
  const client = await connect(runtime);
  return {
    runtime,
    client,
    close: async () => {
      await client.close();
      await runtime.close();
    },
  };
}

/** The echo baseline in this process, over InMemoryTransport, with the same Client API. */
export async function echoInMemory(): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = createEchoServer();
  const client = new Client({ name: 'bench-agent', version: '1.0.0' });
  const [c, s] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(s), client.connect(c)]);
  return { client, close: () => client.close() };
}

/** A client of a child process speaking MCP on stdio; its stderr is drained (never inherited). */
export async function stdioClient(command: string, args: string[], cwd = ROOT): Promise<{ client: Client; close: () => Promise<void>; pid: () => number | null }> {
  const transport = new StdioClientTransport({ command, args, cwd, env: getDefaultEnvironment(), stderr: 'pipe' });
  transport.stderr?.on('data', () => {});
  const client = new Client({ name: 'bench-agent', version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close(), pid: () => transport.pid };
}

/** `dist/holon.js mcp` on a state folder. */
export function holonStdio(dir: string): Promise<{ client: Client; close: () => Promise<void> }> {
  return stdioClient(process.execPath, [HOLON_BIN, 'mcp', '--mandate', MANDATE, '--state', dir]);
}

/** The echo server script over stdio. */
export function echoStdio(): Promise<{ client: Client; close: () => Promise<void> }> {
  return stdioClient(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'echoServer.ts')]);
}

/** Capability families and leaves of the generated catalog: 100 capabilities in all. */
const FAMILIES = ['extraction', 'translation', 'summarization', 'classification', 'ocr', 'pipeline', 'search', 'code', 'audio', 'image'];
const LEAVES = ['table', 'text', 'totals', 'entities', 'layout', 'fr', 'de', 'short', 'long', 'batch'];

/**
 * `count` agents in the demo's shape, reproducibly random (a fixed seed): 1–3 capabilities each, prices
 * in EUR or USD, a few outside the demo mandate's data rules, and `delegatingShare` of them declaring
 * delegated calls. The catalog a busy registry could hold.
 */
export function generatedCatalog(count: number, delegatingShare: number): AgentEntry[] {
  let seed = 42;
  const rand = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const capability = (): string => `${pick(FAMILIES)}.${pick(LEAVES)}`;
  const out: AgentEntry[] = [];
  for (let i = 0; i < count; i++) {
    const caps = [...new Set(Array.from({ length: 1 + Math.floor(rand() * 3) }, capability))];
    const delegating = rand() < delegatingShare;
    const manifest: Manifest = {
      id: `gen${i % 97}/agent-${i}`,
      version: '1.0.0',
      name: `Generated agent ${i}`,
      description: `A generated agent offering ${caps.join(', ')}`,
      publisher: `gen${i % 97}`,
      capabilities: caps,
      input_schema: { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] },
      output_schema: { type: 'object' },
      errors: [],
      price: { currency: rand() < 0.3 ? 'USD' : 'EUR', per_call: (0.001 + Math.floor(rand() * 500) / 1000).toFixed(3) },
      data_policy: { regions: rand() < 0.05 ? ['US'] : ['EU'], retention_days: Math.floor(rand() * 40), training: rand() < 0.05 },
      models: [],
      delegated_calls: delegating ? [{ capability: capability(), max_count: 1 + Math.floor(rand() * 4) }] : [],
      ...(rand() < 0.5 ? { record: { runs: 100, success_rate: (0.8 + rand() * 0.2).toFixed(3), mean_cost: (0.001 + Math.floor(rand() * 500) / 1000).toFixed(3) } } : {}),
      examples: [],
    };
    out.push({ manifest, endpoint: { type: 'stdio', command: 'node', args: ['agent.mjs'], tool: 'run' }, source: 'bench', added_at: new Date(0).toISOString() });
  }
  return out;
}

/** A seeded state folder whose catalog also holds `count` generated agents, added in one transaction. */
export async function catalogState(dirs: TempDirs, label: string, count: number, delegatingShare: number): Promise<string> {
  const dir = dirs.make(label);
  await seedState(dir);
  const store = openState(dir, { clock: systemClock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
  try {
    await store.transact(() => ({ events: generatedCatalog(count, delegatingShare).map((entry) => ({ type: 'agent.added', data: { entry } })), result: undefined }));
  } finally {
    store.close();
  }
  return dir;
}
