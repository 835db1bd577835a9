/**
 * Settlement records: every payment Holon signs on a chain gets one, written to the journal before the
 * payment leaves the process, so that a retry, or the next process after a crash, finds it. It keeps the
 * signed payment itself (to resend exactly that one, never a second), the hold that carries its money,
 * the transaction the seller or merchant said it landed in, and what Holon's own reading of the chain
 * found: landed in block N, or not. The chain decides: a payment is `landed` only when Holon read the
 * token's `Transfer` and `AuthorizationUsed` for it, and `expired` only when the chain proves it can never
 * land (its nonce unspent after its validity ended). One the payee claims and the chain does not show is
 * `flagged`, its hold kept until a human decides (approvals/kinds/unlandedPayment.ts).
 *
 * This file is the record, its events and its fold, and the one reading of the chain a record is judged
 * by (`chainVerdict`); what each outcome does to the spend it pays for is landing.ts.
 */
import type { Address, Hash, Hex } from 'viem';
import { getAddress } from 'viem';
import type { MoneyJson } from '../amount.ts';
import { formatUnits, parseUnits } from '../amount.ts';
import type { Slice } from '../slice.ts';
import { eventsOf } from '../slice.ts';
import type { Dict } from '../util.ts';
import { dict, toDict } from '../util.ts';
import type { ChainReader, MinedTransfers } from './chain.ts';

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
 * it. `expired`: it never landed and no longer can (its money went back). `flagged`: the payee says it
 * was paid and the chain does not show it (its money held for a human). `released` and `kept`: a human
 * decided a flagged one (money back, or counted as spent). `unchecked`: no chain is configured to read
 * it on, so it counts as spent from the moment it was signed, as a signed authorization can be taken.
 */
export const SETTLEMENT_STATUSES = ['signed', 'landed', 'expired', 'flagged', 'released', 'kept', 'unchecked'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

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
   * the authorization's value).
   */
  landed: { transaction: string; block: string; value?: string } | null;
  flag: { reason: FlagReason; detail: string; approval: string | null } | null;
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

/** The settlements' part of the state. */
export interface SettlementFields {
  settlements: Dict<Settlement>;
  /** What a spend's settlement is, by `kind:id` of what it pays for (the newest). */
  settlement_of: Dict<string>;
}

/** The settlements' events. */
export interface SettlementEvents {
  /** A payment was signed and is about to be sent; `status` is `signed`, or `unchecked` where no chain reads it. */
  'settlement.signed': { settlement: Omit<Settlement, 'claimed' | 'landed' | 'flag' | 'signed_at' | 'updated_at'> };
  /** The payee (its seller, merchant or facilitator) named the transaction it says the payment landed in. */
  'settlement.claimed': { settlement: string; transaction: string; by: string };
  /** Holon read the payment on the chain. */
  'settlement.landed': { settlement: string; transaction: string; block: string; value?: string };
  /** The chain shows it can never land: its nonce was not spent before its validity ended (or was cancelled). */
  'settlement.expired': { settlement: string; why: string };
  /** It is flagged to the human; `approval` asks them what to do with its hold, where one is held. */
  'settlement.flagged': { settlement: string; reason: FlagReason; detail: string; approval: string | null };
  /** A human decided a flagged settlement: its money goes back (`released`), or stays spent (`kept`). */
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

/** True while the chain may still change what a settlement is (signed, or flagged and undecided). */
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

function touch(s: SettlementFields, id: string, at: string, change: (r: Settlement) => void): void {
  const r = s.settlements[id];
  if (!r) return;
  change(r);
  r.updated_at = at;
}

export const settlementSlice: Slice<SettlementFields, SettlementEvents> = {
  initial: () => ({ settlements: dict(), settlement_of: dict() }),
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
      s.settlements[r.id] = r;
      s.settlement_of[settlementKey(r.for)] = r.id;
    },
    'settlement.claimed': (s, d, e) =>
      touch(s, d.settlement, e.time, (r) => {
        r.claimed = { transaction: d.transaction, by: d.by };
      }),
    'settlement.landed': (s, d, e) =>
      touch(s, d.settlement, e.time, (r) => {
        r.status = 'landed';
        r.landed = { transaction: d.transaction, block: d.block, ...(d.value !== undefined ? { value: d.value } : {}) };
      }),
    'settlement.expired': (s, d, e) =>
      touch(s, d.settlement, e.time, (r) => {
        // A flagged one waits for the human, whatever the chain says.
        if (r.status === 'signed') r.status = 'expired';
      }),
    'settlement.flagged': (s, d, e) =>
      touch(s, d.settlement, e.time, (r) => {
        if (r.status === 'signed') r.status = 'flagged';
        r.flag = { reason: d.reason, detail: d.detail, approval: d.approval };
      }),
    'settlement.decided': (s, d, e) =>
      touch(s, d.settlement, e.time, (r) => {
        if (r.status === 'flagged') r.status = d.outcome;
      }),
    'settlement.refund_expected': (s, d, e) =>
      touch(s, d.settlement, e.time, (r) => {
        r.refund = { value: d.value, from: d.from, from_block: d.from_block, transaction: null, block: null, credited: null };
      }),
    'settlement.refunded': (s, d, e) =>
      touch(s, d.settlement, e.time, (r) => {
        if (!r.refund || r.refund.transaction) return;
        r.refund = { ...r.refund, transaction: d.transaction, block: d.block, credited: { ...d.credit.amount } };
      }),
  },
  revive: (s) => {
    s.settlements = toDict(s.settlements);
    s.settlement_of = toDict(s.settlement_of);
  },
};

