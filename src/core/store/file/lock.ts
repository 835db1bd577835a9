/**
 * The journal's cross-process lock: fair (first come, first served), never blocking the event loop, and
 * costing no file operation per transaction. One process of a state is its coordinator: it listens on a
 * local socket and grants the lock in the order asked; the others ask over that socket. A holder that
 * dies releases by closing its connection. When the coordinator goes, the others elect a new one —
 * under a file lock, so there is only ever one — and a coordinator that follows a crashed one waits a
 * moment before its first grant, for whoever held the lock then to finish. A holder slower than that
 * moment is not trusted to have kept the lock: the journal asks the file, once a transaction is
 * decided, whether anyone appended since it read, and writes nothing if so (journal.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { HolonError } from '../../kernel/errors.ts';

/** How long a coordinator that follows a crashed one waits before its first grant. */
const GRACE_MS = 500;
/** An election's file lock older than this, or naming a dead process, is broken. */
const STALE_ELECTION_MS = 30_000;
/** How long a process waits to take part in an election before giving up. */
const ELECTION_TIMEOUT_MS = 15_000;

/** True while a process with this pid exists (one we may not signal counts as alive). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Where the coordinator of the state in `dir` listens: a socket in the temp folder, or a named pipe on Windows. */
export function lockSocketPath(dir: string): string {
  const id = createHash('sha256').update(fs.realpathSync(dir)).digest('hex').slice(0, 16);
  return process.platform === 'win32' ? `\\\\.\\pipe\\holon-${id}` : path.join(os.tmpdir(), `holon-${id}.sock`);
}

/**
 * A file lock for the rare moments that need one (an election): a file that appears already holding its
 * owner's pid (written, then linked), broken when its owner died or it is older than any election.
 */
export async function acquireFileLock(file: string, timeoutMs = ELECTION_TIMEOUT_MS): Promise<() => void> {
  const deadline = Date.now() + timeoutMs;
  const token = `${process.pid} ${Date.now()} ${randomBytes(6).toString('hex')}`;
  let pause = 1;
  for (;;) {
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, token, { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
      return () => {
        try {
          if (fs.readFileSync(file, 'utf8') === token) fs.unlinkSync(file);
        } catch {
          // Broken as stale by another process: nothing to release.
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    breakIfStale(file);
    if (Date.now() > deadline) throw new HolonError('lock_timeout', `the lock ${file} is held by another process`);
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 50);
  }
}

function breakIfStale(file: string): void {
  try {
    const [pidText, sinceText] = fs.readFileSync(file, 'utf8').split(' ');
    const pid = Number(pidText);
    const since = Number(sinceText) || fs.statSync(file).mtimeMs;
    const dead = Number.isInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid);
    if (dead || Date.now() - since > STALE_ELECTION_MS) fs.rmSync(file, { force: true });
  } catch {
    // Released between our two looks: the next attempt takes it.
  }
}

interface Waiter {
  grant(): void;
  /** Told when the lock closes before granting (a waiter in this process). */
  fail?(err: Error): void;
  /** The connection it came on; none for the coordinator's own process. */
  socket?: net.Socket;
}

/** The coordinator's side: who holds the lock, and who waits for it, in order. */
class Coordinator {
  private holder: Waiter | null = null;
  private readonly queue: Waiter[] = [];
  private graceTimer: NodeJS.Timeout | undefined;
  private readonly sockets = new Set<net.Socket>();
  private localWaiting = 0;

  constructor(
    readonly server: net.Server,
    private graceUntil: number,
  ) {
    server.on('connection', (socket) => this.serve(socket));
  }

  /** How many wait for the lock, in order, behind its holder. */
  get waiting(): number {
    return this.queue.length;
  }

  enqueue(w: Waiter): void {
    this.queue.push(w);
    this.pump();
  }

  /**
   * Waits, in this process, for the lock. The server and its connections do not keep the process alive
   * when idle; while this process waits for another to release, the server must.
   */
  waitLocal(): Promise<() => void> {
    this.localWaiting += 1;
    this.server.ref();
    return new Promise((resolve, reject) => {
      const done = (): void => {
        this.localWaiting -= 1;
        if (this.localWaiting === 0) this.server.unref();
      };
      const w: Waiter = {
        grant: () => {
          done();
          resolve(() => this.release(w));
        },
        fail: (err) => {
          done();
          reject(err);
        },
      };
      this.enqueue(w);
    });
  }

  release(w: Waiter): void {
    if (this.holder === w) {
      this.holder = null;
      this.pump();
      return;
    }
    const i = this.queue.indexOf(w);
    if (i >= 0) this.queue.splice(i, 1);
  }

  private pump(): void {
    if (this.holder || this.queue.length === 0) return;
    const wait = this.graceUntil - Date.now();
    if (wait > 0) {
      this.graceTimer ??= setTimeout(() => {
        this.graceTimer = undefined;
        this.pump();
      }, wait);
      return;
    }
    this.holder = this.queue.shift() ?? null;
    this.holder?.grant();
  }

  /** One line per message: "A" asks, "R" releases; the answer "G" grants. A closed connection releases. */
  private serve(socket: net.Socket): void {
    socket.unref();
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    let waiter: Waiter | undefined;
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line === 'A' && !waiter) {
          const w: Waiter = { socket, grant: () => socket.write('G\n') };
          waiter = w;
          this.enqueue(w);
        } else if (line === 'R' && waiter) {
          const w = waiter;
          waiter = undefined;
          this.release(w);
        }
      }
    });
    const gone = (): void => {
      if (waiter) this.release(waiter);
      waiter = undefined;
    };
    socket.on('close', gone);
    socket.on('error', gone);
  }

  /**
   * Stops granting: every connection is closed, so the others elect another coordinator. Returns true
   * when no other process holds the lock now; otherwise the next coordinator must wait its grace, for
   * that holder to finish.
   */
  close(): boolean {
    if (this.graceTimer) clearTimeout(this.graceTimer);
    const quiet = this.holder === null || this.holder.socket === undefined;
    // A transaction of this process still waiting is told, rather than left waiting forever.
    for (const w of this.queue.splice(0)) w.fail?.(new Error('journal is closed'));
    this.server.close();
    for (const socket of this.sockets) socket.destroy();
    return quiet;
  }
}

