/**
 * The human's passkey asked for a decision on a ceremony page, however the page reaches them: a browser the
 * CLI opens, the editor's openExternal, an MCP client's URL-mode elicitation. The page shows the events in
 * words; the passkey signs their challenge.
 */
import type { AskHuman } from '../decisions/asserted.ts';
import type { HolonState } from '../fold/state.ts';
import { HolonError } from '../kernel/errors.ts';
import { decisionWords } from '../views/decisionWords.ts';
import type { AskPasskey } from '../rails/delegation/humanAccount.ts';
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

/**
 * An AskPasskey that shows a signature the chain checks (a delegation, one call of the human's account)
 * with `show`: the page's words, one Confirm, the digest as the challenge. Undefined when the page closed.
 */
export function askSignatureOnPage(show: (c: Ceremony) => Promise<Answer>): AskPasskey {
  return async (q) => {
    const answer = await show({ kind: 'decide', ...q, choices: ['confirm'] });
    if (answer.kind === 'cancelled') return undefined;
    if (answer.kind !== 'decided') throw new HolonError('conflict', 'the page answered a signature with a registration');
    return answer.assertion;
  };
}
