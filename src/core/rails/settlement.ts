/**
 * Settlement records: every payment Holon signs on a chain gets one, written to the journal before the
 * payment leaves the process, so that a retry, or the next process after a crash, finds it. It keeps the
 * signed payment itself (to resend exactly that one, never a second), the hold that carries its money,
 * the transaction the seller or merchant said it landed in, and what Holon's own reading of the chain
 * found: landed in block N, or not. The chain decides: a payment is `landed` only when Holon read the
 * token's `Transfer` and `AuthorizationUsed` for it in a block after the one it was signed at, and one
 * transfer (a transaction and the log's index) lands one settlement, ever; it is `expired` only when the
 * chain proves it can never land (its validity ended with its nonce unspent, or its nonce was spent by
 * something that is not this payment). One the payee claims and the chain does not show is `flagged`, its
 * hold kept until a human decides (approvals/kinds/unlandedPayment.ts); one the human released is
 * `releasing` — still held, still read — until it can no longer land.
 *
 * This file is the record, its events and its fold; how a record is read on the chain is its scheme's
 * (schemes.ts), how it reads for a person is settlementView.ts, and what each outcome does to the spend it
 * pays for is landing.ts.
 */
import type { MoneyJson } from '../kernel/amount.ts';
import type { Slice } from '../store/slice.ts';
import { eventsOf } from '../store/slice.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';
import type { JournalEvent } from '../store/store.ts';
import type { Authorization, NeverWhy } from './scheme.ts';
import type { RecordedScheme } from './schemes.ts';
import type { SettlementIndexFields } from './settlementIndex.ts';
import { emptySettlementIndex, fileSettlementEvent, fileSigned, reviveSettlementIndex } from './settlementIndex.ts';

/** What a signed payment pays for: the spend whose receipt shows its settlement. */
export type SettlementFor =
  | { kind: 'payment'; id: string }
  | { kind: 'call'; id: string }
  | { kind: 'intent'; id: string }
  | { kind: 'purchase'; id: string }
  | { kind: 'channel'; id: string };

/**
 * Where a settlement stands. `signed`: waiting for the chain (its money held). `landed`: the chain shows
 * it. `expired`: it never landed and no longer can (its money went back; `why` says how the chain showed
 * it). `flagged`: the payee says it was paid and the chain does not show it (its money held for a human).
 * `releasing`: a human released a flagged one, and it may still land (its authorization is neither
 * cancelled on the chain nor past its validity): its money stays held, and it is read until it lands
 * (then counted as spent) or never can (`released`, its money back). `kept`: a human kept a flagged one as
 * spent. `unchecked`: only in journals from before Holon signed only on a chain it reads.
 */
