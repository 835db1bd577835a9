/**
 * What every webview protocol shares. Each message and each state is declared once, as a zod schema
 * (`zod/mini`, so the webview bundles stay small); its type is inferred from it. The view checks what the
 * host pushes with these schemas, and the host checks what the view sends with the very same ones: a
 * webview renders other agents' text, so whatever comes back from it is untrusted input.
 *
 * Host → view messages are notifications (state pushes); view → host messages are commands (a user's
 * action). Every object is strict (an unknown key is refused) and no schema has a default or a
 * transform, so a value that passes is exactly the declared type.
 */
import * as z from 'zod/mini';

/** The view is loaded and listening; the host sends nothing before it. */
export const ReadyCommand = z.strictObject({ type: z.literal('ready') });
/** The view is loaded and listening; the host sends nothing before it. */
export type ReadyCommand = z.infer<typeof ReadyCommand>;

/** An id the view sends back (an approval's, a receipt's): what the host generated, bounded. */
export const Id = z.string().check(z.minLength(1), z.maxLength(80));

/**
 * An amount as a human reads it: `text` at the currency's precision ("4.58 EUR"), `exact` to the last
 * digit Holon keeps ("4.5824 EUR"), shown on hover. Formatted by the host: the view never does
 * arithmetic on money.
 */
export const Amount = z.strictObject({ text: z.string().check(z.maxLength(80)), exact: z.string().check(z.maxLength(80)) });
/** An amount as a human reads it, and exactly. */
export type Amount = z.infer<typeof Amount>;

/** Text a human typed into a form field, bounded. */
export const FieldText = z.string().check(z.maxLength(500));

/** Host → view: the whole state of a panel (small; sent on every change). */
export interface StateNotification<S> {
  type: 'state';
  state: S;
}

/** The schema of a panel's state notification, from the schema of its state. */
export function stateNotification<S>(state: z.ZodMiniType<S>): z.ZodMiniType<StateNotification<S>> {
  return z.strictObject({ type: z.literal('state'), state });
}

/** One panel's protocol, the one declaration both sides import. */
export interface PanelProtocol<S, C extends { type: string }> {
  /** Everything the panel shows. */
  readonly state: z.ZodMiniType<S>;
  /** The host → view push of the whole state. */
  readonly notification: z.ZodMiniType<StateNotification<S>>;
  /** Every command the view may send, `ready` included (a union discriminated by `type`). */
  readonly command: z.ZodMiniType<C>;
}

/** Declares a panel's protocol from its state and command schemas. */
export function panelProtocol<S, C extends { type: string }>(state: z.ZodMiniType<S>, command: z.ZodMiniType<C>): PanelProtocol<S, C> {
  return { state, notification: stateNotification(state), command };
}

/** True when `value` has the schema's shape (and so, here, is of its type). */
export function is<T>(schema: z.ZodMiniType<T>, value: unknown): value is T {
  return schema.safeParse(value).success;
}

/** `value` when it has the schema's shape, else undefined. */
export function parse<T>(schema: z.ZodMiniType<T>, value: unknown): T | undefined {
  const result = schema.safeParse(value);
  return result.success ? result.data : undefined;
}
