/**
 * `holon verify`: the offline check of everything a process trusts. It reads the journal line by line
 * (never the whole file at once), checks the hash chain, groups the events into the transactions their
 * seals close, checks every seal's signature and key and whether the fold admits each transaction from
 * its signer, folds what it admits, and compares the fold with the snapshot and the index at the
 * snapshot's position. Every transaction a process would refuse is reported, not only the first.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { canonicalize } from 'json-canonicalize';
import { JOURNAL_FILE } from './file/journal.ts';
import { scanLines } from './file/foldRange.ts';
import { chainOver, INDEX_FILE, indexLine } from './file/journalIndex.ts';
import { installationPublicKey } from './keys.ts';
import { codecOf } from './file/lazy.ts';
import { openSnapshot, SNAPSHOT_FILE } from './file/snapshot.ts';
import type { SnapshotFile, SnapshotHeader } from './file/snapshot.ts';
import type { JournalEvent, Reducer, RefusedTx } from './store.ts';
import { describeRefusal, eventProblem, parseEventLine } from './store.ts';
import type { RefusedRun, SealedTx } from './txChain.ts';
import { crashCouldLeave, isRefused, TxChain } from './txChain.ts';

/** The first event that breaks the chain, and why: nothing after it can be read. */
export interface BadEvent {
  /** 1-based line number in journal.jsonl (a team store: the row's seq). */
  line: number;
  /** The sequence number the event should have. */
  seq: number;
  problem: string;
}

/** How many refused transactions a report lists; past that it only counts them. */
const REFUSED_LISTED = 100;

/** What `holon verify` reports. */
export interface VerifyReport {
  ok: boolean;
  /** Events read that follow the chain, folded or not. */
  events: number;
  /** Sealed transactions folded. */
  transactions: number;
  /** The last event of the last transaction folded (0 if none). */
  signed_through: number;
  /** Events after the last seal: a transaction not complete (see torn_tail), never folded. */
  unsigned: number;
  head: string;
  first_bad?: BadEvent;
  /** Transactions read and not folded, and why (the first REFUSED_LISTED of them); `refused_count` counts all. */
  refused: RefusedTx[];
  refused_count: number;
  /**
   * A transaction a crash cut short: its whole lines after the last seal and the bytes of a line after
   * the last newline. Not tampering: the next process that writes removes it (or, when only the sealing
   * line's newline is missing, completes it).
   */
  torn_tail?: { bytes: number; events: number; whole_event: boolean };
  /** The snapshot, when there is one: whether it is what the journal folds to at its position. */
  snapshot?: { seq: number | null; ok: boolean; problem?: string };
}

/**
 * The check every event of a log goes through, in order, wherever it is kept (a journal's lines, a team
 * store's rows): it follows the one before; transactions are taken whole as their seals close them; a
 * seal must verify and be by a key `sealKey` accepts; the fold must admit the transaction from its
 * signer. What passes is folded into `state`; what does not is listed as refused, and the check goes on.
 */
export class LogCheck<S> {
  readonly state: S;
  private readonly chain = new TxChain<{ e: JournalEvent; at: number }>(undefined, true);
  private readonly refusedTxs: RefusedTx[] = [];
  private refusedCount = 0;
  private transactions = 0;
  private signedThrough = 0;
  private bad: BadEvent | undefined;

  constructor(
    /** The fold: what it admits from whom, and how it applies an event. */
    private readonly reducer: Reducer<S>,
    private readonly sealKey: (key: string) => string | undefined = () => undefined,
    /** Called with each event just before a transaction that holds it is folded (the state before it). */
    private readonly beforeFold?: (e: JournalEvent, at: number, state: S) => void,
    /** Called after each transaction is folded. */
    private readonly afterFold?: (seq: number) => void,
  ) {
    this.state = reducer.initial();
  }

  get seq(): number {
    return this.chain.seq;
  }

  get prev(): string {
    return this.chain.prev;
  }

  /** The events after the last seal. */
  get open(): JournalEvent[] {
    return this.chain.open.map((x) => x.e);
  }

  /** True when what is open follows a checkpoint of the format of before (see TxChain). */
  get afterCheckpoint(): boolean {
    return this.chain.afterCheckpoint;
  }

  /** Takes the next event (`at`: its line, or a row's seq); false once the chain is broken and nothing more can be read. */
  next(e: JournalEvent | undefined, at: number, unreadable = 'not a whole event (the line was altered)'): boolean {
    if (this.bad) return false;
    if (!e) {
      this.bad = { line: at, seq: this.chain.seq + 1, problem: unreadable };
      return false;
    }
    const step = this.chain.push({ e, at });
    if ('broken' in step) {
      this.bad = step.at
        ? { line: step.at.at, seq: step.at.e.seq, problem: step.broken }
        : { line: at, seq: this.chain.seq + 1, problem: step.broken };
      return false;
    }
    for (const done of step.done) this.take(done);
    return true;
  }

