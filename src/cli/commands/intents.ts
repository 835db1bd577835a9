import { HolonError } from '../../core/kernel/errors.ts';
import type { IntentView } from '../../core/money/intents.ts';
import { intentView, statusNow } from '../../core/money/intents.ts';
import { parseCallLimit, setCallLimits, usageOf } from '../../core/money/metering.ts';
import type { CallLimit, IntentStatus, JobEvent } from '../../core/money/slice.ts';
import { INTENT_STATUSES, jobEventHash } from '../../core/money/slice.ts';
import { fmt } from '../../core/kernel/words.ts';
import type { PaymentAuditEntry } from '../../core/money/audit.ts';
import { latestPaymentEntries } from '../../core/money/audit.ts';
import { paidForText } from '../../core/views/present.ts';
import type { HolonState } from '../../core/fold/state.ts';
import type { Command } from '../args.ts';
import { str } from '../args.ts';
import { clock, open, openExisting, print, withStore } from '../context.ts';

/** The mandate named by --mandate, checked; undefined for all. */
function mandateOpt(s: HolonState, opts: Record<string, string | boolean | undefined>): string | undefined {
  const m = str(opts, 'mandate');
  if (m !== undefined && !s.mandates[m]) throw new HolonError('not_found', `no mandate "${m}"`);
  return m;
}

function limitOpt(opts: Record<string, string | boolean | undefined>, fallback: number): number {
  const n = Number(str(opts, 'limit') ?? String(fallback));
  if (!Number.isInteger(n) || n < 1) throw new HolonError('invalid_input', '--limit takes a positive whole number');
  return n;
}

/** One intent in a line, with what a human needs to release a parked one. */
function intentLine(mandate: string, v: IntentView): string {
  const head = `${v.intent} ${mandate} ${v.idempotency_key} ${v.status.padEnd(10)} ${fmt(v.amount)} → ${v.payee} "${v.purpose}"`;
  if (v.pending)
    return (
      `${head}\n  waits for you: holon approve ${v.pending.approval} (challenge ` +
      `${v.pending.challenge.slice(0, 16)}…, until ${v.pending.expires_at})`
    );
  if (v.reasons.length > 0) return `${head}\n  ${v.reasons.join('; ')}`;
  if (v.error) return `${head}\n  ${v.error}`;
  return head;
}

const intentsCmd: Command = {
  name: 'intents',
  usage: 'intents [--mandate M] [--status STATUS] [--limit N]',
  summary:
    `Lists payment intents, newest first: status (${INTENT_STATUSES.join(', ')}), ` +
    `amount, payee; a parked one says how to release it (holon approve).`,
  options: {
    mandate: { type: 'string', help: 'only this mandate' },
    status: { type: 'string', help: `only intents in this status (${INTENT_STATUSES.join(', ')})` },
    limit: { type: 'string', help: 'how many (default 50)' },
  },
  positionals: [0, 0],
  async run(ctx) {
    const status = str(ctx.opts, 'status');
    if (status !== undefined && !(INTENT_STATUSES as readonly string[]).includes(status))
      throw new HolonError('invalid_input', `--status is one of ${INTENT_STATUSES.join(', ')}`);
    const limit = limitOpt(ctx.opts, 50);
    return withStore(openExisting(ctx), async (store) => {
      const s = store.state;
      const mandate = mandateOpt(s, ctx.opts);
      const now = clock.now();
      const rows = Object.values(s.intents)
        .filter((r) => (!mandate || r.mandate === mandate) && (!status || statusNow(s, r, now) === (status as IntentStatus)))
        .sort((a, b) => b.created_seq - a.created_seq)
        .slice(0, limit);
      const views = rows.map((r) => ({ mandate: r.mandate, ...intentView(s, r, now) }));
      return print(ctx, views, views.length === 0 ? 'No intents.' : views.map((v) => intentLine(v.mandate, v)).join('\n'));
    });
  },
};

/** Whether each intent's job events link: every hash is its content's, every prev the one before. */
function chainBreaks(s: HolonState): string[] {
  const out: string[] = [];
  for (const r of Object.values(s.intents)) {
    let prev = '';
    for (const e of r.events) {
      if (e.prev !== prev || e.hash !== jobEventHash(r.id, e)) out.push(`${r.id}: event ${e.n} does not link`);
      prev = e.hash;
    }
  }
  return out;
}

