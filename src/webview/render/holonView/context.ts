// What every part of the Holon view shares: how it posts the human's clicks, and its buttons that run a command.
import type { HolonViewCommand, RunCommand } from '../../protocol/holonView.ts';
import { button } from '../dom.ts';

/**
 * What a part's handlers read when the human clicks. It outlives one render: cards are kept across state
 * pushes, so a handler reads the context at click time, never a copy taken when the card was built.
 */
export interface ViewContext {
  post: (command: HolonViewCommand) => void;
  /** After this long with no new state, an answered card's buttons come back. */
  resendAfterMs: number;
}

/** A button that asks the host to run one of Holon's commands. */
export function run(doc: Document, label: string, command: RunCommand['command'], view: ViewContext, secondary = false): HTMLElement {
  return button(doc, label, `run-${command}`, () => view.post({ type: 'run', command }), { secondary });
}
