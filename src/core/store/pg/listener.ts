/**
 * The team store's own connection, one per process: it holds the process's presence, and, when the
 * store watches, listens for other processes' appends, with a poll in case an announcement was missed
 * (a connection lost and made again lets some by). It reconnects whenever the connection is lost.
 */
import type * as PG from 'pg';
import type { Client } from 'pg';
import type { Logger } from '../../kernel/deps.ts';
import type { ProcessRef } from '../owner.ts';
import { connectionOptions, RECONNECT_MS, streamOf } from './connection.ts';
import { holdPresence } from './presence.ts';
import { CHANNEL } from './schema.ts';

const POLL_MS = 1000;

/** What a listener needs: the database, whose presence it holds, and what to do when rows may be new. */
export interface ListenerOptions {
  pg: typeof PG;
  url: string;
  logger: Logger;
  owner: ProcessRef;
  /** Listen and poll for other processes' appends; without, the connection only holds the presence. */
  watch: boolean;
  /** Rows up to `seq` were announced (NaN when the announcement says no number). */
  announced(seq: number): void;
  /** Look for rows appended since the last look: on every poll, and once reconnected. */
  look(): void;
}

/** The listening connection of one store, kept open until close(). */
export class Listener {
  private client: Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly opts: ListenerOptions) {}

  /** Starts the poll (when watching) and connects; rejects when the first connection fails. */
  async start(): Promise<void> {
    if (this.opts.watch) {
      this.timer = setInterval(() => this.opts.look(), POLL_MS);
      this.timer.unref();
    }
    await this.connect();
  }

  /** Stops polling and reconnecting, and ends the connection; resolves once it has ended. */
  close(): Promise<void> | undefined {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.reconnect) clearTimeout(this.reconnect);
    const client = this.client;
    this.client = undefined;
    // Its socket was unref'd so that it never keeps a process alive; while it closes, whoever awaits the end must be.
    streamOf(client)?.ref?.();
    return client?.end();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new this.opts.pg.Client(connectionOptions(this.opts.url));
    const retry = (): void => {
      if (this.closed || this.reconnect) return;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      this.reconnect = setTimeout(() => {
        this.reconnect = undefined;
        this.connect().then(
          () => this.opts.look(),
          () => retry(),
        );
      }, RECONNECT_MS);
      this.reconnect.unref();
    };
    client.on('error', (err) => {
      this.opts.logger.warn(`store: the listening connection was lost (${err.message}); reconnecting`);
      retry();
    });
    client.on('end', retry);
    client.on('notification', (n) => this.opts.announced(Number(n.payload)));
    try {
      await client.connect();
      await holdPresence(client, this.opts.owner);
      if (this.opts.watch) await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      retry();
      throw err;
    }
    if (this.closed) {
      await client.end();
      return;
    }
    this.client = client;
    // The listening connection must not keep a finished CLI command alive.
    streamOf(client)?.unref?.();
  }
}
