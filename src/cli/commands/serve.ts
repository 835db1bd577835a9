import * as fs from 'node:fs';
import * as path from 'node:path';
import { HolonError } from '../../core/kernel/errors.ts';
import { createRunToken, endRunToken, MAX_RUN_TOKEN_TTL_MS, runTokenStatus } from '../../core/accounts/runTokens.ts';
import type { HttpServerHandle, HttpServerOptions } from '../../server/transports/http.ts';
import { MCP_AGENT_PATH, MCP_PATH, startHttpServer } from '../../server/transports/http.ts';
import type { Command, CommandContext } from '../args.ts';
import { str } from '../args.ts';
import { clock, list, logger, openExisting, print, withStore } from '../context.ts';
import { CHAIN_OPTIONS } from '../chainOptions.ts';
import { GITHUB_OPTIONS, openServerRuntime, runUntilStopped, SELLER_OPTIONS, WAIT_OPTIONS } from '../serverRuntime.ts';

/** The port `holon serve` listens on unless told otherwise; a client config written without --url points here. */
export const DEFAULT_PORT = 7374;

/** The environment variable a client config reads the token from: the token is never written to a file. */
export const TOKEN_ENV = 'HOLON_RUN_TOKEN';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "30m", "2h", "1d" (also "45s") as milliseconds; anything else, zero, or over seven days is invalid_input. */
export function parseDuration(text: string): number {
  const m = /^(\d{1,7})([smhd])$/.exec(text.trim());
  const ms = m ? Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? 0) : 0;
  if (!m || ms <= 0 || ms > MAX_RUN_TOKEN_TTL_MS)
    throw new HolonError('invalid_input', `--ttl takes a duration up to 7d, like 30m, 2h or 1d (got "${text}")`);
  return ms;
}

/** True for the addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

function portFlag(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const n = Number(value);
  if (!/^\d{1,5}$/.test(value) || n > 65535) throw new HolonError('invalid_input', '--port takes a number from 0 (any free port) to 65535');
  return n;
}

/** Where and how `holon serve` listens, from its flags; a --host other machines can reach needs --public. */
function listenOptions(ctx: CommandContext): HttpServerOptions & { host: string; port: number; stateless: boolean } {
  const host = str(ctx.opts, 'host') ?? '127.0.0.1';
  if (!isLoopback(host) && ctx.opts['public'] !== true)
    throw new HolonError('invalid_input', `--host ${host} can be reached from other machines; add --public if that is what you want`);
  const port = portFlag(str(ctx.opts, 'port'));
  const allowedHosts = list(str(ctx.opts, 'allowed-hosts'));
  const allowedOrigins = list(str(ctx.opts, 'allowed-origins'));
  return {
    host,
    port,
    stateless: ctx.opts['stateless'] === true,
    ...(allowedHosts ? { allowedHosts } : {}),
    ...(allowedOrigins ? { allowedOrigins } : {}),
  };
}

