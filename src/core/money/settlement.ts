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
 * This file is the record, its events and its fold, and the one reading of the chain a record is judged
 * by (`chainVerdict`); what each outcome does to the spend it pays for is landing.ts.
 */
import type { Address, Hash, Hex } from 'viem';
import { decodeFunctionData, getAddress, parseAbi } from 'viem';
import type { MoneyJson } from '../kernel/amount.ts';
import { formatUnits, parseUnits } from '../kernel/amount.ts';
import type { Slice } from '../store/slice.ts';
import { eventsOf } from '../store/slice.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';
import { transactionAsNamed } from '../kernel/foreign.ts';
import type { JournalEvent } from '../store/store.ts';
import type { ChainReader, MinedTransfers } from './chain.ts';
import type { SettlementIndexFields } from './settlementIndex.ts';
import { emptySettlementIndex, fileSettlementEvent, fileSigned, reviveSettlementIndex } from './settlementIndex.ts';

/** An EIP-3009 authorization as signed (uint256 members as decimal strings, the nonce as 0x hex). */
export interface Authorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

/** EIP-3009's `transferWithAuthorization`, as EIP-712 types: what every x402 payment Holon makes on an EVM chain signs first. */
export const TRANSFER_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

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

/**
 * How the chain shows a payment can never land. `expired`: its validity ended with its nonce unspent.
 * `cancelled`: its authorization was cancelled on the chain. `spent_before`: its nonce was spent before it
 * was signed (by an earlier payment of the same terms). `spent_elsewhere`: its nonce was spent by a
 * transaction that is not this payment, or whose transfer already landed another settlement.
 */
export type NeverWhy = 'expired' | 'cancelled' | 'spent_before' | 'spent_elsewhere';

/** Why a settlement is flagged to the human. */
export type FlagReason =
  /** The seller (or merchant) said the payment landed, or completed the order, and the chain does not show it. */
  | 'not_on_chain'
  /** The merchant completed an order for another amount than the one paid on chain. */
  | 'other_amount';

/**
 * How a payment moves its money. Absent: x402 `exact`, an EIP-3009 authorization of exactly its amount.
 * `upto`: x402 `upto`, a Permit2 witness transfer of at most its amount (the authorization's `value`),
 * settled by the seller's facilitator for what the work cost; its nonce is Permit2's (`authorization.nonce`
 * is that uint256 as 32 bytes of hex) and its deadline is `validBefore` (permit2.ts reads it on the chain).
 */
export type SettlementScheme = 'upto';

/** One payment Holon signed, and what became of it. */
export interface Settlement {
  id: string;
  mandate: string;
  /** Absent for `exact` (and every settlement from before `upto`). */
  scheme?: SettlementScheme;
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
  /** The block the chain was at when it was signed: where to look for it from. */
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

/** What a payer's nonce is known by, in its scheme's own nonce space (EIP-3009's, or Permit2's). */
export function nonceKey(r: Pick<Settlement, 'scheme' | 'authorization'>): string {
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

/** What the chain says of one settlement now. */
export type ChainVerdict =
  /**
   * It landed: the transaction, its block, the value the token moved from the payer to the payee in it, and
   * the `Transfer` log's index (what the one transfer is known by).
   */
  | { kind: 'landed'; transaction: Hash; block: bigint; value: bigint; logIndex: number }
  /** Not on the chain yet, and it still may be (its validity has not ended). */
  | { kind: 'pending' }
  /** It never can be (`why`), and, where the chain showed one, the transaction that spent its nonce. */
  | { kind: 'never'; why: NeverWhy; transaction?: Hash };

/** EIP-3009's two ways to move a signed authorization: what an `exact` payment's transaction is read as. */
const TRANSFER_WITH_AUTHORIZATION_ABI = /* @__PURE__ */ parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, ' +
    'uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, ' +
    'bytes signature)',
]);

/**
 * The `Transfer` a mined transaction shows for an authorization, when it shows it: the token's
 * `AuthorizationUsed` for this payer and nonce, and the first `Transfer` after it from the payer to the
 * payee of the amount (the token emits them in that order), so that a transaction settling two payments
 * of one amount pairs each with its own.
 */