/** A connection to another process's coordinator. */
class Client {
  private buffered = '';
  private waiting: { resolve: () => void; reject: (err: Error) => void } | undefined;
  closed = false;

  constructor(readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.unref();
    socket.on('data', (chunk: string) => {
      this.buffered += chunk;
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        if (line === 'G') this.settle();
      }
    });
    const gone = (): void => {
      this.closed = true;
      this.settle(new Error('the journal lock coordinator went away'));
    };
    socket.on('close', gone);
    socket.on('error', gone);
  }

  private settle(err?: Error): void {
    const w = this.waiting;
    this.waiting = undefined;
    // Idle, the connection must not keep the process alive; waiting for a grant, it must.
    this.socket.unref();
    if (!w) return;
    if (err) w.reject(err);
    else w.resolve();
  }

  /** Asks for the lock; resolves when granted, rejects if the coordinator goes first. */
  ask(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the journal lock coordinator went away'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.ref();
      this.socket.write('A\n');
    });
  }

  release(): void {
    if (!this.closed) this.socket.write('R\n');
  }
}

/** The lock of one state, shared by every transaction of one store. */
export class JournalLock {
  private link: { kind: 'coordinator'; coordinator: Coordinator } | { kind: 'client'; client: Client } | undefined;
  private linking: Promise<NonNullable<JournalLock['link']>> | undefined;
  /** This process's own turn-taking: one transaction at a time asks the coordinator, in order. */
  private tail: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly dir: string) {}

  /**
   * How many processes' transactions wait for the lock behind its holder, when this process is the one
   * that coordinates it (undefined otherwise): what a check of its fairness watches.
   */
  get queued(): number | undefined {
    return this.link?.kind === 'coordinator' ? this.link.coordinator.waiting : undefined;
  }

  /** Waits for the lock (fairly, without blocking the event loop) and returns its release. */
  async acquire(): Promise<() => void> {
    let unlock!: () => void;
    const mine = new Promise<void>((r) => (unlock = r));
    const before = this.tail;
    this.tail = before.then(() => mine);
    await before;
    try {
      const releaseGlobal = await this.acquireGlobal();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        releaseGlobal();
        unlock();
      };
    } catch (err) {
      unlock();
      throw err;
    }
  }

  private async acquireGlobal(): Promise<() => void> {
    for (;;) {
      if (this.closed) throw new Error('journal is closed');
      const link = await this.connect();
      if (link.kind === 'coordinator') {
        return link.coordinator.waitLocal();
      }
      try {
        await link.client.ask();
        return () => link.client.release();
      } catch {
        // The coordinator went away while we waited: elect another and ask again.
        if (this.link === link) this.link = undefined;
      }
    }
  }

  private connect(): Promise<NonNullable<JournalLock['link']>> {
    if (this.link && !(this.link.kind === 'client' && this.link.client.closed)) return Promise.resolve(this.link);
    this.link = undefined;
    this.linking ??= this.elect().then(
      (link) => {
        this.linking = undefined;
        this.link = link;
        return link;
      },
      (err: unknown) => {
        this.linking = undefined;
        throw err;
      },
    );
    return this.linking;
  }

  /** Joins the coordinator, or becomes it. */
  private async elect(): Promise<NonNullable<JournalLock['link']>> {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const where = lockSocketPath(this.dir);
    const joined = await tryJoin(where);
    if (joined) return { kind: 'client', client: joined };
    const releaseElection = await acquireFileLock(path.join(this.dir, 'journal.lock'));
    try {
      const again = await tryJoin(where);
      if (again) return { kind: 'client', client: again };
      // A socket file nobody answers on was left by a coordinator that died, maybe mid-grant.
      const crashed = process.platform !== 'win32' && fs.existsSync(where);
      if (crashed) fs.rmSync(where, { force: true });
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(where, () => {
          server.off('error', reject);
          resolve();
        });
      });
      server.unref();
      if (process.platform !== 'win32') fs.chmodSync(where, 0o600);
      return { kind: 'coordinator', coordinator: new Coordinator(server, crashed ? Date.now() + GRACE_MS : 0) };
    } finally {
      releaseElection();
    }
  }

  /** Stops coordinating (the others elect another) or leaves the coordinator. */
  close(): void {
    this.closed = true;
    const link = this.link;
    this.link = undefined;
    if (link?.kind === 'coordinator') {
      // A socket file left behind tells the next coordinator to wait its grace; it is removed only when
      // nobody else is inside a transaction.
      const quiet = link.coordinator.close();
      if (quiet && process.platform !== 'win32') {
        try {
          fs.rmSync(lockSocketPath(this.dir), { force: true });
        } catch {
          // The state folder is gone: so is anything to coordinate.
        }
      }
    } else if (link?.kind === 'client') link.client.socket.destroy();
  }
}

/** A connection to the coordinator at `where`, or nothing when none answers there. */
function tryJoin(where: string): Promise<Client | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(where);
    const fail = (): void => {
      socket.destroy();
      resolve(undefined);
    };
    socket.once('error', fail);
    socket.once('connect', () => {
      socket.off('error', fail);
      resolve(new Client(socket));
    });
  });
}
