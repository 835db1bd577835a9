import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { HolonError } from '../core/kernel/errors.ts';
import { refuseArtifactState } from '../core/local/stateFolder.ts';
import { STORE_ENV } from '../core/store/url.ts';

/** An option a command takes. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  help: string;
  short?: string;
}

/** A command: its usage, options and what it does. */
export interface Command {
  name: string;
  usage: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** How many positional arguments it takes: [min, max]. */
  positionals: [number, number];
  run(ctx: CommandContext): Promise<number>;
}

/** What a command receives after parsing. */
export interface CommandContext {
  args: string[];
  opts: Record<string, string | boolean | undefined>;
  stateDir: string;
  /** A shared store's URL (--store, else HOLON_STORE); undefined: the state folder's journal. */
  store?: string | undefined;
  /**
   * What the command line and the environment named, rather than left to the defaults: the state folder
   * (--state or HOLON_STATE) and the store (--store or HOLON_STORE; '' names the journal). A bound
   * workspace's server refuses a named one that disagrees with its binding.
   */
  named: { state: boolean; store: boolean };
  json: boolean;
  out: (text: string) => void;
}

/** Options every command takes. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  state: { type: 'string', help: 'state folder (default: $HOLON_STATE, else ./.holon)' },
  store: { type: 'string', help: 'a shared store, postgres://… (default: $HOLON_STORE, else the journal in the state folder)' },
  json: { type: 'boolean', help: 'print JSON' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
};

/**
 * The state folder: --state, else HOLON_STATE, else .holon/ under the current folder. Never an office
 * artifact folder or one inside it: an agent writes those (see core/local/stateFolder.ts).
 */
export function resolveStateDir(flag: string | undefined): string {
  const dir = path.resolve(flag ?? process.env['HOLON_STATE'] ?? '.holon');
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory())
    throw new HolonError('invalid_input', `the state ${dir} is a file, not a folder`);
  refuseArtifactState(dir);
  return dir;
}

/** True when --state or HOLON_STATE names the state folder (false: the ./.holon default). */
export function stateNamed(flag: string | undefined): boolean {
  return flag !== undefined || process.env['HOLON_STATE'] !== undefined;
}

/**
 * The shared store: --store, else HOLON_STORE (empty: none), else the state folder's journal (undefined);
 * `named` says whether either was given. HOLON_STORE is read once and removed from this process's
 * environment: it may carry the database's password, and the processes a server starts (agents, git)
 * must not inherit it.
 */
export function resolveStore(flag: string | undefined): { url: string | undefined; named: boolean } {
  const handed = process.env[STORE_ENV];
  delete process.env[STORE_ENV];
  const url = flag ?? handed;
  return { url: url === undefined || url === '' ? undefined : url, named: url !== undefined };
}

/** Parses a command's arguments strictly; unknown options and wrong counts are usage errors. */
export function parseCommand(cmd: Command, argv: string[]): { args: string[]; opts: Record<string, string | boolean | undefined> } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [k, v] of Object.entries({ ...GLOBAL_OPTIONS, ...cmd.options }))
    options[k] = v.short ? { type: v.type, short: v.short } : { type: v.type };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new HolonError('invalid_input', `${(err as Error).message.split('\n')[0]} (see holon ${cmd.name} --help)`);
  }
  const opts = parsed.values as Record<string, string | boolean | undefined>;
  if (!opts['help']) {
    const [min, max] = cmd.positionals;
    if (parsed.positionals.length < min || parsed.positionals.length > max) {
      throw new HolonError('invalid_input', `usage: holon ${cmd.usage}`);
    }
  }
  return { args: parsed.positionals, opts };
}

/** The help text of a command. */
export function commandHelp(cmd: Command): string {
  const rows = Object.entries({ ...cmd.options, ...GLOBAL_OPTIONS }).map(
    ([k, v]) => `  --${k}${v.type === 'string' ? ' VALUE' : ''}${v.short ? `, -${v.short}` : ''}`.padEnd(30) + v.help,
  );
  return [`holon ${cmd.usage}`, '', cmd.summary, '', 'Options:', ...rows].join('\n');
}

/** A string option, or undefined. */
export function str(opts: Record<string, string | boolean | undefined>, key: string): string | undefined {
  const v = opts[key];
  return typeof v === 'string' ? v : undefined;
}
