/**
 * The read indexes never disagree with the state they index. Randomized histories (a fixed seed), made
 * through the core's own functions on a real journal — payments allowed, parked, approved, rejected,
 * lapsed, failed on the rail and retried; memory remembered and corrected at random valid times; mail
 * sent, read, replied and closed — are read through the indexes and through a naive reference (the reads
 * as they were before the indexes: every record scanned, filtered and sorted), which must agree: every
 * page, at any cursor, after any fold, on the live state, on a state revived from its snapshot form and
 * folded on from there, and in other processes that open the journal (from its start, or from a
 * snapshot), whose snapshot `holon verify` must find equal to a fold from the start.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { decideApproval } from '../../src/core/decisions/decide.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { openState } from '../../src/core/holon.ts';
import { createMandate } from '../../src/core/accounts/mandates.ts';
import type { SnapshotPlace, SnapshotQuery } from '../../src/core/memory/memory.ts';
import { allVersions, readContents, remember, snapshotRecords, snapshotTotal } from '../../src/core/memory/memory.ts';
import { assembleContext, renderBlock, verifyArtifact } from '../../src/core/memory/artifact.ts';
import { KeyIndex } from '../../src/core/memory/keyIndex.ts';
import { SortedCounts } from '../../src/core/memory/counts.ts';
import type { MemoryVersion } from '../../src/core/memory/slice.ts';
import type { TransferRail } from '../../src/core/money/pay.ts';
import { auditPage, intentPage, lapsedIntents, statusNow } from '../../src/core/money/intents.ts';
import { journalRail, payIntent } from '../../src/core/money/pay.ts';
import type { IntentStatus, JobEvent } from '../../src/core/money/slice.ts';
import { INTENT_STATUSES } from '../../src/core/money/slice.ts';
import { fund } from '../../src/core/money/spend.ts';
import { DEMO_OFFICE, seedOffice } from '../../src/core/office/demoOffice.ts';
import { closeMail, inbox, openMailCount, readMail, replyMail, sendMail } from '../../src/core/office/mail.ts';
import type { MailState, MailThread } from '../../src/core/office/slice.ts';
import { MAIL_STATES } from '../../src/core/office/slice.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holonReducer } from '../../src/core/fold/state.ts';
import { JOURNAL_FILE } from '../../src/core/store/file/journal.ts';
import type { FileJournal } from '../../src/core/store/file/journal.ts';
import { buildSnapshot } from '../../src/core/store/file/journalIndex.ts';
import { SNAPSHOT_FILE } from '../../src/core/store/file/snapshot.ts';
import { loadOrCreateSigner } from '../../src/core/store/keys.ts';
import type { JournalEvent } from '../../src/core/store/store.ts';
import { checkJournal } from '../../src/core/store/verify.ts';
import { silentLogger } from '../../src/core/kernel/deps.ts';
import { openFileJournal } from '../../src/core/holon.ts';
import { seededRandom, TestClock, tempDir } from '../helpers.ts';

const random = seededRandom;

// ---- The reads as they were before the indexes: the references. ----

type AuditEntry = JobEvent & { intent: string; idempotency_key: string };

function naiveAudit(s: HolonState, mandate: string, after: number, limit: number): { entries: AuditEntry[]; next: number | null } {
  const all = Object.values(s.intents)
    .filter((r) => r.mandate === mandate)
    .flatMap((r) => r.events.filter((e) => e.seq > after).map((e) => ({ ...structuredClone(e), intent: r.id, idempotency_key: r.idempotency_key })))
    .sort((a, b) => a.seq - b.seq || a.n - b.n);
  let page = all.slice(0, limit);
  const last = page[page.length - 1];
  if (last && all.length > limit) page = all.filter((e) => e.seq <= last.seq);
  const more = page.length < all.length;
  return { entries: page, next: more && last ? last.seq : null };
}

function naiveIntents(s: HolonState, mandate: string, status: IntentStatus | undefined, before: number, limit: number, now: number): { ids: string[]; next: number | null } {
  const rows = Object.values(s.intents)
    .filter((r) => r.mandate === mandate && r.created_seq < before && (!status || statusNow(s, r, now) === status))
    .sort((a, b) => b.created_seq - a.created_seq);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { ids: page.map((r) => r.id), next: rows.length > limit && last ? last.created_seq : null };
}

function naiveLapsed(s: HolonState, mandate: string, now: number): string[] {
  return Object.values(s.intents)
    .filter((r) => r.mandate === mandate && r.status === 'pending' && r.approval && statusNow(s, r, now) === 'expired')
    .map((r) => r.id);
}

function naiveInbox(s: HolonState, mandate: string, state: MailState | 'open'): MailThread[] {
  const me = s.mandates[mandate];
  assert.ok(me);
  return Object.values(s.office.threads)
    .filter((t) => t.to === me.grantee.slug && t.office === me.account && (state === 'open' ? t.state !== 'closed' : t.state === state))
    .sort((a, b) => (a.updated_at > b.updated_at ? -1 : a.updated_at < b.updated_at ? 1 : b.number - a.number));
}

function naiveResolve(s: HolonState, q: SnapshotQuery): MemoryVersion[] {
  const byKey = s.memory[q.mandate];
  if (!byKey) return [];
  const systemMs = Date.parse(q.system_as_of);
  const validMs = Date.parse(q.valid_as_of);
  const keys = q.keys ? [...new Set(q.keys)] : Object.keys(byKey).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: MemoryVersion[] = [];
  for (const key of keys) {
    if (q.prefix !== null && !key.startsWith(q.prefix)) continue;
    let best: MemoryVersion | undefined;
    for (const v of byKey[key] ?? []) {
      if (v.system_seq > q.system_seq || Date.parse(v.recorded_at) > systemMs) continue;
      if (Date.parse(v.valid_from) > validMs || (v.valid_to !== null && Date.parse(v.valid_to) <= validMs)) continue;
      if (!best || v.system_seq > best.system_seq) best = v;
    }
    if (best) out.push(best);
  }
  return out;
}

function naiveAllVersions(s: HolonState, mandate: string): MemoryVersion[] {
  const byKey = s.memory[mandate];
  if (!byKey) return [];
  return Object.keys(byKey)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap((k) => byKey[k] ?? []);
}

// ---- Comparing the indexed reads with the references. ----

const PAYERS = ['demo/pa', 'demo/pb'];
const OFFICE = Object.values(DEMO_OFFICE);
const KEYS = ['acme/billing', 'acme/contact', 'acme/terms', 'beta/billing', 'beta/contact', 'gamma', 'gamma/x', 'zeta/notes/1', 'zeta/notes/2'];
const PREFIXES = ['acme/', 'beta', 'gamma', 'zeta/notes/', 'nothing/', 'a'];

/** Every page of the audit trail, cursor after cursor, and pages from cursors picked at random. */
function checkAudit(s: HolonState, rand: () => number, what: string): number {
  let pages = 0;
  for (const mandate of PAYERS) {
    for (const limit of [1, 2, 5, 200]) {
      let after = 0;
      for (let guard = 0; guard < 10_000; guard++) {
        const got = auditPage(s, mandate, after, limit);
        assert.deepEqual(got, naiveAudit(s, mandate, after, limit), `${what}: get_audit of ${mandate} after ${after}, ${limit} a page`);
        pages += 1;
        if (got.next === null) break;
        after = got.next;
      }
    }
    for (let i = 0; i < 5; i++) {
      const after = Math.floor(rand() * (Object.keys(s.intents).length * 6 + 50));
      assert.deepEqual(auditPage(s, mandate, after, 3), naiveAudit(s, mandate, after, 3), `${what}: get_audit after ${after}`);
    }
  }
  return pages;
}

