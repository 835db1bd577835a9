/**
 * A page costs the page: through a real SDK client, every read an agent can page — get_audit,
 * list_intents, mail_inbox, office_overview, memory_recall, memory_assemble — and `pay`, under its lock,
 * answers without enumerating the intents, the mail threads or a mandate's memory keys. The state the
 * server reads is the real store's, watched: an enumeration of one of those collections (Object.values,
 * Object.keys, a for…in) is counted, and each read must take none. (Timings are the bench's; this is
 * what makes them flat.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client, CallToolResult } from '@modelcontextprotocol/client';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import { openState } from '../../src/core/holon.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import { fund } from '../../src/core/money/spend.ts';
import { DEMO_OFFICE, seedOffice } from '../../src/core/office/demoOffice.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import type { EventStore, TxOptions, TxResult } from '../../src/core/store/store.ts';
import type { Runtime } from '../../src/server/runtime.ts';
import { openRuntime } from '../../src/server/runtime.ts';
import { connect, TestClock, tempDir } from '../helpers.ts';
import { callTool } from './support.ts';

const PAYER = 'demo/payer';

/** Enumerations of the watched collections, by name. */
const enumerated = new Map<string, number>();

/** A view of `target` whose enumeration is counted under `name`. */
function counted<T extends object>(target: T, name: string): T {
  return new Proxy(target, {
    ownKeys(t) {
      enumerated.set(name, (enumerated.get(name) ?? 0) + 1);
      return Reflect.ownKeys(t);
    },
  });
}

/** A view of `target` whose members `watch` names are seen through `view`. */
function through<T extends object>(target: T, watch: Record<string, (v: never) => unknown>): T {
  return new Proxy(target, {
    get(t, p, r) {
      const v = Reflect.get(t, p, r) as unknown;
      const w = typeof p === 'string' ? watch[p] : undefined;
      return w && v && typeof v === 'object' ? w(v as never) : v;
    },
  });
}

/** The state as the server sees it: the intents, the threads and each mandate's memory keys counted. */
function watched(s: HolonState): HolonState {
  return through(s, {
    intents: (v: object) => counted(v, 'intents'),
    office: (o: HolonState['office']) => through(o, { threads: (v: object) => counted(v, 'threads') }),
    memory: (m: HolonState['memory']) =>
      new Proxy(m, { get: (t, p, r) => (typeof p === 'string' && t[p] ? counted(t[p], `memory of ${p}`) : Reflect.get(t, p, r)) }),
  });
}

