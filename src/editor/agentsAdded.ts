/**
 * The sentence Add Agents shows when it is done. Kept apart from the command (no `vscode` here) so that a
 * plain test reads it. A listing's skipped resources are named with their reasons: a human who added a
 * facilitator's listing should see which services did not come in, and why, without opening a log.
 */
import type { AgentEntry } from '../core/kernel/model.ts';
import type { AgentSource } from '../core/market/agentSources.ts';
import { quotedName } from '../core/kernel/foreign.ts';

/** How many skipped resources the message names before it only counts them. */
const SKIPPED_NAMED = 3;

/** "added a, b. Skipped 2: "url" (reason); …" */
export function addedSummary(added: readonly AgentEntry[], from: Pick<AgentSource, 'skipped' | 'truncated'>): string {
  const parts = [`added ${added.map((e) => e.manifest.id).join(', ')}.`];
  if (from.skipped.length > 0) {
    const named = from.skipped.slice(0, SKIPPED_NAMED).map((s) => `${quotedName(s.resource ?? '(no resource)')} (${s.reason})`);
    const rest = from.skipped.length - named.length;
    parts.push(`Skipped ${from.skipped.length}: ${named.join('; ')}${rest > 0 ? `; and ${rest} more` : ''}.`);
  }
  if (from.truncated) parts.push('The listing was longer than Holon reads from one source; only its first resources were read.');
  return parts.join(' ');
}
