/**
 * One failure vocabulary for the whole core. Each edge (a toolset, the CLI, the editor) renders these in
 * its own shape; nothing matches on message text.
 */
import type { Denial, HolonErrorReason } from './denials.ts';

export type { HolonErrorReason } from './denials.ts';

/** A typed, expected failure. `details` and `denials` are safe to show to the agent and the human. */
export class HolonError extends Error {
  readonly reason: HolonErrorReason;
  readonly details: Record<string, unknown>;
  /** For `denied`: why, as data (codes and parameters), for the edge to render. */
  readonly denials: Denial[];

  constructor(reason: HolonErrorReason, message: string, details: Record<string, unknown> = {}, denials: Denial[] = []) {
    super(message);
    this.name = 'HolonError';
    this.reason = reason;
    this.details = details;
    this.denials = denials;
  }

  /** True when `err` is a HolonError (of `reason`, if given). */
  static is(err: unknown, reason?: HolonErrorReason): err is HolonError {
    return err instanceof HolonError && (reason === undefined || err.reason === reason);
  }
}
