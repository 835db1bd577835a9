/**
 * The team store's optimistic append: a transaction decided on the rows this process has read, sent with
 * the append lock, a read of the rows it missed and the commit in one query. The lock is held only while
 * PostgreSQL runs that query, never across a round trip to the client, so its hold per call does not grow
 * with the number of writers. When another writer committed first, nothing is inserted, nothing is rolled
 * back, and the same answer carries the rows it missed: the writer folds them and decides again.
 */
import type * as PG from 'pg';
import type { PoolClient } from 'pg';
import type { LinkedEvent } from '../store.ts';
import type { EventRow } from './rows.ts';
import { EVENT_COLUMNS, insertStatements } from './rows.ts';
import { APPEND_LOCK, TABLE } from './schema.ts';

/** What one optimistic append did: its rows are in, or another writer's came first (`rows`, from the head on). */
export type Attempt = { kind: 'committed' } | { kind: 'missed'; rows: EventRow[] };

/**
 * How this process's appends went since it opened: transactions decided without the lock, attempts that
 * found another writer's rows first and were decided again, and transactions that, after too many of
 * those, were decided holding the lock.
 */
export interface AppendCounts {
  optimistic: number;
  missed: number;
  locked: number;
}

/**
 * Appends `linked`, which follow the row at `head`, unless a row after `head` is there already. Under the
 * lock (taken first, so nothing can be committed between the read and the insert), the rows from `head`
 * on are read, then the rows are inserted only if none follows `head`, and announced only if inserted.
 * The link trigger still checks every row, so a row that does not follow (the database lost `head` in a
 * crash) fails the query as before.
 */
export async function appendUnlessMissed(client: PoolClient, linked: LinkedEvent[], head: number, durable: boolean): Promise<Attempt> {
  const sent = (await client.query(
    `BEGIN; ${durable ? '' : 'SET LOCAL synchronous_commit = off; '}SELECT pg_advisory_xact_lock(${APPEND_LOCK}); ` +
      `SELECT ${EVENT_COLUMNS} FROM ${TABLE} WHERE seq >= ${head} ORDER BY seq; ` +
      `${insertStatements(client, linked, head)}; COMMIT`,
  )) as unknown as PG.QueryResult[];
  const inserted = sent.findIndex((r) => r.command === 'INSERT');
  if ((sent[inserted]?.rowCount ?? 0) === linked.length) return { kind: 'committed' };
  return { kind: 'missed', rows: (sent[inserted - 1]?.rows ?? []) as EventRow[] };
}