/** The real store, its state (in and out of transactions) seen through `watched`. */
function watchedStore(store: EventStore<HolonState>): EventStore<HolonState> {
  return new Proxy(store, {
    get(t, p) {
      if (p === 'state') return watched(t.state);
      if (p === 'transact') return <T>(fn: (s: HolonState) => TxResult<T>, o?: TxOptions) => t.transact((s) => fn(watched(s)), o);
      const v = Reflect.get(t, p, t) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}

let runtime: Runtime;
let payer: Client;
let ada: Client;
let cleanup: () => void;
const clock = new TestClock();

before(async () => {
  const t = tempDir();
  cleanup = t.cleanup;
  const store = openState(t.dir, { clock, logger: silentLogger, durable: false, watch: false });
  runtime = openRuntime(t.dir, { clock, logger: silentLogger, store: watchedStore(store) });
  await fund(store, 'demo', '100');
  await fund(store, 'demo2', '1');
  await createMandate(store, clock, PAYER, {
    toolsets: ['money', 'records', 'memory'],
    approval_threshold: '0.50',
    capabilities: [{ name: 'pay', params: { payees: ['acct:demo2'] } }],
  });
  await seedOffice(store, clock);
  payer = await connect(runtime, { mandate: PAYER });
  ada = await connect(runtime, { mandate: DEMO_OFFICE.ada });
  const lead = await connect(runtime, { mandate: DEMO_OFFICE.lead });
  for (let i = 0; i < 6; i++) {
    ok(await callTool(payer, 'pay', { intent: { payee: 'acct:demo2', amount: '0.10', currency: 'EUR', purpose: 'p', idempotency_key: `k-${i}` } }));
    ok(await callTool(payer, 'memory_remember', { key: `notes/${i}`, content: `note ${i}` }));
    ok(await callTool(lead, 'mail_send', { to: 'ada', subject: `s ${i}`, body: 'b' }));
  }
  ok(await callTool(ada, 'mail_close', { number: 1 }));
  await lead.close();
});

after(async () => {
  await payer.close();
  await ada.close();
  await runtime.close();
  cleanup();
});

function ok(r: CallToolResult): Record<string, unknown> {
  assert.notEqual(r.isError, true, JSON.stringify(r.structuredContent ?? r.content));
  return r.structuredContent as Record<string, unknown>;
}

/** Calls a tool and says which watched collections it enumerated. */
async function enumerations(client: Client, name: string, args: Record<string, unknown>): Promise<{ out: Record<string, unknown>; seen: Record<string, number> }> {
  enumerated.clear();
  const out = ok(await callTool(client, name, args));
  return { out, seen: Object.fromEntries(enumerated) };
}

test('get_audit and list_intents read a page without enumerating the intents', async () => {
  const audit = await enumerations(payer, 'get_audit', { limit: 4 });
  assert.equal((audit.out['entries'] as unknown[]).length, 4);
  assert.deepEqual(audit.seen, {});
  const next = await enumerations(payer, 'get_audit', { limit: 4, cursor: audit.out['next_cursor'] });
  assert.equal((next.out['entries'] as unknown[]).length, 4);
  assert.deepEqual(next.seen, {});
  for (const status of [null, 'settled', 'pending', 'expired']) {
    const listed = await enumerations(payer, 'list_intents', { status, limit: 2 });
    assert.equal((listed.out['intents'] as unknown[]).length, status === null || status === 'settled' ? 2 : 0, String(status));
    assert.deepEqual(listed.seen, {}, String(status));
  }
});

test('pay decides under the lock without enumerating the intents', async () => {
  const paid = await enumerations(payer, 'pay', { intent: { payee: 'acct:demo2', amount: '0.10', currency: 'EUR', purpose: 'p', idempotency_key: 'one-more' } });
  assert.equal(paid.out['replayed'], false);
  assert.deepEqual(paid.seen, {});
});

test('mail_inbox and office_overview count and list an inbox without enumerating the threads', async () => {
  const inbox = await enumerations(ada, 'mail_inbox', {});
  assert.equal((inbox.out['threads'] as unknown[]).length, 5);
  assert.deepEqual(inbox.seen, {});
  const overview = await enumerations(ada, 'office_overview', {});
  const agents = overview.out['agents'] as { slug: string; open_mail: number }[];
  assert.equal(agents.find((a) => a.slug === 'ada')?.open_mail, 5);
  assert.deepEqual(overview.seen, {});
});

test("memory_recall and memory_assemble read a snapshot's page without enumerating the mandate's keys", async () => {
  const first = await enumerations(payer, 'memory_recall', { limit: 2 });
  assert.equal((first.out['snapshot'] as { total: number }).total, 6);
  assert.deepEqual(first.seen, {});
  const second = await enumerations(payer, 'memory_recall', { cursor: first.out['next_cursor'], limit: 2 });
  assert.deepEqual((second.out['records'] as { key: string }[]).map((r) => r.key), ['notes/2', 'notes/3']);
  assert.deepEqual(second.seen, {});
  const assembled = await enumerations(payer, 'memory_assemble', { budget: { unit: 'bytes', limit: 300 } });
  assert.equal((assembled.out['included'] as number) + (assembled.out['artifact'] as { omitted: number }).omitted, 6);
  assert.deepEqual(assembled.seen, {});
});
