/**
 * The human's passkey asked for a decision on a ceremony page, however the page reaches them: a browser the
 * CLI opens, the editor's openExternal, an MCP client's URL-mode elicitation. The page shows the events in
 * words; the passkey signs their challenge.
 */
import type { AskHuman } from '../decisions/asserted.ts';
import type { HolonState } from '../fold/state.ts';
import { HolonError } from '../kernel/errors.ts';
import { decisionWords } from '../views/decisionWords.ts';
import type { Answer, Ceremony } from './page.ts';

/** An AskHuman that shows the decision with `show` (which serves the page and waits for its answer). */
export function askOnPage(show: (c: Ceremony) => Promise<Answer>, title = 'Holon: a decision for your passkey'): AskHuman<HolonState> {
  return async (q) => {
    const answer = await show({
      kind: 'decide',
      title,
      lines: decisionWords(q.state, q.events),
      challenge: q.challenge,
      credentials: q.credentials,
      choices: ['confirm'],
    });
    if (answer.kind === 'cancelled') return undefined;
    if (answer.kind !== 'decided') throw new HolonError('conflict', 'the page answered a decision with a registration');
    return answer.assertion;
  };
}
