import { HolonError } from '../core/errors.ts';
import type { Command } from './args.ts';
import { commandHelp, parseCommand, resolveStateDir, str } from './args.ts';
import { COMMANDS } from './commands.ts';
import { demoCmd } from './demo.ts';
import { mcpCmd } from './mcp.ts';
import { HOLON_VERSION } from '../core/version.ts';

const ALL: Command[] = [...COMMANDS, mcpCmd, demoCmd];

/** The first sentence, without its full stop ("e.g." does not end one). */
function firstSentence(text: string): string {
  return (/^(.+?)\.(?:\s+(?=[A-Z])|$)/.exec(text)?.[1] ?? text).trim();
}

function usage(): string {
  return [
    'holon — let an agent hire and pay other agents within a mandate you chose',
    '',
    'Usage: holon COMMAND [options]   (holon COMMAND --help for its options)',
    '',
    ...ALL.map((c) => `  ${c.name.padEnd(10)} ${firstSentence(c.summary)}`),
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
  const cmd = ALL.find((c) => c.name === name);
  try {
    if (!cmd) throw new HolonError('invalid_input', `unknown command "${name}" (holon --help lists them)`);
    const { args, opts } = parseCommand(cmd, rest);
    if (opts['help']) {
      process.stdout.write(commandHelp(cmd) + '\n');
      return 0;
    }
    return await cmd.run({ args, opts, stateDir: resolveStateDir(str(opts, 'state')), json: opts['json'] === true, out: (t) => process.stdout.write(t + '\n') });
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
