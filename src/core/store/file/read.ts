/**
 * Reading the journal file back: the transactions after an offset, checked as verify would check them,
 * and one event an index entry points at. What verify would refuse is handed to `broken`, which stops
 * the store and says which line.
 */
import * as fs from 'node:fs';
import type { HolonError } from '../../kernel/errors.ts';
import type { JournalEvent } from '../store.ts';
import { describeRefusal, eventHash, parseEventLine } from '../store.ts';
import type { SealedTx } from '../txChain.ts';
import { crashCouldLeave, isRefused, TxChain } from '../txChain.ts';
import type { Entry } from './journalIndex.ts';
import { matches } from './journalIndex.ts';
import type { Position } from './snapshot.ts';

/** Stops the store with a message and its details, returning the error to throw. */
export type Broken = (message: string, details: Record<string, unknown>) => HolonError;

/** One event read back, with where its line starts. */
export interface Located {
  e: JournalEvent;
  offset: number;
}

/**
 * What a read from an offset found: `txs` the whole transactions, `end` where the last of them ends,
 * `open` the whole lines after it that no seal covers yet, `tail` what follows the last newline (at `tailAt`).
 */
export interface ReadFrom {
  txs: SealedTx<Located>[];
  end: number;
  open: Located[];
  tail: Buffer;
  tailAt: number;
}

/** A read that found nothing after `offset`. */
export function nothingRead(offset: number): ReadFrom {
  return { txs: [], end: offset, open: [], tail: Buffer.alloc(0), tailAt: offset };
}

/**
 * The whole transactions from `offset` (just after the last one folded), each checked as verify would
 * and admitted by the fold; `end` is where the last of them ends, `open` the whole lines after it that
 * no seal covers yet, `tail` what follows the last newline. Anything verify would refuse breaks the
 * store and names its line (`broken`). `after` is where the events folded so far end.
 */
export function readFrom(file: string, offset: number, after: Position, sealKey: () => string | undefined, broken: Broken): ReadFrom {
  const none = nothingRead(offset);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return none;
  }
  let data: Buffer;
  try {
    const size = fs.fstatSync(fd).size;
    if (size <= offset) return none;
    const buf = Buffer.allocUnsafe(size - offset);
    let read = 0;
    while (read < buf.length) {
      const n = fs.readSync(fd, buf, read, buf.length - read, offset + read);
      if (n === 0) break;
      read += n;
    }
    data = buf.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
  const lastNl = data.lastIndexOf(10);
  if (lastNl < 0) return { ...none, tail: data };
  const tailAt = offset + lastNl + 1;
  const chain = new TxChain<Located>({ seq: after.seq, hash: after.hash, legacy: after.legacy });
  const txs: SealedTx<Located>[] = [];
  let end = offset;
  let start = 0;
  const fail = (line: number, problem: string): HolonError =>
    broken(`journal ${file}, line ${line}: ${problem}; run \`holon verify\``, { after_seq: line - 1, line });
  while (start <= lastNl) {
    const nl = data.indexOf(10, start);
    const at = offset + start;
    const e = parseEventLine(data.toString('utf8', start, nl));
    start = nl + 1;
    if (!e) throw fail(chain.seq + 1, 'not a whole event');
    const step = chain.push({ e, offset: at });
    if ('broken' in step) throw fail(chain.seq + 1, step.broken);
    for (const done of step.done) {
      if (isRefused(done)) throw fail(done.refused.from, describeRefusal(done.refused));
      const key = sealKey();
      if (done.signer !== key)
        throw fail(
          e.seq,
          key
            ? `sealed by a key that is not this installation's (${done.signer})`
            : `sealed by ${done.signer}, but this state folder holds no installation key to check it with`,
        );
      txs.push(done);
      end = offset + start;
    }
  }
  // A crash cuts short one transaction; more than that after the last seal is a journal rewritten
  // (edited and re-hashed, its seals dropped), never a torn append.
  if (
    !crashCouldLeave(
      chain.afterCheckpoint,
      chain.open.map((x) => x.e),
    )
  )
    throw fail(
      chain.open[0]!.e.seq,
      'no seal covers the events from here on, and they are not what a crash could have left (the journal was rewritten)',
    );
  // One signature covers them all: each seal signs the hash its transaction ends on, which the chain
  // links to everything before it; the seal of the last one checked vouches for every event up to it.
  const last = txs.at(-1);
  if (last && !last.verify()) throw fail(last.items.at(-1)!.e.seq, "its seal's signature does not verify (the journal was rewritten)");
  return { txs, end, open: chain.open, tail: data.subarray(lastNl + 1), tailAt };
}

/** The event an index entry points at, checked against the hash it was filed with. */
export function readAt(file: string, entry: Entry, broken: Broken): JournalEvent {
  const fd = fs.openSync(file, 'r');
  try {
    let size = 4096;
    for (;;) {
      const buf = Buffer.allocUnsafe(size);
      const n = fs.readSync(fd, buf, 0, size, entry.offset);
      const nl = buf.subarray(0, n).indexOf(10);
      if (nl >= 0) {
        const e = parseEventLine(buf.toString('utf8', 0, nl));
        if (!e || eventHash(e) !== e.hash || !matches(entry, e)) {
          throw broken(`journal ${file}: the event at byte ${entry.offset} is not the one filed there (altered); run \`holon verify\``, {
            offset: entry.offset,
          });
        }
        return e;
      }
      if (n < size) throw broken(`journal ${file}: no whole event at byte ${entry.offset}`, { offset: entry.offset });
      size *= 4;
    }
  } finally {
    fs.closeSync(fd);
  }
}
