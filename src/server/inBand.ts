/**
 * The human's approval under MCP 2026-07-28, where a server sends the client no requests: a call that
 * needs the human answers `input_required`, carrying what to ask and a sealed `requestState` naming the
 * approval; the client asks and calls again with the answer and that state, and the call resumes.
 *
 * - A state a passkey guards: a URL-mode request to the passkey's page, which this process serves until
 *   the approval is decided (there or elsewhere) or its wait is over. The decision is the passkey's
 *   signature on the page; the client's answer only says whether it opened it. Nothing the client (the
 *   agent's host) sends decides anything.
 * - A state no passkey guards: the same form the older revisions send, which decides as it does there.
 *
 * The older revisions keep asking by request (approvalWait.ts): this is reached only on a 2026-07-28 call.
 */
import { randomBytes } from 'node:crypto';
import type { InputRequiredResult, ServerContext } from '@modelcontextprotocol/server';
import { createRequestStateCodec, inputRequired, inputResponse, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { waitForDecision } from '../core/approvals/flow.ts';
import type { Approval } from '../core/approvals/model.ts';
import { askOnPage } from '../core/ceremony/ask.ts';
import { decideApproval } from '../core/decisions/decide.ts';
import { humanStore } from '../core/decisions/asserted.ts';
import { holdableClock } from '../core/kernel/deps.ts';
import { HolonError } from '../core/kernel/errors.ts';
import { approvalMessage } from '../core/views/present.ts';
import { APPROVAL_FORM_SCHEMA } from './approvalWait.ts';
import type { ServerDeps } from './serverDeps.ts';
import type { ApprovalRound } from './tools/toolDef.ts';

/** What `requestState` carries between an `input_required` answer and the call that resumes it. */
interface Resume {
  approval: string;
  by: 'page' | 'form';
  tool: string;
  mandate: string;
}

/** The key that seals states is this process's own: a retry reaches the process that asked (stdio, or one HTTP server). */
const codec = createRequestStateCodec<Resume>({ key: randomBytes(32), ttlSeconds: 15 * 60 });

/** The server's check of every echoed state, before any handler runs: one not sealed here is refused (-32602). */
export const requestStateCheck = { verify: codec.verify };

/** The key of the one input request an approval asks. */
const KEY = 'approval';

/**
 * Reads a retry: the approval its state names, the client's answer to it. A form's answer decides the
 * approval here, on the elicitation channel, as the older revisions' form does.
 */
export async function resumeOf(deps: ServerDeps, mandate: string, tool: string, extra: ServerContext): Promise<ApprovalRound> {
  const state = extra.mcpReq.requestState<Resume>();
  if (state === undefined) return {};
  if (state.tool !== tool || state.mandate !== mandate)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `this requestState belongs to a call of ${state.tool}, not ${tool}`);
  const answer = inputResponse(extra.mcpReq.inputResponses, KEY);
  const accepted = answer.kind === 'elicit' && answer.action === 'accept';
  const waitMs = Math.max(deps.approvals.waitMs, deps.approvals.elicitationWaitMs);
  if (state.by === 'page') return { resume: { approval: state.approval, waitMs: accepted ? waitMs : 0 } };
  if (answer.kind === 'elicit' && answer.action !== 'cancel') {
    const approve = accepted && answer.content?.['decision'] === 'Approve';
    try {
      await decideApproval(deps.store, deps.clock, state.approval, approve ? 'approved' : 'rejected', 'elicitation', deps.signer);
    } catch (err) {
      // Decided meanwhile on another channel: that decision stands.
      if (!HolonError.is(err, 'conflict')) throw err;
    }
  }
  return { resume: { approval: state.approval, waitMs: 0 } };
}

/** The arguments of a resumed call: a tool that takes the approval it uses is given the one resumed. */
export function resumedArgs(
  args: Record<string, unknown>,
  takesApproval: boolean,
  round: ApprovalRound | undefined,
): Record<string, unknown> {
  if (!round?.resume || !takesApproval || (args['approval'] !== undefined && args['approval'] !== null)) return args;
  return { ...args, approval: round.resume.approval };
}

/**
 * The `input_required` answer that asks the human for `ask.approval`; undefined when it cannot be asked
 * (the page could not be served): the call's own answer, the pending approval, stands.
 */
export async function askInBand(
  deps: ServerDeps,
  ask: NonNullable<ApprovalRound['ask']>,
  tool: string,
  mandate: string,
): Promise<InputRequiredResult | undefined> {
  const { approval, by } = ask;
  const requestState = await codec.mint({ approval: approval.id, by, tool, mandate });
  if (by === 'form') {
    const form = inputRequired.elicit({ mode: 'form', message: approvalMessage(approval), requestedSchema: APPROVAL_FORM_SCHEMA as never });
    return inputRequired({ inputRequests: { [KEY]: form }, requestState });
  }
  const url = await approvalPage(deps, approval);
  if (url === undefined) return undefined;
  const message = `${approvalMessage(approval)}\nApprove it with your passkey on Holon's page.`;
  return inputRequired({ inputRequests: { [KEY]: inputRequired.elicitUrl({ message, url }) }, requestState });
}

/** The passkey pages this process serves, by approval: a call asked again is sent to the page already open. */
const pages = new Map<string, Promise<string | undefined>>();

/**
 * Serves the passkey's page for `approval` until it is decided (there, or on any other channel) or the
 * longest wait is over; resolves with its URL, or undefined when it could not be served.
 */
function approvalPage(deps: ServerDeps, approval: Approval): Promise<string | undefined> {
  const open = pages.get(approval.id);
  if (open) return open;
  const stop = new AbortController();
  let served: (url: string | undefined) => void = () => {};
  const url = new Promise<string | undefined>((resolve) => (served = resolve));
  pages.set(approval.id, url);
  const clock = holdableClock(deps.clock);
  const ask = askOnPage(async (ceremony) => {
    const { openCeremony } = await import('../core/ceremony/page.ts');
    const page = await openCeremony(ceremony, { signal: stop.signal });
    served(page.url);
    try {
      return await page.answer;
    } finally {
      page.close();
    }
  }, 'Holon: approve with your passkey');
  const life = Math.max(deps.approvals.waitMs, deps.approvals.elicitationWaitMs);
  void waitForDecision(deps.store, approval.id, life, { signal: stop.signal }).then(() => stop.abort());
  void decideApproval(humanStore(deps.store, clock, ask), clock, approval.id, 'approved', 'elicitation', deps.signer)
    .catch((err: unknown) => {
      // Closed unanswered, or decided elsewhere first: nothing to say.
      if (!HolonError.is(err, 'denied') && !HolonError.is(err, 'conflict'))
        deps.logger.warn(`passkey page for ${approval.id}: ${(err as Error).message}`);
    })
    .finally(() => {
      served(undefined);
      stop.abort();
      pages.delete(approval.id);
    });
  return url;
}
