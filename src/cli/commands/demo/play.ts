/**
 * What the demo's scenarios are played with: the demo itself (where its state is, what to print with),
 * the scenario they each are, the bundled examples they start, the agents they connect, and how they
 * print.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { HolonError } from '../../../core/kernel/errors.ts';
import { silentLogger, systemClock } from '../../../core/kernel/deps.ts';
import { openState } from '../../../core/holon.ts';
import { HOLON_VERSION } from '../../../core/kernel/version.ts';

/** One demo being played. */
export interface Demo {
  out: (text: string) => void;
  /** The built CLI (dist/holon.js): the agents' servers and the human's terminal run it. */
  holonBin: string;
  stateDir: string;
  /** The demo catalog and its files (examples/). */
  examples: string;
  /** `--state DIR` (with `--store ''` when the shell names a team store) for the commands the demo suggests. */
  at: string;
  /** The revision of MCP the agents speak (`--protocol`). */
  protocol: DemoProtocol;
}

/** The revisions the demo's agents may speak: the current one (per-request, no initialize), or the one before it. */
export const DEMO_PROTOCOLS = ['2026-07-28', '2025-11-25'] as const;
export type DemoProtocol = (typeof DEMO_PROTOCOLS)[number];

/** The state folder's journal, as the human's commands write to it. */
export type DemoStore = ReturnType<typeof openState>;

/** One scenario of the demo, played in order after the human has set every scenario up. */
export interface Scenario {
  /** What the human sets up for it before any agent connects, each step printed as the command it is. */
  setUp?(store: DemoStore, demo: Demo): Promise<void>;
  /** Plays it; returns what the human can try with its state afterwards, for the closing section. */
  play(demo: Demo): Promise<string[]>;
}

/** Runs `fn` on the state folder's journal, opened for it alone and closed after. */
export async function withState<T>(stateDir: string, fn: (store: DemoStore) => Promise<T>): Promise<T> {
  const store = openState(stateDir, { clock: systemClock, logger: silentLogger });
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}

export const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export function section(out: (t: string) => void, title: string): void {
  out(`\n── ${title} ${'─'.repeat(Math.max(0, 72 - title.length))}`);
}

export function indent(text: string, pad = '   '): string {
  return text
    .split('\n')
    .map((l) => pad + l)
    .join('\n');
}

export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}

/** A file of the bundled examples (dist/examples/…), beside the built CLI. */
export function bundledExample(demo: Pick<Demo, 'holonBin'>, ...parts: string[]): string {
  return path.join(path.dirname(demo.holonBin), 'examples', ...parts);
}

