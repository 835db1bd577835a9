/**
 * The money toolsets' part of the state (seed 003): payment intents with their lifecycle and their own
 * hash-linked job events, the idempotency keys that name them, what each mandate has drawn per currency
 * (so an amount no human-set rate converts stays unknown, never zero), and the calls each mandate made
 * with the limits a human set on them. Every field is folded from the journal, the same in every process.
 */
import type { ApprovalEvents, ApprovalsFields } from '../approvals/slice.ts';
import type { Denial } from '../kernel/denials.ts';
import type { MoneyJson } from '../kernel/amount.ts';
import * as M from '../kernel/amount.ts';
import type { Slice } from '../store/slice.ts';
import type { JournalEvent } from '../store/store.ts';
import { big, eventsOf } from '../store/slice.ts';
import type { SpendEvents } from './spend.ts';
import type { Filed, MandateIntents } from './intentIndex.ts';
import { fileIntentEvent, forgetIntent, refileLapse, reviveIntentIndex } from './intentIndex.ts';
import type { Dict } from '../kernel/util.ts';
import { bump, canonicalHash, dict, toDict } from '../kernel/util.ts';

/** Where an intent is in its life. `expired` is also derived from the clock for a parked intent whose approval lapsed. */
export const INTENT_STATUSES = ['authorized', 'pending', 'settled', 'denied', 'rejected', 'failed', 'expired'] as const;
export type IntentStatus = (typeof INTENT_STATUSES)[number];

/** The gate's three answers. */
export type GateVerdict = 'allow' | 'deny' | 'confirm';

/** An Ed25519 signature by a raw base64 public key, over the RFC 8785 form of what it signs. */
export interface Ed25519Signature {
  alg: 'Ed25519';
  public_key: string;
  value: string;
}

/** One event of an intent's own chain: hash-linked to the one before it, in the order the journal folded them. */
export interface JobEvent {
  /** 1 for the first event of the intent. */
  n: number;
  /** The journal sequence number of the event it was folded from: the audit trail's order. */
  seq: number;
  type: string;
  at: string;
  data: Record<string, unknown>;
  /** The hash of the intent's previous job event ("" for the first). */
  prev: string;
  /** SHA-256 (hex) of the RFC 8785 form of {intent, n, type, at, data, prev}. */
  hash: string;
}

/** What a settled intent returns: the Receipt. */
export interface IntentReceipt {
  id: string;
  intent: string;
  /** `journal`: between Holon accounts; `x402`: an EIP-3009 payment on a chain, checked landed by Holon. */
  rail: 'journal' | 'x402';
  payee: string;
  /** What the payee received, as the intent asked. */
  amount: MoneyJson;
  /** What the mandate was charged, in its currency. */
  charged: MoneyJson;
  /** The rail's reference for the movement. */
  reference: string;
  approval: string | null;
  settled_at: string;
  /** On a chain: the settlement record Holon checked the payment against (rails/landing.ts). */
  settlement?: string;
}

/**
 * The receipt of intent `r` settled on `rail` at `now`: the payee got what the intent asked, the mandate
 * was charged `charged`. One shape for the journal's rail (intents.ts) and a chain's (rails/landing.ts).
 */
export function intentReceipt(
  r: Pick<IntentRecord, 'id' | 'payee' | 'amount'>,
  paid: { id: string; rail: IntentReceipt['rail']; charged: MoneyJson; reference: string; approval: string | null; settlement?: string },
  now: number,
): IntentReceipt {
  return {
    id: paid.id,
    intent: r.id,
    rail: paid.rail,
    payee: r.payee,
    amount: { ...r.amount },
    charged: { ...paid.charged },
    reference: paid.reference,
    approval: paid.approval,
    settled_at: new Date(now).toISOString(),
    ...(paid.settlement !== undefined ? { settlement: paid.settlement } : {}),
  };
}

