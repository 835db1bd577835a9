/**
 * What a market call is made of: the request an agent sends, the options and grant it runs with, how it
 * ends, what the gateway needs from its host, and the failures Holon names of its own.
 */
import type { ApprovalWaiter } from '../approvals/flow.ts';
import type { Approval } from '../approvals/model.ts';
import type { Clock, Logger } from '../kernel/deps.ts';
import type { Denial } from '../kernel/denials.ts';
import type { ProcessRef } from '../store/owner.ts';
import type { EventStore, Signer } from '../store/store.ts';
import type { AgentEntry, Endpoint, Receipt } from '../kernel/model.ts';
import type { Money, MoneyJson } from '../kernel/amount.ts';
import type { HolonState } from '../fold/state.ts';

/** Error codes Holon gives a call that failed for a reason of its own (not one the agent declared). */
export const CALL_FAILURES = {
  unreachable: 'the agent could not be reached or did not answer',
  timeout: 'the agent did not answer within its timeout',
  invalid_output: "the agent's output does not match its declared output schema",
  output_too_large: 'the agent answered with more than Holon accepts',
  undeclared_error: 'the agent failed with an error its manifest does not declare',
  payment_refused:
    'the agent asked to be paid in a way Holon does not sign: terms that do not confirm or were paid already, no terms where the ' +
    'mandate requires them, an amount above the hold, a scheme, token or chain the wallet cannot pay, another payee than ' +
    'declared, or no wallet',
  payment_not_taken:
    'the agent did not take the payment Holon sent: it asked to be paid again, or could not settle it. Where the payment went is ' +
    "read from the chain: the call's receipt names it, and it is charged only if it landed",
} as const;

/** The most output (JSON or text, in bytes) a call may return; more is a failure, not charged. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;

/** The prefix of file handles an agent may pass; they resolve inside `<state>/files/`. */
export const FILE_HANDLE_PREFIX = 'holon://files/';

/** What an agent's MCP tool answered. */
export interface AgentRunResult {
  isError: boolean;
  structured: unknown;
  text: string;
  /** Units the agent reports having used (pages, rows…), for per-unit prices. */
  units: number;
  /** The declared error code when it failed, or one of Holon's own (CALL_FAILURES). */
  errorCode?: string;
  /**
   * What the agent was paid (it asked in x402's words), the H the payment carries where it was paid on terms
   * (null: a plain x402 payment) and, on a chain, its settlement record (whose own hold, drawn from the
   * call's, carries the payment).
   */
  paid?: { amount: MoneyJson; terms_hash: string | null; settlement?: string };
  /** Why Holon refused to pay an agent that answered 402 (`payment_refused`), where it is a refusal of its own. */
  refusal?: Denial;
}

/** The most a call may pay an agent that answers 402: the hold, and how to count an amount against it. */
export interface PayLimit {
  limit: Money;
  /** The call's mandate and hold (its receipt's id): a payment on a chain holds its own money from it. */
  mandate: string;
  hold: string;
  /** The agent called, as a refusal names it. */
  agent: string;
  /** The mandate pays only on terms a seller advertises (its `pay` grant's `require_terms`): no plain payment. */
  requireTerms: boolean;
  /** An amount in the mandate's currency, by the human's rates; undefined when there is no rate. */
  convert(amount: Money): Money | undefined;
}

/** Reaches an agent's endpoint (a real MCP client; it lives outside the core). */
export interface AgentRunner {
  run(request: {
    endpoint: Endpoint;
    input: unknown;
    meta: Record<string, unknown>;
    timeoutMs: number;
    signal?: AbortSignal;
    pay?: PayLimit;
  }): Promise<AgentRunResult>;
}

/** Serves the loopback MCP endpoint that delegated calls come back through. */
export interface DelegationHost {
  /** The endpoint's URL, starting it on first use. */
  url(): Promise<string>;
}

/** Checks a value against a JSON Schema (an agent's input or output schema); returns the problems. */
export type SchemaValidator = (schema: Record<string, unknown>, value: unknown) => string[];

/** What the gateway needs from its host. */
export interface GatewayDeps {
  store: EventStore<HolonState>;
  clock: Clock;
  logger: Logger;
  runner: AgentRunner;
  /** `<state>/files`, where holon://files/ handles resolve. */
  filesRoot: string;
  delegation?: DelegationHost;
  validate?: SchemaValidator;
  /** The process that runs the calls (this one, unless a test says otherwise): named on each hold. */
  owner?: ProcessRef;
  /** The installation key of the state: an approval this gateway asks for names it, with the machine. */
  signer?: Signer;
}

/** A call as the agent asks for it. */
export interface CallRequest {
  agent?: string | undefined;
  capability?: string | undefined;
  input: unknown;
  max_cost?: MoneyJson | undefined;
  approval?: string | undefined;
}

/** The right a delegating agent holds for the duration of its parent call. */
export interface Grant {
  token: string;
  mandate: string;
  parent: string;
  capabilities: string[];
  max_calls: number;
  used: number;
  /** Agent ids from the root call down to the parent, to refuse cycles. */
  chain: string[];
}

/** Options of one call. */
export interface CallOptions {
  grant?: Grant;
  signal?: AbortSignal;
  waitForApproval?: ApprovalWaiter;
}

/** How a call ended. */
export type CallOutcome =
  | { kind: 'denied'; receipt: Receipt }
  | { kind: 'pending'; receipt: Receipt; approval: Approval }
  | { kind: 'rejected'; receipt: Receipt; approval: Approval }
  | { kind: 'done'; receipt: Receipt; entry: AgentEntry; result: AgentRunResult | null };
