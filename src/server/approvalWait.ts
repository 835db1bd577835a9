import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import type { ClientCapabilities, Server, ServerContext } from '@modelcontextprotocol/server';
import type { ApprovalWaiter } from '../core/approvals/flow.ts';
import { decideApproval, mayDecide } from '../core/decisions/decide.ts';
import { isGuarded } from '../core/accounts/passkeys.ts';
import { randomUUID } from 'node:crypto';
import type { Approval } from '../core/approvals/model.ts';
import type { AskHuman } from '../core/decisions/asserted.ts';
import { humanStore } from '../core/decisions/asserted.ts';
import type { HolonState } from '../core/fold/state.ts';
import { holdableClock } from '../core/kernel/deps.ts';
import { askOnPage } from '../core/ceremony/ask.ts';
import { channelAccepted, waitForDecision } from '../core/approvals/flow.ts';
import { HolonError } from '../core/kernel/errors.ts';
import { approvalMessage } from '../core/views/present.ts';
import { fmt } from '../core/kernel/words.ts';
import type { ServerDeps } from './serverDeps.ts';
import type { ApprovalRound } from './tools/toolDef.ts';

/** The form's one field. It has no default: only a human choosing "Approve" approves. */
export const APPROVAL_FORM_SCHEMA = {
  type: 'object',
  properties: {
    decision: {
      type: 'string',
      title: 'Decision',
      description: 'Approve allows exactly this, once; Reject refuses it.',
      enum: ['Approve', 'Reject'],
    },
  },
  required: ['decision'],
} as const;

// MCP SDK clients ignore a cancellation of request id 0 (`Protocol._oncancel` tests the id for
// truthiness), so a form withdrawn as a connection's very first request would stay open on the human's
// screen. A ping spends id 0 before the first form. Only its id matters, not its answer: the form is sent
// right after it, never after it returns, because a client that does not answer pings would otherwise hold
// the form back for the ping's whole timeout (the SDK's default is a minute) while the human waits.
const pinged = new WeakSet<Server>();

/** How long the id-spending ping stays open for an answer nobody waits for (then it is dropped). */
const PING_TIMEOUT_MS = 2_000;

/** Spends the connection's request id 0 on a ping, once per server; returns at once (the id is taken when the ping is sent). */
function spendRequestIdZero(server: Server): void {
  if (pinged.has(server)) return;
  pinged.add(server);
  server.request({ method: 'ping' }, { timeout: PING_TIMEOUT_MS }).catch(() => {});
}

/**
 * Asks the human's passkey on a page this server serves on loopback, which the client is asked to open
 * (a URL-mode elicitation): the page shows the approval in words and the passkey signs exactly the
 * decision written. Declining to open it, or the wait being withdrawn, decides nothing.
 */
function passkeyPage(server: Server, approval: Approval, signal: AbortSignal, timeout: number): AskHuman<HolonState> {
  return askOnPage(async (ceremony) => {
    const { openCeremony } = await import('../core/ceremony/page.ts');
    const page = await openCeremony(ceremony, { signal });
    try {
      const opened = await server.elicitInput(
        {
          mode: 'url',
          message: `${approvalMessage(approval)}\nApprove it with your passkey on Holon's page.`,
          url: page.url,
          elicitationId: randomUUID(),
        },
        { signal, timeout },
      );
      return opened.action === 'accept' ? await page.answer : { kind: 'cancelled' };
    } finally {
      page.close();
    }
  }, 'Holon: approve with your passkey');
}

/**
 * Waits for the human on every accepted channel at once: the journal (the panel, `holon approve`) and,
 * when the client supports it, an elicitation form. The first decision wins; the others are withdrawn.
 * A form the human dismisses (cancel) ends the wait at once: the agent gets the pending approval and can
 * tell the human where else to answer it.
 */
export function createApprovalWaiter(deps: ServerDeps, server: Server, extra: ServerContext, round?: ApprovalRound): ApprovalWaiter {
  return async (approval, signal) => {
    const caps = clientCapabilities(server, extra)?.elicitation;
    // An empty elicitation capability means form mode (the spec before URL mode existed). On a team's
    // account, the human at this client decides with this installation's key: no form unless it is an approver's.
    const elicitable =
      deps.approvals.elicitation && channelAccepted(deps.store.state, 'elicitation') && mayDecide(deps.store.state, approval, deps.signer);
    // Where the human's passkey guards the state, a form (which the agent's host fills) decides nothing:
    // the client is asked to open the passkey's page instead (URL mode), where it can.
    const guarded = isGuarded(deps.store.state);
    const canElicit = elicitable && !guarded && caps !== undefined && (caps.form !== undefined || caps.url === undefined);
    const canOpenPage = elicitable && guarded && caps?.url !== undefined;
    if (round) return inTheAnswer(deps, extra, round, approval, signal, canElicit ? 'form' : canOpenPage ? 'page' : undefined);
    const waitMs = canElicit || canOpenPage ? Math.max(deps.approvals.waitMs, deps.approvals.elicitationWaitMs) : deps.approvals.waitMs;
    if (waitMs <= 0) return 'pending';

    // Stops the wait on the journal: the caller gave up, or the human dismissed the form.
    const asking: Asking = { stop: new AbortController(), withdraw: new AbortController(), open: false };
    const onAbort = (): void => asking.stop.abort();
    signal?.addEventListener('abort', onAbort);
    const onTick = progressOf(extra, approval, waitMs);
    if (canElicit) askByForm(deps, server, approval, waitMs, asking);
    if (canOpenPage) askOnPasskeyPage(deps, server, approval, waitMs, asking);
    try {
      const status = await waitForDecision(deps.store, approval.id, waitMs, { signal: asking.stop.signal, onTick });
      return status === 'approved' ? 'approved' : status === 'rejected' ? 'rejected' : 'pending';
    } finally {
      // Withdraws the form only while it is still open: a form that was answered is never cancelled.
      if (asking.open) asking.withdraw.abort();
      signal?.removeEventListener('abort', onAbort);
    }
  };
}