function checkIntents(s: HolonState, now: number, rand: () => number, what: string): void {
  for (const mandate of PAYERS) {
    for (const status of [undefined, ...INTENT_STATUSES]) {
      for (const limit of [1, 3, 50]) {
        let before = Number.MAX_SAFE_INTEGER;
        for (let guard = 0; guard < 10_000; guard++) {
          const got = intentPage(s, mandate, status, before, limit, now);
          const want = naiveIntents(s, mandate, status, before, limit, now);
          assert.deepEqual({ ids: got.intents.map((r) => r.id), next: got.next }, want, `${what}: list_intents ${status ?? 'all'} of ${mandate} before ${before}`);
          if (got.next === null) break;
          before = got.next;
        }
      }
      const before = Math.floor(rand() * (Object.keys(s.intents).length * 6 + 50));
      const got = intentPage(s, mandate, status, before, 2, now);
      assert.deepEqual({ ids: got.intents.map((r) => r.id), next: got.next }, naiveIntents(s, mandate, status, before, 2, now), `${what}: list_intents before ${before}`);
    }
    assert.deepEqual(lapsedIntents(s, mandate, now).map((r) => r.id), naiveLapsed(s, mandate, now), `${what}: lapsed intents of ${mandate}`);
  }
}

function checkMail(s: HolonState, what: string): void {
  for (const mandate of OFFICE) {
    for (const state of ['open', ...MAIL_STATES] as const) assert.deepEqual(inbox(s, mandate, state), naiveInbox(s, mandate, state), `${what}: ${mandate}'s ${state} mail`);
    const me = s.mandates[mandate];
    assert.ok(me);
    assert.equal(openMailCount(s, me.account, me.grantee.slug), naiveInbox(s, mandate, 'open').length, `${what}: ${mandate}'s open count`);
  }
}

/** A snapshot query as a tool would make it, at random: bounds in the past or now, named keys, a prefix. */
function randomQuery(s: HolonState, seq: number, now: number, rand: () => number): SnapshotQuery {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const r = rand();
  return {
    mandate: pick(PAYERS),
    system_seq: rand() < 0.6 ? seq : Math.floor(rand() * seq),
    system_as_of: new Date(rand() < 0.6 ? now : now - Math.floor(rand() * 5 * 86400_000)).toISOString(),
    valid_as_of: new Date(now + Math.floor((rand() - 0.6) * 10 * 86400_000)).toISOString(),
    keys: r < 0.2 ? Array.from({ length: 1 + Math.floor(rand() * 5) }, () => pick([...KEYS, 'never/remembered'])) : null,
    prefix: r > 0.5 ? pick(PREFIXES) : null,
  };
}

function checkMemory(s: HolonState, seq: number, now: number, rand: () => number, what: string): void {
  for (const mandate of PAYERS) assert.deepEqual(allVersions(s, mandate), naiveAllVersions(s, mandate), `${what}: every version of ${mandate}`);
  for (let i = 0; i < 25; i++) {
    const q = randomQuery(s, seq, now, rand);
    const want = naiveResolve(s, q);
    const label = `${what}: ${JSON.stringify(q)}`;
    assert.equal(snapshotTotal(s, q), want.length, `${label}: total`);
    assert.deepEqual([...snapshotRecords(s, q)], want, `${label}: records`);
    // Every page, as memory_recall's cursors read them: by offset alone (a cursor of before) and by the key a page ends on.
    const limit = 1 + Math.floor(rand() * 3);
    for (let offset = 0; offset < want.length; offset += limit) {
      const prev = want[offset - 1];
      const byOffset = [...snapshotRecords(s, q, { offset })].slice(0, limit);
      assert.deepEqual(byOffset, want.slice(offset, offset + limit), `${label}: the page at ${offset}, by offset`);
      if (q.keys === null && prev) {
        const byKey = [...snapshotRecords(s, q, { offset, after: prev.key })].slice(0, limit);
        assert.deepEqual(byKey, want.slice(offset, offset + limit), `${label}: the page at ${offset}, after ${prev.key}`);
      }
    }
  }
}