  private refuse(r: RefusedTx): void {
    this.refusedCount += 1;
    if (this.refusedTxs.length < REFUSED_LISTED) this.refusedTxs.push(r);
  }

  private take(done: SealedTx<{ e: JournalEvent; at: number }> | RefusedRun<{ e: JournalEvent; at: number }>): void {
    if (isRefused(done)) return this.refuse(done.refused);
    const tx = done;
    const events = tx.items.map((x) => x.e);
    const from = events[0]?.seq ?? 0;
    const to = events.at(-1)?.seq ?? 0;
    const keyProblem = this.sealKey(tx.signer);
    const refusal = keyProblem
      ? { code: 'foreign_key', message: keyProblem }
      : !tx.verify()
        ? { code: 'bad_seal', message: `its seal is not ${tx.signer}'s signature of it` }
        : this.reducer.admit?.(this.state, events, tx.signer);
    if (refusal) return this.refuse({ ...refusal, from, to, signer: tx.signer });
    for (const x of tx.items) this.beforeFold?.(x.e, x.at, this.state);
    try {
      this.reducer.sealed?.(this.state, tx.signer);
      for (const e of events) this.reducer.apply(this.state, e);
    } catch (err) {
      this.bad = { line: tx.items[0]?.at ?? 0, seq: from, problem: `the transaction cannot be folded (${(err as Error).message})` };
      return;
    }
    this.transactions += 1;
    this.signedThrough = to;
    this.afterFold?.(to);
  }

  /** The report of everything read. */
  report(): VerifyReport {
    const open = this.chain.open.length;
    const r: VerifyReport = {
      ok: this.bad === undefined && this.refusedCount === 0,
      events: this.bad ? this.bad.seq - 1 : this.chain.seq,
      transactions: this.transactions,
      signed_through: this.signedThrough,
      unsigned: open,
      head: this.chain.prev,
      refused: this.refusedTxs,
      refused_count: this.refusedCount,
    };
    if (this.bad) r.first_bad = this.bad;
    return r;
  }
}

/** Fails a report for events no seal covers (`open`, in order), saying why they cannot be a crash's. */
export function refuseUnsealed(report: VerifyReport, open: readonly JournalEvent[], message: string): void {
  report.ok = false;
  report.refused.push({ from: open[0]?.seq ?? 0, to: open.at(-1)?.seq ?? 0, signer: null, code: 'unsealed', message });
  report.refused_count += 1;
}

/**
 * Checks the whole journal offline: every line parses and follows the one before; every transaction is
 * sealed by this installation's key, its seal verifies and the fold admits it; then that the snapshot and
 * the index are what the journal folds to where the snapshot was taken. An altered line stops it (what
 * follows cannot be read); a transaction that is refused is listed, and it goes on.
 */
export function checkJournal<S extends object>(stateDir: string, reducer: Reducer<S>): VerifyReport {
  const file = path.join(stateDir, JOURNAL_FILE);
  const expectedKey = installationPublicKey(stateDir);
  const snap = fs.existsSync(path.join(stateDir, SNAPSHOT_FILE)) ? openSnapshot(stateDir, file) : undefined;
  const header: SnapshotHeader | undefined = snap?.ok ? snap.snap.header : undefined;
  /** What the index must hold, as the fold files it: its lines, hashed as they come. */
  const index = createHash('sha256');
  // A snapshot of an older build is not wrong, only unusable here: it is ignored and rebuilt, never a failure.
  let snapshot: VerifyReport['snapshot'] = snap && !snap.ok ? { seq: null, ok: snap.stale === true, problem: snap.problem } : undefined;
  const offsets = new Map<number, number>();
  const check = new LogCheck(
    reducer,
    (k) =>
      !expectedKey
        ? `sealed by ${k}, but this state folder holds no installation key to check it with`
        : k !== expectedKey
          ? `sealed by a key that is not this installation's (${k})`
          : undefined,
    // Filed as the fold files it: under the keys of the state before the event.
    (e, _line, state) => {
      const offset = offsets.get(e.seq) ?? 0;
      if (header && offset < (header.index?.end ?? 0))
        for (const k of reducer.keys?.(state, e) ?? []) index.update(indexLine(offset, e, k.key));
    },
    (seq) => {
      if (header && seq === header.seq)
        snapshot = snap?.ok ? compareSnapshot(stateDir, snap.snap, reducer, check.state, index.copy().digest('hex')) : undefined;
    },
  );
  let line = 0;
  const { tail } = scanLines(file, 0, undefined, (text, offset) => {
    line += 1;
    const e = parseEventLine(text);
    if (e) offsets.set(e.seq, offset);
    return check.next(e, line);
  });
  if (snap?.ok) snap.snap.close();
  const report = check.report();
  const open = check.open;
  if (!report.first_bad && (open.length > 0 || tail.length > 0)) {
    if (!crashCouldLeave(check.afterCheckpoint, open)) {
      refuseUnsealed(
        report,
        open,
        'no seal covers these events, and they are not one transaction a crash could have cut short: the journal was rewritten',
      );
    } else {
      const last = tail.length > 0 ? parseEventLine(tail.toString('utf8')) : undefined;
      report.torn_tail = {
        bytes: tail.length,
        events: open.length,
        whole_event: last !== undefined && last.tx !== undefined && eventProblem(last, check.seq + 1, check.prev) === undefined,
      };
    }
  }
  if (header && !snapshot)
    snapshot = { seq: header.seq, ok: false, problem: `the journal has no transaction ending at event ${header.seq} to compare it with` };
  if (snapshot) {
    report.snapshot = snapshot;
    if (!snapshot.ok) report.ok = false;
  }
  return report;
}

