/** The host services the core reaches through, passed in one object (no globals). */

/** Time, injectable so tests can move it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** Where the core writes what a human operator may need; never stdout (stdout is the MCP protocol). */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that can be held at one instant while some code runs: a transaction built twice (once to show
 * the human, once to write) reads the same time both times.
 */
export interface HeldClock extends Clock {
  at<T>(ms: number, fn: () => T): T;
}

/** `base`, which `at` holds still while its function runs. */
export function holdableClock(base: Clock = systemClock): HeldClock {
  let held: number | undefined;
  return {
    now: () => held ?? base.now(),
    at: (ms, fn) => {
      const before = held;
      held = ms;
      try {
        return fn();
      } finally {
        held = before;
      }
    },
  };
}

/** A logger that writes to stderr. */
export const stderrLogger: Logger = {
  info: (m) => process.stderr.write(`[holon] ${m}\n`),
  warn: (m) => process.stderr.write(`[holon] warning: ${m}\n`),
  error: (m) => process.stderr.write(`[holon] error: ${m}\n`),
};

/** A logger that drops everything. */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
