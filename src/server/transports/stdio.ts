/**
 * MCP over stdio, one JSON-RPC message per line, that survives a message too large to accept: the line
 * is skipped as it streams by (never held whole), the request it carried is answered with a JSON-RPC
 * error naming the limit, and the server keeps serving. (The SDK's own reader drops the whole connection
 * in that case, and the process exits without a word.) Logs go to the logger: stdout is the protocol.
 */
import { parseJSONRPCMessage } from '@modelcontextprotocol/server';
import type { Transport, JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Server } from '@modelcontextprotocol/server';
import type { Logger } from '../../core/kernel/deps.ts';

/**
 * The longest line (one message) accepted, in bytes: room for the largest artifact an office agent may
 * publish (10 MB decoded, about 13.4 MB as base64) and no more.
 */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** The JSON-RPC error a request too large to read is answered with. */
const INVALID_REQUEST = -32600;

/** How much of a skipped line is kept to find its request id: its start and its end. */
const KEEP = 512;

/** The id of a request whose line was too long, read from where JSON-RPC writers put it (first or last). */
export function requestIdOf(head: string, tail: string): RequestId | undefined {
  const value =
    /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})/.exec(head)?.[1] ??
    /"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})\s*\}\s*$/.exec(tail)?.[1];
  if (value === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(value);
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** A stdio server transport with a line limit that refuses one request instead of ending the session. */
export class StdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** While a too-long line streams by: its first and last bytes, and how long it was. */
  private skipping: { head: Buffer; tail: Buffer; bytes: number } | undefined;
  private closed = false;
  private ended: () => void = () => {};
  /** Settles when the transport closes (stdin ended, or it was closed): whoever serves on it sets `onclose`. */
  readonly done = new Promise<void>((resolve) => (this.ended = resolve));

  constructor(
    private readonly logger: Logger,
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  private readonly onData = (chunk: Buffer): void => {
    let rest = chunk;
    while (rest.length > 0) {
      const nl = rest.indexOf(10);
      const piece = nl < 0 ? rest : rest.subarray(0, nl);
      rest = nl < 0 ? Buffer.alloc(0) : rest.subarray(nl + 1);
      this.take(piece);
      if (nl >= 0) this.endLine();
    }
  };

  private readonly onEnd = (): void => void this.close();

  private take(piece: Buffer): void {
    if (this.skipping) {
      this.skipping.bytes += piece.length;
      this.skipping.tail = Buffer.concat([this.skipping.tail, piece]).subarray(-KEEP);
      return;
    }
    this.chunks.push(piece);
    this.size += piece.length;
    if (this.size > this.maxLineBytes) {
      const all = Buffer.concat(this.chunks);
      this.skipping = { head: all.subarray(0, KEEP), tail: all.subarray(-KEEP), bytes: all.length };
      this.chunks = [];
      this.size = 0;
    }
  }

  private endLine(): void {
    if (this.skipping) {
      const { head, tail, bytes } = this.skipping;
      this.skipping = undefined;
      const id = requestIdOf(head.toString('utf8'), tail.toString('utf8'));
      const message = `message too large: ${bytes} bytes; at most ${this.maxLineBytes} are accepted`;
      this.logger.warn(`stdio: refused a ${message}${id !== undefined ? ` (request ${String(id)})` : ''}`);
      if (id !== undefined) void this.send({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message } });
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(JSON.parse(line));
    } catch (err) {
      // With no id to answer to, there is nobody to tell but the operator.
      this.logger.warn(`stdio: ignored a line that is not a JSON-RPC message (${(err as Error).message.split('\n')[0]})`);
      return;
    }
    this.onmessage?.(message);
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('error', (err: Error) => this.onerror?.(err));
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + '\n')) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.onclose?.();
    this.ended();
  }
}

/**
 * Serves MCP on `transport` at every revision the SDK speaks: the connection's first message chooses
 * (2026-07-28's per-request envelope, or an older `initialize`). `first` is the server made before anything
 * was read, so that a mandate this process cannot serve is refused at once: the first choice gets it; a
 * later one (a client that probed the new revision and fell back) gets a new one from `build`.
 */
export function serveEveryRevision(
  first: Server,
  build: () => Server,
  transport: StdioServerTransport,
  logger: Logger,
): { close(): Promise<void> } {
  let ready: Server | undefined = first;
  const next = (): Server => {
    const server = ready ?? build();
    ready = undefined;
    return server;
  };
  return serveStdio(next, { transport, onerror: (err) => logger.info(`stdio: ${err.message}`) });
}
