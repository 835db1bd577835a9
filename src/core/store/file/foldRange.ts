/**
 * Reading the journal's whole transactions back, as the journal itself checks them, for the jobs that
 * fold a stretch of it away from the journal's own tail: a snapshot (journalIndex.ts), a section folded
 * from the start (lazy.ts), the offline check and the team store's import (which read its lines).
 */
import * as fs from 'node:fs';
import type { JournalEvent, Reducer } from '../store.ts';
import { describeRefusal, parseEventLine } from '../store.ts';
import type { SealedTx } from '../txChain.ts';
import { isRefused, TxChain } from '../txChain.ts';
import type { Position } from './snapshot.ts';

/**
 * Folds one admitted transaction into `state`, telling `file` each key an event is filed under; throws
 * when the fold does not admit it (what verify would refuse).
 */
export function foldTx<S>(
  reducer: Reducer<S>,
  state: S,
  tx: SealedTx<{ e: JournalEvent; offset: number }>,
  file?: (offset: number, e: JournalEvent, key: string) => void,
): void {
  const refused = reducer.admit?.(
    state,
    tx.items.map((x) => x.e),
    tx.signer,
  );
  if (refused)
    throw new Error(describeRefusal({ ...refused, from: tx.items[0]?.e.seq ?? 0, to: tx.items.at(-1)?.e.seq ?? 0, signer: tx.signer }));
  reducer.sealed?.(state, tx.signer);
  for (const { e, offset } of tx.items) {
    if (file) for (const k of reducer.keys?.(state, e) ?? []) file(offset, e, k.key);
    reducer.apply(state, e);
  }
}

/**
 * Reads and checks the journal's transactions from `from` to `to` (offsets, each just after a whole
 * transaction), or to the last whole one in the file (`'end'`), one at a time, as the journal itself
 * does: every seal by `key`, the last one's signature checked (the chain makes it cover the ones
 * before). Returns the position just after the last transaction read.
 */
export function foldRange(
  journalFile: string,
  from: Position,
  to: Position | 'end',
  key: string,
  each: (tx: SealedTx<{ e: JournalEvent; offset: number }>) => void,
): Position {
  const chain = new TxChain<{ e: JournalEvent; offset: number }>({ seq: from.seq, hash: from.hash, legacy: from.legacy });
  let last: SealedTx<{ e: JournalEvent; offset: number }> | undefined;
  const reached: Position = { ...from };
  const { end } = scanLines(journalFile, from.offset, to === 'end' ? undefined : to.offset, (line, offset) => {
    const e = parseEventLine(line);
    const step = e ? chain.push({ e, offset }) : { broken: 'not a whole event' };
    if ('broken' in step) throw new Error(`line ${chain.seq + 1}: ${step.broken}`);
    for (const done of step.done) {
      if (isRefused(done)) throw new Error(describeRefusal(done.refused));
      if (done.signer !== key) throw new Error(`line ${e!.seq}: sealed by a key that is not this installation's`);
      each(done);
      last = done;
      // A seal ends its transaction on its own line: what follows is the next one's, or a writer's still open.
      Object.assign(reached, {
        offset: offset + Buffer.byteLength(line) + 1,
        seq: chain.seq,
        hash: chain.prev,
        legacy: reached.legacy && !done.items.some((x) => x.e.tx),
      });
    }
    return true;
  });
  if (last && !last.verify()) throw new Error("a seal's signature does not verify (the journal was rewritten)");
  if (to !== 'end' && (end !== to.offset || chain.seq !== to.seq || chain.prev !== to.hash || chain.open.length > 0))
    throw new Error(`the journal at byte ${to.offset} is not the end of event ${to.seq}'s transaction`);
  return reached;
}

/**
 * Calls `each` with every whole line of `file` from byte `from` (up to `to`), and where it starts,
 * reading a chunk at a time; stops early when `each` returns false. Returns where the last whole line
 * read ends, and the bytes after the file's last newline (a torn append) when it read to the end.
 */
export function scanLines(
  file: string,
  from: number,
  to: number | undefined,
  each: (line: string, offset: number) => boolean,
): { end: number; tail: Buffer } {
  const fd = fs.openSync(file, 'r');
  try {
    const limit = to ?? fs.fstatSync(fd).size;
    const chunk = 1 << 20;
    let offset = from;
    let carry = Buffer.alloc(0);
    let carryAt = from;
    while (offset < limit) {
      const buf = Buffer.allocUnsafe(Math.min(chunk, limit - offset));
      const n = fs.readSync(fd, buf, 0, buf.length, offset);
      if (n === 0) break;
      offset += n;
      const data = carry.length > 0 ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
      let start = 0;
      for (;;) {
        const nl = data.indexOf(10, start);
        if (nl < 0) break;
        if (!each(data.toString('utf8', start, nl), carryAt + start)) return { end: carryAt + start, tail: Buffer.alloc(0) };
        start = nl + 1;
      }
      carry = Buffer.from(data.subarray(start));
      carryAt += start;
    }
    return { end: carryAt, tail: carry };
  } finally {
    fs.closeSync(fd);
  }
}