/** One payment intent and its lifecycle. */
export interface IntentRecord {
  id: string;
  mandate: string;
  idempotency_key: string;
  /** SHA-256 of the RFC 8785 form of the body (payee, amount, currency, purpose): what the key is bound to. */
  body_sha256: string;
  payee: string;
  amount: MoneyJson;
  purpose: string;
  /** The installation's signature over the intent as submitted. */
  signature: Ed25519Signature;
  status: IntentStatus;
  verdict: GateVerdict | null;
  denials: Denial[];
  /** What is held for it, in the mandate's currency, while authorized or parked. */
  held: MoneyJson | null;
  approval: string | null;
  /** The approval's binding hash, while parked: what a human's approval binds to. */
  challenge: string | null;
  receipt: IntentReceipt | null;
  error: string | null;
  attempts: number;
  created_seq: number;
  created_at: string;
  updated_at: string;
  events: JobEvent[];
}

/** A per-mandate limit on calls, set by a human. */
export interface CallLimit {
  count: number;
  per: 'minute' | 'day';
}

/** A mandate's metering: the limits a human set, and its calls by UTC minute, hour and day, per tool. */
export interface MeterRecord {
  rate: CallLimit | null;
  quota: CallLimit | null;
  /** "2026-11-29T10:05" → tool → calls; only the last hour is kept. */
  minutes: Dict<Dict<number>>;
  /** "2026-11-29T10" → tool → calls; the last 31 days are kept. */
  hours: Dict<Dict<number>>;
  /** "2026-11-29" → tool → calls. */
  days: Dict<Dict<number>>;
}

/** What a mandate has drawn (settled spends), per currency: in all, and per UTC day. */
export interface Drawn {
  total: Dict<bigint>;
  days: Dict<Dict<bigint>>;
}

/** The money toolsets' fields of the state. */
export interface MoneyFields {
  intents: Dict<IntentRecord>;
  /** `${mandate} ${key}` → intent id. */
  intent_keys: Dict<string>;
  /** Mandate → what the reads of its intents seek with (intentIndex.ts). */
  intent_index: Dict<MandateIntents>;
  drawn: Dict<Drawn>;
  /** Open holds' mandate and currency, so a settlement is counted in the currency it was held in. */
  drawn_holds: Dict<{ mandate: string; currency: string }>;
  meters: Dict<MeterRecord>;
}

/** The money toolsets' events. */
export interface MoneyEvents {
  'intent.submitted': {
    intent: string;
    mandate: string;
    idempotency_key: string;
    body_sha256: string;
    payee: string;
    amount: MoneyJson;
    purpose: string;
    signature: Ed25519Signature;
  };
  /** A failed intent submitted again with the same key and body. */
  'intent.retried': { intent: string; signature: Ed25519Signature };
  /** The gate allowed it: `held` is held while the rail moves the money. */
  'intent.authorized': { intent: string; held: MoneyJson };
  'intent.denied': { intent: string; denials: Denial[] };
  /** The gate asked a human: the money is held until they decide. */
  'intent.parked': { intent: string; held: MoneyJson; approval: string; challenge: string; expires_at: string };
  /** The money moved: a Holon account payee is credited with `receipt.amount` (a chain account's credit is on the chain). */
  'intent.settled': { intent: string; credit?: { account: string; amount: MoneyJson }; receipt: IntentReceipt };
  /** The rail failed: nothing moved, the hold was released; the same key may be sent again. */
  'intent.failed': { intent: string; error: string };
  'intent.rejected': { intent: string; approval: string };
  /** The approval lapsed before a human decided: the hold was released. */
  'intent.expired': { intent: string; approval: string };
  /** A human set (or cleared) the call limits of a mandate. */
  'meter.limits.set': { mandate: string; rate: CallLimit | null; quota: CallLimit | null };
  /** One call of a money or records tool, counted against the mandate's limits. */
  'usage.metered': { mandate: string; tool: string };
}

/** Builds a money event. */
export const moneyEvent = eventsOf<MoneyEvents>();

/** The key an intent is found by. */
export function intentKey(mandate: string, key: string): string {
  return `${mandate} ${key}`;
}

