/**
 * Events as the team store's table holds them, and back: the row every read selects, and the one
 * statement that inserts a transaction's rows and announces them.
 */
import type { PoolClient } from 'pg';
import type { JournalEvent, LinkedEvent } from '../store.ts';
import { isSeal } from '../store.ts';
import { CHANNEL, TABLE } from './schema.ts';

/** One event as the table holds it (seq as PostgreSQL's bigint text, data and the seal as JSON text). */
export interface EventRow {
  seq: string;
  time: string;
  type: string;
  data: string;
  prev: string;
  hash: string;
  tx: string | null;
}

/** The table's columns, in an event's order: what every read selects. */
export const EVENT_COLUMNS = 'seq, time, type, data, prev, hash, tx';

/**
 * A row as an event, not yet checked. Data that is not JSON is kept as its text, so its hash cannot
 * match and the transaction it is in is refused; a seal that is not one is no seal.
 */
export function eventOfRow(r: EventRow): JournalEvent {
  let data: unknown;
  try {
    data = JSON.parse(r.data);
  } catch {
    data = { unreadable: r.data };
  }
  let tx: unknown;
  try {
    tx = r.tx === null ? undefined : JSON.parse(r.tx);
  } catch {
    tx = undefined;
  }
  return { seq: Number(r.seq), time: r.time, type: r.type, data, prev: r.prev, hash: r.hash, ...(isSeal(tx) ? { tx } : {}) };
}

/** An event as the row that holds it (the seal as JSON, or null); `dataJson`, its data's JSON when made already. */
export function rowOfEvent(
  e: JournalEvent,
  dataJson = JSON.stringify(e.data),
): [number, string, string, string, string, string, string | null] {
  return [e.seq, e.time, e.type, dataJson, e.prev, e.hash, e.tx ? JSON.stringify(e.tx) : null];
}

/**
 * The statements that insert `linked` and announce them (the announcement leaves at COMMIT): one simple
 * query, so the values are quoted by pg's own escapeLiteral (the seqs are our own integers). With
 * `unlessAfter`, the rows are inserted, and announced, only if no row follows that seq yet.
 */
export function insertStatements(client: PoolClient, linked: LinkedEvent[], unlessAfter?: number): string {
  const lit = (v: string | null): string => (v === null ? 'NULL' : client.escapeLiteral(v));
  const values = linked
    .map(
      (x) =>
        `(${rowOfEvent(x.e, x.dataJson)
          .map((v, i) => (i === 0 ? String(v) : lit(v as string | null)))
          .join(', ')})`,
    )
    .join(', ');
  const last = linked.at(-1)?.e;
  const seq = last?.seq ?? 0;
  if (unlessAfter === undefined)
    return `INSERT INTO ${TABLE} (${EVENT_COLUMNS}) VALUES ${values}; SELECT pg_notify('${CHANNEL}', '${seq}')`;
  // Announced only if this row is the one there: another writer's row at its seq was announced by it.
  return (
    `INSERT INTO ${TABLE} (${EVENT_COLUMNS}) SELECT * FROM (VALUES ${values}) AS v (${EVENT_COLUMNS}) ` +
    `WHERE NOT EXISTS (SELECT 1 FROM ${TABLE} WHERE seq > ${unlessAfter}); ` +
    `SELECT pg_notify('${CHANNEL}', '${seq}') WHERE EXISTS (SELECT 1 FROM ${TABLE} WHERE seq = ${seq} AND hash = ${lit(last?.hash ?? '')})`
  );
}

/**
 * Thrown inside the store when the rows this process folded last are no longer in the table (a crash of
 * the database lost transactions committed without waiting for their flush): it reads the table again.
 */
export class LostTail extends Error {}

/**
 * The rows after `head`, from a read that starts at it: the row at `head` itself must be the one
 * folded there (`hash`), or the database lost it (LostTail).
 */
export function rowsAfterHead(rows: EventRow[], head: number, hash: string): JournalEvent[] {
  const events = rows.map(eventOfRow);
  if (head === 0) return events;
  const first = events[0];
  if (!first || first.seq !== head || first.hash !== hash) throw new LostTail(`the row with seq ${head} is not the one folded`);
  return events.slice(1);
}