function shows(m: MinedTransfers, a: { from: Address; to: Address; nonce: Hex; value: bigint }): number | undefined {
  if (m.status !== 'success') return undefined;
  const used = m.used.find((u) => getAddress(u.authorizer) === a.from && u.nonce.toLowerCase() === a.nonce.toLowerCase());
  if (!used) return undefined;
  const moved = m.transfers
    .filter((t) => t.logIndex > used.logIndex && getAddress(t.from) === a.from && getAddress(t.to) === a.to && t.value === a.value)
    .sort((x, y) => x.logIndex - y.logIndex)[0];
  return moved?.logIndex;
}

/**
 * How one scheme's payment shows on the chain, for `readVerdict`: the transaction it landed in (when `tx`
 * is one), whether its nonce is spent as of a block, where it was spent (a verdict, or undefined: not
 * readable yet), and whether a block's time is past the last one it could land in.
 */
export interface LandingRules {
  landedIn(tx: Hash): Promise<ChainVerdict | undefined>;
  spent(block: bigint): Promise<boolean>;
  whereSpent(): Promise<ChainVerdict | undefined>;
  expired(blockTime: bigint): boolean;
}

/**
 * Holon's own reading of the chain for a settlement, as its scheme's rules read it: the transaction the
 * payee named, when it shows the payment in a block after the one it was signed at; else, once the nonce is
 * spent, where — never this payment when it was spent already at the block it was signed at (an earlier
 * payment of the same terms), or by a transaction that does not show it; else, whether it still can land.
 * Nothing the payee said is taken for more than where to look first. Whether the transfer it shows already
 * landed another settlement is for the one who records it (landing.ts), under the journal's lock.
 */
export async function readVerdict(
  reader: ChainReader,
  r: Pick<Settlement, 'claimed' | 'from_block'>,
  rules: LandingRules,
): Promise<ChainVerdict> {
  const signedAt = r.from_block === null ? null : BigInt(r.from_block);
  // Mined at or before the block that was the chain's head when it was signed: not this payment.
  const after = (v: ChainVerdict): ChainVerdict =>
    v.kind === 'landed' && signedAt !== null && v.block <= signedAt
      ? { kind: 'never', why: 'spent_before', transaction: v.transaction }
      : v;
  if (r.claimed && /^0x[0-9a-fA-F]{64}$/.test(r.claimed.transaction)) {
    const claimed = await rules.landedIn(r.claimed.transaction as Hash);
    if (claimed?.kind === 'landed' && after(claimed).kind === 'landed') return claimed;
  }
  // The head first, then the nonce as of that block: a payment landing between the two reads can never
  // be taken for one that expired.
  const head = await reader.head();
  if (await rules.spent(head.number)) {
    // Spent already in the block that was the head when it was signed: spent before it was.
    if (signedAt !== null && (signedAt >= head.number || (await rules.spent(signedAt)))) return { kind: 'never', why: 'spent_before' };
    const where = await rules.whereSpent();
    if (where) return after(where);
    // Spent, and nowhere to be read since it was signed: not this payment, once it could no longer land anyway.
    return rules.expired(head.timestamp) ? { kind: 'never', why: 'spent_elsewhere' } : { kind: 'pending' };
  }
  return rules.expired(head.timestamp) ? { kind: 'never', why: 'expired' } : { kind: 'pending' };
}

/**
 * An EIP-3009 (`exact`) settlement on the chain: landed where a transaction shows its status, the token's
 * `AuthorizationUsed` with this payer and nonce, its `Transfer` from the payer to the payee of the amount
 * and — where the transaction calls `transferWithAuthorization` itself — this authorization's own
 * validity; spent as the token's authorization state says; never once cancelled, once its nonce was
 * spent by something else, or once a block's time reaches `validBefore` (the token refuses it from then on).
 */
