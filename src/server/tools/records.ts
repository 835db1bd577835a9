/**
 * The records toolset (seed 003): read-back over the mandate's own record — an intent's lifecycle and its
 * signed, hash-linked events, the audit trail, the intents newest first, the live spend authority, and the
 * metered calls. Reads only (each call is metered); every failure is an RFC 9457 problem.
 */
import * as z from 'zod';
import { HolonError } from '../../core/kernel/errors.ts';
import type { IntentView } from '../../core/money/intents.ts';
import { intentByKey, intentPage, intentView, jobChainStatement, signWith } from '../../core/money/intents.ts';
import { auditTrailPage } from '../../core/money/audit.ts';
import { mandateAuthority } from '../../core/money/mandateView.ts';
import { SettlementDetailSchema } from './settlementSchema.ts';
import { USAGE_WINDOWS, usageOf } from '../../core/money/metering.ts';
import type { IntentRecord } from '../../core/money/slice.ts';
import { INTENT_STATUSES } from '../../core/money/slice.ts';
import { MoneySchema } from '../../core/kernel/schemas.ts';
import type { HolonState } from '../../core/fold/state.ts';
import { orProblem, problemFailure } from '../render/problems.ts';
import type { MoneyServerDeps } from './money.ts';
import { IdempotencyKey, installationSigner, IntentViewSchema, metered } from './money.ts';
import type { Toolset } from './toolDef.ts';
import { WalletSchema, walletHoldings } from './walletHoldings.ts';
import { defineTool } from './toolDef.ts';
import { anyJson, GrantSchema, json, READ } from './toolKit.ts';

const Limit = z.number().int().min(1).max(200).nullish().describe('How many to return (default 50, at most 200)');
const Cursor = z.string().max(200).nullish().describe('next_cursor from the previous page, exactly as returned');

/** A page position, opaque to the agent: the journal sequence number to continue from. */
function readCursor(cursor: string | null | undefined, what: 'after' | 'before'): number | null {
  if (!cursor) return null;
  const m = /^(after|before):(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m || m[1] !== what) {
    throw new HolonError('invalid_input', 'the cursor is not one this tool returned; pass next_cursor exactly as returned');
  }
  return Number(m[2]);
}

const cursorOf = (what: 'after' | 'before', seq: number): string => Buffer.from(`${what}:${seq}`).toString('base64url');

/** The mandate's intent under `key`, or not_found. */
function jobOf(s: HolonState, mandate: string, key: string): IntentRecord {
  const r = intentByKey(s, mandate, key);
  if (!r) throw new HolonError('not_found', `no intent with idempotency key "${key}" under this mandate`, { idempotency_key: key });
  return r;
}

const getJob = defineTool({
  name: 'get_job',
  title: 'Get an intent',
  description:
    'The lifecycle of one of your intents by its idempotency key: status (authorized, pending, settled, denied, rejected, failed, ' +
    "expired), the gate's verdict and reasons, what is held or was charged, the receipt, and — while it waits for a human — " +
    "pending.challenge, the hash the human's approval binds to.",
  toolset: 'records',
  capability: null,
  input: z.object({ idempotency_key: IdempotencyKey }),
  output: orProblem(IntentViewSchema.shape),
  annotations: READ,
  summary: (a) => ({ idempotency_key: a.idempotency_key }),
  handler: async (args, ctx) => {
    await metered(ctx, 'get_job');
    const s = ctx.deps.store.state;
    return json(intentView(s, jobOf(s, ctx.mandate, args.idempotency_key), ctx.deps.clock.now()));
  },
});

const JobEventSchema = z.object({
  n: z.number().int(),
  seq: z.number().int(),
  type: z.string(),
  at: z.string(),
  data: z.record(z.string(), anyJson()),
  prev: z.string(),
  hash: z.string(),
});

