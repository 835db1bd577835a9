/**
 * How the team store talks to its database: the options every connection opens with, which failures
 * are a lost connection rather than a refusal, and what the store asks when a wait runs out (who holds
 * the append lock) or a commit's answer is lost (whether its rows landed).
 */
import type * as PG from 'pg';
import type { Client, Pool } from 'pg';
import { HolonError } from '../../kernel/errors.ts';
import { thisProcess } from '../owner.ts';
import type { JournalEvent } from '../store.ts';
import { redactUrl } from '../url.ts';
import { APPEND_LOCK, TABLE } from './schema.ts';

/**
 * How long a writer waits for the append lock, and any statement for its answer. Someone else holding
 * the lock for longer is not a busy team: it is a session that keeps it (a teammate's psql left in a
 * transaction, a hostile member), and waiting behind it for ever would stop every writer.
 */
export const LOCK_WAIT_MS = 5_000;
const STATEMENT_MS = 30_000;
/** PostgreSQL's SQLSTATEs: lock_not_available, query_canceled (a statement timeout), unique_violation. */
export const LOCK_NOT_AVAILABLE = '55P03';
/** check_violation: the table's trigger refusing a row that does not follow the last one. */
export const CHECK_VIOLATION = '23514';
const STATEMENT_TIMEOUT = '57014';
export const RECONNECT_MS = 500;

/** How long a transaction whose connection was lost mid-commit waits for the database to say whether it landed. */
const LANDED_WAIT_MS = 15_000;

/**
 * How long a connection may take to be ready. Without it, a host that drops packets keeps a command (or
 * the editor's "connecting…") waiting until TCP gives up, minutes later.
 */
export const CONNECT_TIMEOUT_MS = 10_000;

/**
 * True when `err` lost the connection rather than being refused by the database: no SQLSTATE (a socket
 * error), or one of the connection (08) or operator-intervention (57: a shutdown) classes.
 */
export function connectionLost(err: unknown): boolean {
  if (err instanceof HolonError) return false;
  const code = (err as { code?: unknown }).code;
  if (code === STATEMENT_TIMEOUT) return false;
  return typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('08') || code.startsWith('57');
}

/** What every connection of a store is opened with: bounded waits, and a name others see it by. */
export function connectionOptions(url: string): PG.ClientConfig {
  return {
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    lock_timeout: LOCK_WAIT_MS,
    statement_timeout: STATEMENT_MS,
    application_name: `holon on ${thisProcess().host}`.slice(0, 63),
  };
}

/** The socket under a pg client (not part of its typed API). */
export function streamOf(client: Client | undefined): { ref?: () => void; unref?: () => void } | undefined {
  return (client as unknown as { connection?: { stream?: { ref?: () => void; unref?: () => void } } } | undefined)?.connection?.stream;
}

/**
 * Why the append lock could not be had: who holds it and for how long, as PostgreSQL shows it to this
 * role (another role's client address is shown to superusers only).
 */
export async function lockHeld(pool: Pool, url: string): Promise<HolonError> {
  const waited = `${LOCK_WAIT_MS / 1000} s`;
  try {
    const { rows } = await pool.query<{
      pid: number;
      usename: string | null;
      application_name: string | null;
      held_s: string | null;
    }>(
      `SELECT a.pid, a.usename, a.application_name, round(extract(epoch FROM now() - ` +
        `coalesce(a.xact_start, a.backend_start)))::text AS held_s
         FROM ` +
        `pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = ` +
        `'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1
` +
        `          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [APPEND_LOCK],
    );
    const h = rows[0];
    const who = h
      ? `session ${h.pid}${h.usename ? ` (role ${h.usename}${h.application_name ? `, "${h.application_name}"` : ''})` : ''}` +
        `${h.held_s ? `, for ${h.held_s} s` : ''}`
      : 'another session';
    return new HolonError(
      'lock_timeout',
      `the team store's append lock is held by ${who}; waited ${waited} and wrote ` +
        `nothing. If it does not let go, the store's owner can end it: SELECT pg_terminate_backend(${h?.pid ?? 'PID'})`,
      { store: redactUrl(url), ...(h ? { pid: h.pid, role: h.usename } : {}) },
    );
  } catch {
    return new HolonError('lock_timeout', `the team store's append lock is held by another session; waited ${waited} and wrote nothing`, {
      store: redactUrl(url),
    });
  }
}

/**
 * Whether `e` is in the table as appended, asked on a connection of `pool` for up to LANDED_WAIT_MS while
 * the database comes back. False when another event holds its place, or the database stays away (the
 * next transaction reads whatever is there, ours included, before it decides anything). `closed` stops
 * the asking when the store closes meanwhile.
 */
export async function landed(pool: Pool, e: JournalEvent, closed: () => boolean): Promise<boolean> {
  const deadline = Date.now() + LANDED_WAIT_MS;
  for (;;) {
    try {
      const { rows } = await pool.query<{ hash: string }>(`SELECT hash FROM ${TABLE} WHERE seq = $1`, [e.seq]);
      return rows[0]?.hash === e.hash;
    } catch {
      if (closed() || Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, RECONNECT_MS));
    }
  }
}
