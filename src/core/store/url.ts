/**
 * Which store a URL names. Kept apart from pg/store.ts so that choosing a store never loads the
 * PostgreSQL client: a process that stays on the file journal never evaluates `pg`.
 */

/** True for a `postgres://` or `postgresql://` URL: a store opened with PostgresStore. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * The environment variable a process reads its store's URL from (the CLI, and the server the editor
 * starts). It may carry the database's password, so a process reads it once and removes it.
 */
export const STORE_ENV = 'HOLON_STORE';

/** A URL as it may be shown: its password replaced. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an unreadable URL)';
  }
}
