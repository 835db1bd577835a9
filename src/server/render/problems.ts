/**
 * The failure taxonomy of the money, commerce, memory and records toolsets (seed 003): every failure is
 * an RFC 9457 problem on `structuredContent`, with one of four closed action classes an agent branches
 * on. Codes may be added over time; the action classes never change. One module, shared by the server.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { Denial } from '../../core/kernel/denials.ts';
import type { HolonError } from '../../core/kernel/errors.ts';
import type { MoneyJson } from '../../core/kernel/amount.ts';
import * as M from '../../core/kernel/amount.ts';
import { roomLeft } from '../../core/money/spend.ts';
import { denialTexts } from '../../core/kernel/words.ts';

/** What an agent should do about a problem: the four classes, closed. */
export const ERROR_ACTIONS = ['never-retry', 'retry-as-is', 'retry-after-renegotiation', 'escalate-to-human'] as const;
export type ErrorAction = (typeof ERROR_ACTIONS)[number];

/** Every problem code, with its HTTP status and action class. */
export const PROBLEMS = {
  validation: { status: 400, action: 'never-retry' },
  not_found: { status: 404, action: 'never-retry' },
  conflict: { status: 409, action: 'never-retry' },
  'intent.denied': { status: 403, action: 'escalate-to-human' },
  'approval.pending': { status: 202, action: 'escalate-to-human' },
  'approval.rejected': { status: 403, action: 'never-retry' },
  'approval.invalid': { status: 409, action: 'never-retry' },
  'cost.above_cap': { status: 422, action: 'retry-after-renegotiation' },
  'amount.unknown': { status: 422, action: 'escalate-to-human' },
  rate_limited: { status: 429, action: 'retry-as-is' },
  quota_exceeded: { status: 429, action: 'escalate-to-human' },
  'rail.failed': { status: 502, action: 'retry-as-is' },
  'merchant.misconfigured': { status: 502, action: 'never-retry' },
  busy: { status: 503, action: 'retry-as-is' },
  internal: { status: 500, action: 'escalate-to-human' },
} as const satisfies Record<string, { status: number; action: ErrorAction }>;

export type ProblemCode = keyof typeof PROBLEMS;
/** Every problem code. */
export const ALL_PROBLEM_CODES = Object.keys(PROBLEMS) as ProblemCode[];

const NEXT_STEP: Record<ErrorAction, string> = {
  'never-retry': 'Do not retry this request as it is; change what it asks for, or stop.',
  'retry-as-is': 'Retry the same request (with the same idempotency key) after a short wait.',
  'retry-after-renegotiation':
    'Ask for less (data.remaining, when given, is the most that passes now) or change the terms, and send it as a new ' +
    'request with a new idempotency key.',
  'escalate-to-human': 'Stop. A human must decide; no retry helps.',
};

/**
 * Where each problem type is published: one page per code, docs/problems/<code>.md in Holon's repository,
 * as GitHub renders it. A problem's `type` is this base and the page's name, so an agent or a person who
 * has the problem can open what it means (RFC 9457 §3.1.1). test/server/problemDocs.test.ts keeps the pages
 * and PROBLEMS in step.
 */
export const PROBLEM_TYPE_BASE = 'https://github.com/holon/holon/blob/main/docs/problems/';

/** The URL of a problem code's page: its RFC 9457 `type`. */
export function problemType(code: ProblemCode): string {
  return `${PROBLEM_TYPE_BASE}${code}.md`;
}

/** A problem as seed 003 returns it: code, message, action, and the RFC 9457 members in `data`. */
export interface Problem {
  code: ProblemCode;
  message: string;
  action: ErrorAction;
  data: { type: string; status: number; action: ErrorAction; nextStep: string; retryable: boolean; reasons: string[] } & Record<
    string,
    unknown
  >;
}

/** The action class of a problem code. */
export function actionFor(code: ProblemCode): ErrorAction {
  return PROBLEMS[code].action;
}

/** True when the same request may succeed later as it is. */
export function isRetryable(code: ProblemCode): boolean {
  return actionFor(code) === 'retry-as-is';
}

/** True when only a human can clear it. */
export function requiresHuman(code: ProblemCode): boolean {
  return actionFor(code) === 'escalate-to-human';
}

/** A problem of `code`. */
export function problem(code: ProblemCode, message: string, extra: { reasons?: string[] } & Record<string, unknown> = {}): Problem {
  const { status, action } = PROBLEMS[code];
  return {
    code,
    message,
    action,
    data: {
      ...extra,
      type: problemType(code),
      status,
      action,
      nextStep: NEXT_STEP[action],
      retryable: action === 'retry-as-is',
      reasons: extra.reasons ?? [],
    },
  };
}

