/** What the example sellers' runners read from their command line. */

/** The value after `name` on the command line, if it is there. */
export function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** `--facilitator URL`, which every example seller settles through; without it, says how to get one and exits. */
export function facilitatorOrExit(tag: string): string {
  const facilitator = flag('--facilitator');
  if (facilitator) return facilitator;
  process.stderr.write(
    `[${tag}] --facilitator URL is required: start a chain first (node dist/examples/chain/chain.cjs), and pass the facilitator it prints\n`,
  );
  process.exit(2);
}