/** A bundled example running as its own process, and the JSON it printed when it was ready. */
export interface Example<T> {
  ready: T;
  /** Stops it and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts a bundled example with `args`. Its standard input is a pipe this process holds, so an example
 * that watches it (the local chain does) ends when the demo does, however the demo ends.
 */
export async function startExample<T>(demo: Pick<Demo, 'holonBin'>, file: string, args: string[] = []): Promise<Example<T>> {
  const child = spawn(process.execPath, [bundledExample(demo, file), ...args], { stdio: ['pipe', 'pipe', 'ignore'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await exited;
  };
  try {
    let text = '';
    const ready = await new Promise<T>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        try {
          resolve(JSON.parse(text) as T);
        } catch {
          // Not all of it yet.
        }
      });
      child.once('error', reject);
      child.once('exit', () => reject(new Error(`the example ${file} stopped`)));
    });
    return { ready, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** An agent of the demo: the MCP client it is, on its own `holon mcp` server for one mandate. */
export interface AgentSpec {
  mandate: string;
  /** The name the client gives the server. */
  client: string;
  /** Arguments of `holon mcp` beyond the mandate and the state folder. */
  args?: string[];
}

/**
 * Connects each agent to its own `holon mcp` process, as a real client would, plays `fn` with them, and
 * closes them all. When `fn` fails, what each server wrote to stderr is shown, under `logAs` or else
 * under its mandate: a server that ended early says why there.
 */
export async function withAgents<T, S extends AgentSpec[]>(
  demo: Demo,
  specs: [...S],
  fn: (clients: { [K in keyof S]: Client }) => Promise<T>,
  logAs?: string,
): Promise<T> {
  const agents = specs.map((spec) => {
    const args = [demo.holonBin, 'mcp', '--mandate', spec.mandate, '--state', demo.stateDir, ...(spec.args ?? [])];
    const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' });
    // 2026-07-28 is pinned (no initialize is ever sent); the older revision is the SDK's default handshake.
    const pinned = demo.protocol === '2026-07-28' ? { versionNegotiation: { mode: { pin: demo.protocol } } } : {};
    const agent = { mandate: spec.mandate, transport, client: new Client({ name: spec.client, version: HOLON_VERSION }, pinned), log: '' };
    transport.stderr?.on('data', (d: Buffer) => (agent.log += d.toString()));
    return agent;
  });
  try {
    await Promise.all(agents.map((a) => a.client.connect(a.transport)));
    // One client per spec, in its order: the tuple the caller destructures.
    return await fn(agents.map((a) => a.client) as { [K in keyof S]: Client });
  } catch (err) {
    for (const a of agents) if (a.log) process.stderr.write(`${logAs ?? `holon mcp --mandate ${a.mandate}`}:\n${a.log}\n`);
    throw err;
  } finally {
    await Promise.allSettled(agents.map((a) => a.client.close()));
  }
}

/** One agent, as withAgents connects them. */
export function withAgent<T>(demo: Demo, spec: AgentSpec, fn: (client: Client) => Promise<T>, logAs?: string): Promise<T> {
  return withAgents(demo, [spec], ([client]) => fn(client), logAs);
}

/** An amount as the tools return it. */
export type MoneyOut = { amount: string; currency: string };

export const fmtMoney = (m: MoneyOut | null | undefined): string => (m ? `${m.amount} ${m.currency}` : 'unknown');

/** A `holon` command at a terminal of its own (a pseudo-terminal `script` gives it), as a person types. */
export interface Terminal {
  /** Resolves once the terminal has shown text matching `pattern`. */
  shown(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Types `text` into the terminal. */
  type(text: string): void;
  /** Its whole output, without carriage returns or escape codes, once it exits 0; rejected otherwise. */
  done: Promise<string>;
}

/** Runs `holon ARGS` at a terminal of its own; `env` is added to this process's environment. */
export function atTerminal(holonBin: string, args: string[], env: Record<string, string> = {}): Terminal {
  if (spawnSync('script', ['--version'], { stdio: 'ignore' }).status !== 0) {
    throw new HolonError('not_found', 'the demo needs `script` (util-linux) to give `holon` a terminal');
  }
  const command = [process.execPath, holonBin, ...args].map(shq).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, TERM: 'dumb', ...env },
  });
  let output = '';
  const clean = (): string =>
    output
      .replace(/\r/g, '')
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
      .trimEnd();
  const watchers: (() => void)[] = [];
  const heard = (d: Buffer): void => {
    output += d.toString();
    for (const w of [...watchers]) w();
  };
  child.stdout.on('data', heard);
  child.stderr.on('data', heard);
  const done = new Promise<string>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      child.stdin.end();
      for (const w of [...watchers]) w();
      if (code === 0) resolve(clean());
      else reject(new Error(`holon ${args[0] ?? ''} exited ${code}:\n${clean()}`));
    });
  });
  done.catch(() => undefined);
  const shown = (pattern: RegExp): Promise<RegExpMatchArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const m = clean().match(pattern);
        if (m) resolve(m);
        else if (child.exitCode !== null || child.signalCode !== null)
          reject(new Error(`holon ${args[0] ?? ''} ended without showing ${pattern}:\n${clean()}`));
        else return;
        watchers.splice(watchers.indexOf(check), 1);
      };
      watchers.push(check);
      check();
    });
  return { shown, type: (text) => child.stdin.write(text), done };
}