/** What the chain says of one settlement now. */
export type ChainVerdict =
  /** It landed: the transaction, its block, and the value the token moved from the payer to the payee in it. */
  | { kind: 'landed'; transaction: Hash; block: bigint; value: bigint }
  /** Not on the chain yet, and it still may be (its validity has not ended). */
  | { kind: 'pending' }
  /** It never can be: the validity ended with the nonce unspent, or the authorization was cancelled. */
  | { kind: 'never'; why: 'expired' | 'cancelled' };

/** The payment a mined transaction shows for an authorization, when it shows it: the nonce spent, and its Transfer. */
function shows(m: MinedTransfers, a: { from: Address; to: Address; nonce: Hex; value: bigint }): boolean {
  if (m.status !== 'success') return false;
  const used = m.used.some((u) => getAddress(u.authorizer) === a.from && u.nonce.toLowerCase() === a.nonce.toLowerCase());
  const moved = m.transfers.some((t) => getAddress(t.from) === a.from && getAddress(t.to) === a.to && t.value === a.value);
  return used && moved;
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
 * payee named, when it shows the payment; else, once the nonce is spent, the transaction that spent it,
 * found on the chain itself; else, whether the payment still can land. Nothing the payee said is taken
 * for more than where to look first.
 */
export async function readVerdict(reader: ChainReader, r: Settlement, rules: LandingRules): Promise<ChainVerdict> {
  if (r.claimed && /^0x[0-9a-fA-F]{64}$/.test(r.claimed.transaction)) {
    const claimed = await rules.landedIn(r.claimed.transaction as Hash);
    if (claimed) return claimed;
  }
  // The head first, then the nonce as of that block: a payment landing between the two reads can never
  // be taken for one that expired.
  const head = await reader.head();
  if (await rules.spent(head.number)) return (await rules.whereSpent()) ?? { kind: 'pending' };
  return rules.expired(head.timestamp) ? { kind: 'never', why: 'expired' } : { kind: 'pending' };
}

/**
 * An EIP-3009 (`exact`) settlement on the chain: landed where a transaction shows its status, the token's
 * `AuthorizationUsed` with this payer and nonce, and its `Transfer` from the payer to the payee of the
 * amount; spent as the token's authorization state says; never once cancelled, or once a block's time
 * reaches `validBefore` (the token refuses it from then on).
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
    return mined && shows(mined, a) ? { kind: 'landed', transaction: mined.transaction, block: mined.block, value: a.value } : undefined;
  };
  return readVerdict(reader, r, {
    landedIn,
    spent: (block) => reader.authorizationSpent(a.from, a.nonce, block),
    whereSpent: async () => {
      const tx = await reader.spentIn(a.from, a.nonce, BigInt(r.from_block ?? '0'));
      if (!tx) return undefined;
      const found = await landedIn(tx);
      if (found) return found;
      // Spent without this payment's Transfer: the authorization was cancelled (or the logs are not served yet).
      const mined = await reader.mined(tx);
      const cancelled = mined?.canceled.some((c) => getAddress(c.authorizer) === a.from && c.nonce.toLowerCase() === a.nonce.toLowerCase());
      return cancelled ? { kind: 'never', why: 'cancelled' } : undefined;
    },
    expired: (blockTime) => blockTime >= BigInt(r.authorization.validBefore),
  });
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

/** How a settlement reads for a human and an agent: `landed in block N`, or what else it is. */
export function settlementWords(
  r: Pick<Settlement, 'status' | 'landed' | 'flag' | 'network' | 'refund' | 'scheme' | 'amount' | 'authorization'>,
): string {
  const upto = r.scheme === 'upto' ? `authorized up to ${r.amount.amount} ${r.amount.currency}, ` : '';
  switch (r.status) {
    case 'landed': {
      const flag = r.flag ? `; flagged: ${r.flag.detail}` : '';
      const refund = !r.refund
        ? ''
        : r.refund.block
          ? `; its refund landed in block ${r.refund.block}`
          : '; its refund is not on the chain yet';
      const paid = upto ? `${upto}paid ${paidOf(r).amount} ${r.amount.currency}, ` : '';
      return `${paid}landed in block ${r.landed?.block ?? '?'} (${r.network})${flag}${refund}`;
    }
    case 'signed':
      return `${upto}not landed yet`;
    case 'expired':
      return 'not landed: it never can now (nothing moved)';
    case 'flagged':
      return `not landed: flagged (${r.flag?.detail ?? 'the payee says it was paid'}), its money held for you`;
    case 'released':
      return 'not landed: released by a human (nothing counted)';
    case 'kept':
      return 'not landed: kept as spent by a human';
    case 'unchecked':
      return 'not checked: no chain is configured to read it on';
  }
}

/** True while a settlement waits for the chain: its payment, or a refund of it (a channel's closing). */
export function awaitsChain(r: Settlement): boolean {
  return isOpen(r) || (r.status === 'landed' && !!r.refund && r.refund.transaction === null);
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
  /** The transaction the payee named, where it named one. */
  claimed_transaction: string | null;
  flag: { reason: FlagReason; detail: string; approval: string | null } | null;
  /** A channel's refund at its closing: what comes back, and where Holon read it (null until it did). */
  refund: { amount: MoneyJson; transaction: string | null; block: string | null; credited: MoneyJson | null } | null;
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
    claimed_transaction: r.claimed?.transaction ?? null,
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
