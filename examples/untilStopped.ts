/**
 * How a runnable example ends: on Ctrl-C or SIGTERM, or — when another process started it with a pipe
 * on its standard input (the demo does) — when that pipe closes, which happens when that process ends,
 * however it ends. At a terminal, standard input is left alone: reading it would stop a job run in the
 * background.
 */
export function untilStopped(stop: () => Promise<void>): void {
  let stopping = false;
  const end = (): void => {
    if (stopping) return;
    stopping = true;
    void stop().then(() => process.exit(0));
  };
  process.on('SIGINT', end);
  process.on('SIGTERM', end);
  if (!process.stdin.isTTY) {
    process.stdin.on('end', end);
    process.stdin.resume();
  }
}