export const SETTLEMENT_STATUSES = ['signed', 'landed', 'expired', 'flagged', 'releasing', 'released', 'kept', 'unchecked'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

/** Why a settlement is flagged to the human. */
export type FlagReason =
  /** The seller (or merchant) said the payment landed, or completed the order, and the chain does not show it. */
  | 'not_on_chain'
  /** The merchant completed an order for another amount than the one paid on chain. */
  | 'other_amount';

/** One payment Holon signed, and what became of it. */
export interface Settlement {
  id: string;
  mandate: string;
  /**
   * How it moves its money (schemes.ts): absent for `exact`, an EIP-3009 authorization of exactly its
   * amount (and every settlement from before `upto`). `upto`: a Permit2 witness transfer of at most its
   * amount (the authorization's `value`), its nonce Permit2's (as 32 bytes of hex), its deadline `validBefore`.
   */
  scheme?: RecordedScheme;
  /** The hold that carries its money (in the mandate's currency) while it is not settled. */
  hold: string;
  for: SettlementFor;
  network: string;
  token: string;
  /** Who is paid, CAIP-10. */
  payee: string;
  authorization: Authorization;
  /** What it pays, in the token's currency (`upto`: the most it may pay, what was authorized). */
  amount: MoneyJson;
  /** What the hold carries for it, in the mandate's currency (`upto`: for the most it may pay). */
  held: MoneyJson;
  status: SettlementStatus;
  /**
   * The signed x402 payment as it was sent: what is sent again, byte for byte, on a retry (a merchant's
   * idempotent completion answers only the same body).
   */
  payload: unknown;
  /** A block at or before the one the chain was at when it was signed: where to look for it from. */
  from_block: string | null;
  /** The transaction the seller, merchant or facilitator named, as it named it. */
  claimed: { transaction: string; by: string } | null;
  /**
   * Holon's own reading of the chain, and the value (the token's smallest units) it read moving from the
   * payer to the payee: an `upto` payment's may be less than authorized (absent in records from before:
   * the authorization's value). `log_index` is the `Transfer` log's index in its block (absent in records
   * from before): with the transaction, what the one transfer that landed it is known by.
   */
  landed: { transaction: string; block: string; value?: string; log_index?: number } | null;
  flag: { reason: FlagReason; detail: string; approval: string | null } | null;
  /** How the chain showed it can never land, once it did (absent until then, and in records from before). */
  never?: NeverWhy;
  /** The human's release of a flagged payment (its approval, when): it is `releasing` until it can no longer land. */
  release?: { approval: string; at: string };
  /** The cancellation of its authorization Holon sent on the chain, once a human released it. */
  cancel?: { transaction: string; at: string };
  /**
   * For a channel's deposit: what its closing gives back to the payer (from the escrow it was paid to),
   * looked for on the chain from `from_block`, and, once Holon read it there, where — and what the mandate
   * was credited for it.
   */
  refund?: {
    value: string;
    from: string;
    from_block: string;
    transaction: string | null;
    block: string | null;
    credited: MoneyJson | null;
  } | null;
  signed_at: string;
  updated_at: string;
}

/** The settlements' part of the state, with the index their reads need (settlementIndex.ts). */
export interface SettlementFields extends SettlementIndexFields {
  settlements: Dict<Settlement>;
  /** What a spend's settlement is, by `kind:id` of what it pays for (the newest). */
  settlement_of: Dict<string>;
  /** The settlement each transfer landed (`transferKey`): one transfer lands one settlement, ever. */
  settlement_by_transfer: Dict<string>;
  /** The settlements signed under each nonce of each payer (`nonceKey`), oldest first. */
  settlements_by_nonce: Dict<string[]>;
}

/** What one transfer is known by: its transaction and its log's index (`?` for a record from before log indices). */
export function transferKey(transaction: string, logIndex: number | undefined): string {
  return `${transaction.toLowerCase()}:${logIndex ?? '?'}`;
}

/**
 * What a payer's nonce is known by, in its scheme's own nonce space (EIP-3009's, or Permit2's): each scheme
 * is its own space, named as the record names it. Read from the record, not the scheme table, so that the
 * fold (and the journal's worker) does not load what signs and reads the chain.
 */
export function nonceKey(r: Pick<Settlement, 'scheme'> & { authorization: Pick<Settlement['authorization'], 'from' | 'nonce'> }): string {
  return `${r.scheme ?? 'exact'}:${r.authorization.from.toLowerCase()}:${r.authorization.nonce.toLowerCase()}`;
}

/** The settlements' events. */
export interface SettlementEvents {
  /** A payment was signed and is about to be sent; `status` is `signed`, or `unchecked` where no chain reads it. */
  'settlement.signed': { settlement: Omit<Settlement, 'claimed' | 'landed' | 'flag' | 'signed_at' | 'updated_at'> };
  /** The payee (its seller, merchant or facilitator) named the transaction it says the payment landed in. */
  'settlement.claimed': { settlement: string; transaction: string; by: string };
  /** Holon read the payment on the chain: the transaction, its block, the value moved, the `Transfer` log's index. */
  'settlement.landed': { settlement: string; transaction: string; block: string; value?: string; log_index?: number };
  /** The chain shows it can never land (`why`: a `NeverWhy`; older journals say only `expired` or `cancelled`). */
  'settlement.expired': { settlement: string; why: string };
  /**
   * A human released a flagged settlement (approving its card): its money stays held until the chain shows
   * it can no longer land, and goes back then. Written only beside that decision.
   */
  'settlement.release_asked': { settlement: string; approval: string };
  /** Holon sent a cancellation of a released settlement's authorization, in `transaction`. */
  'settlement.cancel_sent': { settlement: string; transaction: string };
  /** It is flagged to the human; `approval` asks them what to do with its hold, where one is held. */
  'settlement.flagged': { settlement: string; reason: FlagReason; detail: string; approval: string | null };
  /**
   * A human decided a flagged settlement: it stays spent (`kept`), or — in journals from before a release
   * waited for the chain — its money went back at once (`released`).
   */
  'settlement.decided': { settlement: string; approval: string; outcome: 'released' | 'kept' };
  /** A channel was closed: `value` of its deposit is to come back from the escrow, looked for from `from_block`. */
  'settlement.refund_expected': { settlement: string; value: string; from: string; from_block: string };
  /**
   * Holon read the refund on the chain: `credit` (in the mandate's currency, the deposit's share) goes back
   * to what the mandate, its account and the day spent.
   */
  'settlement.refunded': {
    settlement: string;
    transaction: string;
    block: string;
    value: string;
    credit: { mandate: string; account: string; amount: MoneyJson; day: string };
  };
}

/** Builds a settlement event. */
export const settlementEvent = eventsOf<SettlementEvents>();

/** The statuses after which nothing more happens to a settlement's money. */
export const FINAL: ReadonlySet<SettlementStatus> = new Set<SettlementStatus>(['landed', 'expired', 'released', 'kept', 'unchecked']);

/** True while a settlement's money is held for it: signed, flagged and undecided, or released by a human and still able to land. */
export function isOpen(r: Pick<Settlement, 'status'>): boolean {
  return !FINAL.has(r.status);
}

/** The key a spend's settlement is found by. */
export function settlementKey(f: SettlementFor): string {
  return `${f.kind}:${f.id}`;
}

/** The settlement of a spend, if one was signed for it. */
export function settlementFor(s: SettlementFields, f: SettlementFor): Settlement | undefined {
  const id = s.settlement_of[settlementKey(f)];
  return id ? s.settlements[id] : undefined;
}

/** Applies an event to its settlement, and files the event in its mandate's trail. */
function touch(s: SettlementFields, id: string, e: JournalEvent, change: (r: Settlement) => void): void {
  const r = s.settlements[id];
  if (!r) return;
  change(r);
  r.updated_at = e.time;
  fileSettlementEvent(s, r.mandate, r.id, e);
  fileAwaiting(s, r);
}

/**
 * The settlements that wait for the chain, by the dict that holds them: what a watcher reads at every
 * block, however many payments were ever made. Not in the state's text: made from the settlements on
 * first use (after a snapshot is read, the dict is a new one), then kept by the fold.
 */
const awaitingBy = new WeakMap<Dict<Settlement>, Set<string>>();

/** The ids of the settlements that wait for the chain (`awaitsChain`), without reading every settlement. */
export function settlementsAwaiting(s: Pick<SettlementFields, 'settlements'>): ReadonlySet<string> {
  let ids = awaitingBy.get(s.settlements);
  if (!ids) {
    ids = new Set(Object.values(s.settlements).flatMap((r) => (awaitsChain(r) ? [r.id] : [])));
    awaitingBy.set(s.settlements, ids);
  }
  return ids;
}

/** Keeps the settlements that wait for the chain true for `r`, once they were asked for. */
function fileAwaiting(s: SettlementFields, r: Settlement): void {
  const ids = awaitingBy.get(s.settlements);
  if (!ids) return;
  if (awaitsChain(r)) ids.add(r.id);
  else ids.delete(r.id);
}

export const settlementSlice: Slice<SettlementFields, SettlementEvents> = {
  initial: () => ({
    settlements: dict(),
    settlement_of: dict(),
    settlement_by_transfer: dict(),
    settlements_by_nonce: dict(),
    ...emptySettlementIndex(),
  }),
  on: {
    'settlement.signed': (s, d, e) => {
      const r: Settlement = {
        ...structuredClone(d.settlement),
        claimed: null,
        landed: null,
        flag: null,
        signed_at: e.time,
        updated_at: e.time,
      };
      // Never written twice by Holon; folded as the journal says, its first signing keeps its place.
      const again = s.settlements[r.id] !== undefined;
      s.settlements[r.id] = r;
      s.settlement_of[settlementKey(r.for)] = r.id;
      if (!again) {
        (s.settlements_by_nonce[nonceKey(r)] ??= []).push(r.id);
        fileSigned(s, r, e.seq);
      }
      fileSettlementEvent(s, r.mandate, r.id, e);
      fileAwaiting(s, r);
    },
    'settlement.claimed': (s, d, e) =>
      touch(s, d.settlement, e, (r) => {
        r.claimed = { transaction: d.transaction, by: d.by };
      }),
    'settlement.landed': (s, d, e) =>
      touch(s, d.settlement, e, (r) => {
        r.status = 'landed';
        r.landed = {
          transaction: d.transaction,
          block: d.block,
          ...(d.value !== undefined ? { value: d.value } : {}),
          ...(d.log_index !== undefined ? { log_index: d.log_index } : {}),
        };
        // The first settlement a transfer lands keeps it (the writer never lands a second: landing.ts).
        s.settlement_by_transfer[transferKey(d.transaction, d.log_index)] ??= r.id;
      }),
    'settlement.expired': (s, d, e) =>
      touch(s, d.settlement, e, (r) => {
        if (r.status === 'signed' || r.status === 'flagged') r.status = 'expired';
        else if (r.status === 'releasing') r.status = 'released';
        // A kept one stays spent as the human decided; the chain has only said it will never land.
        else if (r.status !== 'kept') return;
        r.never = d.why as NeverWhy;
      }),
    'settlement.release_asked': (s, d, e) =>
      touch(s, d.settlement, e, (r) => {
        if (r.status !== 'flagged') return;
        r.status = 'releasing';
        r.release = { approval: d.approval, at: e.time };
      }),
    'settlement.cancel_sent': (s, d, e) =>
      touch(s, d.settlement, e, (r) => {
        r.cancel ??= { transaction: d.transaction, at: e.time };
      }),
    'settlement.flagged': (s, d, e) =>
      touch(s, d.settlement, e, (r) => {
        if (r.status === 'signed') r.status = 'flagged';
        r.flag = { reason: d.reason, detail: d.detail, approval: d.approval };
      }),
    'settlement.decided': (s, d, e) =>
      touch(s, d.settlement, e, (r) => {
        if (r.status === 'flagged') r.status = d.outcome;
      }),
    'settlement.refund_expected': (s, d, e) =>
      touch(s, d.settlement, e, (r) => {
        r.refund = { value: d.value, from: d.from, from_block: d.from_block, transaction: null, block: null, credited: null };
      }),
    'settlement.refunded': (s, d, e) =>
      touch(s, d.settlement, e, (r) => {
        if (!r.refund || r.refund.transaction) return;
        r.refund = { ...r.refund, transaction: d.transaction, block: d.block, credited: { ...d.credit.amount } };
      }),
  },
  revive: (s) => {
    s.settlements = toDict(s.settlements);
    s.settlement_of = toDict(s.settlement_of);
    s.settlement_by_transfer = toDict(s.settlement_by_transfer);
    s.settlements_by_nonce = toDict(s.settlements_by_nonce);
    Object.assign(s, reviveSettlementIndex(s));
  },
};

/** The other settlements signed under the same nonce of the same payer as `r` (an earlier payment of the same terms). */
export function sameNonce(s: SettlementFields, r: Pick<Settlement, 'id' | 'scheme' | 'authorization'>): Settlement[] {
  const out: Settlement[] = [];
  for (const id of s.settlements_by_nonce[nonceKey(r)] ?? []) {
    const other = s.settlements[id];
    if (other && other.id !== r.id) out.push(other);
  }
  return out;
}

/**
 * True while a settlement waits for the chain: its payment (one a human kept as spent too, until the chain
 * shows whether it lands after all), or a refund of it (a channel's closing).
 */
export function awaitsChain(r: Settlement): boolean {
  return (
    isOpen(r) || (r.status === 'kept' && r.never === undefined) || (r.status === 'landed' && !!r.refund && r.refund.transaction === null)
  );
}
