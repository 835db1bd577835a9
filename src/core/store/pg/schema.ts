/**
 * The team store's table as the database keeps it: its name, the append lock, and the triggers that hold
 * its shape whoever writes to it. `holon store init` runs these statements as the owner; every store opens
 * with ensureSchema, which creates the table where a role may and checks its shape where one is there.
 */
import type * as PG from 'pg';
import { HolonError } from '../../kernel/errors.ts';

/** The table every event is in, and the channel that announces new ones. */
export const TABLE = 'holon_events';
export const CHANNEL = 'holon_events';
/** Key of the advisory lock that serialises appends (and the schema's creation). */
export const APPEND_LOCK = 0x686f6c6f; // "holo"

/** The trigger that keeps every row inserted linked to the one before it. */
export const LINK_TRIGGER = 'holon_events_link';
/** The trigger that refuses UPDATE, DELETE and TRUNCATE. */
export const GUARD_TRIGGER = 'holon_events_append_only';

/**
 * The table, and the two triggers that keep its shape whoever writes to it, as statements safe to run
 * again (`holon store init` runs them on a table of an earlier version too):
 * - append only: UPDATE, DELETE and TRUNCATE are refused for every role (the table's owner or a
 *   superuser can still drop the trigger; no one else can);
 * - linked: every row inserted takes the append lock (so it cannot slip between another writer's read
 *   and its insert), follows the last row by one and carries its hash as `prev`, and has a hash's shape.
 *   One member's hand-written row can then be refused by the fold, but never break the chain for the
 *   others. What the database cannot check (RFC 8785 hashes, Ed25519 seals, roles) the fold does.
 */
export function schemaStatements(): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${TABLE} (seq bigint PRIMARY KEY CHECK (seq > 0), ` +
      `time text NOT NULL, type text NOT NULL, data text NOT NULL, prev text NOT NULL, ` +
      `hash text NOT NULL)`,
    `ALTER TABLE ${TABLE} ADD COLUMN IF NOT EXISTS tx text`,
    `CREATE OR REPLACE FUNCTION ${GUARD_TRIGGER}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '${TABLE} is append-only: % is refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$`,
    `DROP TRIGGER IF EXISTS ${GUARD_TRIGGER} ON ${TABLE}`,
    // Statement-level, so even an UPDATE or DELETE that matches no row is refused, and TRUNCATE with them.
    `CREATE TRIGGER ${GUARD_TRIGGER} BEFORE UPDATE OR DELETE OR TRUNCATE ON ${TABLE} ` +
      `FOR EACH STATEMENT EXECUTE FUNCTION ${GUARD_TRIGGER}()`,
    `CREATE OR REPLACE FUNCTION ${LINK_TRIGGER}() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last_seq bigint;
  last_hash text;
BEGIN
  PERFORM pg_advisory_xact_lock(${APPEND_LOCK});
  SELECT seq, hash INTO last_seq, last_hash FROM ${TABLE} ORDER BY seq DESC LIMIT 1;
  IF NEW.seq IS DISTINCT FROM coalesce(last_seq, 0) + 1 THEN
    RAISE EXCEPTION '${TABLE}: row % does not follow row %', NEW.seq, coalesce(last_seq, 0) USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.prev IS DISTINCT FROM coalesce(last_hash, '') THEN
    RAISE EXCEPTION '${TABLE}: row % does not link to the hash of row %', NEW.seq, coalesce(last_seq, 0) USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.hash !~ '^[0-9a-f]{64}$' THEN
    RAISE EXCEPTION '${TABLE}: row % has no hash', NEW.seq USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$`,
    `DROP TRIGGER IF EXISTS ${LINK_TRIGGER} ON ${TABLE}`,
    `CREATE TRIGGER ${LINK_TRIGGER} BEFORE INSERT ON ${TABLE} FOR EACH ROW EXECUTE FUNCTION ${LINK_TRIGGER}()`,
    `REVOKE ALL ON ${TABLE} FROM PUBLIC`,
  ];
}

/**
 * Creates the events table when there is none, inside the caller's transaction, and holds the append
 * lock until that transaction ends (so nothing is appended meanwhile). The table is looked for before
 * anything is created: a member role without CREATE on the schema opens a store its owner set up. A
 * table there already must have the shape this version writes (its owner's `holon store init` brings
 * an older one up to date). Returns whether it created the table.
 */
export async function ensureSchema(client: PG.ClientBase): Promise<boolean> {
  // Two processes creating the table at once would collide in the catalog: one creates, the other waits.
  await client.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK]);
  const { rows } = await client.query<{ found: boolean; sealed: boolean; linked: boolean }>(
    `SELECT to_regclass($1) IS NOT NULL AS found,
            EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'tx' AND NOT attisdropped) AS sealed,
            EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass($1) AND tgname = $2 AND tgenabled <> 'D') AS linked`,
    [TABLE, LINK_TRIGGER],
  );
  const found = rows[0];
  if (found?.found) {
    if (!found.sealed || !found.linked)
      throw new HolonError(
        'conflict',
        `the team store's ${TABLE} table was set up by an earlier version of Holon; its ` +
          `owner runs \`holon store init --url ADMIN_URL\` once to bring it up to date`,
      );
    return false;
  }
  try {
    for (const statement of schemaStatements()) await client.query(statement);
  } catch (err) {
    if ((err as { code?: string }).code !== '42501') throw err;
    throw new HolonError(
      'denied',
      `the database has no ${TABLE} table and this role may not create one; its owner ` + `runs \`holon store init --url ADMIN_URL\` first`,
    );
  }
  return true;
}