export async function chainVerdict(reader: ChainReader, r: Settlement): Promise<ChainVerdict> {
  const a = {
    from: getAddress(r.authorization.from),
    to: getAddress(r.authorization.to),
    nonce: r.authorization.nonce as Hex,
    value: BigInt(r.authorization.value),
  };
  const landedIn = async (tx: Hash): Promise<ChainVerdict | undefined> => {
    const mined = await reader.mined(tx);
    const logIndex = mined ? shows(mined, a) : undefined;
    if (!mined || logIndex === undefined) return undefined;
    // Two authorizations of one nonce (the same terms signed twice) show the same Transfer: the call tells
    // which of them the transaction carried, where it is the token's own.
    if (!(await carries(reader, tx, r.authorization))) return { kind: 'never', why: 'spent_elsewhere', transaction: mined.transaction };
    return { kind: 'landed', transaction: mined.transaction, block: mined.block, value: a.value, logIndex };
  };
  return readVerdict(reader, r, {
    landedIn,
    spent: (block) => reader.authorizationSpent(a.from, a.nonce, block),
    whereSpent: async () => {
      const tx = await reader.spentIn(a.from, a.nonce, BigInt(r.from_block ?? '0'));
      if (!tx) return undefined;
      const found = await landedIn(tx);
      if (found) return found;
      const mined = await reader.mined(tx);
      // Not served yet: read again later.
      if (!mined) return undefined;
      const cancelled = mined.canceled.some((c) => getAddress(c.authorizer) === a.from && c.nonce.toLowerCase() === a.nonce.toLowerCase());
      return { kind: 'never', why: cancelled ? 'cancelled' : 'spent_elsewhere', transaction: mined.transaction };
    },
    expired: (blockTime) => blockTime >= BigInt(r.authorization.validBefore),
  });
}

/**
 * False when transaction `tx` calls the token's `transferWithAuthorization` with another validity than
 * `a`'s (so it carries another authorization of the same nonce); true when it carries `a`, or calls
 * something else (a facilitator's contract, a batch), where the logs alone are read.
 */
async function carries(reader: ChainReader, tx: Hash, a: Authorization): Promise<boolean> {
  const call = await reader.called(tx);
  if (!call?.to || getAddress(call.to) !== reader.config.token) return true;
  try {
    const d = decodeFunctionData({ abi: TRANSFER_WITH_AUTHORIZATION_ABI, data: call.input });
    const [, , , validAfter, validBefore] = d.args as readonly [Address, Address, bigint, bigint, bigint, Hex, ...unknown[]];
    return validAfter === BigInt(a.validAfter) && validBefore === BigInt(a.validBefore);
  } catch {
    return true;
  }
}

/** `share` of `total` in the units of `units`, exactly or rounded up (never in the mandate's favour). */
function shareOf(units: bigint, part: bigint, total: bigint): bigint {
  return total === 0n ? 0n : (units * part + total - 1n) / total;
}

/** The value the chain showed moving for a settlement that landed: what it read, else (older records) all it authorized. */
function landedValue(r: Pick<Settlement, 'landed' | 'authorization'>): bigint {
  return BigInt(r.landed?.value ?? r.authorization.value);
}

/**
 * What a settlement's hold is charged once it landed, in the mandate's currency: all it carries, or, for an
 * `upto` payment settled for less than authorized, the same share of it as the chain moved of the value
 * authorized (rounded up); the rest goes back to the mandate.
 */
export function chargeOf(r: Pick<Settlement, 'landed' | 'authorization' | 'held'>): MoneyJson {
  const max = BigInt(r.authorization.value);
  const value = landedValue(r);
  if (value >= max) return { ...r.held };
  return { amount: formatUnits(shareOf(parseUnits(r.held.amount), value, max)), currency: r.held.currency };
}

/** What a settlement paid, in the token's currency: its amount, or an `upto` payment's share of its maximum the chain moved. */
export function paidOf(r: Pick<Settlement, 'landed' | 'authorization' | 'amount'>): MoneyJson {
  const max = BigInt(r.authorization.value);
  const value = landedValue(r);
  if (value >= max) return { ...r.amount };
  return { amount: formatUnits(shareOf(parseUnits(r.amount.amount), value, max)), currency: r.amount.currency };
}

/** How the chain showed a payment can never land, in words. */
const NEVER_WORDS: Record<NeverWhy, string> = {
  expired: 'its authorization lapsed before it was sent',
  cancelled: 'its authorization was cancelled on the chain',
  spent_before: 'its nonce was spent before it was signed: these terms were paid already',
  spent_elsewhere: 'its nonce was spent by a transaction that is not this payment',
};

/** When an authorization can no longer be settled: its `validBefore` (seconds) as a UTC time. */
export function lapsesAt(r: Pick<Settlement, 'authorization'>): string {
  const seconds = Number(r.authorization.validBefore);
  return Number.isSafeInteger(seconds) && seconds * 1000 <= 8.64e15 ? new Date(seconds * 1000).toISOString() : r.authorization.validBefore;
}

