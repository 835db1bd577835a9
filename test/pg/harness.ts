/**
 * A throwaway PostgreSQL cluster for the team store's tests: Debian's `postgresql` binaries (installed
 * with apt-get when missing and the tests run as root), a new cluster in a temp folder on a free port,
 * stopped and removed at the end. As root (CI), the server runs as the `postgres` user, which
 * PostgreSQL requires.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import type { Logger } from '../../src/core/kernel/deps.ts';
import { silentLogger, systemClock } from '../../src/core/kernel/deps.ts';
import { loadOrCreateSigner } from '../../src/core/store/keys.ts';
import { PostgresStore } from '../../src/core/store/pg/store.ts';
import type { HolonState } from '../../src/core/fold/state.ts';
import { holonReducer } from '../../src/core/fold/state.ts';
import { aptInstall } from '../apt.ts';
import { withLockFolder } from '../lockFolder.ts';

/** A running cluster. */
export interface TestPostgres {
  port: number;
  /** The URL of database `db` (created by `createDatabase`). */
  url(db: string): string;
  /** A new, empty database; returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server immediately (fast shutdown) and starts it again on the same port and data. */
  restart(): void;
  /**
   * Kills the server as a crash would (immediate shutdown: no checkpoint, and what its WAL writer had not
   * written yet is lost) and starts it again, which recovers from its WAL.
   */
  crash(): void;
  stop(): void;
}

/** The folder of PostgreSQL's server binaries (the newest installed), or undefined. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Runs one statement on a connection of its own to `url`, around Holon (as a test's owner would); returns its rows. */
export async function sqlAt<R extends QueryResultRow = QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<R[]> {
  const { Client } = await import('pg');
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(text, params)).rows;
  } finally {
    await c.end();
  }
}

/**
 * Creates database `name` through the cluster at `adminUrl` (any database of it); returns the new one's
 * URL. With `template`, the new database is a copy of that one (which nobody may be connected to).
 */
export async function createDatabaseAt(adminUrl: string, name: string, template?: string): Promise<string> {
  for (const n of [name, template ?? 'x']) if (!/^\w+$/.test(n)) throw new Error(`not a database name: ${n}`);
  await sqlAt(adminUrl, `CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

const INITDB_ARGS = ['-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'];

/** Runs a server binary of PostgreSQL, as the `postgres` user when this process is root (PostgreSQL refuses root). */
function asServer(cmd: string, args: string[]): void {
  const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const r = spawnSync(file, argv, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${path.basename(cmd)} failed: ${r.stderr || r.stdout}`);
}

/** A new folder under the OS temp dir that the server's user owns. */
function serverFolder(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir]);
  return dir;
}

/**
 * A data folder that initdb made once on this machine (for this PostgreSQL and these options), never
 * started: every cluster begins as a copy of it. initdb takes seconds on a busy machine, and every test
 * file that needs PostgreSQL starts a cluster of its own; a copy takes a fraction of a second.
 */
async function templateData(bin: string): Promise<string> {
  const tag = createHash('sha256').update(`${bin} ${process.getuid?.() ?? ''} ${INITDB_ARGS.join(' ')}`).digest('hex').slice(0, 12);
  const home = path.join(os.tmpdir(), `holon-pg-template-${tag}`);
  const data = path.join(home, 'data');
  const ready = path.join(home, 'ready');
  if (fs.existsSync(ready)) return data;
  await withLockFolder(`${home}.lock`, () => {
    if (fs.existsSync(ready)) return;
    // Made aside and renamed into place whole: a copy never starts from half a data folder.
    const made = serverFolder('holon-pg-template-');
    asServer(path.join(bin, 'initdb'), ['-D', path.join(made, 'data'), ...INITDB_ARGS]);
    fs.writeFileSync(path.join(made, 'ready'), '');
    fs.rmSync(home, { recursive: true, force: true });
    fs.renameSync(made, home);
  });
  return data;
}

/**
 * Starts a new cluster. Throws when PostgreSQL is not installed. Tests run it without fsync (nothing
 * they check depends on surviving a power cut) and, unless `synchronousCommit`, without waiting for any
 * commit's flush; `durable` keeps PostgreSQL's defaults, for the bench. `settings` are more of its
 * settings, by name.
 */
export async function startPostgres(options: { durable?: boolean; synchronousCommit?: boolean; settings?: Record<string, string> } = {}): Promise<TestPostgres> {
  await aptInstall(() => (postgresBin() ? [] : ['postgresql']), "the team store's tests need PostgreSQL's server binaries (/usr/lib/postgresql/*/bin)", (line) => process.stderr.write(`[pg] ${line}\n`));
  const bin = postgresBin();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const template = await templateData(bin);
  const dir = serverFolder('holon-pg-');
  const data = path.join(dir, 'data');
  // cp -a keeps the owner (the server's user) and the folder's 0700, which PostgreSQL requires.
  execFileSync('cp', ['-a', template, data]);
  const port = await freePort();
  const fast = options.durable ? '' : ` -c fsync=off${options.synchronousCommit ? '' : ' -c synchronous_commit=off'} -c full_page_writes=off`;
  const more = Object.entries(options.settings ?? {}).map(([k, v]) => ` -c ${k}=${v}`).join('');
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${fast}${more} -c max_connections=200`;
  const start = (): void => asServer(path.join(bin, 'pg_ctl'), ['-D', data, '-o', serverOptions, '-l', path.join(dir, 'log'), '-w', '-t', '30', 'start']);
  const stopServer = (mode = 'fast'): void => asServer(path.join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop']);
  start();
  const url = (db: string): string => `postgres://postgres@127.0.0.1:${port}/${db}`;
  let stopped = false;
  const cluster: TestPostgres = {
    port,
    url,
    createDatabase: (name) => createDatabaseAt(url('postgres'), name),
    restart() {
      stopServer();
      start();
    },
    crash() {
      stopServer('immediate');
      start();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        stopServer();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  // A test process that ends without its after() (a crash, an early exit) must not leave the server running.
  process.on('exit', () => cluster.stop());
  return cluster;
}

/**
 * Holon's state on the team store at `url`, sealed with the installation key in `stateDir`; `closing`
 * gets what closes it.
 */
export async function openHolonStore(url: string, stateDir: string, closing: (() => unknown)[], logger: Logger = silentLogger): Promise<PostgresStore<HolonState>> {
  const store = await PostgresStore.open({ url, reducer: holonReducer, clock: systemClock, logger, signer: loadOrCreateSigner(stateDir) });
  closing.push(async () => {
    store.close();
    await store.ended;
  });
  return store;
}

/**
 * Puts `around` between a store and PostgreSQL: every query its pool's connections send (a transaction's,
 * or a read through pool.query, which checks a connection out too) goes through it, with the query's
 * arguments and a function that sends it as it was.
 */
export function aroundQueries(store: PostgresStore<unknown>, around: (args: unknown[], send: () => Promise<unknown>) => Promise<unknown>): void {
  const pool = (store as unknown as { pool: Pool }).pool;
  const seen = new WeakSet<PoolClient>();
  pool.on('acquire', (client) => {
    if (seen.has(client)) return;
    seen.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args: unknown[]) => around(args, () => query(...args));
  });
}