/**
 * The wait of a 2026-07-28 call, which sends the client nothing: where the client can ask the human, the
 * approval is asked in the call's answer (the waiter records it, and returns it pending); a retry that
 * resumes it waits for the decision as long as a form or page may take; otherwise the journal alone.
 */
async function inTheAnswer(
  deps: ServerDeps,
  extra: ServerContext,
  round: ApprovalRound,
  approval: Approval,
  signal: AbortSignal | undefined,
  by: 'page' | 'form' | undefined,
): Promise<'approved' | 'rejected' | 'pending'> {
  const resumed = round.resume?.approval === approval.id ? round.resume : undefined;
  if (!resumed && by && !round.ask) {
    round.ask = { approval, by };
    return 'pending';
  }
  const waitMs = resumed ? resumed.waitMs : deps.approvals.waitMs;
  const options = { ...(signal ? { signal } : {}), onTick: progressOf(extra, approval, waitMs) };
  const status = await waitForDecision(deps.store, approval.id, waitMs, options);
  return status === 'approved' ? 'approved' : status === 'rejected' ? 'rejected' : 'pending';
}

/**
 * What the client can do: declared at `initialize` on the older revisions; on 2026-07-28, in each request
 * (stdio keeps no `initialize` to read them from; HTTP serves each request on a server of its own).
 */
function clientCapabilities(server: Server, extra: ServerContext): ClientCapabilities | undefined {
  const envelope = extra.mcpReq.envelope as Record<string, unknown> | undefined;
  return (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? server.getClientCapabilities();
}

/** One wait's controls: `stop` ends the wait on the journal, `withdraw` the form or page while `open`. */
interface Asking {
  stop: AbortController;
  withdraw: AbortController;
  open: boolean;
}

/** Progress notifications while the wait lasts, when the caller asked for them. */
function progressOf(extra: ServerContext, approval: Approval, waitMs: number): (elapsed: number) => void {
  const progressToken = extra.mcpReq._meta?.progressToken;
  return (elapsed) => {
    if (progressToken === undefined) return;
    extra.mcpReq
      .notify({
        method: 'notifications/progress',
        params: {
          progressToken,
          progress: Math.floor(elapsed / 1000),
          total: Math.ceil(waitMs / 1000),
          message: `waiting for the human to approve ${approval.id} (${fmt(approval.amount)})`,
        },
      })
      .catch(() => {});
  };
}

/** The approval form, for a state no passkey guards: accept+Approve approves; accept+Reject or decline rejects. */
function askByForm(deps: ServerDeps, server: Server, approval: Approval, waitMs: number, asking: Asking): void {
  asking.open = true;
  void (async () => {
    try {
      spendRequestIdZero(server);
      const answer = await server.elicitInput(
        { mode: 'form', message: approvalMessage(approval), requestedSchema: APPROVAL_FORM_SCHEMA as never },
        { signal: asking.withdraw.signal, timeout: waitMs },
      );
      asking.open = false;
      if (answer.action === 'cancel') {
        asking.stop.abort();
        return;
      }
      const approve = answer.action === 'accept' && answer.content?.['decision'] === 'Approve';
      await decideApproval(deps.store, deps.clock, approval.id, approve ? 'approved' : 'rejected', 'elicitation', deps.signer);
    } catch (err) {
      asking.open = false;
      // Withdrawn because another channel decided first, timed out, or already decided: all expected.
      if (!asking.withdraw.signal.aborted && !HolonError.is(err, 'conflict'))
        deps.logger.warn(`elicitation for ${approval.id}: ${(err as Error).message}`);
    }
  })();
}

/** The passkey's page, for a guarded state whose client opens URLs: the approval is written as the passkey signed it. */
function askOnPasskeyPage(deps: ServerDeps, server: Server, approval: Approval, waitMs: number, asking: Asking): void {
  asking.open = true;
  void (async () => {
    try {
      spendRequestIdZero(server);
      const clock = holdableClock(deps.clock);
      const store = humanStore(deps.store, clock, passkeyPage(server, approval, asking.withdraw.signal, waitMs));
      await decideApproval(store, clock, approval.id, 'approved', 'elicitation', deps.signer);
    } catch (err) {
      // The host declined to open the page, or the human left it: as a dismissed form, the agent gets the approval pending.
      if (HolonError.is(err, 'denied')) asking.stop.abort();
      else if (!asking.withdraw.signal.aborted && !HolonError.is(err, 'conflict'))
        deps.logger.warn(`passkey page for ${approval.id}: ${(err as Error).message}`);
    } finally {
      asking.open = false;
    }
  })();
}
