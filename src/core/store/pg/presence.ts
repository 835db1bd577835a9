/**
 * A process's presence on the team store: a session advisory lock named after it, held on its own
 * connection. PostgreSQL drops the lock when that connection ends, a process killed on any machine
 * included, which is how another machine tells that the money a dead process held can be given back.
 */
import { createHash } from 'node:crypto';
import type { ClientBase, Pool } from 'pg';
import type { ProcessRef } from '../owner.ts';
import { processKey } from '../owner.ts';

/** First key of every presence lock ("holp"); the second is the process's own. */
const PRESENCE_CLASS = 0x686f6c70;
/**
 * For this long after the database started, nobody's absence counts: every client lost its connection
 * in the restart and reconnects within a few RECONNECT_MS, its presence with it.
 */
const RESTART_GRACE_S = 10;

/** The second key of a process's presence lock: 31 bits of a hash of the process (positive, as an oid reads it). */
function presenceKey(p: ProcessRef): number {
  return createHash('sha256').update(processKey(p)).digest().readUInt32BE(0) & 0x7fffffff;
}

/** For each owner, whether its presence lock is free (see EventStore.ownersAbsent); null just after a restart. */
export async function ownersAbsent(pool: Pool, owners: ProcessRef[]): Promise<boolean[] | null> {
  if (owners.length === 0) return [];
  const { rows } = await pool.query<{ young: boolean; held: string[] }>(
    `SELECT now() - pg_postmaster_start_time() < make_interval(secs => $2) AS young,
            ARRAY(SELECT objid::text FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = $1::oid
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS held`,
    [PRESENCE_CLASS, RESTART_GRACE_S],
  );
  const row = rows[0];
  if (!row || row.young) return null;
  const held = new Set(row.held);
  return owners.map((o) => !held.has(String(presenceKey(o))));
}

/** When the database started, in ms since the epoch; null when it cannot say. */
export async function startedAt(pool: Pool): Promise<number | null> {
  try {
    const { rows } = await pool.query<{ ms: string }>('SELECT (extract(epoch FROM pg_postmaster_start_time()) * 1000)::bigint::text AS ms');
    return rows[0] ? Number(rows[0].ms) : null;
  } catch {
    return null;
  }
}

/**
 * Takes `owner`'s presence lock on `client`, for as long as that connection lasts. Not granted means this
 * process already holds it on another store's connection: present either way.
 */
export async function holdPresence(client: ClientBase, owner: ProcessRef): Promise<void> {
  await client.query('SELECT pg_try_advisory_lock($1, $2)', [PRESENCE_CLASS, presenceKey(owner)]);
}