const serveCmd: Command = {
  name: 'serve',
  usage:
    'serve [--host H] [--port N] [--public] [--stateless] [--allowed-hosts H:P,…] ' +
    '[--allowed-origins URL,…] [--approval-wait SECONDS] [--elicitation] ' +
    '[--elicitation-wait SECONDS] [--allow-private-sellers] [--workspace DIR] ' +
    '[--github-owner ORG [--github-api URL]] [--merchant [ID=]PROTOCOL:URL,…] ' +
    '[--rpc-url URL --chain-id N --token ADDRESS [--facilitator URL]]',
  summary:
    `Serves MCP over Streamable HTTP at http://127.0.0.1:${DEFAULT_PORT}${MCP_PATH} ` +
    `(and ${MCP_AGENT_PATH}; loopback only unless --public). Each client presents a run token (holon token ` +
    `create) and gets the tools of that token's mandate.`,
  options: {
    host: { type: 'string', help: 'the address to listen on (default 127.0.0.1); anything but loopback needs --public' },
    port: { type: 'string', help: `the port (default ${DEFAULT_PORT}; 0 picks a free one)` },
    public: { type: 'boolean', help: 'allow a --host other machines can reach (each client still needs a run token)' },
    'allowed-hosts': { type: 'string', help: "Host header values accepted besides this machine's loopback names, e.g. myhost.lan:7374" },
    'allowed-origins': { type: 'string', help: 'browser Origins accepted besides the loopback ones, e.g. http://myhost.lan:7374' },
    stateless: {
      type: 'boolean',
      help:
        "answer every request on its own, in JSON, with no session (seed 004's form); approvals wait in the Holon view " +
        'or for holon approve, never by elicitation',
    },
    ...WAIT_OPTIONS,
    elicitation: {
      type: 'boolean',
      help:
        'also ask by MCP elicitation (off by default: an HTTP client is often started ' +
        'from a shell the agent shares, and the form goes to whoever holds the token)',
    },
    ...SELLER_OPTIONS,
    workspace: {
      type: 'string',
      help: 'the folder office artifacts are published into, and whose git is the forge (default: the current folder)',
    },
    ...GITHUB_OPTIONS,
    ...CHAIN_OPTIONS,
  },
  positionals: [0, 0],
  async run(ctx) {
    const listen = listenOptions(ctx);
    const { host, port, stateless } = listen;
    if (stateless && ctx.opts['elicitation'] === true)
      throw new HolonError('invalid_input', '--elicitation needs a session to send the form on; --stateless has none');
    const workspace = path.resolve(str(ctx.opts, 'workspace') ?? process.cwd());
    // Over HTTP the form reaches whatever holds the run token, which can be the agent itself: the human
    // answers in the Holon view or at a terminal unless they chose otherwise.
    const elicitation = ctx.opts['elicitation'] === true;
    const runtime = await openServerRuntime(ctx.opts, { stateDir: ctx.stateDir, store: ctx.store, workspace }, elicitation);
    let server: HttpServerHandle;
    try {
      server = await startHttpServer(runtime.deps, listen);
    } catch (err) {
      await runtime.close();
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
        throw new HolonError('conflict', `port ${port} on ${host} is in use; choose another with --port (0 picks a free one)`);
      throw err;
    }
    if (!isLoopback(host)) {
      logger.warn(
        `listening on ${host}, which other machines may reach: anyone holding a live run ` +
          `token can use its mandate. End tokens you no longer need (holon token end ID).`,
      );
      // A wildcard address is no name a client can use in its Host header: those names must be listed.
      if ((host === '0.0.0.0' || host === '::') && !listen.allowedHosts)
        logger.warn('other machines are refused (403) until you name the host:port they use with --allowed-hosts');
    }
    logger.info(
      `serving MCP on ${server.url}${stateless ? ' (stateless, JSON responses)' : ''} — a client needs a run token ` +
        `(holon token create --mandate M --ttl 2h); Ctrl-C stops`,
    );
    await runUntilStopped(runtime, () => server.close());
    return 0;
  },
};

