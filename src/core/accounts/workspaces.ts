/**
 * Which mandate the human bound each workspace to, as the journal holds it. A binding file
 * (local/bindings.ts) sits in the user's own folder, and an agent with a shell is that user: it can
 * rewrite the file to name the widest mandate. So in a state the human's passkey guards, binding is a
 * decision like any other, written behind the passkey's assertion (decisions/asserted.ts), and a binding
 * file counts only when it says what the latest decision for its workspace says. A state no passkey
 * guards keeps its bindings in the file alone, as before.
 */
import { HolonError } from '../kernel/errors.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';
import type { Slice } from '../store/slice.ts';
import { eventsOf } from '../store/slice.ts';
import type { EventStore } from '../store/store.ts';
import type { PasskeysFields } from './passkeys.ts';
import { isGuarded } from './passkeys.ts';

/** The human's latest decision for one workspace: the mandate a server started in it serves. */
export interface WorkspaceDecision {
  mandate: string;
  decided_at: string;
}

/** The workspaces' part of the state, by the workspace's real path. */
export interface WorkspacesFields {
  workspaces: Dict<WorkspaceDecision>;
}

/** A human's decision: fold/authority.ts asks an owner of the mandate's account, and the passkey when guarded. */
export interface WorkspaceEvents {
  'workspace.bound': { workspace: string; mandate: string };
}

const workspaceEvent = eventsOf<WorkspaceEvents>();

export const workspacesSlice: Slice<WorkspacesFields, WorkspaceEvents> = {
  initial: () => ({ workspaces: dict() }),
  on: {
    'workspace.bound': (s, d, e) => {
      if (typeof d.workspace === 'string' && typeof d.mandate === 'string')
        s.workspaces[d.workspace] = { mandate: d.mandate, decided_at: e.time };
    },
  },
  revive: (s) => {
    s.workspaces = toDict(s.workspaces);
  },
};

/**
 * Writes the human's decision to bind `workspace` (a real path) to `mandate`. On a guarded state the
 * store asks the passkey first (decisions/asserted.ts); the caller writes the binding file only after.
 */
export async function decideBinding(store: EventStore<WorkspacesFields>, workspace: string, mandate: string): Promise<void> {
  await store.transact(() => ({ events: [workspaceEvent('workspace.bound', { workspace, mandate })], result: undefined }));
}

/**
 * Refuses a binding of `workspace` to `mandate` that the human did not decide, when the state is guarded:
 * `denied` with `details.problem` `not_decided` unless the journal's latest decision for that workspace
 * is exactly this mandate. On a state no passkey guards, every binding file counts, as before.
 */
export function checkBindingDecided(s: WorkspacesFields & PasskeysFields, workspace: string, mandate: string): void {
  if (!isGuarded(s)) return;
  const decided = s.workspaces[workspace];
  if (decided?.mandate === mandate) return;
  const journal = decided ? `the human bound it to ${decided.mandate} (${decided.decided_at})` : 'the human never bound it there';
  throw new HolonError(
    'denied',
    `the binding of ${workspace} to the mandate ${mandate} is not decided: the state's passkey decides bindings, and ${journal}; ` +
      `so no server starts from it. To bind it, run holon mandate bind ACCOUNT/NAME --workspace ${workspace} at a terminal ` +
      `(your passkey's page opens), or Holon: Connect Claude Code in the editor`,
    { problem: 'not_decided', workspace, mandate, decided: decided?.mandate ?? null },
  );
}
