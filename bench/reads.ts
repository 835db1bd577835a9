/**
 * (r) The reads an agent can page, at 100k vs 1k records of each kind: every row a tool called through a
 * real SDK client (InMemoryTransport), both worlds served by this process and interleaved in one run.
 *
 * Each world is the demo world plus, under one mandate, N payment intents (each as `pay` writes one:
 * submitted, held, authorized, then settled), N memory versions (one in ten a correction of an older key)
 * and, in the demo office, N mail threads spread over three inboxes, all but 20 of each closed. They are
 * written as the bench writes its big journal: the events of a real call cloned (intents: a real
 * `payIntent`, renamed and re-signed), or made by the core's own event constructors from the state
 * (memory: `rememberEvent`; mail: the office's thread), many to one transaction, then folded by
 * `openState` and snapshotted as a server would have.
 */
import type { Client } from '@modelcontextprotocol/client';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import type { Clock } from '../src/core/kernel/deps.ts';
import { silentLogger } from '../src/core/kernel/deps.ts';
import { openFileJournal, openState } from '../src/core/holon.ts';
import { newId } from '../src/core/kernel/ids.ts';
import { createMandate } from '../src/core/accounts/mandates.ts';
import { rememberEvent } from '../src/core/memory/memory.ts';
import type { IntentBody } from '../src/core/money/intents.ts';
import { intentStatement, signWith } from '../src/core/money/intents.ts';
import { journalRail, payIntent } from '../src/core/money/pay.ts';
import type { MoneyEvents } from '../src/core/money/slice.ts';
import { fund } from '../src/core/money/spend.ts';
import { DEMO_OFFICE, seedOffice } from '../src/core/office/demoOffice.ts';
import type { MailThread } from '../src/core/office/slice.ts';
import { officeEvent } from '../src/core/office/slice.ts';
import { holonReducer } from '../src/core/fold/state.ts';
import type { HolonState } from '../src/core/fold/state.ts';
import { JOURNAL_FILE } from '../src/core/store/file/journal.ts';
import type { FileJournal } from '../src/core/store/file/journal.ts';
import { buildSnapshot, INDEX_FILE } from '../src/core/store/file/journalIndex.ts';
import { SNAPSHOT_FILE } from '../src/core/store/file/snapshot.ts';
import { loadOrCreateSigner } from '../src/core/store/keys.ts';
import type { NewEvent } from '../src/core/store/store.ts';
import { connect } from '../test/helpers.ts';
import { collectGarbage, context, log, n, plan, QUICK, row, side } from './report.ts';
import type { Case } from './timing.ts';
import { interleave } from './timing.ts';
import type { TempDirs } from './world.ts';
import { holonInMemory, seedState } from './world.ts';

/** The mandate whose money, records and memory tools are read. */
export const PAYER = 'demo/payer';
const PAYEE = 'acct:demo2';
const BIG = QUICK ? 20_000 : 100_000;
const SMALL = 1_000;
/** Open threads per inbox. */
const OPEN = 20;
/** Events per generated transaction. */
const BATCH = 1_000;

/** A clock the generator moves: a world's history spreads over the weeks before now. */
class StepClock implements Clock {
  constructor(public ms: number) {}
  now(): number {
    return this.ms;
  }
}

type Store = FileJournal<HolonState>;

