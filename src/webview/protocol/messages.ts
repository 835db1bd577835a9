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
