/**
 * What every webview protocol shares: the envelope of a message and the two messages every view sends
 * and receives. Host → view messages are notifications (state pushes); view → host messages are
 * commands (a user's action). Both sides import these files; the host also validates every inbound
 * message, since a webview renders other agents' text.
 */

/** A message posted between host and view. */
export interface Message<T extends string = string> {
  type: T;
}

/** The view is loaded and listening; the host sends nothing before it. */
export type ReadyCommand = Message<'ready'>;

/** True for any object with a string `type`. */
export function isMessage(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** True for the ready command. */
export function isReady(value: unknown): value is ReadyCommand {
  return isMessage(value) && value.type === 'ready';
}

/** True for a plain object (not null, not an array): the shape every message and state is. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for a string. */
export function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** True for a string or null. */
export function isStringOrNull(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

/** True for a finite number. */
export function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** True for an array of strings. */
export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every(isString);
}
