import { HolonError } from '../core/kernel/errors.ts';
import { HOLON_VERSION } from '../core/kernel/version.ts';
import type { Command } from './args.ts';
import { commandHelp, parseCommand, resolveStateDir, resolveStore, stateNamed, str } from './args.ts';

/**
 * Every command, with the one-line summary `holon --help` shows and the group that implements it. A
 * group is loaded only when one of its commands runs, so `holon --version` or `holon fund` never loads the
 * MCP server's code.
 */
const GROUPS: { names: string[]; summaries: string[]; load: () => Promise<{ commands: Command[] }> }[] = [
  { names: ['fund'], summaries: ['Adds funds to an account'], load: () => import('./commands/fund.ts') },
  {
    names: ['mandate'],
    summaries: ['Creates, lists, shows and edits mandates; binds a workspace to one'],
    load: () => import('./commands/mandate.ts'),
  },
  { names: ['agents'], summaries: ['Lists and searches the catalog; adds agents'], load: () => import('./commands/agents.ts') },
  {
    names: ['approvals', 'approve', 'reject', 'windows'],
    summaries: [
      'Lists approvals waiting for you; shows or sets where they may be answered',
      'Approves one waiting approval (interactive only)',
      'Rejects a waiting approval',
      'Lists the capability windows open now; closes one',
    ],
    load: () => import('./commands/approvals.ts'),
  },
  {
    names: ['receipts', 'budget', 'holds'],
    summaries: [
      'Shows a receipt tree, or recent calls',
      'Shows spent, held and remaining budget',
      'Lists money held for spends in flight; releases one left by a restart',
    ],
    load: () => import('./commands/receipts.ts'),
  },
  {
    names: ['team'],
    summaries: ["Lists an account's members and approvers; adds or removes one (interactive only)"],
    load: () => import('./commands/team.ts'),
  },
  { names: ['fx'], summaries: ['Lists or sets exchange rates'], load: () => import('./commands/fx.ts') },
  { names: ['memory'], summaries: ['Lists what a mandate remembers (read-only)'], load: () => import('./commands/memory.ts') },
  {
    names: ['intents', 'audit', 'limits'],
    summaries: [
      'Lists payment intents; a parked one says how to release it',
      "Shows the intents' audit trail and checks it links",
      "Shows or sets a mandate's call rate limit and quota",
    ],
    load: () => import('./commands/intents.ts'),
  },
  {
    names: ['wallet'],
    summaries: ["Shows, creates or imports the wallet that signs this state's payments"],
    load: () => import('./commands/wallet.ts'),
  },
  {
    names: ['keys'],
    summaries: ['Prints the public key merchants trust for the mandates Holon signs for you'],
    load: () => import('./commands/keys.ts'),
  },
  {
    names: ['passkey'],
    summaries: ['Adds, lists or removes the passkeys that decide for this state'],
    load: () => import('./commands/passkey.ts'),
  },
  { names: ['verify'], summaries: ['Checks the journal offline: hash chain and signatures'], load: () => import('./commands/verify.ts') },
  {
    names: ['store', 'migrate'],
    summaries: [
      'Sets up a PostgreSQL team store: its table, append-only guard and member role',
      "Copies the state folder's verified journal into an empty team store",
    ],
    load: () => import('./commands/store.ts'),
  },
  { names: ['mcp'], summaries: ['Runs the MCP server for one mandate over stdio'], load: () => import('./commands/mcp.ts') },
  {
    names: ['serve', 'token'],
    summaries: [
      'Serves MCP over HTTP on loopback; each client presents a run token',
      'Creates, lists and ends the run tokens holon serve accepts',
    ],
    load: () => import('./commands/serve.ts'),
  },
  { names: ['demo'], summaries: ['Plays a typical session on a fresh state'], load: () => import('./commands/demo/demo.ts') },
];

function usage(): string {
  return [
    'holon — let an agent hire and pay other agents within a mandate you chose',
    '',
    'Usage: holon COMMAND [options]   (holon COMMAND --help for its options)',
    '',
    ...GROUPS.flatMap((g) => g.names.map((n, i) => `  ${n.padEnd(10)} ${g.summaries[i] ?? ''}`)),
    '',
    'Every command takes --state DIR (default $HOLON_STATE, else ./.holon) and --json.',
  ].join('\n');
}

/** Runs the CLI; returns the exit code. Expected failures print one line and exit non-zero. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name) {
    process.stderr.write(usage() + '\n');
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n');
    return 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${HOLON_VERSION}\n`);
    return 0;
  }
  try {
    const group = GROUPS.find((g) => g.names.includes(name));
    if (!group) throw new HolonError('invalid_input', `unknown command "${name}" (holon --help lists them)`);
    const cmd = (await group.load()).commands.find((c) => c.name === name);
    if (!cmd) throw new Error(`command ${name} is listed but its group does not define it`);
    const { args, opts } = parseCommand(cmd, rest);
    if (opts['help']) {
      process.stdout.write(commandHelp(cmd) + '\n');
      return 0;
    }
    const store = resolveStore(str(opts, 'store'));
    return await cmd.run({
      args,
      opts,
      stateDir: resolveStateDir(str(opts, 'state')),
      store: store.url,
      named: { state: stateNamed(str(opts, 'state')), store: store.named },
      json: opts['json'] === true,
      out: (t) => process.stdout.write(t + '\n'),
    });
  } catch (err) {
    if (HolonError.is(err)) {
      process.stderr.write(`holon: ${err.message}\n`);
      return err.reason === 'invalid_input' ? 2 : 1;
    }
    process.stderr.write(`holon: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
    return 70;
  }
}

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // Exit once the event loop is empty; a handle a library left open must not keep a finished command alive.
  setTimeout(() => process.exit(code), 100).unref();
});