/** Every index read against its reference, on `s`. */
function checkAll(s: HolonState, seq: number, now: number, rand: () => number, what: string): void {
  checkAudit(s, rand, what);
  checkIntents(s, now, rand, what);
  // Later, every parked intent's approval has lapsed: read as expired, and lapsed for pay.
  checkIntents(s, now + 3600_000, rand, `${what}, an hour on`);
  checkMail(s, what);
  checkMemory(s, seq, now, rand, what);
}

const sameState = (a: HolonState, b: HolonState, what: string): void =>
  assert.equal(holonReducer.serialize(a), holonReducer.serialize(b), `${what}: the state (indexes included) serializes the same`);

// ---- The randomized history. ----

const failingRail: TransferRail = {
  transfer: async () => {
    throw new Error('the rail is down');
  },
};

/** Runs one random step of the history through the core's functions; refusals are part of it. */
async function step(store: FileJournal<HolonState>, clock: TestClock, dir: string, rand: () => number): Promise<void> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const signer = loadOrCreateSigner(dir);
  const r = rand();
  const expected = (e: unknown): void => {
    if (!(e instanceof HolonError)) throw e;
  };
  if (r < 0.35) {
    const amount = pick(['0.10', '0.20', '0.45', '0.80', '1.20']);
    const key = `k-${Math.floor(rand() * 150)}`;
    const purpose = rand() < 0.9 ? 'p' : 'another purpose';
    const rail = rand() < 0.15 ? failingRail : journalRail;
    await payIntent({ store, clock, signer, rail }, pick(PAYERS), { payee: 'acct:demo2', amount, currency: 'EUR', purpose, idempotency_key: key }).catch(expected);
  } else if (r < 0.4) {
    const waiting = Object.values(store.state.approvals).filter((a) => a.status === 'pending' && a.subject.kind === 'payment_intent');
    if (waiting.length > 2) await decideApproval(store, clock, pick(waiting).id, rand() < 0.6 ? 'approved' : 'rejected', 'panel').catch(expected);
  } else if (r < 0.5) {
    clock.advance(Math.floor(rand() * 8 * 60_000));
  } else if (r < 0.7) {
    const day = 86400_000;
    const from = rand() < 0.4 ? null : new Date(clock.now() + Math.floor((rand() - 0.5) * 8 * day)).toISOString();
    const to = rand() < 0.6 || !from ? null : new Date(Date.parse(from) + Math.floor(1 + rand() * 3 * day)).toISOString();
    await remember(store, pick(PAYERS), { key: pick(KEYS), content: `note ${rand()}`, valid_from: from, valid_to: to }, clock.now());
  } else if (r < 0.8) {
    const [from, to] = pick([
      [DEMO_OFFICE.lead, 'ada'],
      [DEMO_OFFICE.lead, 'bob'],
      [DEMO_OFFICE.ada, 'lead'],
    ] as const);
    await sendMail(store, clock, { mandate: from, to, subject: `s ${Math.floor(rand() * 100)}`, body: 'b' });
  } else {
    const mandate = pick(OFFICE);
    const me = store.state.mandates[mandate];
    const mine = Object.values(store.state.office.threads).filter((t) => t.to === me?.grantee.slug);
    if (mine.length === 0) return;
    const t = pick(mine);
    const act = rand();
    if (act < 0.3) await readMail(store, mandate, t.number);
    else if (act < 0.6) await replyMail(store, clock, { mandate, number: t.number, body: 'ok' }).catch(expected);
    else await closeMail(store, { mandate, number: t.number });
  }
}