const EMPTY_SHA256 = createHash('sha256').digest('hex');

/**
 * Whether every section of the snapshot and its index are what the journal folds to at its position. A
 * section the snapshot lacks (a slice its build did not have) is not wrong: a process folds that slice
 * from the journal.
 */
function compareSnapshot<S>(
  stateDir: string,
  snap: SnapshotFile,
  reducer: Reducer<S>,
  state: S,
  filedSha: string,
): NonNullable<VerifyReport['snapshot']> {
  const h = snap.header;
  const same = (a: string, b: string): boolean => {
    try {
      return canonicalize(JSON.parse(a)) === canonicalize(JSON.parse(b));
    } catch {
      return false;
    }
  };
  const codec = codecOf(reducer);
  for (const { name } of codec.list) {
    if (!snap.place(name)) continue;
    const got = snap.section(name);
    if (!got) return { seq: h.seq, ok: false, problem: `its section "${name}" is not what its header signed` };
    if (!same(got.text, codec.write(state, name)))
      return { seq: h.seq, ok: false, problem: `its state ("${name}") is not what the journal folds to at event ${h.seq}` };
  }
  const cover = h.index;
  if (cover && cover.bytes > 0) {
    let onDisk: Buffer;
    try {
      onDisk = fs.readFileSync(path.join(stateDir, INDEX_FILE)).subarray(0, cover.bytes);
    } catch {
      return { seq: h.seq, ok: false, problem: `${INDEX_FILE} is missing` };
    }
    if (onDisk.length !== cover.bytes || chainOver('', onDisk) !== cover.sha256)
      return { seq: h.seq, ok: false, problem: `${INDEX_FILE} is not the index the snapshot signed` };
    // Signed, and also what the journal files: the same lines, in the same order (segment ends aside).
    const lines = onDisk
      .toString('utf8')
      .split('\n')
      .filter((l) => l.length > 0 && l !== '#');
    if (
      createHash('sha256')
        .update(lines.map((l) => `${l}\n`).join(''))
        .digest('hex') !== filedSha
    )
      return { seq: h.seq, ok: false, problem: 'its index is not what the journal files' };
  } else if (filedSha !== EMPTY_SHA256) return { seq: h.seq, ok: false, problem: 'its index is not what the journal files' };
  return { seq: h.seq, ok: true };
}

/** The report in a sentence or two, for a human (and every refused transaction on a line of its own). */
export function verifyText(r: VerifyReport, place: 'line' | 'row' = 'line'): string {
  const parts: string[] = [];
  if (r.first_bad)
    parts.push(
      `FAILED at event ${r.first_bad.seq} (${place} ${r.first_bad.line}): ${r.first_bad.problem}. ${r.events} ` +
        `events before it are intact.`,
    );
  else {
    const refused = r.refused_count > 0 ? `; ${r.refused_count} transaction(s) refused, not folded` : '';
    parts.push(
      `${r.ok ? 'OK' : 'FAILED'}: ${r.events} events, hash chain intact, ${r.transactions} ` +
        `sealed transaction(s) through event ${r.signed_through}${refused}.`,
    );
  }
  if (r.torn_tail) {
    parts.push(
      r.torn_tail.whole_event
        ? 'The last event lost its newline in a crash; the next process that writes completes its transaction.'
        : `The last ${r.torn_tail.events} event(s) and ${r.torn_tail.bytes} byte(s) are a ` +
            `transaction a crash cut short (not tampering): never folded, and removed by the ` +
            `next process that writes.`,
    );
  }
  if (r.snapshot) {
    parts.push(
      r.snapshot.ok && r.snapshot.problem
        ? `The snapshot is not used: ${r.snapshot.problem}; the journal is folded from its start until a new one is written.`
        : r.snapshot.ok
          ? `The snapshot at event ${r.snapshot.seq} is what the journal folds to.`
          : `The snapshot is not to be trusted: ${r.snapshot.problem}. Delete ${SNAPSHOT_FILE} and ${INDEX_FILE} ` +
            `to have them rebuilt from the journal.`,
    );
  }
  const lines = r.refused.map((t) => `  refused: ${describeRefusal(t)}${t.signer ? ` (sealed by ${t.signer})` : ''}`);
  if (r.refused_count > r.refused.length) lines.push(`  … and ${r.refused_count - r.refused.length} more`);
  return [parts.join(' '), ...lines].join('\n');
}