const getJobEvents = defineTool({
  name: 'get_job_events',
  title: "Get an intent's events",
  description:
    "One intent's audit events, oldest first, hash-linked: each event's hash is the SHA-256 of the RFC 8785 form of {intent, n, type, " +
    "at, data, prev}, and prev is the previous event's hash. signature is this installation's Ed25519 signature over {type: " +
    '"holon.job.v1", intent, count, head} (RFC 8785), head being the last event\'s hash.',
  toolset: 'records',
  capability: null,
  input: z.object({ idempotency_key: IdempotencyKey }),
  output: orProblem({
    intent: z.string(),
    idempotency_key: z.string(),
    events: z.array(JobEventSchema),
    head: z.string(),
    signature: z.object({ alg: z.literal('Ed25519'), public_key: z.string(), value: z.string() }),
  }),
  annotations: READ,
  summary: (a) => ({ idempotency_key: a.idempotency_key }),
  handler: async (args, ctx) => {
    await metered(ctx, 'get_job_events');
    const r = jobOf(ctx.deps.store.state, ctx.mandate, args.idempotency_key);
    const events = structuredClone(r.events);
    const signature = signWith(installationSigner(ctx.deps as MoneyServerDeps), jobChainStatement(r.id, events));
    return json({ intent: r.id, idempotency_key: r.idempotency_key, events, head: events[events.length - 1]?.hash ?? '', signature });
  },
});

const getAudit = defineTool({
  name: 'get_audit',
  title: 'Get the audit trail',
  description:
    "The audit trail across every intent and every payment on a chain of this mandate, oldest first, cursor-paginated. An intent's " +
    "entry is one hash-linked intent event (as get_job_events returns it) with its intent and idempotency key. A payment's entry " +
    "(an x402 call, atr_transact, a channel's deposit, pay, buy) is one event of its settlement (settlement.signed, " +
    'settlement.landed, settlement.expired, …) with the payment as it stands now: where it landed, or why not, and what it pays ' +
    'for. A simulate leaves no entry.',
  toolset: 'records',
  capability: null,
  input: z.object({ cursor: Cursor, limit: Limit }),
  output: orProblem({
    entries: z.array(
      z.union([
        JobEventSchema.extend({ intent: z.string(), idempotency_key: z.string() }),
        z.object({
          seq: z.number().int(),
          type: z.string().describe('The settlement event: settlement.signed, settlement.landed, settlement.expired, …'),
          at: z.string(),
          settlement: SettlementDetailSchema.describe('The payment as it stands now'),
        }),
      ]),
    ),
    next_cursor: z.string().nullable(),
  }),
  annotations: READ,
  summary: (a) => ({ cursor: a.cursor ? true : false, limit: a.limit ?? null }),
  handler: async (args, ctx) => {
    const after = readCursor(args.cursor, 'after') ?? 0;
    await metered(ctx, 'get_audit');
    const page = auditTrailPage(ctx.deps.store.state, ctx.mandate, after, args.limit ?? 50);
    return json({ entries: page.entries, next_cursor: page.next === null ? null : cursorOf('after', page.next) });
  },
});

const listIntents = defineTool({
  name: 'list_intents',
  title: 'List my intents',
  description:
    'Your intents, newest first, optionally only those in one status. Holding an approval.pending problem whose intent id you did not ' +
    'keep: list_intents {status: "pending"} finds the parked payment; each row is the lifecycle get_job returns, pending.challenge ' +
    'included.',
  toolset: 'records',
  capability: null,
  input: z.object({ status: z.enum(INTENT_STATUSES).nullish().describe('Only intents in this status'), cursor: Cursor, limit: Limit }),
  output: orProblem({ intents: z.array(IntentViewSchema), next_cursor: z.string().nullable() }),
  annotations: READ,
  summary: (a) => ({ status: a.status ?? null }),
  handler: async (args, ctx) => {
    const before = readCursor(args.cursor, 'before') ?? Number.MAX_SAFE_INTEGER;
    await metered(ctx, 'list_intents');
    const s = ctx.deps.store.state;
    const now = ctx.deps.clock.now();
    const page = intentPage(s, ctx.mandate, args.status, before, args.limit ?? 50, now);
    return json({
      intents: page.intents.map((r): IntentView => intentView(s, r, now)),
      next_cursor: page.next === null ? null : cursorOf('before', page.next),
    });
  },
});

