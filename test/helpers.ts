/** Shared set-up for tests: temporary states, a clock tests can move, the demo world, MCP clients. */
import type { FetchLike } from '../src/server/net/publicFetch.ts';
import type { Wallet } from '../src/core/local/wallet.ts';
import type { Forge } from '../src/core/office/forge.ts';
import type { ChainConfig } from '../src/core/rails/chain.ts';
import type { MerchantConfig } from '../src/server/commerce/merchants.ts';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { RequestOptions, ElicitRequest, ElicitResult } from '@modelcontextprotocol/server';
import { Client } from '@modelcontextprotocol/client';
import { addAgent, readCatalog } from '../src/core/market/catalog.ts';
import { createMandate } from '../src/core/accounts/mandates.ts';
import { fund } from '../src/core/money/spend.ts';
import { setFx } from '../src/core/money/fx.ts';
import { copyExampleFiles as copyDemoFiles } from '../src/core/local/demoFiles.ts';
import type { Clock } from '../src/core/kernel/deps.ts';
import { silentLogger, systemClock } from '../src/core/kernel/deps.ts';
import { openState } from '../src/core/holon.ts';
import type { EventStore } from '../src/core/store/store.ts';
import type { HolonState } from '../src/core/fold/state.ts';
import type { Runtime } from '../src/server/runtime.ts';
import { openRuntime } from '../src/server/runtime.ts';
import type { ApprovalSettings } from '../src/server/serverDeps.ts';
import { createHolonServer } from '../src/server/server.ts';

export const ROOT = path.resolve(__dirname, '..');
export const EXAMPLES = path.join(ROOT, 'examples');
export const HOLON_BIN = path.join(ROOT, 'dist', 'holon.js');
export const MANDATE = 'demo/sandbox';
export const FACTURE = 'holon://files/examples/facture.pdf';
export const INVOICES = ['invoice-01.pdf', 'invoice-02.pdf', 'invoice-03.pdf', 'invoice-04.pdf'].map((f) => `holon://files/examples/${f}`);

/** A new empty folder under the OS temp dir, removed by the returned function. */
export function tempDir(prefix = 'holon-test-'): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A clock that only moves when told. */
export class TestClock implements Clock {
  constructor(public ms = Date.parse('2026-11-29T10:00:00Z')) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** The demo world: demo funded with `funds` EUR, USD rate, demo/sandbox, the example agents and files. */
export async function seedDemo(
  store: EventStore<HolonState> & { dir?: string },
  clock: Clock,
  options: { funds?: string; threshold?: string; total?: string; perDay?: string | null; perCall?: string | null; stateDir?: string } = {},
): Promise<void> {
  await fund(store, 'demo', options.funds ?? '5');
  await setFx(store, 'USD', 'EUR', '0.92');
  await createMandate(store, clock, MANDATE, {
    approval_threshold: options.threshold ?? '0.50',
    budget: { total: options.total ?? '5.00', per_day: options.perDay === undefined ? '4.00' : options.perDay, per_call: options.perCall === undefined ? '3.50' : options.perCall },
    capabilities: [{ name: 'market.call', params: { capabilities: ['extraction.*', 'pipeline.*'] } }],
    data: { regions: ['EU'], retention_days: 30, training: false },
  });
  for (const e of await readCatalog(path.join(EXAMPLES, 'catalog.json'))) await addAgent(store, clock, e.manifest, e.endpoint, 'demo-catalog');
  const dir = options.stateDir ?? store.dir;
  if (dir) copyExampleFiles(dir);
}

/** Copies the example invoices to `<state>/files/examples/`. */
export function copyExampleFiles(stateDir: string): void {
  copyDemoFiles(EXAMPLES, stateDir);
}

/**
 * A temporary state folder seeded with the demo world, for the built binary to serve (built first if
 * dist/holon.js is missing, as when one test file runs alone).
 */
export async function servedState(): Promise<{ dir: string; cleanup: () => void }> {
  if (!fs.existsSync(HOLON_BIN)) execFileSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const t = tempDir();
  const store = openState(t.dir, { clock: systemClock, logger: silentLogger, durable: false, watch: false });
  try {
    await seedDemo(store, systemClock);
  } finally {
    store.close();
  }
  return t;
}

/** Another store on the state in `dir`, as a second process (the editor's panel, say) would open it. */
export async function openAgain(dir: string, clock: Clock, options: { watch?: boolean } = {}): Promise<EventStore<HolonState>> {
  return openState(dir, { clock, logger: silentLogger, durable: false, watch: options.watch ?? false });
}

/** A runtime on a fresh temporary state seeded with the demo world. */
export async function demoRuntime(
  options: { clock?: TestClock; approvals?: Partial<ApprovalSettings>; funds?: string; threshold?: string; total?: string; perDay?: string | null; perCall?: string | null; fetch?: FetchLike; wallet?: Wallet; workspace?: string; forge?: Forge; chain?: ChainConfig; merchants?: MerchantConfig[] } = {},
): Promise<{ runtime: Runtime; clock: TestClock; dir: string; cleanup: () => Promise<void> }> {
  const { dir, cleanup } = tempDir();
  const clock = options.clock ?? new TestClock();
  const runtime = openRuntime(dir, {
    clock,
    logger: silentLogger,
    durable: false,
    approvals: { waitMs: 0, elicitation: true, elicitationWaitMs: 5_000, ...options.approvals },
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.wallet ? { wallet: options.wallet } : {}),
    ...(options.workspace ? { workspace: options.workspace } : {}),
    ...(options.forge ? { forge: options.forge } : {}),
    ...(options.chain ? { chain: options.chain } : {}),
    ...(options.merchants ? { merchants: options.merchants } : {}),
  });
  await seedDemo(runtime.store, clock, { ...options, stateDir: dir });
  return {
    runtime,
    clock,
    dir,
    cleanup: async () => {
      await runtime.close();
      cleanup();
    },
  };
}

