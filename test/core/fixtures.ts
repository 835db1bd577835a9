/** Shared set-up for the core unit tests: an in-memory world, a fake agent runner, ledger fingerprints. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { addAgent } from '../../src/core/market/catalog.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { fund } from '../../src/core/money/spend.ts';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import type { HolonErrorReason } from '../../src/core/kernel/errors.ts';
import type { AgentRunner, AgentRunResult } from '../../src/core/market/gateway.ts';
import { Gateway } from '../../src/core/market/gateway.ts';
import type { EventStore } from '../../src/core/store/store.ts';
import { InMemoryStore } from '../../src/core/store/inMemory.ts';
import type { Manifest, Receipt } from '../../src/core/kernel/model.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holonReducer } from '../../src/core/fold/state.ts';
import { seedDemo, tempDir, TestClock } from '../helpers.ts';

export type RunRequest = Parameters<AgentRunner['run']>[0];
export type Handler = (req: RunRequest, agent: string) => Promise<AgentRunResult> | AgentRunResult;

/** A successful run that reports `units` billed units. */
export function ok(units = 1, structured: unknown = { ok: true }): AgentRunResult {
  return { isError: false, structured, text: JSON.stringify(structured), units };
}

/** A failed run with an error code (declared by the agent or not). */
export function failed(code: string, units = 0): AgentRunResult {
  return { isError: true, structured: null, text: `failed: ${code}`, units, errorCode: code };
}

/** An AgentRunner that never leaves the process: it answers with `handler`, and remembers every request. */
export class FakeRunner implements AgentRunner {
  readonly calls: { agent: string; req: RunRequest }[] = [];
  handler: Handler = () => ok(1);

  constructor(private readonly state: () => HolonState) {}

  async run(req: RunRequest): Promise<AgentRunResult> {
    const receipt = this.state().open_receipts[String(req.meta['holon/receipt'])];
    const agent = receipt?.agent ?? '?';
    this.calls.push({ agent, req });
    return this.handler(req, agent);
  }
}

/** A promise with its resolve, to block a fake agent until the test lets it go (no sleeps). */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export const MANDATE = 'demo/sandbox';
export const ACME = 'acme/table-extract';
export const LENA = 'lena/table-extract-fr';
export const PIPELINE = 'holon-labs/invoice-pipeline';
export const FASTCHEAP = 'fastcheap/table-extract-us';
export const QUICKSCAN = 'quickscan/totals';
export const FILE_A = 'holon://files/a.pdf';
export const FILE_B = 'holon://files/b.pdf';

export interface World {
  store: InMemoryStore<HolonState>;
  clock: TestClock;
  runner: FakeRunner;
  gateway: Gateway;
  /** `<tmp>/files`: a.pdf, b.pdf, c.pdf, sub/d.pdf. */
  filesRoot: string;
  /** The temporary folder that holds filesRoot (a file `outside.pdf` sits here, outside the root). */
  tmp: string;
  cleanup: () => void;
}

/**
 * The demo world (demo funded, USD→EUR 0.92, demo/sandbox, the demo catalog) on a InMemoryStore, with a
 * fake runner; `root` is the key its transactions are sealed by (the store's root).
 */
export async function world(options: Parameters<typeof seedDemo>[2] & { root?: string } = {}): Promise<World> {
  const clock = new TestClock();
  const store = new InMemoryStore<HolonState>(holonReducer, clock, options.root);
  await seedDemo(store, clock, options);
  const { dir, cleanup } = tempDir('holon-core-');
  const filesRoot = path.join(dir, 'files');
  fs.mkdirSync(path.join(filesRoot, 'sub'), { recursive: true });
  for (const f of ['a.pdf', 'b.pdf', 'c.pdf', 'sub/d.pdf']) fs.writeFileSync(path.join(filesRoot, f), `%PDF-1.4 ${f}\n`);
  fs.writeFileSync(path.join(dir, 'outside.pdf'), '%PDF-1.4 secret\n');
  const runner = new FakeRunner(() => store.state);
  const gateway = new Gateway({ store, clock, logger: silentLogger, runner, filesRoot, delegation: { url: async () => 'http://127.0.0.1:9/mcp' } });
  return { store, clock, runner, gateway, filesRoot, tmp: dir, cleanup };
}

