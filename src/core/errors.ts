/**
 * One failure vocabulary for the whole core. Each edge (market tools, CLI) renders these in its own
 * shape; nothing matches on message text.
 */
export type HolonErrorReason =
  | 'invalid_input'
  | 'not_found'
  | 'denied'
  | 'conflict'
  | 'approval_invalid'
  | 'unknown_amount'
  | 'agent_failed'
  | 'corrupt_journal'
  | 'lock_timeout'
  | 'not_interactive';

/** A typed, expected failure. `details` is safe to show to the agent and the human. */
export class HolonError extends Error {
  readonly reason: HolonErrorReason;
  readonly details: Record<string, unknown>;

  constructor(reason: HolonErrorReason, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'HolonError';
    this.reason = reason;
    this.details = details;
  }

  /** True when `err` is a HolonError (of `reason`, if given). */
  static is(err: unknown, reason?: HolonErrorReason): err is HolonError {
    return err instanceof HolonError && (reason === undefined || err.reason === reason);
  }
}