/** How a settlement reads for a human and an agent: `landed in block N`, or what else it is. Holon's own words only. */
export function settlementWords(
  r: Pick<
    Settlement,
    'status' | 'landed' | 'flag' | 'network' | 'refund' | 'scheme' | 'amount' | 'authorization' | 'never' | 'release' | 'cancel'
  >,
): string {
  const upto = r.scheme === 'upto' ? `authorized up to ${r.amount.amount} ${r.amount.currency}, ` : '';
  switch (r.status) {
    case 'landed': {
      const flag = r.flag ? `; flagged: ${r.flag.detail}` : '';
      const released = r.release ? '; it landed after a human released it, so it is counted as spent' : '';
      const refund = !r.refund
        ? ''
        : r.refund.block
          ? `; its refund landed in block ${r.refund.block}`
          : '; its refund is not on the chain yet';
      const paid = upto ? `${upto}paid ${paidOf(r).amount} ${r.amount.currency}, ` : '';
      return `${paid}landed in block ${r.landed?.block ?? '?'} (${r.network})${flag}${released}${refund}`;
    }
    case 'signed':
      return `${upto}not landed yet (it can land until ${lapsesAt(r)})`;
    case 'expired':
      return `not landed: it never can now (${r.never ? NEVER_WORDS[r.never] : 'its authorization lapsed'}); nothing moved`;
    case 'flagged':
      return `not landed: flagged (${r.flag?.detail ?? 'the payee says it was paid'}), its money held for you`;
    case 'releasing':
      return (
        `not landed: released by a human; its money stays held until it can no longer land — ` +
        (r.cancel ? 'its cancellation was sent to the chain, ' : '') +
        `its authorization lapses at ${lapsesAt(r)}; if it lands before then, it is counted as spent`
      );
    case 'released':
      return (
        `not landed: released by a human, and it can no longer land (${r.never ? NEVER_WORDS[r.never] : 'nothing moved'}); ` +
        'nothing counted'
      );
    case 'kept':
      return 'not landed: kept as spent by a human';
    case 'unchecked':
      return 'not checked: no chain was configured to read it on';
  }
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

/** A settlement as receipts show it: what an agent and a human read (never the signed payment itself). */
export interface SettlementView {
  id: string;
  status: SettlementStatus;
  /** `landed in block N`, `not landed…`. */
  summary: string;
  network: string;
  payee: string;
  /** What it paid (landed), or pays: an `upto` payment's is what the chain moved once it landed, its maximum before. */
  amount: MoneyJson;
  /** An `upto` payment's maximum, what the wallet authorized; null for `exact`, whose amount is what it authorized. */
  authorized: MoneyJson | null;
  transaction: string | null;
  block: string | null;
  /**
   * The transaction the payee named, where it named one: as named when it has a transaction's form (0x and
   * 64 hex digits), else marked as data (the payee's words, never Holon's).
   */
  claimed_transaction: string | null;
  flag: { reason: FlagReason; detail: string; approval: string | null } | null;
  /** A channel's refund at its closing: what comes back, and where Holon read it (null until it did). */
  refund: { amount: MoneyJson; transaction: string | null; block: string | null; credited: MoneyJson | null } | null;
}

/** The transaction a payee named, as anyone is shown it: as named when it has a transaction's form, else marked as its data. */
export function claimedTransaction(r: Pick<Settlement, 'claimed'>): string | null {
  return r.claimed ? transactionAsNamed(r.claimed.by, r.claimed.transaction) : null;
}

/** The view of a settlement. */
export function settlementView(r: Settlement): SettlementView {
  return {
    id: r.id,
    status: r.status,
    summary: settlementWords(r),
    network: r.network,
    payee: r.payee,
    amount: r.status === 'landed' ? paidOf(r) : { ...r.amount },
    authorized: r.scheme === 'upto' ? { ...r.amount } : null,
    transaction: r.landed?.transaction ?? null,
    block: r.landed?.block ?? null,
    claimed_transaction: claimedTransaction(r),
    flag: r.flag ? { ...r.flag } : null,
    refund: r.refund
      ? {
          amount: { amount: refundAmount(r), currency: r.amount.currency },
          transaction: r.refund.transaction,
          block: r.refund.block,
          credited: r.refund.credited,
        }
      : null,
  };
}

/** A refund's value in the token's currency, exact: the deposit's amount scaled by the value's share of it. */
function refundAmount(r: Settlement): string {
  const total = BigInt(r.authorization.value);
  const units = parseUnits(r.amount.amount);
  return formatUnits(total === 0n ? 0n : (units * BigInt(r.refund?.value ?? '0')) / total);
}