/**
 * The problem a set of denials amounts to: the strongest of them decides the code. Over a limit with room
 * left (a smaller amount would pass) is `cost.above_cap`, renegotiated by asking for less, whatever the cap —
 * the caller's own or one of the mandate's (get_mandate calls total, per day and per call its caps); only
 * where no smaller amount helps does it need a human (`intent.denied`).
 */
function problemCodeOf(denials: readonly Denial[]): ProblemCode {
  const codes = new Set(denials.map((d) => d.code));
  if (codes.has('quota_exceeded')) return 'quota_exceeded';
  if (codes.has('rate_limited')) return 'rate_limited';
  if (codes.has('rejected')) return 'approval.rejected';
  if (codes.has('over_threshold')) return 'approval.pending';
  if (
    ['approval_not_found', 'approval_used', 'approval_expired', 'approval_mismatch', 'approval_amount_raised'].some((c) =>
      codes.has(c as Denial['code']),
    )
  )
    return 'approval.invalid';
  if (codes.has('merchant_unusable')) return 'merchant.misconfigured';
  if (codes.size > 0 && ([...codes].every((c) => c === 'over_max_cost') || roomLeft(denials))) return 'cost.above_cap';
  if (codes.size > 0 && [...codes].every((c) => c === 'no_rate' || c === 'spend_unconvertible')) return 'amount.unknown';
  return 'intent.denied';
}

const BY_REASON: Record<HolonError['reason'], ProblemCode> = {
  invalid_input: 'validation',
  not_found: 'not_found',
  denied: 'intent.denied',
  conflict: 'conflict',
  unknown_amount: 'amount.unknown',
  agent_failed: 'rail.failed',
  corrupt_journal: 'internal',
  lock_timeout: 'busy',
  not_interactive: 'validation',
};

/** What a refusal with these denials answers: its code, its action, and (over a cap) the most that passes now. */
export interface Refusal {
  code: ProblemCode;
  action: ErrorAction;
  /** For `cost.above_cap`: the most a request could be now, in the mandate's currency. */
  remaining?: MoneyJson;
}

/** The refusal `denials` amount to: what `pay` answers with them, and what `simulate` says it would. */
export function refusalOf(denials: readonly Denial[]): Refusal {
  const code = problemCodeOf(denials);
  const room = code === 'cost.above_cap' ? roomLeft(denials) : undefined;
  return { code, action: actionFor(code), ...(room ? { remaining: M.toJson(room) } : {}) };
}

/**
 * Any expected failure as a problem. A refusal's denials decide its code; any failure's denials (a tool
 * the mandate does not offer, say) go along as its reasons.
 */
export function problemOf(err: HolonError): Problem {
  if (err.denials.length === 0) return problem(BY_REASON[err.reason], err.message, err.details);
  const { code, remaining }: Omit<Refusal, 'action'> = err.reason === 'denied' ? refusalOf(err.denials) : { code: BY_REASON[err.reason] };
  const room = remaining ? { remaining } : {};
  return problem(code, err.message, { ...err.details, ...room, reasons: denialTexts(err.denials), denials: err.denials });
}

/**
 * A seed-003 tool's output schema: its result's members, or a problem. A client checks a problem on
 * `structuredContent` against the tool's output schema too, so both shapes share one object and every
 * member is optional.
 */
export function orProblem<T extends z.ZodRawShape>(shape: T) {
  return z
    .object(shape)
    .partial()
    .extend({
      // Codes are added over time (the action classes are closed): the schema does not list them.
      code: z.string().optional(),
      message: z.string().optional(),
      action: z.enum(ERROR_ACTIONS).optional(),
      data: z
        .looseObject({
          type: z.string(),
          status: z.number().int(),
          action: z.enum(ERROR_ACTIONS),
          nextStep: z.string(),
          retryable: z.boolean(),
          reasons: z.array(z.string()),
        })
        .optional(),
    });
}

/** A failure of a seed-003 tool: the problem on `structuredContent` and, as JSON, in its text. */
export function problemFailure(err: HolonError): CallToolResult {
  const p = problemOf(err);
  return {
    isError: true,
    structuredContent: p as unknown as Record<string, unknown>,
    content: [{ type: 'text', text: JSON.stringify(p) }],
  };
}