const auditCmd: Command = {
  name: 'audit',
  usage: 'audit [--mandate M] [--limit N]',
  summary:
    "Shows the audit trail, newest last: each payment intent's hash-linked events (submitted, " +
    'authorized, parked, settled, denied, …) and each payment on a chain with its events ' +
    "(signed, landed, …) and where it landed or why not; checks that every intent's events link.",
  options: {
    mandate: { type: 'string', help: 'only this mandate' },
    limit: { type: 'string', help: 'how many of the latest events (default 100)' },
  },
  positionals: [0, 0],
  async run(ctx) {
    const limit = limitOpt(ctx.opts, 100);
    return withStore(openExisting(ctx), async (store) => {
      const s = store.state;
      const mandate = mandateOpt(s, ctx.opts);
      type IntentLine = JobEvent & { intent: string; mandate: string; idempotency_key: string };
      type PaymentLine = PaymentAuditEntry & { mandate: string };
      const jobs: IntentLine[] = Object.values(s.intents)
        .filter((r) => !mandate || r.mandate === mandate)
        .flatMap((r) => r.events.map((e) => ({ ...e, intent: r.id, mandate: r.mandate, idempotency_key: r.idempotency_key })));
      // The payments' trail from its index: the latest `limit` events of each mandate are all that can be shown.
      const payments: PaymentLine[] = (mandate ? [mandate] : Object.keys(s.settlement_index)).flatMap((m) =>
        latestPaymentEntries(s, m, limit).map((e) => ({ ...e, mandate: m })),
      );
      const entries: (IntentLine | PaymentLine)[] = [...jobs, ...payments]
        .sort((a, b) => a.seq - b.seq || ('n' in a && 'n' in b ? a.n - b.n : 0))
        .slice(-limit);
      const breaks = chainBreaks(s);
      // A payment's standing now is said once, beside its newest event shown.
      const newest = new Map<string, number>();
      entries.forEach((e, i) => {
        if ('settlement' in e) newest.set(e.settlement.id, i);
      });
      const lines = entries.map((e, i) =>
        'settlement' in e
          ? `${e.at} ${e.settlement.id} ${e.mandate} ${paidForText(e.settlement.for)} ${e.type}` +
            (newest.get(e.settlement.id) === i ? `: ${fmt(e.settlement.amount)} to ${e.settlement.payee}, ${e.settlement.summary}` : '')
          : `${e.at} ${e.intent} ${e.mandate} ${e.idempotency_key} ${e.type}`,
      );
      lines.push(breaks.length === 0 ? "Every intent's events link." : `BROKEN: ${breaks.join('; ')}`);
      print(
        ctx,
        { entries, chains_ok: breaks.length === 0, breaks },
        entries.length === 0 ? `No intent or payment events. ${lines.at(-1) ?? ''}` : lines.join('\n'),
      );
      return breaks.length === 0 ? 0 : 1;
    });
  },
};

const showLimit = (l: CallLimit | null): string => (l ? `${l.count}/${l.per === 'minute' ? 'min' : 'day'}` : 'none');

const limitsCmd: Command = {
  name: 'limits',
  usage: 'limits MANDATE [--rate N/min|none] [--quota N/day|none]',
  summary:
    'Shows, or sets, how many calls of the money and records tools a mandate may ' +
    'make: a rate limit (over it, the agent is told to retry as is) and a quota (over ' +
    'it, the agent is told to ask you). Only you set these; with neither flag, shows ' +
    "them and today's usage.",
  options: {
    rate: { type: 'string', help: 'calls per minute, e.g. 60/min, or none' },
    quota: { type: 'string', help: 'calls per day, e.g. 1000/day, or none' },
  },
  positionals: [1, 1],
  async run(ctx) {
    const id = ctx.args[0] ?? '';
    const rateText = str(ctx.opts, 'rate');
    const quotaText = str(ctx.opts, 'quota');
    // Both flags are read before the state is opened: a typo changes nothing.
    const rate = rateText === undefined ? undefined : parseCallLimit(rateText);
    const quota = quotaText === undefined ? undefined : parseCallLimit(quotaText);
    if (rate === undefined && quota === undefined) {
      return withStore(openExisting(ctx), async (store) => {
        const u = usageOf(store.state, id, '24h', clock.now());
        const m = store.state.meters[id];
        return print(
          ctx,
          { mandate: id, rate: m?.rate ?? null, quota: m?.quota ?? null, usage: u },
          `${id}: rate ${showLimit(m?.rate ?? null)}, quota ${showLimit(m?.quota ?? null)}; ${u.calls} call(s) in the last 24 h`,
        );
      });
    }
    return withStore(
      open(ctx),
      async (store) => {
        const set = await setCallLimits(store, id, { rate, quota });
        return print(
          ctx,
          { mandate: id, rate: set.rate, quota: set.quota },
          `${id}: rate ${showLimit(set.rate)}, quota ${showLimit(set.quota)}.`,
        );
      },
      true,
    );
  },
};

export const commands: Command[] = [intentsCmd, auditCmd, limitsCmd];