/** The hash of one job event, as `JobEvent.hash` says. */
export function jobEventHash(intent: string, e: Omit<JobEvent, 'hash' | 'seq'>): string {
  return canonicalHash({ intent, n: e.n, type: e.type, at: e.at, data: e.data, prev: e.prev });
}

/** When an approval lapses, as the approvals slice folded it (the state is every slice's fields at once). */
const expiresAt =
  (s: MoneyFields) =>
  (approval: string): string | undefined =>
    (s as MoneyFields & Partial<ApprovalsFields>).approvals?.[approval]?.expires_at;

/** Applies an event to its intent, appends the intent's job event, and files both in the index. */
function record(s: MoneyFields, d: { intent: string }, e: JournalEvent, change: (r: IntentRecord) => void, fresh = false): void {
  const r = s.intents[d.intent];
  if (!r) return;
  const was: Filed | null = fresh ? null : { status: r.status, approval: r.approval };
  change(r);
  r.updated_at = e.time;
  const { intent: _intent, ...data } = d as { intent: string } & Record<string, unknown>;
  const last = r.events[r.events.length - 1];
  const j = { n: r.events.length + 1, type: e.type, at: e.time, data: structuredClone(data), prev: last?.hash ?? '' };
  r.events.push({ ...j, seq: e.seq, hash: jobEventHash(r.id, j) });
  fileIntentEvent(s, r, was, e.seq, expiresAt(s));
}

const count = (buckets: Dict<Dict<number>>, bucket: string, tool: string): void => {
  const b = (buckets[bucket] ??= dict());
  b[tool] = (b[tool] ?? 0) + 1;
};

/** Drops buckets older than `oldest` (keys are ISO prefixes, so they sort as text). */
const prune = (buckets: Dict<Dict<number>>, oldest: string): void => {
  for (const k of Object.keys(buckets)) if (k < oldest) delete buckets[k];
};

/** A mandate's meter, created empty. */
export function meterOf(s: MoneyFields, mandate: string): MeterRecord {
  return (s.meters[mandate] ??= { rate: null, quota: null, minutes: dict(), hours: dict(), days: dict() });
}

type Handled = MoneyEvents &
  Pick<SpendEvents, 'hold.placed' | 'hold.settled' | 'hold.released'> &
  Pick<ApprovalEvents, 'approval.requested'>;