test('every indexed read equals its naive reference, at any cursor, after any fold, from a snapshot or from the journal', async () => {
  const { dir, cleanup } = tempDir();
  const clock = new TestClock();
  const rand = random(19);
  const store = openFileJournal(dir, { clock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
  // A state revived from the snapshot form midway, folding on from there as a process that opened the snapshot would.
  let revived: HolonState | undefined;
  const unsubscribe = store.subscribe((events: JournalEvent[]) => {
    if (revived) for (const e of events) holonReducer.apply(revived, e);
  });
  try {
    await fund(store, 'demo', '1000');
    await fund(store, 'demo2', '1');
    for (const id of PAYERS)
      await createMandate(store, clock, id, {
        toolsets: ['money', 'records', 'memory'],
        approval_threshold: '0.50',
        budget: { total: '40', per_day: null, per_call: '1.00' },
        capabilities: [{ name: 'pay', params: { payees: ['acct:demo2'] } }],
      });
    await seedOffice(store, clock);
    const steps = 360;
    for (let i = 1; i <= steps; i++) {
      await step(store, clock, dir, rand);
      if (i % 60 === 0) {
        checkAll(store.state, store.seq, clock.now(), rand, `after step ${i}`);
        if (revived) {
          checkAll(revived, store.seq, clock.now(), rand, `revived, after step ${i}`);
          sameState(revived, store.state, `revived, after step ${i}`);
        }
        if (i === 120) {
          revived = holonReducer.deserialize(holonReducer.serialize(store.state));
          // And a snapshot on disk, as a server's worker writes one.
          await buildSnapshot(dir, path.join(dir, JOURNAL_FILE), holonReducer, store.position, loadOrCreateSigner(dir));
        }
      }
    }
    assert.ok(Object.values(store.state.intents).some((r) => statusNow(store.state, r, clock.now() + 3600_000) === 'expired'), 'the history has lapsed intents');
    assert.ok(Object.values(store.state.intents).some((r) => r.status === 'settled') && Object.values(store.state.intents).some((r) => r.status === 'failed'));
    assert.ok(Object.values(store.state.office.threads).some((t) => t.state === 'closed'));
    // Other processes: one folding the journal from a snapshot (written midway) on, one from its start.
    await store.flush();
    const fromSnapshot = openState(dir, { clock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
    try {
      sameState(fromSnapshot.state, store.state, 'a process that opened the snapshot');
      checkAll(fromSnapshot.state, store.seq, clock.now(), rand, 'a process that opened the snapshot');
    } finally {
      fromSnapshot.close();
    }
    // The last snapshot is folded on from the one before; verify folds from the start and compares.
    await buildSnapshot(dir, path.join(dir, JOURNAL_FILE), holonReducer, store.position, loadOrCreateSigner(dir));
    const report = checkJournal(dir, holonReducer);
    assert.equal(report.snapshot?.ok, true, JSON.stringify(report.snapshot));
    fs.renameSync(path.join(dir, SNAPSHOT_FILE), path.join(dir, `${SNAPSHOT_FILE}.aside`));
    const fromStart = openState(dir, { clock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
    try {
      sameState(fromStart.state, store.state, 'a process that folded the journal from its start');
      checkAll(fromStart.state, store.seq, clock.now(), rand, 'a process that folded the journal from its start');
    } finally {
      fromStart.close();
    }
  } finally {
    unsubscribe();
    store.close();
    cleanup();
  }
});

/** Events as a hand-written journal could hold them, folded one after another from `seq`. */
function folder(s: HolonState, seq: number, clock: TestClock): (type: string, data: unknown, time?: string) => JournalEvent {
  return (type, data, time) => {
    seq += 1;
    const e = { seq, time: time ?? new Date(clock.now()).toISOString(), type, data, prev: '', hash: '' };
    holonReducer.apply(s, e);
    return e;
  };
}

test('the indexes follow what a journal Holon never writes says: a thread re-sent elsewhere or reopened, an intent re-submitted, an approval asked again, dates no clock reads', async () => {
  const { dir, cleanup } = tempDir();
  const clock = new TestClock();
  const rand = random(7);
  const store = openFileJournal(dir, { clock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
  try {
    for (const id of PAYERS) await createMandate(store, clock, id, { toolsets: ['money', 'memory'], capabilities: [] });
    await seedOffice(store, clock);
    const s = holonReducer.deserialize(holonReducer.serialize(store.state));
    const fold = folder(s, store.seq, clock);
    const at = new Date(clock.now()).toISOString();
    const thread = (id: string, to: unknown, number: number): Record<string, unknown> => ({
      thread: { id, office: 'demo', to, number, from: 'lead', from_mandate: DEMO_OFFICE.lead, subject: 's', body: 'b', state: 'new', comments: [], hops: 0, notifies: null, woke: true, created_at: at, updated_at: at },
    });
    fold('mail.sent', thread('demo/ada#1', 'ada', 1));
    fold('mail.sent', thread('demo/ada#2', 'ada', 2));
    fold('mail.closed', { thread: 'demo/ada#1' });
    checkMail(s, 'a thread closed');
    fold('mail.replied', { thread: 'demo/ada#1', comment: { from: 'ada', body: 'again', at }, delivered: null });
    checkMail(s, 'a closed thread replied to, so open again');
    fold('mail.sent', thread('demo/ada#2', 'bob', 7));
    checkMail(s, 'a thread re-sent to another inbox');
    fold('mail.sent', thread('demo/odd#1', 5, 1));
    fold('mail.sent', thread('demo/odd#2', 'undefined', 2));
    checkMail(s, 'threads that name no inbox of a string');

    const intent = (id: string, mandate: string, key: string): Record<string, unknown> => ({
      intent: id, mandate, idempotency_key: key, body_sha256: 'h', payee: 'acct:demo2', amount: { amount: '1', currency: 'EUR' }, purpose: 'p', signature: { alg: 'Ed25519', public_key: 'k', value: 'v' },
    });
    fold('intent.submitted', intent('int_1', PAYERS[0] as string, 'a'));
    fold('intent.submitted', intent('int_2', PAYERS[0] as string, 'b'));
    fold('intent.parked', { intent: 'int_1', held: { amount: '1', currency: 'EUR' }, approval: 'apr_late', challenge: 'c', expires_at: at });
    checkIntents(s, clock.now(), rand, 'parked on an approval not yet asked for');
    const approval = { id: 'apr_late', kind: 'payment_intent', mandate: PAYERS[0], binding: 'b', bound: {}, subject: { kind: 'payment_intent', intent: 'int_1', payee: 'acct:demo2', amount: { amount: '1', currency: 'EUR' }, purpose: 'p' }, amount: null, threshold: null, ref: 'int_1', requested_at: at, expires_at: new Date(clock.now() + 7200_000).toISOString(), status: 'pending' };
    fold('approval.requested', { approval });
    checkIntents(s, clock.now() + 700_000, rand, 'its approval asked for after, for two hours');
    // Another intent parked on an approval asked for before it, for two hours, then asked again for ten minutes.
    const early = { ...approval, id: 'apr_early', ref: 'int_2', subject: { ...approval.subject, intent: 'int_2' } };
    fold('approval.requested', { approval: early });
    fold('intent.parked', { intent: 'int_2', held: { amount: '1', currency: 'EUR' }, approval: 'apr_early', challenge: 'c', expires_at: early.expires_at });
    checkIntents(s, clock.now() + 700_000, rand, 'parked on an approval of two hours');
    for (const a of [approval, early]) fold('approval.requested', { approval: { ...a, expires_at: new Date(clock.now() + 600_000).toISOString() } });
    checkIntents(s, clock.now(), rand, 'its approval asked again, for ten minutes');
    checkIntents(s, clock.now() + 700_000, rand, 'its approval asked again, and lapsed');
    for (const a of [approval, early]) fold('approval.requested', { approval: { ...a, expires_at: 'not a date' } });
    checkIntents(s, clock.now() + 9e9, rand, 'its approval asked again, with an expiry no clock reads');
    fold('intent.submitted', intent('int_1', PAYERS[1] as string, 'c'));
    fold('intent.authorized', { intent: 'int_1', held: { amount: '1', currency: 'EUR' } });
    checkAudit(s, rand, 'an intent submitted again under another mandate');
    checkIntents(s, clock.now(), rand, 'an intent submitted again under another mandate');

    // Enough keys that the key index splits its chunks, in no order, with dates no clock reads here and there.
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
    const keys = Array.from({ length: 2600 }, (_, i) => `${pick(['acme/', 'beta', 'gamma', 'zeta/notes/', 'a', ''])}${Math.floor(rand() * 1e9).toString(36)}-${i}`);
    let revived: HolonState | undefined;
    let top = 0;
    for (let i = 0; i < 6000; i++) {
      const key = i < keys.length ? (keys[i] as string) : pick(keys);
      const base = clock.now() + Math.floor((rand() - 0.5) * 20 * 86400_000);
      const odd = rand();
      const valid_from = odd < 0.02 ? 'not a date' : new Date(base).toISOString();
      const valid_to = odd < 0.04 ? 'never' : rand() < 0.5 ? null : new Date(base + Math.floor((rand() - 0.1) * 5 * 86400_000)).toISOString();
      const time = odd > 0.98 ? 'sometime' : new Date(clock.now() - Math.floor(rand() * 3 * 86400_000)).toISOString();
      const event = { id: `mem_${i}`, mandate: pick(PAYERS), key, content: 'c', valid_from, valid_to, sha256: 'h', supersedes: [] };
      const e = fold('memory.remembered', event, time);
      if (revived) holonReducer.apply(revived, e);
      if (i === 3000) revived = holonReducer.deserialize(holonReducer.serialize(s));
      top = e.seq;
    }
    checkMemory(s, top, clock.now(), rand, 'thousands of keys');
    assert.ok(revived);
    // Folded on from its snapshot form (chunked otherwise), it reads and serializes the same.
    checkMemory(revived, top, clock.now(), rand, 'thousands of keys, folded on from a snapshot');
    sameState(revived, s, 'thousands of keys, folded on from a snapshot');
  } finally {
    store.close();
    cleanup();
  }
});

/**
 * A snapshot read as memory_recall pages it, against the reference: its total, every record, every page
 * by the key the page before ends on (the cursors it issues), and a few pages by offset alone.
 */
function checkPages(s: HolonState, q: SnapshotQuery, rand: () => number, label: string): void {
  const want = naiveResolve(s, q);
  assert.equal(snapshotTotal(s, q), want.length, `${label}: total`);
  assert.deepEqual([...snapshotRecords(s, q)], want, `${label}: records`);
  const limit = 1 + Math.floor(rand() * 40);
  let after: string | undefined;
  for (let offset = 0; offset < want.length; offset += limit) {
    const page: MemoryVersion[] = [];
    for (const v of snapshotRecords(s, q, { offset, after })) if (page.push(v) >= limit) break;
    assert.deepEqual(page, want.slice(offset, offset + limit), `${label}: the page at ${offset}, after ${after}`);
    after = page.at(-1)?.key;
  }
  for (let i = 0; i < 3 && want.length > 0; i++) {
    const offset = Math.floor(rand() * want.length);
    assert.deepEqual([...snapshotRecords(s, q, { offset })].slice(0, limit), want.slice(offset, offset + limit), `${label}: the page at ${offset}, by offset`);
  }
}

test('reads as of a past system time or a past valid time equal the reference, page after page, on a memory of thousands of keys', async () => {
  const { dir, cleanup } = tempDir();
  const clock = new TestClock();
  const rand = random(31);
  const store = openFileJournal(dir, { clock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
  try {
    for (const id of PAYERS) await createMandate(store, clock, id, { toolsets: ['memory'], capabilities: [] });
    const s = holonReducer.deserialize(holonReducer.serialize(store.state));
    const fold = folder(s, store.seq, clock);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
    const day = 86400_000;
    const start = clock.now();
    const keys = Array.from({ length: 3000 }, (_, i) => `${pick(['acme/', 'beta/', 'zeta/notes/', ''])}${Math.floor(rand() * 1e9).toString(36)}-${i}`);
    const hot: string[] = [];
    const edges: number[] = [start];
    let revived: HolonState | undefined;
    let top = 0;
    const query = (mandate: string, seq: number): SnapshotQuery => {
      const now = clock.now();
      // System and valid times anywhere in the history (or a little past it), bounds sealed now or before.
      const r = rand();
      const system = r < 0.2 ? now : r < 0.6 ? start + Math.floor(rand() * (now - start)) : now - Math.floor(rand() * 3 * day);
      // As of the same instant, as of where some version's valid time starts or ends, or anywhere.
      const v = rand();
      const valid = v < 0.3 ? system : v < 0.5 ? pick(edges) : start + Math.floor((rand() * 1.2 - 0.1) * (now - start));
      return {
        mandate,
        system_seq: rand() < 0.7 ? seq : Math.floor(rand() * seq),
        system_as_of: new Date(system).toISOString(),
        valid_as_of: new Date(valid).toISOString(),
        keys: rand() < 0.1 ? Array.from({ length: 5 }, () => pick([...keys, ...hot])) : null,
        prefix: rand() < 0.3 ? pick(['acme/', 'beta/', 'zeta/notes/', 'a', 'nothing/']) : null,
      };
    };
    const check = (state: HolonState, what: string): void => {
      for (let i = 0; i < 12; i++) {
        const q = query(pick(PAYERS), top);
        checkPages(state, q, rand, `${what}: ${JSON.stringify({ ...q, keys: q.keys?.length ?? null })}`);
      }
    };
    for (let i = 0; i < 9000; i++) {
      // Remembered new first, then corrected: most as the tool does (valid from now, open), some over other valid times.
      // Late in the history, now and then a version recorded by a clock set back (up to two days), of a new
      // key that is corrected on time after: a snapshot as of between them shows what the late one says.
      const late = i > 7000 && rand() < 0.05;
      let key = pick(i > 7000 && hot.length > 0 && rand() < 0.15 ? hot : keys);
      if (i < keys.length) key = keys[i] as string;
      else if (late) hot.push((key = `${pick(['acme/', 'beta/', ''])}late-${i}`));
      // A clock set back is the remembering process's own: its default valid time is as late as its record time.
      const now = late ? clock.now() - Math.floor(rand() * 2 * day) : clock.now();
      const custom = rand() < 0.4;
      const from = custom ? now + Math.floor((rand() - 0.7) * 20 * day) : now;
      const to = custom && rand() < 0.5 ? from + Math.floor(1 + rand() * 6 * day) : null;
      edges.push(from, ...(to === null ? [] : [to]));
      const event = { id: `mem_${i}`, mandate: pick(PAYERS), key, content: 'c', valid_from: new Date(from).toISOString(), valid_to: to === null ? null : new Date(to).toISOString(), sha256: 'h', supersedes: [] };
      const e = fold('memory.remembered', event, new Date(now).toISOString());
      if (revived) holonReducer.apply(revived, e);
      top = e.seq;
      // A few versions share a journal time, as a batch does; most come minutes apart.
      if (rand() < 0.8) clock.advance(Math.floor(rand() * 10 * 60_000));
      if (i === 4000) {
        check(s, 'midway');
        revived = holonReducer.deserialize(holonReducer.serialize(s));
      }
    }
    check(s, 'at the end');
    assert.ok(revived);
    check(revived, 'folded on from a snapshot');
    sameState(revived, s, 'folded on from a snapshot');
    // A snapshot written before the index kept what each version added to its cover: the index is made
    // again from the versions, as a fold from the start makes it.
    const older = JSON.parse(holonReducer.serialize(s)) as { memory_index: Record<string, Record<string, unknown>> };
    for (const ix of Object.values(older.memory_index)) for (const f of ['seen', 'stepSeq', 'stepMax', 'lateSeq', 'lateRec', 'lateKey']) delete ix[f];
    const rebuilt = holonReducer.deserialize(JSON.stringify(older));
    sameState(rebuilt, s, 'revived from a snapshot of before');
    check(rebuilt, 'revived from a snapshot of before');
  } finally {
    store.close();
    cleanup();
  }
});

/** memory_assemble as it was: the whole snapshot resolved, every record looked at. */
async function naiveAssemble(store: FileJournal<HolonState>, q: SnapshotQuery, limitBytes: number, listed: number): Promise<{ records: string[]; omitted: number; listed: string[]; context: string }> {
  const blocks: string[] = [];
  const included: string[] = [];
  const omitted: string[] = [];
  let used = 0;
  for (const v of naiveResolve(store.state, q)) {
    const sep = blocks.length > 0 ? 1 : 0;
    if (used + sep + Buffer.byteLength(renderBlock(v, ''), 'utf8') + v.bytes > limitBytes) {
      omitted.push(v.id);
      continue;
    }
    const block = renderBlock(v, (await readContents(store, q.mandate, [v])).get(v.id) ?? '');
    const size = used + sep + Buffer.byteLength(block, 'utf8');
    if (size > limitBytes) {
      omitted.push(v.id);
      continue;
    }
    blocks.push(block);
    included.push(v.id);
    used = size;
  }
  return { records: included, omitted: omitted.length, listed: omitted.slice(0, listed), context: blocks.join('\n') };
}

test('an assembly passes over what cannot fit unread, and fits, names and counts what it did before', async () => {
  const { dir, cleanup } = tempDir();
  const clock = new TestClock();
  const rand = random(11);
  const store = openFileJournal(dir, { clock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
  try {
    const mandate = PAYERS[0] as string;
    await createMandate(store, clock, mandate, { toolsets: ['memory'], capabilities: [] });
    // Enough keys for several chunks of the key index, contents of every size, a few corrected.
    const start = clock.now();
    for (let i = 0; i < 2600; i++) {
      const key = `${['acme/', 'beta/', 'zeta/'][i % 3]}${Math.floor(rand() * 1e9).toString(36)}`;
      const content = 'x'.repeat(rand() < 0.05 ? 1 + Math.floor(rand() * 20) : 100 + Math.floor(rand() * 2000));
      await remember(store, mandate, { key, content }, clock.now());
      if (rand() < 0.02) await remember(store, mandate, { key, content: 'short' }, clock.now());
      clock.advance(1000);
    }
    const signer = loadOrCreateSigner(dir);
    for (let i = 0; i < 24; i++) {
      // As of now, or (every other one) as of a past system time and a past valid time.
      const at = (): string => new Date(i % 2 === 0 ? clock.now() : start + Math.floor(rand() * (clock.now() - start))).toISOString();
      const q: SnapshotQuery = { mandate, system_seq: store.seq, system_as_of: at(), valid_as_of: at(), keys: null, prefix: rand() < 0.3 ? 'beta/' : null };
      const limit = [1, 60, 300, 2000, 20_000, 200_000][i % 6] as number;
      const listed = [0, 1, 5, 100][Math.floor(rand() * 4)] as number;
      const got = await assembleContext(store, signer, q, { unit: 'bytes', limit }, clock.now(), listed);
      const want = await naiveAssemble(store, q, limit, listed);
      const label = `${limit} bytes, ${listed} named, prefix ${q.prefix}, as of ${q.system_as_of} (system), ${q.valid_as_of} (valid)`;
      assert.deepEqual(got.artifact.records.map((r) => r.id), want.records, label);
      assert.equal(got.artifact.context, want.context, label);
      assert.equal(got.artifact.omitted, want.omitted, label);
      assert.deepEqual(got.omitted.map((r) => r.id), want.listed, label);
      assert.equal(verifyArtifact(got.artifact).valid, true, label);
    }
  } finally {
    store.close();
    cleanup();
  }
});

test('an assembly of now reads the versions of the records it includes, and of none it leaves out', async () => {
  const { dir, cleanup } = tempDir();
  const clock = new TestClock();
  const store = openFileJournal(dir, { clock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
  try {
    const mandate = PAYERS[0] as string;
    await createMandate(store, clock, mandate, { toolsets: ['memory'], capabilities: [] });
    // Keys over several chunks of the key index, each remembered and some corrected since: a snapshot of
    // now shows every key's latest version.
    for (let i = 0; i < 1500; i++) {
      const key = `k/${String(i).padStart(5, '0')}`;
      await remember(store, mandate, { key, content: `${'x'.repeat(100)}${i}` }, clock.now());
      if (i % 7 === 0) await remember(store, mandate, { key, content: `corrected ${i}` }, clock.now());
      clock.advance(1000);
    }
    const now = new Date(clock.now()).toISOString();
    const q: SnapshotQuery = { mandate, system_seq: store.seq, system_as_of: now, valid_as_of: now, keys: null, prefix: null };
    const byKey = store.state.memory[mandate] as Record<string, MemoryVersion[]>;
    const read = new Set<string>();
    store.state.memory[mandate] = new Proxy(byKey, {
      get: (target, key, receiver) => {
        if (typeof key === 'string') read.add(key);
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    try {
      const got = await assembleContext(store, loadOrCreateSigner(dir), q, { unit: 'bytes', limit: 2000 }, clock.now());
      assert.ok(
        got.artifact.records.length > 3 && got.omitted.length === 100,
        `${got.artifact.records.length} included, ${got.omitted.length} listed`,
      );
      assert.deepEqual([...read].sort(), got.artifact.records.map((r) => r.key).sort(), 'the keys whose versions were read');
      assert.equal(got.artifact.records.length + got.artifact.omitted, 1500);
    } finally {
      store.state.memory[mandate] = byKey;
    }
  } finally {
    store.close();
    cleanup();
  }
});

test('a recall as of a past system or valid time counts its snapshot and reads its page without reading the versions of any key it passes over', async () => {
  const { dir, cleanup } = tempDir();
  const clock = new TestClock();
  const rand = random(37);
  const store = openFileJournal(dir, { clock, logger: silentLogger, durable: false, watch: false, snapshotEvery: 0 });
  try {
    const mandate = PAYERS[0] as string;
    await createMandate(store, clock, mandate, { toolsets: ['memory'], capabilities: [] });
    const s = holonReducer.deserialize(holonReducer.serialize(store.state));
    const fold = folder(s, store.seq, clock);
    // Keys over several chunks, remembered a minute apart as the tool does (valid from then on), one in
    // three corrected later: as of the middle, half the keys show, some by a version that is not their latest.
    const start = clock.now();
    const keys = Array.from({ length: 3000 }, (_, i) => `k/${Math.floor(rand() * 1e9).toString(36)}-${i}`);
    for (let i = 0; i < 4000; i++) {
      const key = i < keys.length ? (keys[i] as string) : (keys[Math.floor(rand() * keys.length)] as string);
      const at = new Date(clock.now()).toISOString();
      fold('memory.remembered', { id: `mem_${i}`, mandate, key, content: 'c', valid_from: at, valid_to: null, sha256: 'h', supersedes: [] }, at);
      clock.advance(60_000);
    }
    const middle = new Date(start + (clock.now() - start) / 2).toISOString();
    const now = new Date(clock.now()).toISOString();
    const byKey = s.memory[mandate] as Record<string, MemoryVersion[]>;
    for (const [system_as_of, valid_as_of] of [
      [middle, now],
      [now, middle],
      [middle, middle],
    ] as const) {
      const q: SnapshotQuery = { mandate, system_seq: store.seq + 4000, system_as_of, valid_as_of, keys: null, prefix: null };
      const want = naiveResolve(s, q);
      assert.ok(want.length > 1000 && want.length < 2500, `${want.length} records as of ${system_as_of} (system), ${valid_as_of} (valid)`);
      const read = new Set<string>();
      s.memory[mandate] = new Proxy(byKey, {
        get: (target, key, receiver) => {
          if (typeof key === 'string') read.add(key);
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
      try {
        // The total, the first page, and the tenth by the key the ninth ends on, as memory_recall reads them.
        assert.equal(snapshotTotal(s, q), want.length);
        const page = (from: SnapshotPlace): MemoryVersion[] => {
          const out: MemoryVersion[] = [];
          for (const v of snapshotRecords(s, q, from)) if (out.push(v) >= 20) break;
          return out;
        };
        const first = page({ offset: 0 });
        const tenth = page({ offset: 180, after: (want[179] as MemoryVersion).key });
        assert.deepEqual(first, want.slice(0, 20));
        assert.deepEqual(tenth, want.slice(180, 200));
        const shown = new Set([...first, ...tenth].map((v) => v.key));
        assert.deepEqual([...read].filter((k) => !shown.has(k)), [], `as of ${system_as_of} (system), ${valid_as_of} (valid): the keys passed over whose versions were read`);
      } finally {
        s.memory[mandate] = byKey;
      }
    }
  } finally {
    store.close();
    cleanup();
  }
});

test('SortedCounts counts what is at most any number as a sorted array would, through inserts and removals', () => {
  const rand = random(23);
  const counts = new SortedCounts();
  const naive: number[] = [];
  const atMostNaive = (x: number): number => naive.filter((y) => y <= x).length;
  // Few distinct values (so that runs share them at their ends), and enough of them for many runs.
  const value = (): number => Math.floor(rand() * 3000) * 7 - 9000;
  for (let i = 0; i < 12_000; i++) {
    // Mostly inserts at first, then mostly removals, some of values it does not hold: runs split, shrink and go.
    const removing = rand() < (i < 6000 ? 0.2 : 0.85);
    const x = removing && naive.length > 0 && rand() < 0.8 ? (naive[Math.floor(rand() * naive.length)] as number) : value();
    if (removing) {
      counts.remove(x);
      const at = naive.indexOf(x);
      if (at >= 0) naive.splice(at, 1);
    } else {
      counts.insert(x);
      naive.push(x);
    }
    if (i % 500 === 0 || i > 11_900) {
      assert.equal(counts.size, naive.length, `after ${i} steps: the size`);
      for (const probe of [value(), value() + 1, value() - 1, -Infinity, Infinity, ...naive.slice(0, 3)])
        assert.equal(counts.atMost(probe), atMostNaive(probe), `after ${i} steps: at most ${probe}`);
    }
  }
  const built = SortedCounts.of([...naive].reverse());
  for (let i = 0; i < 50; i++) {
    const probe = value() + (rand() < 0.5 ? 0 : 3);
    assert.equal(built.atMost(probe), atMostNaive(probe), `built at once: at most ${probe}`);
  }
});

test('a count of every key, as of now or of any past seq, and an assembly passing over what cannot fit, read no chunk of the key index they pass over', () => {
  const rand = random(29);
  const day = 86400_000;
  const now = Date.parse('2026-06-01T00:00:00Z');
  const ix = new KeyIndex();
  const shown = new Map<string, { from: number; to: number; seq: number }[]>();
  const lightest = new Map<string, number>();
  let seq = 0;
  const add = (key: string, bytes: number): void => {
    seq += 1;
    const from = now - Math.floor(rand() * 30 * day);
    const to = rand() < 0.3 ? from + Math.floor(1 + rand() * 40 * day) : null;
    const v = {
      id: `mem_${seq}`,
      key,
      valid_from: new Date(from).toISOString(),
      valid_to: to === null ? null : new Date(to).toISOString(),
      system_seq: seq,
      recorded_at: new Date(now - day).toISOString(),
      bytes,
    };
    ix.add(key, v);
    lightest.set(key, Math.min(lightest.get(key) ?? Infinity, bytes));
    (shown.get(key) ?? shown.set(key, []).get(key))?.push({ from, to: to ?? Infinity, seq });
  };
  // Twenty thousand keys in no order, a few heavy enough that an assembly out of room must look at their chunks.
  const keys = Array.from({ length: 20_000 }, (_, i) => `k/${Math.floor(rand() * 1e9).toString(36)}-${i}`);
  for (const key of keys) add(key, rand() < 0.001 ? 10 : 5000);
  const bounded = seq;
  // Written after the snapshot a cursor pinned: only their chunks are resolved key by key.
  for (let i = 0; i < 5; i++) add(keys[Math.floor(rand() * keys.length)] as string, 5000);
  const chunks = (ix as unknown as { chunks: unknown[] }).chunks;
  let visited = 0;
  (ix as unknown as { chunks: unknown[] }).chunks = new Proxy(chunks, {
    get: (t, p, r) => {
      if (typeof p === 'string' && /^\d+$/.test(p)) visited += 1;
      return Reflect.get(t, p, r);
    },
  });
  const seekCost = 2 * Math.ceil(Math.log2(chunks.length)) + 2;
  assert.ok(chunks.length > 30, `${chunks.length} chunks`);
  // The first count as of a past seq gathers what each version added to its key's cover, from every chunk, once.
  ix.count(null, ix.bound(1, now), now, () => false);
  // Sealed now, sealed before the last five writes, and as of the middle of the history: no chunk is read.
  for (const atSeq of [seq, bounded, Math.floor(bounded / 2)]) {
    for (let i = 0; i < 20; i++) {
      const validMs = now - Math.floor(rand() * 40 * day) + (i === 0 ? 0 : day / 3);
      const want = [...shown.values()].filter((vs) => vs.some((v) => v.seq <= atSeq && v.from <= validMs && validMs < v.to)).length;
      visited = 0;
      const got = ix.count(null, ix.bound(atSeq, now), validMs, (k) =>
        (shown.get(k) ?? []).some((v) => v.seq <= atSeq && v.from <= validMs && validMs < v.to),
      );
      assert.equal(got, want, `the count at ${new Date(validMs).toISOString()}, sealed at ${atSeq}`);
      assert.equal(visited, 0, `a count sealed at ${atSeq} read ${visited} chunks`);
    }
  }
  // An assembly with room for the light keys only reads the chunks that hold one.
  const light = [...lightest]
    .filter(([, bytes]) => bytes < 1000)
    .map(([k]) => k)
    .sort();
  visited = 0;
  const passed = [...ix.keysFrom(null, null, () => 1000)];
  assert.deepEqual(passed, light, 'the keys light enough, in order');
  assert.ok(light.length > 0 && light.length < 60, `${light.length} light keys`);
  assert.ok(visited <= light.length + seekCost, `passing over what cannot fit read ${visited} of ${chunks.length} chunks`);
});
