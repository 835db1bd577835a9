// The view's side of the host connection, shared by every panel: restore the saved state at once, accept
// only well-formed state notifications, save each one, and say `ready` once, after listening.
import * as z from 'zod/mini';
import type { PanelProtocol, ReadyCommand } from './protocol/messages.ts';
import { is } from './protocol/messages.ts';

/** The part of VS Code's webview API (`acquireVsCodeApi()`) a view uses. */
export interface WebviewApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): unknown;
}

declare global {
  /** Provided by VS Code in a webview; callable once per page. */
  function acquireVsCodeApi(): WebviewApi;
}

/** What a view saves with `setState`: the last state it showed (the host's, or the human's edit of it). */
export interface SavedView<S> {
  v: 1;
  state: S;
}

/** How to run one panel. */
export interface ViewOptions<S, C extends { type: string }> {
  api: WebviewApi;
  window: Window;
  /** The panel's protocol: what a state and its notification look like. */
  protocol: PanelProtocol<S, C>;
  /** Draws the state, or the waiting screen when there is none yet. */
  render(state: S | null, post: (command: C) => void, session: ViewSession<S>): void;
}

/** A running panel. */
export interface ViewSession<S> {
  /** The state shown now (the host's last, or the restored one). */
  readonly state: S | null;
  /** Replaces the state the view keeps (after a local edit) and saves it, without rendering. */
  update(state: S): void;
  /** Saves the state now. */
  save(): void;
  /** Stops listening. */
  dispose(): void;
}

/** Starts a panel: renders what was saved, listens to the host, and posts `ready` exactly once. */
export function startView<S, C extends { type: string }>(options: ViewOptions<S, C>): ViewSession<S> {
  const { api, window: win, protocol } = options;
  // A webview's CSP forbids eval: zod must not even probe for it (the probe is reported as a violation).
  z.config({ jitless: true });
  let current: S | null = null;
  const saved = api.getState();
  // What an older version saved (another shape, or unversioned) is dropped: the host sends the state anyway.
  if (is(z.object({ v: z.literal(1), state: protocol.state }), saved)) current = saved.state;

  const post = (command: C): void => api.postMessage(command);
  const session: ViewSession<S> = {
    get state() {
      return current;
    },
    update(state) {
      current = state;
      session.save();
    },
    save() {
      if (current === null) return;
      const value: SavedView<S> = { v: 1, state: current };
      api.setState(value);
    },
    dispose() {
      win.removeEventListener('message', onMessage);
    },
  };

  const onMessage = (event: Event): void => {
    const data: unknown = (event as MessageEvent).data;
    // Anything else (another sender's message, a malformed state) is ignored.
    if (!is(protocol.notification, data)) return;
    current = data.state;
    session.save();
    options.render(current, post, session);
  };

  options.render(current, post, session);
  win.addEventListener('message', onMessage);
  const ready: ReadyCommand = { type: 'ready' };
  api.postMessage(ready);
  return session;
}