export const moneySlice: Slice<MoneyFields, Handled> = {
  initial: () => ({ intents: dict(), intent_keys: dict(), intent_index: dict(), drawn: dict(), drawn_holds: dict(), meters: dict() }),
  on: {
    'intent.submitted': (s, d, e) => {
      const replaced = s.intents[d.intent];
      if (replaced) forgetIntent(s, replaced);
      s.intents[d.intent] = {
        id: d.intent,
        mandate: d.mandate,
        idempotency_key: d.idempotency_key,
        body_sha256: d.body_sha256,
        payee: d.payee,
        amount: { ...d.amount },
        purpose: d.purpose,
        signature: { ...d.signature },
        status: 'authorized',
        verdict: null,
        denials: [],
        held: null,
        approval: null,
        challenge: null,
        receipt: null,
        error: null,
        attempts: 1,
        created_seq: e.seq,
        created_at: e.time,
        updated_at: e.time,
        events: [],
      };
      s.intent_keys[intentKey(d.mandate, d.idempotency_key)] = d.intent;
      record(s, d, e, () => {}, true);
    },
    'intent.retried': (s, d, e) =>
      record(s, d, e, (r) => {
        r.attempts += 1;
        r.signature = { ...d.signature };
        r.error = null;
      }),
    'intent.authorized': (s, d, e) =>
      record(s, d, e, (r) => {
        r.status = 'authorized';
        r.verdict = 'allow';
        r.denials = [];
        r.held = { ...d.held };
      }),
    'intent.denied': (s, d, e) =>
      record(s, d, e, (r) => {
        r.status = 'denied';
        r.verdict = 'deny';
        r.denials = structuredClone(d.denials);
        r.held = null;
      }),
    'intent.parked': (s, d, e) =>
      record(s, d, e, (r) => {
        r.status = 'pending';
        r.verdict = 'confirm';
        r.held = { ...d.held };
        r.approval = d.approval;
        r.challenge = d.challenge;
      }),
    'intent.settled': (s, d, e) => {
      record(s, d, e, (r) => {
        r.status = 'settled';
        r.held = null;
        r.challenge = null;
        r.receipt = structuredClone(d.receipt);
      });
      // The payee's account is credited by the spend slice, which owns the accounts (see spendSlice).
    },
    'intent.failed': (s, d, e) =>
      record(s, d, e, (r) => {
        r.status = 'failed';
        r.held = null;
        r.error = d.error;
      }),
    'intent.rejected': (s, d, e) =>
      record(s, d, e, (r) => {
        r.status = 'rejected';
        r.held = null;
        r.challenge = null;
      }),
    'intent.expired': (s, d, e) =>
      record(s, d, e, (r) => {
        r.status = 'expired';
        r.held = null;
        r.challenge = null;
      }),
    'meter.limits.set': (s, d) => {
      const m = meterOf(s, d.mandate);
      m.rate = d.rate ? { ...d.rate } : null;
      m.quota = d.quota ? { ...d.quota } : null;
    },
    'usage.metered': (s, d, e) => {
      const m = meterOf(s, d.mandate);
      const t = Date.parse(e.time);
      count(m.minutes, e.time.slice(0, 16), d.tool);
      count(m.hours, e.time.slice(0, 13), d.tool);
      count(m.days, e.time.slice(0, 10), d.tool);
      prune(m.minutes, new Date(t - 3600_000).toISOString().slice(0, 16));
      prune(m.hours, new Date(t - 31 * 86400_000).toISOString().slice(0, 13));
    },
    // An approval asked for again under an id a parked intent waits on: the lapse queue follows its expiry.
    'approval.requested': (s, d) => {
      const id = (d.approval as { id?: unknown } | undefined)?.id;
      if (typeof id === 'string') refileLapse(s, id, expiresAt(s)(id));
    },
    // What every spend of every toolset draws, in the currency it was held in.
    'hold.placed': (s, d) => {
      s.drawn_holds[d.hold] = { mandate: d.mandate, currency: d.currency };
    },
    'hold.settled': (s, d, e) => {
      const h = s.drawn_holds[d.hold];
      if (!h) return;
      delete s.drawn_holds[d.hold];
      const units = M.parseUnits(d.cost);
      const drawn = (s.drawn[h.mandate] ??= { total: dict(), days: dict() });
      bump(drawn.total, h.currency, units);
      bump((drawn.days[e.time.slice(0, 10)] ??= dict()), h.currency, units);
    },
    'hold.released': (s, d) => {
      delete s.drawn_holds[d.hold];
    },
    // A channel's refund read on the chain is drawn no more (rails/refund.ts).
    'settlement.refunded': (s, d: { credit: { mandate: string; amount: MoneyJson; day: string } }) => {
      const units = M.parseUnits(d.credit.amount.amount);
      const drawn = (s.drawn[d.credit.mandate] ??= { total: dict(), days: dict() });
      bump(drawn.total, d.credit.amount.currency, -units);
      bump((drawn.days[d.credit.day] ??= dict()), d.credit.amount.currency, -units);
    },
  },
  revive: (s) => {
    s.intents = toDict(s.intents);
    s.intent_keys = toDict(s.intent_keys);
    s.intent_index = reviveIntentIndex(s.intent_index);
    s.drawn = toDict(s.drawn, (d) => ({ total: toDict(d.total, big), days: toDict(d.days, (day) => toDict(day, big)) }));
    s.drawn_holds = toDict(s.drawn_holds);
    s.meters = toDict(s.meters, (m) => ({
      ...m,
      minutes: toDict(m.minutes, (b) => toDict(b)),
      hours: toDict(m.hours, (b) => toDict(b)),
      days: toDict(m.days, (b) => toDict(b)),
    }));
  },
};