const Cap = z.object({
  cap: z.enum(['total', 'per_day', 'per_call']),
  limit: MoneySchema,
  drawn: MoneySchema.optional(),
  remaining: MoneySchema.optional(),
  resets_at: z.string().nullable(),
});

const getMandate = defineTool({
  name: 'get_mandate',
  title: 'Get my spend authority',
  description:
    'The live spend authority covering you: status, expiry, capabilities, the approval threshold, each cap (total, per day, per call) ' +
    'with what it has drawn and what is left, and when the daily period resets. Call it BEFORE committing to anything metered or ' +
    'long-running rather than discovering a ceiling by being refused. WARNING: spent and remaining are ABSENT together when a prior ' +
    'spend is in a currency no human-set rate converts (unconvertible lists them) — the same state in which the gate refuses to ' +
    'authorize anything. Absent means unknown, never zero.',
  toolset: 'records',
  capability: null,
  input: z.object({}),
  output: orProblem({
    mandate: z.string(),
    status: z.string(),
    currency: z.string(),
    expires_at: z.string().nullable(),
    approval_threshold: MoneySchema,
    capabilities: z.array(GrantSchema),
    caps: z.array(Cap),
    period: z.object({ unit: z.literal('day'), resets_at: z.string() }),
    spent: MoneySchema,
    held: MoneySchema,
    remaining: MoneySchema,
    unconvertible: z.array(z.string()),
    wallet: WalletSchema,
  }),
  annotations: READ,
  ui: 'spend',
  handler: async (_args, ctx) => {
    await metered(ctx, 'get_mandate');
    return json({ ...mandateAuthority(ctx.deps.store.state, ctx.mandate, ctx.deps.clock.now()), wallet: await walletHoldings(ctx.deps) });
  },
});

const LimitUsageSchema = z
  .object({ limit: z.number().int(), per: z.enum(['minute', 'day']), used: z.number().int(), resets_at: z.string() })
  .nullable();

const getUsage = defineTool({
  name: 'get_usage',
  title: 'Get my metered usage',
  description:
    'Your metered calls of the money and records tools over a window (1m, 1h, 24h, 7d or 30d; default 24h), by tool, with the rate ' +
    'limit (exceeding it: rate_limited, retry as is) and the quota (exceeding it: quota_exceeded, only a human can raise it) and how ' +
    'much of each is used.',
  toolset: 'records',
  capability: null,
  input: z.object({ window: z.enum(USAGE_WINDOWS).nullish().describe('The window ending now (default 24h)') }),
  output: orProblem({
    mandate: z.string(),
    window: z.enum(USAGE_WINDOWS),
    from: z.string(),
    to: z.string(),
    calls: z.number().int(),
    by_tool: z.record(z.string(), z.number().int()),
    rate_limit: LimitUsageSchema,
    quota: LimitUsageSchema,
  }),
  annotations: READ,
  summary: (a) => ({ window: a.window ?? '24h' }),
  handler: async (args, ctx) => {
    await metered(ctx, 'get_usage');
    return json(usageOf(ctx.deps.store.state, ctx.mandate, args.window ?? '24h', ctx.deps.clock.now()));
  },
});

/** What the server tells every client about records, once. */
export const RECORDS_INSTRUCTIONS =
  'records: read back your own intents, their signed events, the audit trail, your live spend authority (get_mandate before anything ' +
  'metered or long-running) and your metered usage.';

/** The records toolset. */
export const recordsToolset: Toolset<'records'> = {
  name: 'records',
  instructions: RECORDS_INSTRUCTIONS,
  tools: [getJob, getJobEvents, getAudit, listIntents, getMandate, getUsage],
  ledgerCalls: false,
  renderFailure: problemFailure,
};