/** A valid manifest for synthetic agents; override what the test is about. */
export function manifest(id: string, capabilities: string[], over: Partial<Manifest> = {}): Manifest {
  return {
    id,
    version: '1.0.0',
    name: id,
    description: `synthetic agent ${id}`,
    publisher: id.split('/')[0] ?? 'test',
    capabilities,
    input_schema: { type: 'object' },
    output_schema: { type: 'object' },
    errors: [],
    price: { currency: 'EUR', per_call: '0.01' },
    data_policy: { regions: ['EU'], retention_days: 0, training: false },
    models: [],
    delegated_calls: [],
    examples: [],
    ...over,
  };
}

export const ENDPOINT = { type: 'stdio', command: 'node', args: ['agent.mjs'], tool: 'run' } as const;

/** Adds a synthetic agent to the catalog. */
export async function addSynthetic(store: EventStore<HolonState>, clock: TestClock, m: Manifest): Promise<void> {
  await addAgent(store, clock, m, ENDPOINT, 'test');
}

/** A mandate that may call anything, with no data rules, on a freshly funded account. */
export async function wideMandate(store: EventStore<HolonState>, clock: TestClock, id = 'wide/any', over: Record<string, unknown> = {}): Promise<void> {
  await fund(store, id.split('/')[0] ?? 'wide', '100');
  await createMandate(store, clock, id, {
    budget: { total: '50', per_day: null, per_call: null },
    approval_threshold: '40',
    capabilities: [{ name: 'market.call', params: { capabilities: ['*'] } }],
    ...over,
  });
}

/** Everything about money in the state, as comparable text (bigints as strings). */
export function moneyOf(s: HolonState): string {
  return JSON.stringify({ spend: s.spend, accounts: s.accounts, holds: s.holds }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

/** The whole state, as comparable text. */
export function stateText(s: HolonState): string {
  return holonReducer.serialize(s);
}

/** Asserts that `fn` rejects (or throws) a HolonError of `reason`. */
export async function rejectsWith(fn: () => unknown, reason: HolonErrorReason, message?: RegExp): Promise<HolonError> {
  let caught: unknown;
  try {
    await fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught !== undefined, `expected a HolonError ${reason}, nothing was thrown`);
  assert.ok(HolonError.is(caught), `expected a HolonError ${reason}, got ${String(caught)}`);
  assert.equal(caught.reason, reason, `expected reason ${reason}, got ${caught.reason}: ${caught.message}`);
  if (message) assert.match(caught.message, message);
  return caught;
}

/** Units of a decimal amount (for readable expectations). */
export function u(amount: string): bigint {
  const [w = '0', f = ''] = amount.split('.');
  return BigInt(w) * 1_000_000n + BigInt(f.padEnd(6, '0'));
}

/** Runs `fn` on a fresh world and always cleans it up. */
export async function withWorld(fn: (w: World) => Promise<unknown>, options: Parameters<typeof world>[0] = {}): Promise<void> {
  const w = await world(options);
  try {
    await fn(w);
  } finally {
    w.cleanup();
  }
}

/** A running receipt of the demo's table extractor under demo/sandbox, started at `at` (ms). */
export function runningReceipt(id: string, at: number, parent: string | null = null): Receipt {
  return {
    id,
    parent,
    mandate: 'demo/sandbox',
    agent: 'acme/table-extract',
    version: '1.0.0',
    capability: 'extraction.table',
    status: 'running',
    worst_case: { amount: '0.10', currency: 'EUR' },
    cost: null,
    denials: [],
    error: null,
    approval: null,
    input_summary: '{}',
    output_summary: null,
    started_at: new Date(at).toISOString(),
    ended_at: null,
    duration_ms: null,
    children: [],
  };
}