/** Appends events many to a transaction, a minute apart. */
async function appendAll(store: Store, clock: StepClock, events: Iterable<NewEvent>): Promise<void> {
  let batch: NewEvent[] = [];
  const flush = async (): Promise<void> => {
    const out = batch;
    batch = [];
    clock.ms += 60_000;
    if (out.length > 0) await store.transact(() => ({ events: out, result: undefined }), { durable: false });
  };
  for (const e of events) {
    batch.push(e);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
}

/** `count` more intents like one real `pay`: its events cloned under new ids and keys, each re-signed. */
async function intents(store: Store, clock: StepClock, dir: string, count: number): Promise<void> {
  const signer = loadOrCreateSigner(dir);
  const seen: NewEvent[] = [];
  const off = store.subscribe((events) => seen.push(...events.map((e) => ({ type: e.type, data: e.data }))));
  const key = 'bench-template-key';
  const paid = await payIntent({ store, clock, signer, rail: journalRail }, PAYER, {
    payee: PAYEE,
    amount: '0.01',
    currency: 'EUR',
    purpose: 'a bench payment',
    idempotency_key: key,
  });
  off();
  const id = paid.intent.intent;
  const receipt = paid.receipt.id;
  const template = JSON.stringify(seen);
  function* clones(): Generator<NewEvent> {
    for (let i = 1; i < count; i++) {
      const events = JSON.parse(template.split(id).join(newId('int')).split(receipt).join(newId('rcpt')).split(key).join(`k-${i}`)) as NewEvent[];
      const submitted = events.find((e) => e.type === 'intent.submitted')?.data as MoneyEvents['intent.submitted'];
      const body: IntentBody = { payee: submitted.payee, amount: submitted.amount.amount, currency: submitted.amount.currency, purpose: submitted.purpose };
      submitted.signature = signWith(signer, intentStatement(PAYER, submitted.idempotency_key, body));
      yield* events;
    }
  }
  await appendAll(store, clock, clones());
}

const hex = (i: number): string => createHash('sha256').update(String(i)).digest('hex').slice(0, 12);

/**
 * `count` memory versions under random keys, in at least ten transactions a minute apart (so that a time
 * in the middle of the history shows about half the keys at any size); one in ten corrects a key
 * remembered a batch earlier. Returns the time in the middle of the history.
 */
async function memory(store: Store, clock: StepClock, count: number): Promise<number> {
  const content = 'The customer prefers invoices by mail, in French, with the purchase order number on the first line. '.repeat(3);
  const batch = Math.min(BATCH, Math.ceil(count / 10));
  const first = clock.ms;
  for (let start = 0; start < count; start += batch) {
    const events: NewEvent[] = [];
    for (let i = start; i < Math.min(count, start + batch); i++) {
      // The tenth of each batch corrects a key the batch before remembered new (i - batch + 1 is never a correction).
      const corrects = i % 10 === 9 && i >= batch;
      const key = `customer/${hex(corrects ? i - batch + 1 : i)}/billing`;
      events.push(rememberEvent(store.state, PAYER, { key, content: `${content}${i}` }, newId('mem'), clock.now()));
    }
    clock.ms += 60_000;
    await store.transact(() => ({ events, result: undefined }), { durable: false });
  }
  // Half a minute off any batch's time, so that no batch is cut in two by it.
  return first + Math.floor((clock.ms - first) / 120_000) * 60_000 + 30_000;
}

/** `count` mail threads over the office's three inboxes, as the colleagues write them; all but OPEN of each closed. */
async function mail(store: Store, clock: StepClock, count: number): Promise<void> {
  const inboxes = [
    { to: 'ada', from: 'lead' },
    { to: 'lead', from: 'ada' },
    { to: 'bob', from: 'lead' },
  ];
  const per = Math.floor(count / inboxes.length);
  function* events(): Generator<NewEvent> {
    for (let i = 0; i < per * inboxes.length; i++) {
      const box = inboxes[i % inboxes.length] as (typeof inboxes)[number];
      const number = Math.floor(i / inboxes.length) + 1;
      const at = new Date(clock.now()).toISOString();
      const thread: MailThread = {
        id: `demo/${box.to}#${number}`,
        office: 'demo',
        to: box.to,
        number,
        from: box.from,
        from_mandate: `demo/${box.from}`,
        subject: `Invoice batch ${number}`,
        body: 'Please check the totals of this batch against the purchase orders.',
        state: 'new',
        comments: [],
        hops: 0,
        notifies: null,
        woke: true,
        created_at: at,
        updated_at: at,
      };
      yield officeEvent('mail.sent', { thread });
      if (number % 4 === 0) {
        yield officeEvent('mail.opened', { thread: thread.id });
        yield officeEvent('mail.replied', { thread: thread.id, comment: { from: box.to, body: 'Done.', at }, delivered: null });
      }
      if (number <= per - OPEN) yield officeEvent('mail.closed', { thread: thread.id });
    }
  }
  await appendAll(store, clock, events());
}

/** A seeded state with `count` records of each kind, snapshotted; and the time in the middle of its memory's history. */
export async function readsWorld(dirs: TempDirs, label: string, count: number): Promise<{ dir: string; middle: string }> {
  const dir = dirs.make(label);
  await seedState(dir);
  const clock = new StepClock(Date.now() - 120 * 24 * 3600_000);
  const store = openFileJournal(dir, { clock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
  try {
    await fund(store, 'demo2', '1');
    await createMandate(store, clock, PAYER, {
      toolsets: ['money', 'records', 'memory'],
      approval_threshold: '0.50',
      budget: { total: '10000000', per_day: null, per_call: null },
      capabilities: [{ name: 'pay', params: { payees: [PAYEE] } }],
    });
    await seedOffice(store, clock);
    const t0 = performance.now();
    await intents(store, clock, dir, count);
    const t1 = performance.now();
    const middle = new Date(await memory(store, clock, count)).toISOString();
    const t2 = performance.now();
    await mail(store, clock, count);
    const t3 = performance.now();
    const pos = store.position;
    store.close();
    await buildSnapshot(dir, path.join(dir, JOURNAL_FILE), holonReducer, pos, loadOrCreateSigner(dir));
    log(`(r) ${label}: intents ${Math.round(t1 - t0)} ms, memory ${Math.round(t2 - t1)} ms, mail ${Math.round(t3 - t2)} ms, snapshot ${Math.round(performance.now() - t3)} ms`);
    const generated = performance.now() - t0;
    // Written without fsync: made durable now, so that no world's calls wait for its own writeback.
    for (const f of [JOURNAL_FILE, SNAPSHOT_FILE, INDEX_FILE]) {
      const fd = fs.openSync(path.join(dir, f), 'r');
      fs.fsyncSync(fd);
      fs.closeSync(fd);
    }
    // What opening it costs a process, from its snapshot (the snapshot's size and open time against (d)'s).
    collectGarbage();
    const t4 = performance.now();
    openState(dir, { clock, logger: silentLogger, watch: false, snapshotEvery: 0 }).close();
    const openMs = performance.now() - t4;
    context[`r_world_${label}`] = {
      records_each: count,
      events: pos.seq,
      journal_bytes: pos.offset,
      snapshot_bytes: fs.statSync(path.join(dir, SNAPSHOT_FILE)).size,
      open_ms: Math.round(openMs),
      generate_s: Math.round(generated) / 1000,
    };
    return { dir, middle };
  } finally {
    store.close();
  }
}

/** One tool call; anything but a result stops the bench (its timing would measure something else). */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.structuredContent ?? r.content)}`);
  return r.structuredContent as Record<string, unknown>;
}

interface Served {
  payer: Client;
  ada: Client;
  /** The cursor of the 10th page of a recall, sealed before the measurement; and of one as of the middle of the history. */
  tenth: string;
  tenthPast: string;
  /** A recall as of the middle of the memory's history, in system time and valid time. */
  past: { system_as_of: string; valid_as_of: string };
  paid: number;
  label: string;
}

/** The tenth page's cursor of a recall of 20 a page (of `query`, default now). */
async function tenthPage(client: Client, query: Record<string, unknown> = {}): Promise<string> {
  let cursor: string | null = null;
  for (let page = 1; page < 10; page++) {
    const r = await call(client, 'memory_recall', cursor ? { cursor } : query);
    cursor = r['next_cursor'] as string | null;
    if (!cursor) throw new Error('the recall has fewer than 10 pages');
  }
  return cursor as string;
}

/** The cases of one world, named `<tool>@<label>`. */
function cases(w: Served): Case[] {
  const k = (name: string): string => `${name}@${w.label}`;
  const per = n(3, 2);
  const warmup = n(5, 2);
  return [
    { name: k('audit'), perRound: per, warmup, run: () => call(w.payer, 'get_audit', {}) },
    { name: k('list'), perRound: per, warmup, run: () => call(w.payer, 'list_intents', {}) },
    { name: k('job'), perRound: per, warmup, run: () => call(w.payer, 'get_job', { idempotency_key: 'k-500' }) },
    {
      name: k('pay'),
      perRound: per,
      warmup,
      run: async () => {
        const key = `bench-${w.label}-${(w.paid += 1)}`;
        const r = await call(w.payer, 'pay', { intent: { payee: PAYEE, amount: '0.01', currency: 'EUR', purpose: 'a bench payment', idempotency_key: key } });
        if (r['replayed'] !== false) throw new Error(`pay did not pay: ${JSON.stringify(r)}`);
      },
    },
    { name: k('inbox'), perRound: per, warmup, run: () => call(w.ada, 'mail_inbox', {}) },
    { name: k('overview'), perRound: per, warmup, run: () => call(w.ada, 'office_overview', {}) },
    { name: k('recall1'), perRound: per, warmup, run: () => call(w.payer, 'memory_recall', {}) },
    { name: k('recall10'), perRound: per, warmup, run: () => call(w.payer, 'memory_recall', { cursor: w.tenth }) },
    { name: k('assemble'), perRound: per, warmup, run: () => call(w.payer, 'memory_assemble', { budget: { unit: 'bytes', limit: 4096 } }) },
    { name: k('recallPast1'), perRound: per, warmup, run: () => call(w.payer, 'memory_recall', w.past) },
    { name: k('recallPast10'), perRound: per, warmup, run: () => call(w.payer, 'memory_recall', { cursor: w.tenthPast }) },
    {
      name: k('assemblePast'),
      perRound: per,
      warmup,
      run: () => call(w.payer, 'memory_assemble', { ...w.past, budget: { unit: 'bytes', limit: 4096 } }),
    },
  ];
}

const ROWS: [string, string, string][] = [
  ['audit', 'get_audit, first page', 'intent events'],
  ['list', 'list_intents, first page', 'intents'],
  ['pay', 'pay (allowed)', 'intents'],
  ['inbox', 'mail_inbox (20 open)', 'threads'],
  ['overview', 'office_overview', 'threads'],
  ['recall1', 'memory_recall, 1st page', 'versions'],
  ['recall10', 'memory_recall, 10th page', 'versions'],
  ['assemble', 'memory_assemble (4 KiB)', 'versions'],
  ['recallPast1', 'memory_recall as of the middle of its history, 1st page', 'versions'],
  ['recallPast10', 'memory_recall as of the middle of its history, 10th page', 'versions'],
  ['assemblePast', 'memory_assemble (4 KiB) as of the middle of its history', 'versions'],
  ['job', 'get_job (context)', 'intents'],
];

/** (r) every paged read at 100k vs 1k records of each kind. */
export async function comparisonR(dirs: TempDirs, closers: (() => Promise<void>)[]): Promise<void> {
  log(`(r) generating two worlds: ${SMALL.toLocaleString('en')} and ${BIG.toLocaleString('en')} intents, memory versions and mail threads`);
  const small = await readsWorld(dirs, 'r-1k', SMALL);
  const big = await readsWorld(dirs, 'r-big', BIG);
  const served: Served[] = [];
  for (const [label, { dir, middle }] of [['1k', small], ['big', big]] as const) {
    const h = await holonInMemory(dir);
    closers.push(h.close);
    const ada = await connect(h.runtime, { mandate: DEMO_OFFICE.ada });
    closers.push(() => ada.close());
    const payer = await connect(h.runtime, { mandate: PAYER });
    closers.push(() => payer.close());
    // As of the middle of the memory's history in both times: about half the keys show, some by a version
    // corrected since, so the read resolves a real share of the memory, not an empty one.
    const past = { system_as_of: middle, valid_as_of: middle };
    const shown = await call(payer, 'memory_recall', past);
    const total = (shown['snapshot'] as { total: number }).total;
    log(`(r) ${label}: ${total} records as of ${middle}`);
    served.push({ payer, ada, tenth: await tenthPage(payer), tenthPast: await tenthPage(payer, past), past, paid: 0, label });
  }
  log('(r) the reads at both sizes, interleaved');
  const s = await interleave(served.flatMap(cases), plan(60, 10));
  const bigName = `${(BIG / 1000).toLocaleString('en')}k`;
  for (const [id, title, what] of ROWS) {
    row(`r.${id}`, `${title}, ${bigName} vs 1k ${what}`, side(`@${bigName}`, s, `${id}@big`), side('@1k', s, `${id}@1k`), id === 'job' ? undefined : '≤ 1.1× median, ≤ 1.5× p99');
  }
}
