/** The context keys that follow from the journal alone, apart from VS Code so that a plain test can read them. */
import { isGuarded } from '../core/accounts/passkeys.ts';
import type { HolonState } from '../core/fold/state.ts';
import { CONTEXT_KEYS } from './commandIds.ts';
import { setupInfo } from './views.ts';

/** Each key the state sets, with its value now (contextKeys.ts hands them to `setContext`). */
export function stateContextKeys(s: HolonState): Record<string, boolean> {
  return {
    [CONTEXT_KEYS.proposalsOpen]: Object.values(s.office.proposals).some((p) => p.status === 'open'),
    [CONTEXT_KEYS.hasMandates]: Object.keys(s.mandates).length > 0,
    [CONTEXT_KEYS.hasFunds]: setupInfo(s).funded,
    // A passkey once registered guards the state for good: removing one never removes the last.
    [CONTEXT_KEYS.hasPasskey]: isGuarded(s),
  };
}