/** The MCP client config (Claude Code's .mcp.json shape) with the holon entry set; other servers are kept. */
function clientConfig(file: string, url: string): string {
  let existing: Record<string, unknown> = {};
  if (fs.existsSync(file)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (err) {
      throw new HolonError('invalid_input', `${file} is not JSON (${(err as Error).message}); nothing was changed`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new HolonError('invalid_input', `${file} is not a JSON object; nothing was changed`);
    existing = parsed as Record<string, unknown>;
  } else if (!fs.existsSync(path.dirname(path.resolve(file)))) {
    throw new HolonError('invalid_input', `the folder of ${file} does not exist; nothing was changed`);
  }
  const servers = existing['mcpServers'] ?? {};
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    throw new HolonError('invalid_input', `mcpServers in ${file} is not an object; nothing was changed`);
  // The client expands ${HOLON_RUN_TOKEN} from its environment when it connects: the file holds no secret.
  const holon = { type: 'http', url, headers: { Authorization: `Bearer \${${TOKEN_ENV}}` } };
  return JSON.stringify({ ...existing, mcpServers: { ...servers, holon } }, null, 2) + '\n';
}

/** Replaces a file whole, never leaving half of one. */
function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

function checkUrl(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new HolonError('invalid_input', `--url "${text}" is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new HolonError('invalid_input', `--url must be http or https (got ${u.protocol})`);
  return u.toString();
}

const CREATE_ONLY = ['mandate', 'ttl', 'label', 'config', 'url'] as const;

async function createToken(ctx: CommandContext): Promise<number> {
  const mandate = str(ctx.opts, 'mandate');
  const ttl = str(ctx.opts, 'ttl');
  if (!mandate || !ttl)
    throw new HolonError('invalid_input', 'usage: holon token create --mandate ACCOUNT/NAME --ttl DURATION (30m, 2h, 1d…)');
  const ttlMs = parseDuration(ttl);
  const label = str(ctx.opts, 'label');
  const config = str(ctx.opts, 'config');
  const urlFlag = str(ctx.opts, 'url');
  if (urlFlag !== undefined && config === undefined)
    throw new HolonError('invalid_input', '--url is what --config writes into a client config; give both');
  // Everything is checked before the token is made, so a refusal leaves neither a token nor a file.
  const configText =
    config === undefined ? undefined : clientConfig(config, checkUrl(urlFlag ?? `http://127.0.0.1:${DEFAULT_PORT}${MCP_PATH}`));
  return withStore(
    openExisting(ctx),
    async (store) => {
      const t = await createRunToken(store, clock, { mandate, ttlMs, ...(label !== undefined ? { label } : {}) });
      if (config !== undefined && configText !== undefined) {
        try {
          writeAtomically(config, configText);
        } catch (err) {
          // A token nobody was told how to use is ended at once rather than left live.
          await endRunToken(store, clock, t.id);
          throw new HolonError('invalid_input', `could not write ${config} (${(err as Error).message}); the token was ended`);
        }
      }
      print(ctx, { id: t.id, token: t.token, expires_at: t.expires_at, mandate }, t.token);
      process.stderr.write(
        [
          `Run token ${t.id} for ${mandate}, live until ${t.expires_at}${label ? ` (${label})` : ''}.`,
          'It is shown only this once and Holon keeps only its hash. Give it to your MCP client through its environment:',
          `  export ${TOKEN_ENV}=<the token printed above>`,
          ...(config !== undefined
            ? [`${config} points the client at the server and reads the token from ${TOKEN_ENV}; it holds no secret.`]
            : []),
          `End it early with: holon token end ${t.id}`,
        ].join('\n') + '\n',
      );
      return 0;
    },
    true,
  );
}

const tokenCmd: Command = {
  name: 'token',
  usage: 'token create --mandate ACCOUNT/NAME --ttl DURATION [--label L] [--config FILE [--url URL]] | token list | token end ID',
  summary:
    `Run tokens for holon serve: each lets one MCP client act for one mandate until ` +
    `it expires (at most 7 days) or you end it. The token is printed once; Holon ` +
    `keeps only its hash. --config writes a client config (Claude Code's .mcp.json ` +
    `shape) that reads the token from $${TOKEN_ENV}.`,
  options: {
    mandate: { type: 'string', help: 'create: the mandate the token acts for' },
    ttl: { type: 'string', help: 'create: how long it lives, e.g. 30m, 2h, 1d (at most 7d)' },
    label: { type: 'string', help: 'create: a name to tell it apart in `holon token list`' },
    config: { type: 'string', help: 'create: write (or update) this MCP client config file; the token is not written to it' },
    url: { type: 'string', help: `create: the server URL for --config (default http://127.0.0.1:${DEFAULT_PORT}${MCP_PATH})` },
  },
  positionals: [1, 2],
  async run(ctx) {
    const [sub, id] = ctx.args;
    if (sub === 'create' && ctx.args.length === 1) return createToken(ctx);
    if (sub !== 'list' && sub !== 'end') throw new HolonError('invalid_input', `usage: holon ${tokenCmd.usage}`);
    const misplaced = CREATE_ONLY.filter((k) => ctx.opts[k] !== undefined);
    if (misplaced.length > 0) throw new HolonError('invalid_input', `--${misplaced.join(', --')} only go with holon token create`);
    if (sub === 'list') {
      if (ctx.args.length !== 1) throw new HolonError('invalid_input', 'usage: holon token list');
      return withStore(openExisting(ctx), async (store) => {
        const now = clock.now();
        const rows = Object.values(store.state.run_tokens).map((t) => ({
          id: t.id,
          mandate: t.mandate,
          label: t.label ?? null,
          created_at: t.created_at,
          expires_at: t.expires_at,
          ended_at: t.ended_at ?? null,
          status: runTokenStatus(t, now),
        }));
        const text = rows
          .map(
            (r) =>
              `${r.id}  ${r.status.padEnd(7)}  ${r.mandate}  until ${r.expires_at}` +
              `${r.ended_at ? `, ended ${r.ended_at}` : ''}${r.label ? `  ${r.label}` : ''}`,
          )
          .join('\n');
        return print(ctx, rows, rows.length === 0 ? 'No run tokens.' : text);
      });
    }
    if (id === undefined) throw new HolonError('invalid_input', 'usage: holon token end ID');
    return withStore(
      openExisting(ctx),
      async (store) => {
        const t = await endRunToken(store, clock, id);
        return print(
          ctx,
          { id: t.id, mandate: t.mandate, ended_at: t.ended_at ?? null },
          `Ended ${t.id} (${t.mandate}): servers refuse it from their next request.`,
        );
      },
      true,
    );
  },
};

export const commands: Command[] = [serveCmd, tokenCmd];