/** A real SDK client connected to a Holon server for `mandate` over the SDK's in-memory transport. */
export async function connect(
  runtime: Runtime,
  options: { mandate?: string; elicit?: (req: ElicitRequest) => Promise<ElicitResult> | ElicitResult } = {},
): Promise<Client> {
  const server = createHolonServer(runtime.deps, options.mandate ?? MANDATE);
  const client = new Client({ name: 'test-agent', version: '1.0.0' }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} });
  if (options.elicit) {
    const elicit = options.elicit;
    client.setRequestHandler('elicitation/create', async (req) => elicit(req));
  }
  const [c, s] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(s), client.connect(c)]);
  return client;
}

/**
 * How long a test, or a wait for something that will happen, may take before it is taken for a hang. It
 * stops a hang and nothing else: a machine busy with other work runs a test many times slower than an
 * idle one, and a test must pass there too. Never a measure of speed (that is the bench's).
 */
export const HANG_MS = 10 * 60_000;

/**
 * An SDK client as patient as the person behind it: a request with no timeout of its own waits until
 * HANG_MS, not the SDK's 60 s, which a call that starts agent processes can outlast on a busy machine.
 */
export class PatientClient extends Client {
  // Every request funnels through here (callTool too); the options follow a result schema when one is given.
  override request(request: Parameters<Client['request']>[0], schemaOrOptions?: unknown, options?: unknown): Promise<never> {
    const patient = (o: unknown): RequestOptions => ({ timeout: HANG_MS, ...(o as RequestOptions | undefined) });
    const schema = typeof schemaOrOptions === 'object' && schemaOrOptions !== null && '~standard' in schemaOrOptions;
    const sent = schema ? super.request(request, schemaOrOptions as never, patient(options)) : super.request(request as never, patient(schemaOrOptions));
    return sent as Promise<never>;
  }
}

/**
 * Waits for a condition (checked synchronously or not), polling, with a deadline that only stops a hang
 * (never a fixed sleep, never a bet on how fast the machine is). It gives up before its test would, so
 * that a failure names what it waited for.
 */
export async function until<T>(fn: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = HANG_MS / 2): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A reproducible stream of numbers in [0, 1) (mulberry32): the same seed draws the same sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
